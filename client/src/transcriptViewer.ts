/**
 * Read-only transcript documents: `memlens-transcript:/<sessionKey url-encoded>.md?message=<messageId>` rendered as
 * markdown from `memlens.history`, opened and revealed at the anchored message.
 */

import * as vscode from 'vscode';
import { errorMessage, parseTranscriptUri, renderTranscript, TRANSCRIPT_SCHEME, transcriptUriComponents, type TranscriptRef } from './format';
import { Commands, type HistoryParams, type HistoryResponse } from './protocol';
import type { ServerManager } from './serverLauncher';

/** How many messages around the anchor are asked for. */
const HISTORY_LIMIT = 200;

export function transcriptUri(ref: TranscriptRef): vscode.Uri {
  return vscode.Uri.from(transcriptUriComponents(ref));
}

export class TranscriptViewer implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  /** uri → 0-based line of the anchored message, computed while rendering */
  private readonly anchorLines = new Map<string, number>();
  private readonly registration: vscode.Disposable;
  private readonly listeners: vscode.Disposable[];
  /** documents already scrolled to their anchor (by `open` or on first showing) */
  private readonly revealed = new Set<string>();

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
        }
      }),
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (doc.uri.scheme === TRANSCRIPT_SCHEME) {
          this.revealed.delete(doc.uri.toString());
          this.anchorLines.delete(doc.uri.toString());
        }
      }),
    ];
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
      const history = await this.server.execute<HistoryResponse>(Commands.history, params, token);
      const rendered = renderTranscript(history);
      this.anchorLines.set(uri.toString(), rendered.anchorLine);
      return rendered.markdown;
    } catch (err) {
      const message = errorMessage(err);
      this.server.output.error(`memlens.history ${ref.sessionKey}: ${message}`);
      void vscode.window.showErrorMessage(`memlens: cannot show the transcript: ${message}`);
      this.anchorLines.set(uri.toString(), 0);
      return `# Cannot show this transcript\n\nSession \`${ref.sessionKey}\`\n\n${message}\n`;
    }
  }

  /** The anchor line of an opened transcript document (0 when unknown). */
  anchorLine(uri: vscode.Uri): number {
    return this.anchorLines.get(uri.toString()) ?? 0;
  }

  /** Open a session as markdown and reveal the anchored message. */
  async open(ref: TranscriptRef, options: { preview?: boolean; viewColumn?: vscode.ViewColumn } = {}): Promise<vscode.TextEditor> {
    const uri = transcriptUri(ref);
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
    return editor;
  }

  dispose(): void {
    for (const l of this.listeners) {
      l.dispose();
    }
    this.registration.dispose();
    this.changed.dispose();
  }
}
