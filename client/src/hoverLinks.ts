/**
 * Hover links the editor can follow. The server writes editor-neutral links (`file:///abs#L12` and
 * `memlens-transcript:/<sessionKey>.md?message=<id>`); VS Code's markdown renderer drops links of unknown schemes
 * (the transcript hits were plain text), so the client rewrites both into `command:` links to its own commands and
 * marks the markdown trusted for exactly those commands. Pure (no `vscode` import): unit-tested.
 */

import { parseTranscriptUriString, type TranscriptRef } from './transcriptUri';

/** The commands a hover may run (MarkdownString.isTrusted.enabledCommands). */
export const HOVER_COMMANDS = ['memlens.openTranscript', 'memlens.openFileAt'] as const;

export interface FileLocation {
  /** a `file:` URI string */
  uri: string;
  /** 1-based */
  line?: number;
}

export function commandLink(command: string, arg: unknown): string {
  return `command:${command}?${encodeURIComponent(JSON.stringify([arg]))}`;
}

/** A markdown link title as the server writes it (`"…"`, `\\"` and `\\\\` escaped), unescaped. */
function unescapeTitle(title: string): string {
  return title.replace(/\\(["\\])/g, '$1');
}

/** A link title for markdown (`"…"`): quotes and backslashes escaped. */
function linkTitle(text: string): string {
  return ` "${text.replace(/(["\\])/g, '\\$1')}"`;
}

/**
 * Rewrite the markdown link targets of a memlens hover into trusted command links; other links are left alone. A
 * transcript link's title (its session's title, `[first words](memlens-transcript:… "Session title")`) stays the
 * link's tooltip and goes with the command, so the opened tab is titled by it.
 */
export function rewriteHoverLinks(markdown: string): string {
  return markdown.replace(
    /\]\(((?:memlens-transcript|file):[^)\s]+)(?: "((?:[^"\\]|\\.)*)")?\)/g,
    (whole, target: string, rawTitle: string | undefined) => {
      if (target.startsWith('memlens-transcript:')) {
        const parsed: TranscriptRef | undefined = parseTranscriptUriString(target);
        if (!parsed) {
          return whole;
        }
        const title = rawTitle ? unescapeTitle(rawTitle) : undefined;
        const ref: TranscriptRef = title ? { ...parsed, title } : parsed;
        const tip = title ? `${title} — open the transcript at this message` : 'Open the transcript at this message';
        return `](${commandLink('memlens.openTranscript', ref)}${linkTitle(tip)})`;
      }
      const m = /^(file:[^#]*)(?:#L(\d+))?/.exec(target);
      if (!m) {
        return whole;
      }
      const location: FileLocation = m[2] ? { uri: m[1], line: Number(m[2]) } : { uri: m[1] };
      return `](${commandLink('memlens.openFileAt', location)} "Open the file at this line")`;
    },
  );
}
