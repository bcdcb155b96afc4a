/**
 * The sidebar's "Results" view: the last search's hits grouped by memory file / session.
 */

import * as vscode from 'vscode';
import { searchNotes, withNotes } from './answerNotes';
import { displayTimeOptions } from './displayTime';
import { errorMessage } from './errors';
import { treeHitText, weakerHitText, whoIcon } from './hitText';
import { groupResults, type ResultGroup, resultsCount, searchSummary, WEAKER_IN_SIDEBAR, weakerHits, weakerLabel, weakerParams } from './resultGroups';
import { queryTerms, termRanges } from './query';
import type { SearchParams, SearchResponse, SearchResult } from './protocol';

export const RESULTS_VIEW_ID = 'memlens.results';
export const RESULTS_CONTAINER_COMMAND = 'workbench.view.extension.memlens';

/** The group at the end that holds what the threshold withheld, and its hits once asked for. */
export type WeakerNode = { type: 'weaker'; withheld: number; generation: number };

export type ResultNode =
  | { type: 'group'; group: ResultGroup; generation: number }
  | { type: 'hit'; hit: SearchResult; parent: ResultNode & { type: 'group' }; index: number; generation: number }
  | WeakerNode
  | { type: 'weakerHit'; hit: SearchResult; parent: WeakerNode; index: number; generation: number }
  | { type: 'note'; text: string; icon: string; parent: WeakerNode; generation: number };

/** Runs a search for the model (the server's `memlens.search`). */
export type SearchRunner = (params: SearchParams) => Promise<SearchResponse>;

