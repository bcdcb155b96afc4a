/**
 * "memlens: Search Memory": a QuickPick that searches as you type (debounced, stale requests cancelled).
 *
 * - Filters as query words with completion: `role:user`, `kind:memory`, `format:codex`, `since:7d`, `session:…`.
 * - Query history: an empty box lists the recent queries (kept per workspace).
 * - Hits of one session are listed together, best session first; each is labelled by who wrote it and when (so
 *   labels differ), with score, age and the session's title beside it and the excerpt below.
 * - VS Code highlights the typed text where it occurs in an excerpt (a word or a phrase; not a whole question).
 */

import * as vscode from 'vscode';
import { noteRowText, searchNotes } from './answerNotes';
import { errorMessage, isCancellation } from './errors';
import { displayTimeOptions } from './displayTime';
import { oneLine, type TimeOptions } from './format';
import { pickItemText } from './hitText';
import { groupResults, searchSummary, WEAKER_FROM_QUICKPICK } from './resultGroups';
import { Commands, type SearchParams, type SearchResponse, type SearchResult, type SessionSummary } from './protocol';
import { applyCompletion, completionsFor, FILTERS, noResultsText, parseSearchInput } from './query';
import type { ResultsModel } from './resultsTree';
import type { ServerManager } from './serverLauncher';
import { sessionCompletionLabel } from './sessionText';

export const SEARCH_DEBOUNCE_MS = 250;
const MIN_QUERY_CHARS = 2;
const MAX_QUERY_CHARS = 1000;
const HISTORY_KEY = 'memlens.searchHistory';
const HISTORY_SIZE = 20;

interface HitItem extends vscode.QuickPickItem {
  hit?: SearchResult;
  /** a completion: the box's new value */
  complete?: string;
  /** what the answer says about itself (opens nothing) */
  note?: true;
  /** Enter shows the answer in the sidebar (a "no results" row over withheld weaker matches) */
  reveal?: true;
}

export interface SearchUi {
  openHit(hit: SearchResult, terms?: readonly string[]): Promise<unknown>;
  revealResults(): Promise<void>;
  /** the sessions for `session:` completion */
  sessions(): Promise<SessionSummary[]>;
  /** per-workspace storage for the query history */
  state: vscode.Memento;
}

/** The text of a selection, cut to a reasonable query length. */
export function queryFromText(text: string): string {
  return oneLine(text, MAX_QUERY_CHARS);
}

