/**
 * The sidebar's "Results" view: the last search's hits grouped by memory file / session.
 */

import * as vscode from 'vscode';
import { plural } from './format';
import { treeHitText, whoIcon } from './hitText';
import { groupResults, type ResultGroup, searchSummary } from './resultGroups';
import { queryTerms, termRanges } from './query';
import type { SearchResponse, SearchResult } from './protocol';

export const RESULTS_VIEW_ID = 'memlens.results';
export const RESULTS_CONTAINER_COMMAND = 'workbench.view.extension.memlens';

export type ResultNode =
  | { type: 'group'; group: ResultGroup; generation: number }
  | { type: 'hit'; hit: SearchResult; parent: ResultNode & { type: 'group' }; index: number; generation: number };

/** The last search's response, shared by the QuickPick, the tree and the self-test. */
export class ResultsModel implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private _response: SearchResponse | undefined;
  private _groups: ResultGroup[] = [];
  private _generation = 0;
  private _terms: string[] = [];

  /** The words of the last query, for highlighting. */
  get terms(): readonly string[] {
    return this._terms;
  }

  get response(): SearchResponse | undefined {
    return this._response;
  }

  get groups(): readonly ResultGroup[] {
    return this._groups;
  }

  /** Increases with every change, so tree item ids (and their expansion state) are fresh per search. */
  get generation(): number {
    return this._generation;
  }

  set(response: SearchResponse): void {
    this._response = response;
    this._groups = groupResults(response.results ?? []);
    this._terms = queryTerms(response.query ?? '');
    this._generation++;
    this.changed.fire();
  }

  clear(): void {
    this._response = undefined;
    this._groups = [];
    this._terms = [];
    this._generation++;
    this.changed.fire();
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export class ResultsTreeProvider implements vscode.TreeDataProvider<ResultNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ResultNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private roots: (ResultNode & { type: 'group' })[] = [];
  private readonly children = new Map<ResultNode, ResultNode[]>();
  private readonly subscription: vscode.Disposable;

  constructor(private readonly model: ResultsModel) {
    this.rebuild();
    this.subscription = model.onDidChange(() => {
      this.rebuild();
      this.changed.fire(undefined);
    });
  }

  private rebuild(): void {
    const generation = this.model.generation;
    this.children.clear();
    this.roots = this.model.groups.map((group) => ({ type: 'group' as const, group, generation }));
    for (const root of this.roots) {
      this.children.set(
        root,
        root.group.hits.map((hit, index) => ({ type: 'hit' as const, hit, parent: root, index, generation })),
      );
    }
  }

  /** The top-level nodes (one per memory file / session). */
  get groupNodes(): readonly ResultNode[] {
    return this.roots;
  }

  getChildren(node?: ResultNode): ResultNode[] {
    if (!node) {
      return this.roots;
    }
    return this.children.get(node) ?? [];
  }

  getParent(node: ResultNode): ResultNode | undefined {
    return node.type === 'hit' ? node.parent : undefined;
  }

  getTreeItem(node: ResultNode): vscode.TreeItem {
    if (node.type === 'group') {
      const { group } = node;
      const label: vscode.TreeItemLabel = { label: group.label, highlights: termRanges(group.label, this.model.terms) };
      const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `${node.generation}/${group.key}`;
      item.description = group.description;
      const first = group.hits[0];
      item.tooltip =
        group.kind === 'memory'
          ? group.path
          : [group.label, [first?.format, group.when].filter(Boolean).join(' · '), group.path].filter(Boolean).join('\n');
      if (group.kind === 'memory') {
        item.resourceUri = vscode.Uri.file(group.path);
        item.iconPath = vscode.ThemeIcon.File;
      } else {
        item.iconPath = new vscode.ThemeIcon('comment-discussion');
      }
      item.contextValue = `memlens.group.${group.kind}${group.resumeCommand ? '.resumable' : ''}`;
      return item;
    }
    const { hit } = node;
    const text = treeHitText(hit, {}, this.model.terms);
    const label: vscode.TreeItemLabel = { label: text.label, highlights: termRanges(text.label, this.model.terms) };
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    item.id = `${node.generation}/${node.parent.group.key}/${node.index}/${hit.id}`;
    item.description = text.description;
    const tooltip = new vscode.MarkdownString(text.tooltip);
    tooltip.supportThemeIcons = false;
    item.tooltip = tooltip;
    item.iconPath = new vscode.ThemeIcon(whoIcon(hit));
    item.command = { command: 'memlens.openHit', title: 'Open', arguments: [hit] };
    item.accessibilityInformation = { label: `${text.label}, ${text.description}` };
    item.contextValue = `memlens.hit.${hit.kind}${hit.resumeCommand ? '.resumable' : ''}`;
    return item;
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}

/** Creates the view and keeps its message, result count and the `memlens.hasResults` context key in step with the model. */
export function createResultsView(model: ResultsModel): {
  view: vscode.TreeView<ResultNode>;
  provider: ResultsTreeProvider;
  disposables: vscode.Disposable[];
} {
  const provider = new ResultsTreeProvider(model);
  const view = vscode.window.createTreeView(RESULTS_VIEW_ID, { treeDataProvider: provider, showCollapseAll: true });
  const update = (): void => {
    const response = model.response;
    view.message = response ? searchSummary(response) : undefined;
    // the count goes in the view's title bar, not in a badge: the activity bar's badge sits on the icon and
    // swallows the clicks meant for it
    view.description = response ? plural(response.results.length, 'result') : undefined;
    void vscode.commands.executeCommand('setContext', 'memlens.hasResults', !!response);
  };
  update();
  const subscription = model.onDidChange(update);
  return { view, provider, disposables: [provider, view, subscription] };
}

/** Show the memlens sidebar and expand the first result. */
export async function revealResults(view: vscode.TreeView<ResultNode>, provider: ResultsTreeProvider): Promise<void> {
  await vscode.commands.executeCommand(RESULTS_CONTAINER_COMMAND);
  const first = provider.groupNodes[0];
  if (first) {
    try {
      await view.reveal(first, { expand: true, focus: false, select: false });
    } catch {
      // the view may not be visible yet (e.g. in a collapsed panel); the results are there when it is
    }
  }
}
