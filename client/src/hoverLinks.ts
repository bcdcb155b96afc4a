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

/** Rewrite the markdown link targets of a memlens hover into trusted command links; other links are left alone. */
export function rewriteHoverLinks(markdown: string): string {
  return markdown.replace(/\]\(((?:memlens-transcript|file):[^)\s]+)\)/g, (whole, target: string) => {
    if (target.startsWith('memlens-transcript:')) {
      const ref: TranscriptRef | undefined = parseTranscriptUriString(target);
      return ref ? `](${commandLink('memlens.openTranscript', ref)} "Open the transcript at this message")` : whole;
    }
    const m = /^(file:[^#]*)(?:#L(\d+))?/.exec(target);
    if (!m) {
      return whole;
    }
    const location: FileLocation = m[2] ? { uri: m[1], line: Number(m[2]) } : { uri: m[1] };
    return `](${commandLink('memlens.openFileAt', location)} "Open the file at this line")`;
  });
}
