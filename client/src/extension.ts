/**
 * memlens VS Code extension: activation wires the parts together; the logic lives in the other modules.
 */

import * as vscode from 'vscode';
import { errorMessage, parseTranscriptUriString, type TranscriptRef } from './format';
import { copyContextPack, reindex, showStats, StatsDocument } from './indexCommands';
import { disposeHighlight, openHit } from './openHit';
import { Commands, type SearchResponse, type SearchResult } from './protocol';
import { createResultsView, ResultsModel, RESULTS_VIEW_ID, revealResults } from './resultsTree';
import { queryFromText, showSearchQuickPick } from './searchQuickPick';
import { runSelfTest, selfTestOptionsFromEnv, type SelfTestOptions } from './selfTest';
import { ServerManager } from './serverLauncher';
import { IndexStatusBar } from './statusBar';
import { TranscriptViewer } from './transcriptViewer';

let server: ServerManager | undefined;

function selectedText(): string {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    return '';
  }
  return editor.selections
    .map((s) => editor.document.getText(s))
    .join(' ')
    .trim();
}

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel('memlens', { log: true });
  server = new ServerManager(context, output);
  const manager = server;
  const results = new ResultsModel();
  const { view, provider, disposables: viewDisposables } = createResultsView(results);
  const viewer = new TranscriptViewer(manager);
  const stats = new StatsDocument();
  const statusBar = new IndexStatusBar(manager);

  const ui = {
    openHit: (hit: SearchResult) => openHit(hit, viewer),
    revealResults: () => revealResults(view, provider),
  };

  const searchFromSidebar = async (): Promise<void> => {
    const query = await vscode.window.showInputBox({
      title: 'memlens: Search',
      prompt: 'Search memory notes and agent transcripts',
      value: results.response?.query ?? queryFromText(selectedText()),
      placeHolder: 'how did we fix the dead-letter queue backup?',
    });
    if (!query?.trim()) {
      return;
    }
    try {
      const response = await vscode.window.withProgress(
        { location: { viewId: RESULTS_VIEW_ID }, title: 'memlens: searching…' },
        () => manager.execute<SearchResponse>(Commands.search, { query: query.trim() }),
      );
      results.set(response);
      await ui.revealResults();
    } catch (err) {
      void vscode.window.showErrorMessage(`memlens: search failed: ${errorMessage(err)}`);
    }
  };

  const selfTest = (options: SelfTestOptions) =>
    runSelfTest(
      {
        server: manager,
        results,
        revealResults: ui.revealResults,
        openHit: ui.openHit,
      },
      options,
      context.extension.packageJSON?.version as string | undefined,
    );

  const register = (id: string, fn: (...args: any[]) => unknown): vscode.Disposable =>
    vscode.commands.registerCommand(id, fn);

  context.subscriptions.push(
    output,
    manager,
    results,
    viewer,
    stats,
    statusBar,
    ...viewDisposables,
    { dispose: disposeHighlight },
    register('memlens.searchMemory', (initial?: unknown) =>
      showSearchQuickPick(manager, results, ui, typeof initial === 'string' ? initial : ''),
    ),
    register('memlens.searchSelection', () => {
      const text = selectedText();
      if (!text) {
        void vscode.window.showInformationMessage('memlens: select some text to search for.');
        return;
      }
      showSearchQuickPick(manager, results, ui, text);
    }),
    register('memlens.results.search', searchFromSidebar),
    register('memlens.results.clear', () => results.clear()),
    register('memlens.openHit', (hit?: SearchResult) => (hit ? ui.openHit(hit) : undefined)),
    register('memlens.openTranscript', (arg?: TranscriptRef | string) => {
      const ref = typeof arg === 'string' ? parseTranscriptUriString(arg) ?? { sessionKey: arg } : arg;
      return ref?.sessionKey ? viewer.open(ref) : undefined;
    }),
    register('memlens.showStats', () => showStats(manager, stats)),
    // not 'memlens.reindex': the server's commands are registered as VS Code commands by the language client
    register('memlens.updateIndex', () => reindex(manager)),
    register('memlens.copyContextPack', () => copyContextPack(manager, selectedText())),
    register('memlens.restartServer', async () => {
      const client = await manager.restart();
      if (client) {
        void vscode.window.showInformationMessage('memlens: language server restarted.');
      }
    }),
    register('memlens.showOutput', () => output.show(true)),
    register('memlens._selfTest', (options?: Partial<SelfTestOptions>) =>
      selfTest({
        query: options?.query ?? 'how did we fix the dead-letter queue backup?',
        out: options?.out,
        timeoutMs: options?.timeoutMs ?? 60000,
      }),
    ),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('memlens.server.pythonPath')) {
        void manager.restart();
      }
    }),
    // trust is sent at start (initializationOptions.workspaceTrusted): once granted, restart so the workspace's
    // restricted settings and its .memlens.json locations apply
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      output.info('The workspace is now trusted; restarting the server');
      void manager.restart();
    }),
  );

  void manager.start();

  const selfTestOptions = selfTestOptionsFromEnv(process.env);
  if (selfTestOptions) {
    void selfTest(selfTestOptions);
  }
}

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}
