/**
 * Read-only transcript documents: `memlens-transcript:/<sessionKey url-encoded>.md?message=<messageId>` rendered as
 * markdown from `memlens.history`, opened and revealed at the anchored message.
 */

import * as vscode from 'vscode';
import { displayTimeOptions } from './displayTime';
import { errorMessage } from './errors';
import {
  earlierPageParams,
  keptTopLine,
  type RelatedSessions,
  renderTranscript,
  SHOW_EARLIER,
  withEarlierPage,
} from './transcriptMarkdown';
import { ToolFolds } from './transcriptFolds';
import { parseTranscriptUri, parseTranscriptUriString, TRANSCRIPT_SCHEME, type TranscriptRef, transcriptUriComponents } from './transcriptUri';
import { Commands, type HistoryParams, type HistoryResponse, type SessionsResponse } from './protocol';
import { termRanges } from './query';
import type { ServerManager } from './serverLauncher';

/** How many messages around the anchor are asked for. */
const HISTORY_LIMIT = 200;

/** The command the "show earlier messages" link runs (internal: not in the palette). */
const SHOW_EARLIER_COMMAND = 'memlens.transcript.showEarlier';

export function transcriptUri(ref: TranscriptRef): vscode.Uri {
  return vscode.Uri.from(transcriptUriComponents(ref));
}

/** Resolves once the editor's visible lines change, or after `ms` (a scroll to where it already is changes none). */
function visibleRangesChange(editor: vscode.TextEditor, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => done(), ms);
    const listener = vscode.window.onDidChangeTextEditorVisibleRanges((e) => {
      if (e.textEditor === editor) {
        done();
      }
    });
    const done = (): void => {
      clearTimeout(timer);
      listener.dispose();
      resolve();
    };
  });
}

/**
 * Scroll `line` to the editor's top edge. Revealing a line "at the top" leaves rows above it (room for the sticky
 * headings, `editor.cursorSurroundingLines`), so the line lands lower than it was: the editor is then scrolled by
 * the lines left above it, and the reader's line stays where it was on the screen.
 */
async function showAtTop(editor: vscode.TextEditor, line: number): Promise<void> {
  const position = new vscode.Position(line, 0);
  const revealed = visibleRangesChange(editor, 500);
  editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.AtTop);
  await revealed;
  const top = editor.visibleRanges[0]?.start.line;
  if (top !== undefined && top < line && vscode.window.activeTextEditor === editor) {
    await vscode.commands.executeCommand('editorScroll', { to: 'down', by: 'line', value: line - top });
  }
}

