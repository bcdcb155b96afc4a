/**
 * "memlens: Search Memory": a QuickPick that searches as you type (debounced, stale requests cancelled).
 */

import * as vscode from 'vscode';
import { errorMessage, isCancellation, oneLine, pickItemText, searchSummary } from './format';
import { Commands, type SearchResponse, type SearchResult } from './protocol';
import type { ResultsModel } from './resultsTree';
import type { ServerManager } from './serverLauncher';

export const SEARCH_DEBOUNCE_MS = 250;
const MIN_QUERY_CHARS = 2;
const MAX_QUERY_CHARS = 1000;

interface HitItem extends vscode.QuickPickItem {
  hit?: SearchResult;
}

export interface SearchUi {
  openHit(hit: SearchResult): Promise<unknown>;
  revealResults(): Promise<void>;
}

/** The text of a selection, cut to a reasonable query length. */
export function queryFromText(text: string): string {
  return oneLine(text, MAX_QUERY_CHARS);
}

export function showSearchQuickPick(
  server: ServerManager,
  results: ResultsModel,
  ui: SearchUi,
  initialQuery = '',
): void {
  const qp = vscode.window.createQuickPick<HitItem>();
  const defaultTitle = 'memlens: Search Memory';
  qp.title = defaultTitle;
  qp.placeholder = 'Search memory notes and agent transcripts, e.g. "how did we fix the dead-letter queue backup?"';
  qp.matchOnDescription = false;
  qp.matchOnDetail = false;
  const showInSidebar: vscode.QuickInputButton = {
    iconPath: new vscode.ThemeIcon('list-tree'),
    tooltip: 'Show these results in the memlens sidebar',
  };
  qp.buttons = [showInSidebar];

  let seq = 0;
  let timer: NodeJS.Timeout | undefined;
  let source: vscode.CancellationTokenSource | undefined;
  let last: SearchResponse | undefined;
  let lastError = '';
  let published = false;

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
      results.set(last);
      published = true;
    }
  };

  const search = (value: string, delay: number): void => {
    const my = ++seq;
    cancelPending();
    const query = value.trim();
    if (query.length < MIN_QUERY_CHARS) {
      qp.busy = false;
      qp.items = [];
      qp.title = defaultTitle;
      return;
    }
    timer = setTimeout(() => {
      timer = undefined;
      const tokenSource = new vscode.CancellationTokenSource();
      source = tokenSource;
      qp.busy = true;
      server
        .execute<SearchResponse>(Commands.search, { query }, tokenSource.token)
        .then(
          (response) => {
            if (my !== seq) {
              return;
            }
            last = response;
            published = false;
            lastError = '';
            qp.title = `memlens: ${searchSummary(response)}`;
            qp.items = response.results.length
              ? response.results.map((hit) => {
                  const text = pickItemText(hit);
                  return {
                    label: `$(${text.icon}) ${text.label}`,
                    description: text.description,
                    detail: text.detail,
                    alwaysShow: true,
                    hit,
                  };
                })
              : [
                  {
                    label: '$(info) No results',
                    detail: response.indexing
                      ? 'The index is still being built; try again in a moment.'
                      : 'Try other words, or check memlens.search.minScore.',
                    alwaysShow: true,
                  },
                ];
          },
          (err: unknown) => {
            if (my !== seq || isCancellation(err)) {
              return;
            }
            const message = errorMessage(err);
            qp.items = [{ label: '$(error) Search failed', detail: message, alwaysShow: true }];
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
    if (!item?.hit) {
      return;
    }
    publish();
    qp.hide();
    void ui.openHit(item.hit);
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
  }
  qp.show();
}
