/**
 * Opening a search hit: a memory file at its lines, a transcript in the viewer at the matching message.
 */

import * as vscode from 'vscode';
import { errorMessage } from './errors';
import type { SearchResult } from './protocol';
import type { TranscriptViewer } from './transcriptViewer';

let highlightType: vscode.TextEditorDecorationType | undefined;

function highlight(): vscode.TextEditorDecorationType {
  highlightType ??= vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor('editor.rangeHighlightBackground'),
  });
  return highlightType;
}

/** Show a range of lines (1-based, inclusive) of a file, briefly highlighted. */
export async function openFileAt(file: vscode.Uri, lineStart?: number, lineEnd?: number): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(file);
  const last = Math.max(0, doc.lineCount - 1);
  const start = Math.min(Math.max(0, (lineStart ?? 1) - 1), last);
  const end = Math.min(Math.max(start, (lineEnd ?? lineStart ?? 1) - 1), last);
  const cursor = new vscode.Position(start, 0);
  const editor = await vscode.window.showTextDocument(doc, { preview: true, selection: new vscode.Selection(cursor, cursor) });
  const range = new vscode.Range(start, 0, end, doc.lineAt(end).text.length);
  editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  if (lineStart) {
    const type = highlight();
    editor.setDecorations(type, [range]);
    setTimeout(() => editor.setDecorations(type, []), 2500);
  }
  return editor;
}

export async function openHit(
  hit: SearchResult,
  viewer: TranscriptViewer,
  terms?: readonly string[],
): Promise<vscode.TextEditor | undefined> {
  try {
    const sessionKey = hit.sessionKey ?? hit.sessionId;
    if (hit.kind !== 'memory' && sessionKey) {
      return await viewer.open({ sessionKey, ...(hit.messageId ? { messageId: hit.messageId } : {}), ...(hit.title ? { title: hit.title } : {}) }, { terms });
    }
    // null line numbers (none in the index) open the file as absent ones do
    return await openFileAt(vscode.Uri.file(hit.path), hit.lineStart ?? undefined, hit.lineEnd ?? undefined);
  } catch (err) {
    void vscode.window.showErrorMessage(`memlens: cannot open ${hit.relPath || hit.path}: ${errorMessage(err)}`);
    return undefined;
  }
}

export function disposeHighlight(): void {
  highlightType?.dispose();
  highlightType = undefined;
}