export class TranscriptViewer implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  /** uri → 0-based line of the anchored message, computed while rendering */
  private readonly anchorLines = new Map<string, number>();
  /** tool calls folded to their summary line */
  private readonly folds = new ToolFolds({ scheme: TRANSCRIPT_SCHEME });
  /** uri → the history it shows and each message's heading line, to load the page before it */
  private readonly shown = new Map<string, { history: HistoryResponse; messageLines: Record<string, number> }>();
  /** uri → the history with earlier pages put in front, rendered instead of asking the server again */
  private readonly extended = new Map<string, HistoryResponse>();
  /** documents loading their earlier page (a second click while it loads does nothing) */
  private readonly loadingEarlier = new Set<string>();
  private readonly registration: vscode.Disposable;
  private readonly listeners: vscode.Disposable[];
  /** documents already scrolled to their anchor (by `open` or on first showing) */
  private readonly revealed = new Set<string>();
  /** uri → the words to highlight (the query that found the session) */
  private readonly terms = new Map<string, readonly string[]>();
  /** session key → its title, for tab titles */
  private readonly titles = new Map<string, string>();
  private readonly matchDecoration = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('editor.findMatchHighlightBackground'),
    borderColor: new vscode.ThemeColor('editor.findMatchHighlightBorder'),
    borderStyle: 'solid',
    borderWidth: '1px',
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.findMatchForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Center,
  });

  readonly onDidChange = this.changed.event;

  constructor(private readonly server: ServerManager) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(TRANSCRIPT_SCHEME, this);
    // Transcripts opened from elsewhere (e.g. a `memlens-transcript:` link in a hover) also start at their anchor.
    this.listeners = [
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        const uri = editor?.document.uri;
        if (editor && uri?.scheme === TRANSCRIPT_SCHEME && !this.revealed.has(uri.toString())) {
          this.revealed.add(uri.toString());
          this.revealAnchor(editor);
          void this.folds.fold(editor, () => this.revealAnchor(editor));
        }
      }),
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (doc.uri.scheme === TRANSCRIPT_SCHEME) {
          this.revealed.delete(doc.uri.toString());
          this.anchorLines.delete(doc.uri.toString());
          this.folds.forget(doc.uri.toString());
          this.shown.delete(doc.uri.toString());
          this.extended.delete(doc.uri.toString());
          this.terms.delete(doc.uri.toString());
        }
      }),
      vscode.window.onDidChangeVisibleTextEditors((editors) => {
        for (const editor of editors) {
          this.decorate(editor);
        }
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.scheme === TRANSCRIPT_SCHEME) {
          for (const editor of vscode.window.visibleTextEditors.filter((ed) => ed.document === e.document)) {
            this.decorate(editor);
          }
        }
      }),
      this.folds,
      // links between sessions (a subagent's parent, a session's subagents) open in the viewer
      vscode.languages.registerDocumentLinkProvider({ scheme: TRANSCRIPT_SCHEME }, { provideDocumentLinks: (doc) => this.links(doc) }),
      // the link names no document: VS Code decodes a command link's arguments once more than a URI encodes them, so
      // a transcript's URI passed in one came back changed (a title's `%20` a space) and named no shown document. The
      // link is clicked (or opened from the keyboard) in its own editor, which is the active one then.
      vscode.commands.registerCommand(SHOW_EARLIER_COMMAND, () => {
        const key = vscode.window.activeTextEditor?.document.uri.toString();
        return key && this.shown.has(key) ? this.showEarlier(key) : undefined;
      }),
    ];
  }

  /** `memlens-transcript:` links in a rendered transcript. */
  private links(doc: vscode.TextDocument): vscode.DocumentLink[] {
    const links: vscode.DocumentLink[] = [];
    const text = doc.getText();
    for (const m of text.matchAll(/\[([^\]\n]*)\]\((memlens-transcript:[^)\s]+)\)/g)) {
      const target = m[2];
      const parsed = parseTranscriptUriString(target);
      if (!parsed) {
        continue;
      }
      // the link's text is the session's title (transcriptMarkdown.sessionLink): the opened tab is titled by it
      const ref: TranscriptRef = m[1] && m[1] !== parsed.sessionKey ? { ...parsed, title: m[1] } : parsed;
      const start = doc.positionAt((m.index ?? 0) + m[1].length + 3);
      const link = new vscode.DocumentLink(new vscode.Range(start, start.translate(0, target.length)), transcriptUri(ref));
      link.tooltip = 'Open this session';
      links.push(link);
    }
    // the line is the header's, above the first message: a message quoting it is no link
    const header = text.slice(0, Math.max(0, text.indexOf('\n---\n')));
    const earlier = header.indexOf(`— ${SHOW_EARLIER}`);
    if (earlier >= 0 && this.shown.get(doc.uri.toString())?.history.hasMoreBefore) {
      const start = doc.positionAt(earlier + 2);
      const link = new vscode.DocumentLink(
        new vscode.Range(start, start.translate(0, SHOW_EARLIER.length)),
        vscode.Uri.parse(`command:${SHOW_EARLIER_COMMAND}`),
      );
      link.tooltip = 'Load the messages before these';
      links.push(link);
    }
    return links;
  }

  /** Highlight the query's words in a transcript editor. */
  private decorate(editor: vscode.TextEditor): void {
    const key = editor.document.uri.toString();
    if (editor.document.uri.scheme !== TRANSCRIPT_SCHEME) {
      return;
    }
    const terms = this.terms.get(key) ?? [];
    const doc = editor.document;
    const ranges = termRanges(doc.getText(), terms)
      .slice(0, 2000)
      .map(([a, b]) => new vscode.Range(doc.positionAt(a), doc.positionAt(b)));
    editor.setDecorations(this.matchDecoration, ranges);
  }

  /** The parent and the subagents of a session (from memlens.sessions; empty when that fails). */
  private async related(history: HistoryResponse, token: vscode.CancellationToken): Promise<RelatedSessions> {
    try {
      const response = await this.server.execute<SessionsResponse>(
        Commands.sessions,
        { query: history.sessionId, limit: 200 },
        token,
      );
      const parentKey = history.parentSessionKey ?? undefined;
      const parent = parentKey ? response.sessions.find((s) => s.sessionKey === parentKey) : undefined;
      const children = response.sessions
        .filter((s) => s.parentSessionKey === history.sessionKey)
        .sort((a, b) => (a.firstTime ?? '').localeCompare(b.firstTime ?? ''))
        .map((s) => ({ sessionKey: s.sessionKey, title: s.title, firstTime: s.firstTime }));
      return { parent: parentKey ? { sessionKey: parentKey, title: parent?.title } : undefined, children };
    } catch {
      return {};
    }
  }

  private revealAnchor(editor: vscode.TextEditor): void {
    const doc = editor.document;
    const line = Math.min(this.anchorLine(doc.uri), Math.max(0, doc.lineCount - 1));
    const position = new vscode.Position(line, 0);
    editor.selection = new vscode.Selection(position, position);
    editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.AtTop);
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const ref = parseTranscriptUri(uri.path, uri.query);
    const params: HistoryParams = { sessionKey: ref.sessionKey, limit: HISTORY_LIMIT };
    if (ref.messageId) {
      params.messageId = ref.messageId;
    }
    try {
      const key = uri.toString();
      const history = this.extended.get(key) ?? (await this.server.execute<HistoryResponse>(Commands.history, params, token));
      this.extended.delete(key);
      const rendered = renderTranscript(history, displayTimeOptions(), await this.related(history, token));
      this.anchorLines.set(key, rendered.anchorLine);
      this.folds.set(key, rendered.toolRanges);
      this.shown.set(key, { history, messageLines: rendered.messageLines });
      return rendered.markdown;
    } catch (err) {
      const message = errorMessage(err);
      this.server.output.error(`memlens.history ${ref.sessionKey}: ${message}`);
      void vscode.window.showErrorMessage(`memlens: cannot show the transcript: ${message}`);
      this.anchorLines.set(uri.toString(), 0);
      return `# Cannot show this transcript\n\nSession \`${ref.sessionKey}\`\n\n${message}\n`;
    }
  }

  /**
   * Put the page before the first shown message in front of it, in the same document, and keep the reader's line
   * where it was on the screen (the lines above it grew).
   */
  private async showEarlier(key: string): Promise<void> {
    if (this.loadingEarlier.has(key)) {
      return;
    }
    this.loadingEarlier.add(key);
    try {
      await this.loadEarlier(key);
    } finally {
      this.loadingEarlier.delete(key);
    }
  }

  private async loadEarlier(key: string): Promise<void> {
    const shown = this.shown.get(key);
    const params = shown && earlierPageParams(shown.history);
    if (!shown || !params) {
      return;
    }
    let page: HistoryResponse;
    try {
      page = await this.server.execute<HistoryResponse>(Commands.history, params);
    } catch (err) {
      void vscode.window.showErrorMessage(`memlens: cannot load the earlier messages: ${errorMessage(err)}`);
      return;
    }
    const merged = withEarlierPage(shown.history, page);
    if (merged === shown.history) {
      void vscode.window.showWarningMessage('memlens: the session changed since it was shown; reopen it to read it from its start.');
      return;
    }
    const editor = vscode.window.visibleTextEditors.find((ed) => ed.document.uri.toString() === key);
    const topLine = editor?.visibleRanges[0]?.start.line ?? 0;
    const foldable = editor && (await this.folds.beforeRerender(editor));
    this.extended.set(key, merged);
    const rendered = new Promise<boolean>((resolve) => {
      // a document closed meanwhile is never rendered again: stop waiting for it
      const timer = setTimeout(() => done(false), 10_000);
      const listener = vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.toString() === key) {
          done(true);
        }
      });
      const done = (ok: boolean): void => {
        clearTimeout(timer);
        listener.dispose();
        resolve(ok);
      };
    });
    this.changed.fire(vscode.Uri.parse(key));
    const after = (await rendered) ? this.shown.get(key) : undefined;
    if (!editor || !after) {
      this.extended.delete(key);
      return;
    }
    const line = Math.min(keptTopLine(shown.messageLines, after.messageLines, topLine), editor.document.lineCount - 1);
    const keep = (): Promise<void> => showAtTop(editor, line);
    await keep();
    if (foldable) {
      await this.folds.refold(editor, foldable, keep);
    }
  }

  /** The anchor line of an opened transcript document (0 when unknown). */
  anchorLine(uri: vscode.Uri): number {
    return this.anchorLines.get(uri.toString()) ?? 0;
  }

  /** Open a session as markdown and reveal the anchored message. */
  /**
   * The session's title, for the tab: the one given, else one seen before, else asked of the server (one message of
   * history carries it). So a session opened from anywhere is one document with one tab title.
   */
  private async withTitle(ref: TranscriptRef): Promise<TranscriptRef> {
    const known = ref.title?.trim() || this.titles.get(ref.sessionKey);
    if (known) {
      this.titles.set(ref.sessionKey, known);
      return { ...ref, title: known };
    }
    try {
      const history = await this.server.execute<HistoryResponse>(Commands.history, { sessionKey: ref.sessionKey, limit: 1 });
      const title = history.title?.trim();
      if (title) {
        this.titles.set(ref.sessionKey, title);
        return { ...ref, title };
      }
    } catch {
      // the document itself shows the error when it is rendered
    }
    return ref;
  }

  async open(
    given: TranscriptRef,
    options: { preview?: boolean; viewColumn?: vscode.ViewColumn; terms?: readonly string[] } = {},
  ): Promise<vscode.TextEditor> {
    const ref = await this.withTitle(given);
    const uri = transcriptUri(ref);
    if (options.terms) {
      this.terms.set(uri.toString(), options.terms);
    }
    const alreadyOpen = vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString());
    if (alreadyOpen) {
      this.changed.fire(uri); // the session may have grown since it was rendered
    }
    let doc = await vscode.workspace.openTextDocument(uri);
    if (doc.languageId !== 'markdown') {
      doc = await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
    }
    this.revealed.add(uri.toString());
    const editor = await vscode.window.showTextDocument(doc, {
      preview: options.preview ?? true,
      viewColumn: options.viewColumn,
    });
    this.revealAnchor(editor);
    this.decorate(editor);
    await this.folds.fold(editor, () => this.revealAnchor(editor));
    return editor;
  }

  dispose(): void {
    this.matchDecoration.dispose();
    for (const l of this.listeners) {
      l.dispose();
    }
    this.registration.dispose();
    this.changed.dispose();
  }
}
