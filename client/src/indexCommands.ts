/**
 * Commands about the index and context packs: Show Index Stats, Reindex, Copy Context Pack for Question.
 */

import * as vscode from 'vscode';
import { displayTimeOptions } from './displayTime';
import { errorMessage, isCancellation } from './errors';
import { contextPackCopiedMessage } from './contextPackText';
import { oneLine } from './format';
import { renderStats } from './statsText';
import { Commands, type ContextResponse, type StatsResponse } from './protocol';
import type { ServerManager } from './serverLauncher';

const STATS_SCHEME = 'memlens-stats';
const STATS_URI = vscode.Uri.from({ scheme: STATS_SCHEME, path: '/memlens index.md' });

/** A one-document provider holding the last stats report. */
export class StatsDocument implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private content = '# memlens index\n\nNo stats yet.\n';
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(STATS_SCHEME, this);

  provideTextDocumentContent(): string {
    return this.content;
  }

  update(markdown: string): vscode.Uri {
    this.content = markdown;
    this.changed.fire(STATS_URI);
    return STATS_URI;
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}

export async function showStats(server: ServerManager, doc: StatsDocument): Promise<StatsResponse | undefined> {
  let stats: StatsResponse;
  try {
    stats = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'memlens: reading index stats' },
      () => server.execute<StatsResponse>(Commands.stats, {}),
    );
  } catch (err) {
    void vscode.window.showErrorMessage(`memlens: cannot read the index stats: ${errorMessage(err)}`);
    return undefined;
  }
  const uri = doc.update(renderStats(stats, displayTimeOptions()));
  try {
    await vscode.commands.executeCommand('markdown.showPreview', uri);
  } catch {
    const text = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(text, 'markdown');
    await vscode.window.showTextDocument(text, { preview: true });
  }
  return stats;
}

export async function reindex(server: ServerManager): Promise<void> {
  const choice = await vscode.window.showQuickPick(
    [
      { label: 'Update', description: 'index new and changed files', full: false },
      { label: 'Rebuild', description: 'drop the index and build it again from scratch', full: true },
    ],
    { title: 'memlens: Reindex', placeHolder: 'Update the index or rebuild it?' },
  );
  if (!choice) {
    return;
  }
  try {
    await server.execute<unknown>(Commands.reindex, { full: choice.full });
    void vscode.window.showInformationMessage(
      choice.full ? 'memlens: rebuilding the index; the status bar shows the progress.' : 'memlens: updating the index.',
    );
  } catch (err) {
    void vscode.window.showErrorMessage(`memlens: reindex failed: ${errorMessage(err)}`);
  }
}

export async function copyContextPack(server: ServerManager, initial?: string): Promise<void> {
  const question = await vscode.window.showInputBox({
    title: 'memlens: Copy Context Pack for Question',
    prompt: 'A question for your agent; memlens collects the notes and conversations that help answer it.',
    value: initial ? oneLine(initial, 500) : '',
    ignoreFocusOut: true,
  });
  if (!question?.trim()) {
    return;
  }
  try {
    const pack = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'memlens: collecting context…', cancellable: true },
      (_progress, token) => server.execute<ContextResponse>(Commands.context, { question: question.trim() }, token),
    );
    await vscode.env.clipboard.writeText(pack.markdown);
    const open = await vscode.window.showInformationMessage(contextPackCopiedMessage(pack), 'Open');
    if (open === 'Open') {
      const doc = await vscode.workspace.openTextDocument({ content: pack.markdown, language: 'markdown' });
      await vscode.window.showTextDocument(doc, { preview: true });
    }
  } catch (err) {
    if (isCancellation(err)) {
      return;
    }
    void vscode.window.showErrorMessage(`memlens: cannot build the context pack: ${errorMessage(err)}`);
  }
}
