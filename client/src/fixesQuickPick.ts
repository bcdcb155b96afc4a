/**
 * "memlens: past occurrences of this error": asks the server's `memlens.fixes` for a diagnostic's message (the code
 * action the server offers on every diagnostic, see clientOptions.ts) or any error text, and lists each past
 * occurrence with the messages that followed; picking one opens the transcript at that message.
 */

import * as vscode from 'vscode';
import { displayTimeOptions } from './displayTime';
import { errorMessage } from './errors';
import { openFileAt } from './openHit';
import { fixesTitle, fixRows, type FixTarget } from './fixText';
import { Commands, type FixesParams, type FixesResponse } from './protocol';
import type { ServerManager } from './serverLauncher';
import type { TranscriptViewer } from './transcriptViewer';

interface FixItem extends vscode.QuickPickItem {
  target?: FixTarget;
}

export async function showFixes(server: ServerManager, viewer: TranscriptViewer, error: string): Promise<void> {
  const qp = vscode.window.createQuickPick<FixItem>();
  qp.title = 'memlens: past occurrences of this error';
  qp.placeholder = error;
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  qp.busy = true;
  qp.show();
  const source = new vscode.CancellationTokenSource();
  let hidden = false;
  qp.onDidHide(() => {
    hidden = true;
    source.cancel();
    source.dispose();
    qp.dispose();
  });
  qp.onDidAccept(() => {
    const picked = qp.selectedItems[0]?.target;
    if (!picked) {
      return;
    }
    qp.hide();
    if (picked.file) {
      const { path, line } = picked.file;
      void openFileAt(vscode.Uri.file(path), line).then(undefined, (err: unknown) => {
        void vscode.window.showErrorMessage(`memlens: cannot open the note: ${errorMessage(err)}`);
      });
      return;
    }
    const { sessionKey, messageId, title } = picked;
    void viewer.open({ sessionKey, messageId, ...(title ? { title } : {}) }).then(undefined, (err: unknown) => {
      void vscode.window.showErrorMessage(`memlens: cannot open the transcript: ${errorMessage(err)}`);
    });
  });
  try {
    const params: FixesParams = { error };
    const response = await server.execute<FixesResponse>(Commands.fixes, params, source.token);
    qp.title = fixesTitle(response);
    const rows = fixRows(response, displayTimeOptions());
    qp.items = rows.map((row) =>
      row.kind === 'separator'
        ? { label: row.label, kind: vscode.QuickPickItemKind.Separator }
        : {
            label: row.icon ? `$(${row.icon}) ${row.label}` : row.label,
            ...(row.description ? { description: row.description } : {}),
            ...(row.detail ? { detail: row.detail } : {}),
            ...(row.target ? { target: row.target } : {}),
          },
    );
    // a note heads the list, but Enter opens the first occurrence: it stays the active row
    const first = qp.items.find((item) => item.target);
    if (first && rows[0]?.kind === 'note') {
      qp.activeItems = [first];
    }
  } catch (err) {
    if (hidden) {
      return;
    }
    qp.items = [{ label: '$(error) memlens: the search for past occurrences failed', detail: errorMessage(err) }];
  } finally {
    if (!hidden) {
      qp.busy = false;
    }
  }
}
