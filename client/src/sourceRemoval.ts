/**
 * A folder the index holds that the settings no longer name is never removed silently: the server keeps it and says
 * so (`memlens/unnamedSources`, and `named: false` in `memlens.sources`); this asks the user, naming the folder and the
 * settings scope it came from, and removes it (`memlens.removeSource`) only on yes. "Keep" is remembered per
 * workspace; a dismissed question comes back at the next start.
 */

import * as os from 'node:os';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { errorMessage } from './errors';
import { Commands, UnnamedSourcesNotification, type RemoveSourceResponse, type SourceFolder, type SourcesResponse, type UnnamedSources } from './protocol';
import type { ServerManager } from './serverLauncher';
import { rememberScopes, removalQuestion, removedMessage, type ScopedPaths } from './sourceScopes';
import { firstWorkspaceFolder } from './workspaceSettings';

const SCOPES_KEY = 'memlens.transcriptFolderScopes';
const KEPT_KEY = 'memlens.keptSourceFolders';
const REMOVE = 'Remove from index';
const KEEP = 'Keep';

export class SourceRemoval implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly hooked = new WeakSet<LanguageClient>();
  private readonly asking = new Set<string>();

  constructor(
    private readonly manager: ServerManager,
    private readonly state: vscode.Memento,
  ) {
    this.noteScopes();
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('memlens.transcripts.paths')) {
          this.noteScopes();
        }
      }),
      manager.onDidChangeState((state) => {
        if (state === 'running') {
          void this.hook();
        }
      }),
    );
  }

  /** Remember which scope names each transcript folder now (kept after a scope stops naming it). */
  private noteScopes(): void {
    const folder = firstWorkspaceFolder();
    const inspected = vscode.workspace.getConfiguration('memlens', folder?.uri).inspect<string[]>('transcripts.paths');
    const user = vscode.env.remoteName ? `User or Remote [${vscode.env.remoteName}]` : 'User';
    const scopes: ScopedPaths[] = [
      { scope: user, paths: inspected?.globalValue },
      { scope: 'Workspace', paths: inspected?.workspaceValue },
      { scope: 'Workspace Folder', paths: inspected?.workspaceFolderValue },
    ];
    const vars = { home: os.homedir(), workspaceFolder: folder?.uri.fsPath, env: process.env };
    const known = this.state.get<Record<string, string>>(SCOPES_KEY, {});
    void this.state.update(SCOPES_KEY, rememberScopes(known, scopes, vars));
  }

  /** Listen to a newly started server, and ask about what it holds unnamed already (it may have told us first). */
  private async hook(): Promise<void> {
    try {
      const client = await this.manager.ready();
      if (this.hooked.has(client)) {
        return;
      }
      this.hooked.add(client);
      this.disposables.push(client.onNotification(UnnamedSourcesNotification, (notice: UnnamedSources) => void this.ask(notice.sources)));
      const listed = await this.manager.execute<SourcesResponse>(Commands.sources, {});
      await this.ask(listed.sources.filter((folder) => !folder.named));
    } catch (err) {
      this.manager.output.warn(`memlens: cannot list the index's folders: ${errorMessage(err)}`);
    }
  }

  private async ask(folders: readonly SourceFolder[]): Promise<void> {
    const kept = this.state.get<string[]>(KEPT_KEY, []);
    const scopes = this.state.get<Record<string, string>>(SCOPES_KEY, {});
    for (const folder of folders) {
      if (this.asking.has(folder.path) || kept.includes(folder.path)) {
        continue;
      }
      this.asking.add(folder.path);
      try {
        const choice = await vscode.window.showWarningMessage(removalQuestion(folder, scopes[folder.path]), REMOVE, KEEP);
        if (choice === KEEP) {
          await this.state.update(KEPT_KEY, [...this.state.get<string[]>(KEPT_KEY, []), folder.path]);
        } else if (choice === REMOVE) {
          const removed = await this.manager.execute<RemoveSourceResponse>(Commands.removeSource, { path: folder.path });
          void vscode.window.showInformationMessage(removedMessage(removed));
        }
      } catch (err) {
        void vscode.window.showErrorMessage(`memlens: cannot remove ${folder.displayPath}: ${errorMessage(err)}`);
      } finally {
        this.asking.delete(folder.path);
      }
    }
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