export function searchHistory(state: vscode.Memento): string[] {
  const value = state.get<unknown>(HISTORY_KEY);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export async function rememberQuery(state: vscode.Memento, query: string): Promise<void> {
  const q = query.trim();
  if (!q) {
    return;
  }
  const list = [q, ...searchHistory(state).filter((h) => h !== q)].slice(0, HISTORY_SIZE);
  await state.update(HISTORY_KEY, list);
}

/**
 * The QuickPick items of a response, a session's hits (and a memory file's) next to each other, best group first.
 * (Separators would group them visibly, but VS Code hides separators as soon as the box has text.)
 */
export function resultItems(response: SearchResponse, opts: TimeOptions = {}): HitItem[] {
  const items: HitItem[] = [];
  for (const group of groupResults(response.results, opts)) {
    group.hits.forEach((hit) => {
      const text = pickItemText(hit, opts);
      items.push({
        label: `$(${text.icon}) ${text.label}`,
        description: text.description,
        detail: text.detail,
        alwaysShow: true,
        hit,
      });
    });
  }
  return items;
}

/**
 * The rows above the hits that say what the answer says about itself (keyword-only search, what of a long query was
 * read, a date no calendar has), as the CLI prints them: rows, not separators, which VS Code hides once the box has
 * text.
 */
export function noteItems(response: SearchResponse): HitItem[] {
  return searchNotes(response).map((note) => {
    const text = noteRowText(note);
    return { label: `$(info) ${text.label}`, ...(text.detail ? { detail: text.detail } : {}), alwaysShow: true, note: true };
  });
}

function noResultsItem(value: string, indexing: boolean, withheld: number): HitItem {
  const text = noResultsText(value, indexing, withheld);
  return { label: `$(info) ${text.label}`, detail: text.detail, ...(text.showsWeaker ? { reveal: true } : {}) };
}

export function showSearchQuickPick(server: ServerManager, results: ResultsModel, ui: SearchUi, initialQuery = ''): void {
  const qp = vscode.window.createQuickPick<HitItem>();
  const defaultTitle = 'memlens: Search Memory';
  qp.title = defaultTitle;
  qp.placeholder = 'Search notes and transcripts — filters: role:user kind:memory format:codex since:7d session:…';
  // the typed text is highlighted where it occurs in an excerpt (items are never hidden: alwaysShow)
  qp.matchOnDescription = false;
  qp.matchOnDetail = true;
  const showInSidebar: vscode.QuickInputButton = {
    iconPath: new vscode.ThemeIcon('list-tree'),
    tooltip: 'Show these results in the memlens sidebar',
  };
  qp.buttons = [showInSidebar];

  let seq = 0;
  let timer: NodeJS.Timeout | undefined;
  let source: vscode.CancellationTokenSource | undefined;
  let last: SearchResponse | undefined;
  let lastParams: SearchParams | undefined;
  let lastItems: HitItem[] = [];
  let lastError = '';
  let published = false;
  let sessions: { key: string; label: string }[] = [];
  void ui.sessions().then(
    (list) => {
      sessions = list.map((s) => ({ key: s.sessionKey, label: sessionCompletionLabel(s, displayTimeOptions()) }));
      if (/(^|\s)session:\S*$/.test(qp.value)) {
        render(qp.value);
      }
    },
    () => undefined,
  );

  const cancelPending = (): void => {
    if (timer) {
      clearTimeout(timer);
      timer = undefined;
    }
    source?.cancel();
    source?.dispose();
    source = undefined;
  };

  const publish = (): void => {
    if (last && !published) {
      results.set(last, lastParams);
      published = true;
      void rememberQuery(ui.state, qp.value);
    }
  };

  /** Completions (for the word being typed) above the last results, or the history when the box is empty. */
  const render = (value: string): void => {
    if (!value.trim()) {
      const history = searchHistory(ui.state);
      qp.items = [
        ...(history.length ? [{ label: 'recent searches', kind: vscode.QuickPickItemKind.Separator } as HitItem] : []),
        ...history.map((h) => ({ label: `$(history) ${h}`, complete: `${h} `, alwaysShow: true })),
        { label: 'filters (type them with your words)', kind: vscode.QuickPickItemKind.Separator },
        ...FILTERS.map((f) => ({
          label: `$(filter) ${f.name}:`,
          description: f.values.length ? f.values.join(' | ') : '<session key or id>',
          detail: f.description,
          complete: `${f.name}:`,
          alwaysShow: true,
        })),
      ];
      return;
    }
    const completions: HitItem[] = completionsFor(value, sessions).map((c) => ({
      label: `$(filter) ${c.insert}`,
      description: c.description,
      complete: applyCompletion(value, c.insert),
      alwaysShow: true,
    }));
    qp.items = [...completions, ...lastItems];
    // the notes head the answer, but Enter opens the top hit: it stays the active row (a completion, typed into, wins)
    const top = lastItems.find((item) => item.hit);
    if (!completions.length && lastItems[0]?.note && top) {
      qp.activeItems = [top];
    }
  };

  const search = (value: string, delay: number): void => {
    const my = ++seq;
    cancelPending();
    const parsed = parseSearchInput(value);
    const query = parsed.query.trim();
    if (parsed.errors.length) {
      lastItems = parsed.errors.map((e) => ({ label: `$(warning) ${e}`, alwaysShow: true }));
    }
    if (query.length < MIN_QUERY_CHARS) {
      qp.busy = false;
      if (!parsed.errors.length) {
        lastItems = [];
      }
      qp.title = defaultTitle;
      render(value);
      return;
    }
    render(value);
    if (parsed.errors.length) {
      return;
    }
    timer = setTimeout(() => {
      timer = undefined;
      const tokenSource = new vscode.CancellationTokenSource();
      source = tokenSource;
      qp.busy = true;
      const params: SearchParams = { query };
      if (Object.keys(parsed.filters).length) {
        params.filters = parsed.filters;
      }
      server
        .execute<SearchResponse>(Commands.search, params, tokenSource.token)
        .then(
          (response) => {
            if (my !== seq) {
              return;
            }
            last = response;
            lastParams = params;
            published = false;
            lastError = '';
            qp.title = `memlens: ${searchSummary(response, WEAKER_FROM_QUICKPICK)}`;
            lastItems = [
              ...noteItems(response),
              ...(response.results.length
                ? resultItems(response, displayTimeOptions())
                : [{ ...noResultsItem(value, !!response.indexing, response.withheld ?? 0), alwaysShow: true }]),
            ];
            render(qp.value);
          },
          (err: unknown) => {
            if (my !== seq || isCancellation(err)) {
              return;
            }
            const message = errorMessage(err);
            lastItems = [{ label: '$(error) Search failed', detail: message, alwaysShow: true }];
            render(qp.value);
            if (message !== lastError) {
              lastError = message;
              void vscode.window.showErrorMessage(`memlens: search failed: ${message}`);
            }
          },
        )
        .finally(() => {
          if (my === seq) {
            qp.busy = false;
          }
          tokenSource.dispose();
          if (source === tokenSource) {
            source = undefined;
          }
        });
    }, delay);
  };

  qp.onDidChangeValue((value) => search(value, SEARCH_DEBOUNCE_MS));
  qp.onDidAccept(() => {
    const item = qp.selectedItems[0] ?? qp.activeItems[0];
    if (item?.complete !== undefined) {
      qp.value = item.complete;
      search(qp.value, 0);
      return;
    }
    if (item?.reveal) {
      publish();
      qp.hide();
      void ui.revealResults();
      return;
    }
    if (!item?.hit) {
      return;
    }
    publish();
    qp.hide();
    void ui.openHit(item.hit, results.terms);
  });
  qp.onDidTriggerButton((button) => {
    if (button === showInSidebar) {
      publish();
      qp.hide();
      void ui.revealResults();
    }
  });
  qp.onDidHide(() => {
    seq++;
    cancelPending();
    publish(); // the sidebar keeps the last search
    qp.dispose();
  });

  if (initialQuery) {
    qp.value = queryFromText(initialQuery);
    search(qp.value, 0);
  } else {
    render('');
  }
  qp.show();
}
