/**
 * memlens VS Code extension: activation wires the parts together; the logic lives in the other modules.
 */

import * as vscode from 'vscode';
import { errorMessage } from './errors';
import { parseTranscriptUriString, type TranscriptRef } from './transcriptUri';
import type { FileLocation } from './hoverLinks';
import { copyContextPack, reindex, showStats, StatsDocument } from './indexCommands';
import { disposeHighlight, openFileAt, openHit } from './openHit';
import { Commands, type SearchResponse, type SearchResult, type SessionSummary } from './protocol';
import { createResultsView, ResultsModel, RESULTS_VIEW_ID, revealResults, type ResultNode } from './resultsTree';
import { queryFromText, rememberQuery, showSearchQuickPick, type SearchUi } from './searchQuickPick';
import { ServerManager } from './serverLauncher';
import { showFixes } from './fixesQuickPick';
import { fixesArgument } from './fixText';
import { isTerminal, terminalSelection } from './terminalSelection';
import { TIME_ZONE_SETTING } from './displayTime';
import { SourceRemoval } from './sourceRemoval';
import { openMemlensSettings } from './workspaceSettings';
import { registerRecallHover } from './hover';
import { createSessionsView, resumeInTerminal, type SessionNode } from './sessionsTree';
import { IndexStatusBar } from './statusBar';
import { TranscriptViewer } from './transcriptViewer';

let server: ServerManager | undefined;

/** What activate returns: the extension's parts, for other extensions and for the end-to-end test harness. */
export interface MemlensApi {
  server: ServerManager;
  results: ResultsModel;
  viewer: TranscriptViewer;
  openHit(hit: SearchResult, terms?: readonly string[]): Promise<vscode.TextEditor | undefined>;
  revealResults(): Promise<void>;
  sessions(): Promise<SessionSummary[]>;
}

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

/** The search hit behind a results-tree node (a group: its best hit). */
function nodeHit(node: unknown): SearchResult | undefined {
  const n = node as ResultNode | SearchResult | undefined;
  if (!n || typeof n !== 'object') {
    return undefined;
  }
  if ('type' in n && (n.type === 'hit' || n.type === 'weakerHit')) {
    return n.hit;
  }
  if ('type' in n && n.type === 'group') {
    return n.group.hits[0];
  }
  return 'excerpt' in n ? n : undefined;
}

/** The session behind a sessions-tree node. */
function nodeSession(node: unknown): SessionSummary | undefined {
  const n = node as SessionNode | undefined;
  return n && typeof n === 'object' && n.type === 'session' ? n.session : undefined;
}