/** The last search's response, shared by the QuickPick, the tree and the self-test. */
export class ResultsModel implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private _response: SearchResponse | undefined;
  private _params: SearchParams | undefined;
  private _weaker: Promise<SearchResult[]> | undefined;
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

  /** What the last response answered: its query and the filters that narrowed it. */
  get params(): SearchParams | undefined {
    return this._params;
  }

  get groups(): readonly ResultGroup[] {
    return this._groups;
  }

  /** Increases with every change, so tree item ids (and their expansion state) are fresh per search. */
  get generation(): number {
    return this._generation;
  }

  constructor(private readonly search?: SearchRunner) {}

  /** Show `response`, the answer to `params` (by default: its query alone), whose withheld hits can be asked for. */
  set(response: SearchResponse, params: SearchParams = { query: response.query }): void {
    this._response = response;
    this._params = params;
    this._weaker = undefined;
    this._groups = groupResults(response.results ?? [], displayTimeOptions());
    this._terms = queryTerms(response.query ?? '');
    this._generation++;
    this.changed.fire();
  }

  /** Regroup the same answer (the display time zone changed). */
  refresh(): void {
    if (this._response) {
      this._groups = groupResults(this._response.results ?? [], displayTimeOptions());
      this._generation++;
      this.changed.fire();
    }
  }

  /**
   * The hits the last search withheld: the same search asked again with `minScore: 0`, minus the hits shown. Asked
   * once per search (when its group is first expanded).
   */
  weaker(): Promise<SearchResult[]> {
    const response = this._response;
    const params = this._params;
    if (!response || !params || !this.search) {
      return Promise.resolve([]);
    }
    if (!this._weaker) {
      const asked = this.search(weakerParams(params)).then((all) => weakerHits(response, all));
      this._weaker = asked;
      asked.catch(() => {
        if (this._weaker === asked) {
          this._weaker = undefined; // a failure is asked again at the next expansion
        }
      });
    }
    return this._weaker;
  }

  clear(): void {
    this._response = undefined;
    this._params = undefined;
    this._weaker = undefined;
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
  private weakerNode: WeakerNode | undefined;
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
    const withheld = this.model.response?.withheld ?? 0;
    this.weakerNode = withheld > 0 ? { type: 'weaker', withheld, generation } : undefined;
  }

  /** The top-level nodes (one per memory file / session). */
  get groupNodes(): readonly ResultNode[] {
    return this.roots;
  }

  /** The "weaker matches (N)" group, when the last search withheld hits. */
  get weakerGroup(): WeakerNode | undefined {
    return this.weakerNode;
  }

  getChildren(node?: ResultNode): ResultNode[] | Promise<ResultNode[]> {
    if (!node) {
      return this.weakerNode ? [...this.roots, this.weakerNode] : this.roots;
    }
    if (node.type === 'weaker') {
      return this.weakerChildren(node);
    }
    return this.children.get(node) ?? [];
  }

  private async weakerChildren(parent: WeakerNode): Promise<ResultNode[]> {
    const { generation } = parent;
    try {
      const hits = await this.model.weaker();
      if (!hits.length) {
        return [{ type: 'note', text: 'no other matches', icon: 'info', parent, generation }];
      }
      return hits.map((hit, index) => ({ type: 'weakerHit' as const, hit, parent, index, generation }));
    } catch (err) {
      return [{ type: 'note', text: `search failed: ${errorMessage(err)}`, icon: 'error', parent, generation }];
    }
  }

  getParent(node: ResultNode): ResultNode | undefined {
    return node.type === 'hit' || node.type === 'weakerHit' || node.type === 'note' ? node.parent : undefined;
  }

  getTreeItem(node: ResultNode): vscode.TreeItem {
    if (node.type === 'weaker') {
      const item = new vscode.TreeItem(weakerLabel(node.withheld), vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `${node.generation}/weaker`;
      item.iconPath = new vscode.ThemeIcon('eye-closed');
      item.tooltip = 'Hits under memlens.search.minScore: expand to search again without the threshold';
      item.contextValue = 'memlens.weaker';
      return item;
    }
    if (node.type === 'note') {
      const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
      item.id = `${node.generation}/weaker/note`;
      item.iconPath = new vscode.ThemeIcon(node.icon);
      return item;
    }
    if (node.type === 'weakerHit') {
      const { hit } = node;
      const text = weakerHitText(hit, displayTimeOptions(), this.model.terms);
      return this.hitItem(hit, text, `${node.generation}/weaker/${node.index}/${hit.id}`);
    }
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
    const text = treeHitText(hit, displayTimeOptions(), this.model.terms);
    return this.hitItem(hit, text, `${node.generation}/${node.parent.group.key}/${node.index}/${hit.id}`);
  }

  private hitItem(hit: SearchResult, text: { label: string; description: string; tooltip: string }, id: string): vscode.TreeItem {
    const label: vscode.TreeItemLabel = { label: text.label, highlights: termRanges(text.label, this.model.terms) };
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    item.id = id;
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
    // what the answer says about itself (keyword-only, a long query's read part, a date no calendar has) under its
    // summary, where the sidebar's user reads why it holds what it holds
    view.message = response
      ? withNotes(searchSummary(response, WEAKER_IN_SIDEBAR, model.params?.filters), searchNotes(response))
      : undefined;
    // the count goes in the view's title bar, not in a badge: the activity bar's badge sits on the icon and
    // swallows the clicks meant for it
    view.description = response ? resultsCount(response) : undefined;
    void vscode.commands.executeCommand('setContext', 'memlens.hasResults', !!response);
  };
  update();
  const subscription = model.onDidChange(update);
  return { view, provider, disposables: [provider, view, subscription] };
}

/** Show the memlens sidebar and expand the first result (with none, the weaker matches). */
export async function revealResults(view: vscode.TreeView<ResultNode>, provider: ResultsTreeProvider): Promise<void> {
  await vscode.commands.executeCommand(RESULTS_CONTAINER_COMMAND);
  // an answer of weaker matches only: they are what there is to see, so their group opens
  const first = provider.groupNodes[0] ?? provider.weakerGroup;
  if (first) {
    try {
      await view.reveal(first, { expand: true, focus: false, select: false });
    } catch {
      // the view may not be visible yet (e.g. in a collapsed panel); the results are there when it is
    }
  }
}
