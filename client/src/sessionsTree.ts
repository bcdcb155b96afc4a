/**
 * The "Sessions" view: every visible session (from `memlens.sessions`) by project and day, labelled by its title,
 * subagents under their parent session; open, copy the resume command, or resume in a terminal.
 */

import * as vscode from 'vscode';
import { displayTimeOptions } from './displayTime';
import { errorMessage } from './errors';
import { oneLine } from './format';
import { Commands, type SessionsResponse, type SessionSummary } from './protocol';
import type { ServerManager } from './serverLauncher';
import { localMachine, missingForResume, resumeNeeds } from './resumeCheck';
import { groupSessions, type DayGroup, type ProjectGroup } from './sessionsModel';
import { projectDescription, sessionDescription, sessionTooltip } from './sessionText';

export const SESSIONS_VIEW_ID = 'memlens.sessions';
/** The most sessions listed (pages of 500). */
const MAX_SESSIONS = 2000;

export type SessionNode =
  | { type: 'project'; project: ProjectGroup }
  | { type: 'day'; day: DayGroup; project: ProjectGroup }
  | { type: 'session'; session: SessionSummary; children: SessionSummary[] }
  | { type: 'message'; text: string };

export class SessionsTreeProvider implements vscode.TreeDataProvider<SessionNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<SessionNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private sessions: SessionSummary[] | undefined;
  private error = '';
  private loading: Promise<void> | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];
  private wasIndexing = false;
  private refreshTimer: NodeJS.Timeout | undefined;

  constructor(private readonly server: ServerManager) {
    // the list follows the index: reload when indexing ends (and, while it runs, at most every few seconds)
    this.subscriptions.push(
      server.onIndexStatus((status) => {
        if (this.wasIndexing && !status.indexing) {
          this.refresh();
        } else if (status.indexing && this.sessions && !this.refreshTimer) {
          this.refreshTimer = setTimeout(() => {
            this.refreshTimer = undefined;
            this.refresh();
          }, 5000);
        }
        this.wasIndexing = status.indexing;
      }),
      server.onDidChangeState((state) => {
        if (state === 'running') {
          this.refresh();
        }
      }),
    );
  }

  /** All sessions loaded so far (loads them on first use). */
  async all(): Promise<SessionSummary[]> {
    if (!this.sessions) {
      await this.load();
    }
    return this.sessions ?? [];
  }

  refresh(): void {
    this.sessions = undefined;
    this.changed.fire(undefined);
  }

  private load(): Promise<void> {
    this.loading ??= (async () => {
      try {
        const sessions: SessionSummary[] = [];
        let cursor: string | undefined;
        do {
          const page = await this.server.execute<SessionsResponse>(Commands.sessions, cursor ? { limit: 500, cursor } : { limit: 500 });
          sessions.push(...page.sessions);
          cursor = page.nextCursor ?? undefined;
        } while (cursor && sessions.length < MAX_SESSIONS);
        this.sessions = sessions;
        this.error = '';
      } catch (err) {
        this.sessions = [];
        this.error = errorMessage(err);
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }

  async getChildren(node?: SessionNode): Promise<SessionNode[]> {
    if (!node) {
      const sessions = await this.all();
      if (this.error) {
        return [{ type: 'message', text: `Cannot list sessions: ${this.error}` }];
      }
      const projects = groupSessions(sessions, displayTimeOptions());
      // one project: skip its level
      if (projects.length === 1) {
        return this.getChildren({ type: 'project', project: projects[0] });
      }
      return projects.map((project) => ({ type: 'project', project }));
    }
    if (node.type === 'project') {
      return node.project.days.map((day) => ({ type: 'day', day, project: node.project }));
    }
    if (node.type === 'day') {
      return node.day.sessions.map((s) => ({ type: 'session', session: s.session, children: s.children }));
    }
    if (node.type === 'session') {
      return node.children.map((child) => ({ type: 'session', session: child, children: [] }));
    }
    return [];
  }

  getTreeItem(node: SessionNode): vscode.TreeItem {
    switch (node.type) {
      case 'message':
        return new vscode.TreeItem(node.text);
      case 'project': {
        const item = new vscode.TreeItem(node.project.label, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `project/${node.project.key}`;
        item.description = projectDescription(node.project.count);
        item.tooltip = node.project.cwd ?? node.project.label;
        item.iconPath = new vscode.ThemeIcon('folder');
        return item;
      }
      case 'day': {
        const item = new vscode.TreeItem(node.day.label, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `day/${node.project.key}/${node.day.date}`;
        item.description = node.day.date === node.day.label ? '' : node.day.date;
        item.iconPath = new vscode.ThemeIcon('calendar');
        return item;
      }
      case 'session': {
        const s = node.session;
        const item = new vscode.TreeItem(
          oneLine(s.title || s.sessionId, 100),
          node.children.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
        );
        item.id = `session/${s.sessionKey}`;
        const opts = displayTimeOptions();
        item.description = sessionDescription(s, opts);
        const md = new vscode.MarkdownString(sessionTooltip(s, opts));
        md.supportThemeIcons = false;
        item.tooltip = md;
        item.iconPath = new vscode.ThemeIcon(s.parentSessionKey ? 'type-hierarchy-sub' : 'comment-discussion');
        item.command = { command: 'memlens.openTranscript', title: 'Open', arguments: [{ sessionKey: s.sessionKey, ...(s.title ? { title: s.title } : {}) }] };
        item.contextValue = `memlens.session${s.resumeCommand ? '.resumable' : ''}`;
        return item;
      }
    }
  }

  dispose(): void {
    if (this.refreshTimer) {
      clearTimeout(this.refreshTimer);
    }
    for (const s of this.subscriptions) {
      s.dispose();
    }
    this.changed.dispose();
  }
}

export function createSessionsView(server: ServerManager): { provider: SessionsTreeProvider; disposables: vscode.Disposable[] } {
  const provider = new SessionsTreeProvider(server);
  const view = vscode.window.createTreeView(SESSIONS_VIEW_ID, { treeDataProvider: provider, showCollapseAll: true });
  return { provider, disposables: [provider, view] };
}

/**
 * Run a session's resume command in a new terminal, once its folder and the agent's program are found on this
 * machine; when one is missing (a session from another machine, an agent not installed here), say which and offer
 * to copy the command instead of running it into an error.
 */
export async function resumeInTerminal(session: Pick<SessionSummary, 'title' | 'resumeCommand' | 'cwd'>): Promise<void> {
  const command = session.resumeCommand;
  if (!command) {
    void vscode.window.showInformationMessage('memlens: this agent has no command to resume a session.');
    return;
  }
  const missing = missingForResume(resumeNeeds(command, session.cwd), localMachine());
  if (missing.length) {
    const copy = 'Copy Command';
    const choice = await vscode.window.showWarningMessage(
      `memlens: cannot resume here: ${missing.join('; ')}.`,
      { detail: command },
      copy,
    );
    if (choice === copy) {
      await vscode.env.clipboard.writeText(command);
      vscode.window.setStatusBarMessage('memlens: copied the resume command', 3000);
    }
    return;
  }
  const terminal = vscode.window.createTerminal({ name: `resume: ${oneLine(session.title, 40)}` });
  terminal.show();
  terminal.sendText(command, true);
}