export function activate(context: vscode.ExtensionContext): MemlensApi {
  const output = vscode.window.createOutputChannel('memlens', { log: true });
  server = new ServerManager(context, output);
  const manager = server;
  const results = new ResultsModel((params) => manager.execute<SearchResponse>(Commands.search, params));
  const { view, provider, disposables: viewDisposables } = createResultsView(results);
  const { provider: sessionsProvider, disposables: sessionsDisposables } = createSessionsView(manager);
  const viewer = new TranscriptViewer(manager);
  const stats = new StatsDocument();
  const statusBar = new IndexStatusBar(manager);

  const ui: SearchUi & MemlensApi = {
    server: manager,
    results,
    viewer,
    state: context.workspaceState,
    openHit: (hit: SearchResult, terms?: readonly string[]) => openHit(hit, viewer, terms ?? results.terms),
    revealResults: () => revealResults(view, provider),
    sessions: () => sessionsProvider.all(),
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
      results.set(response, { query: query.trim() });
      void rememberQuery(context.workspaceState, query);
      await ui.revealResults();
    } catch (err) {
      void vscode.window.showErrorMessage(`memlens: search failed: ${errorMessage(err)}`);
    }
  };

  const copy = async (text: string | undefined | null, what: string): Promise<void> => {
    if (!text) {
      void vscode.window.showInformationMessage(`memlens: there is no ${what} to copy.`);
      return;
    }
    await vscode.env.clipboard.writeText(text);
    vscode.window.setStatusBarMessage(`memlens: copied the ${what}`, 3000);
  };

  const register = (id: string, fn: (...args: any[]) => unknown): vscode.Disposable =>
    vscode.commands.registerCommand(id, fn);

  context.subscriptions.push(
    output,
    manager,
    results,
    viewer,
    stats,
    statusBar,
    new SourceRemoval(manager, context.workspaceState),
    registerRecallHover(manager),
    ...viewDisposables,
    ...sessionsDisposables,
    { dispose: disposeHighlight },
    register('memlens.searchMemory', (initial?: unknown) =>
      showSearchQuickPick(manager, results, ui, typeof initial === 'string' ? initial : ''),
    ),
    // from the editor, or from a terminal's context menu (which passes the terminal): a pasted error then goes
    // through search, which ranks tool output first for error-like queries
    register('memlens.searchSelection', async (arg?: unknown) => {
      const fromTerminal = isTerminal(arg) || (!selectedText() && !!vscode.window.activeTerminal);
      const text = fromTerminal ? (await terminalSelection(isTerminal(arg) ? arg : undefined)).trim() : selectedText();
      if (!text) {
        void vscode.window.showInformationMessage(`memlens: select some text ${fromTerminal ? 'in the terminal ' : ''}to search for.`);
        return;
      }
      showSearchQuickPick(manager, results, ui, text);
    }),
    // from the server's quick fix on a diagnostic ({error}), a terminal's context menu (its selection), the palette
    register('memlens.showFixes', async (arg?: unknown) => {
      const error =
        fixesArgument(arg) ||
        (isTerminal(arg) ? (await terminalSelection(arg)).trim() : selectedText()) ||
        (await vscode.window.showInputBox({
          title: 'memlens: Past Occurrences of an Error',
          prompt: 'An error or log line; memlens lists where it happened before and what was done next',
          placeHolder: "ModuleNotFoundError: No module named 'psycopg2'",
        }))?.trim();
      return error ? showFixes(manager, viewer, error) : undefined;
    }),
    register('memlens.results.search', searchFromSidebar),
    register('memlens.results.clear', () => results.clear()),
    register('memlens.openHit', (hit?: SearchResult) => (hit ? ui.openHit(hit) : undefined)),
    register('memlens.results.open', (node?: unknown) => {
      const hit = nodeHit(node);
      return hit ? ui.openHit(hit) : undefined;
    }),
    register('memlens.copyExcerpt', (node?: unknown) => copy(nodeHit(node)?.excerpt, 'excerpt')),
    register('memlens.copyResumeCommand', (node?: unknown) =>
      copy(nodeSession(node)?.resumeCommand ?? nodeHit(node)?.resumeCommand, 'resume command'),
    ),
    register('memlens.resumeInTerminal', (node?: unknown) => {
      const session = nodeSession(node);
      const hit = nodeHit(node);
      const target = session ?? (hit ? { title: hit.title ?? hit.sessionId ?? 'session', resumeCommand: hit.resumeCommand ?? null, cwd: null } : undefined);
      return target ? resumeInTerminal(target) : undefined;
    }),
    register('memlens.sessions.refresh', () => sessionsProvider.refresh()),
    register('memlens.openTranscript', (arg?: TranscriptRef | string) => {
      const ref = typeof arg === 'string' ? parseTranscriptUriString(arg) ?? { sessionKey: arg } : arg;
      if (!ref?.sessionKey) {
        return undefined;
      }
      const { sessionKey, messageId, title } = ref;
      return viewer.open({ sessionKey, ...(messageId ? { messageId } : {}), ...(title ? { title } : {}) });
    }),
    register('memlens.openFileAt', (location?: FileLocation) => {
      if (!location?.uri) {
        return undefined;
      }
      const uri = vscode.Uri.parse(location.uri);
      return openFileAt(uri.scheme === 'file' ? vscode.Uri.file(uri.fsPath) : uri, location.line, location.line).then(
        undefined,
        (err: unknown) => void vscode.window.showErrorMessage(`memlens: cannot open ${uri.fsPath}: ${errorMessage(err)}`),
      );
    }),
    register('memlens.showStats', () => showStats(manager, stats)),
    register('memlens.updateIndex', () => reindex(manager)),
    register('memlens.copyContextPack', () => copyContextPack(manager, selectedText())),
    // the server's own commands (memlens.search, …), for other extensions and keybindings: registered once here,
    // each sent to whichever client runs now (the language client would register them per client: see clientOptions.ts)
    ...Object.values(Commands).map((id) =>
      vscode.commands.registerCommand(id, (...args: unknown[]) => manager.executeWith<unknown>(id, args)),
    ),
    register('memlens.restartServer', async () => {
      const client = await manager.restart();
      if (client) {
        void vscode.window.showInformationMessage('memlens: language server restarted.');
      }
    }),
    register('memlens.showOutput', () => output.show(true)),
    register('memlens.openSettings', () => openMemlensSettings(context.extension.id)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('memlens.server.pythonPath')) {
        void manager.restart();
      }
      if (e.affectsConfiguration(TIME_ZONE_SETTING)) {
        results.refresh();
        void sessionsProvider.refresh();
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
  return ui;
}

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}
