/**
 * The status-bar item: server state and indexing progress from `memlens/indexStatus`.
 */

import * as vscode from 'vscode';
import { displayTimeOptions } from './displayTime';
import { statusBarText } from './statsText';
import type { ServerManager } from './serverLauncher';

export class IndexStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly server: ServerManager) {
    this.item = vscode.window.createStatusBarItem('memlens.status', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'memlens';
    this.subscriptions = [server.onDidChangeState(() => this.update()), server.onIndexStatus(() => this.update())];
    this.update();
    this.item.show();
  }

  private update(): void {
    const item = this.item;
    item.backgroundColor = undefined;
    item.command = 'memlens.showStats';
    switch (this.server.state) {
      case 'starting':
        item.text = '$(loading~spin) memlens';
        item.tooltip = 'memlens: starting the language server…';
        return;
      case 'failed':
        item.text = '$(error) memlens';
        item.tooltip = `${this.server.failure || 'memlens: the language server is not running.'}\nClick to show the log.`;
        item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
        item.command = 'memlens.showOutput';
        return;
      case 'stopped':
        item.text = '$(circle-slash) memlens';
        item.tooltip = 'memlens: the language server is stopped. Run "memlens: Restart Server".';
        item.command = 'memlens.restartServer';
        return;
      default: {
        const status = this.server.lastIndexStatus;
        if (!status) {
          item.text = '$(database) memlens';
          item.tooltip = 'memlens: running. Click for index stats.';
          return;
        }
        const { text, tooltip } = statusBarText(status, displayTimeOptions());
        item.text = text;
        item.tooltip = tooltip;
      }
    }
  }

  dispose(): void {
    for (const s of this.subscriptions) {
      s.dispose();
    }
    this.item.dispose();
  }
}
