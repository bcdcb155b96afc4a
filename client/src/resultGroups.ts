/**
 * Search hits grouped the way the sidebar shows them: one group per memory file or per session, ordered by their
 * best hit, plus the one-line summary of a search response. Pure (no `vscode` import): unit-tested.
 */

import type { Period, SearchFilters, SearchParams, SearchResponse, SearchResult } from './protocol';
import { counted, countedOrNo } from './counted';
import { basename, formatCount, formatDate, oneLine, type TimeOptions } from './format';
import { hitSureness, sessionLabel } from './hitText';
import { formatAge } from './query';

export interface ResultGroup {
  /** stable id: `memory:<path>` or `session:<sessionKey>` */
  key: string;
  kind: 'memory' | 'session';
  label: string;
  description: string;
  /** the file of the group (memory file or transcript file) */
  path: string;
  sessionKey?: string;
  /** the session's title, when the server knows one */
  title?: string;
  /** the date of the group's oldest hit (sessions; for the tooltip) */
  when?: string;
  /** the shell command that resumes the session, when there is one */
  resumeCommand?: string;
  bestScore: number;
  hits: SearchResult[];
}

function groupKey(hit: SearchResult): { key: string; kind: 'memory' | 'session' } {
  if (hit.kind !== 'memory' && (hit.sessionKey || hit.sessionId)) {
    return { key: `session:${hit.sessionKey ?? hit.sessionId}`, kind: 'session' };
  }
  return { key: `memory:${hit.path}`, kind: 'memory' };
}

/**
 * Group hits by memory file / session. Groups are ordered by their best hit, hits within a group by score (ties:
 * memory by line, transcripts by time). The server's order is kept for equal scores.
 */
export function groupResults(results: readonly SearchResult[], opts: TimeOptions = {}): ResultGroup[] {
  const groups = new Map<string, ResultGroup>();
  for (const hit of results) {
    const { key, kind } = groupKey(hit);
    let group = groups.get(key);
    if (!group) {
      group = {
        key,
        kind,
        label: '',
        description: '',
        path: hit.path,
        sessionKey: kind === 'session' ? (hit.sessionKey ?? hit.sessionId ?? undefined) : undefined,
        bestScore: hit.score,
        hits: [],
      };
      groups.set(key, group);
    }
    group.hits.push(hit);
    group.bestScore = Math.max(group.bestScore, hit.score);
  }
  const ordered = [...groups.values()];
  for (const group of ordered) {
    group.hits = group.hits
      .map((hit, index) => ({ hit, index }))
      .sort((a, b) => b.hit.score - a.hit.score || a.index - b.index)
      .map((x) => x.hit);
    const first = group.hits[0];
    const count = counted(group.hits.length, 'hit');
    if (group.kind === 'memory') {
      group.label = first.relPath || basename(first.path);
      group.description = `${hitSureness(first)} · ${count}`;
    } else {
      const title = group.hits.map((h) => h.title?.trim()).find((t) => !!t);
      group.title = title;
      group.label = title ? oneLine(title, 80) : [first.format, sessionLabel(first)].filter(Boolean).join(' · ');
      // score and age first: a narrow sidebar cuts the description from its end, and the label (what the session
      // was about) is never the part that goes; the agent and the date are in the tooltip
      const times = group.hits.map((h) => h.timestamp).filter((t): t is string => !!t).sort();
      const newest = times.length ? formatAge(times[times.length - 1], opts.now) : '';
      group.description = [hitSureness(first), newest, count].filter(Boolean).join(' · ');
      group.when = times.length ? formatDate(times[0], opts) : undefined;
      group.resumeCommand = group.hits.map((h) => h.resumeCommand).find((c): c is string => !!c);
    }
  }
  return ordered
    .map((group, index) => ({ group, index }))
    .sort((a, b) => b.group.bestScore - a.group.bestScore || a.index - b.index)
    .map((x) => x.group);
}

/** One line summarising a search response (tree view message, logs), with the weaker matches it withheld and,
 * `weakerHint`, where the user sees them. */
export function searchSummary(response: {
  query: string;
  results: unknown[];
  totalResults?: number;
  searchTimeMs?: number;
  indexing?: boolean;
  withheld?: number;
  period?: Period;
}, weakerHint = 'minScore 0 shows them', filters?: SearchFilters): string {
  const n = response.results.length;
  const total = response.totalResults && response.totalResults > n ? ` of ${formatCount(response.totalResults)}` : '';
  const time = typeof response.searchTimeMs === 'number' ? ` in ${Math.round(response.searchTimeMs)} ms` : '';
  const indexing = response.indexing ? ' (still indexing)' : '';
  const withheld = response.withheld
    ? `; ${counted(response.withheld, 'weaker match', 'weaker matches')} hidden (${weakerHint})`
    : '';
  if (n === 0) {
    const narrowed = narrowingFilters(filters);
    const widen = narrowed ? ` ${narrowed}; remove the filters to search everything` : '';
    return `No results for “${oneLine(response.query, 60)}”${widen}${indexing}${withheld}${nearestSessions(response.period)}.`;
  }
  return `${counted(n, 'result')}${total} for “${oneLine(response.query, 60)}”${time}${indexing}${withheld}`;
}

/** The count in the Results view's title bar: "no results", "1 result", "1,204 results". */
export function resultsCount(response: { results: unknown[] }): string {
  return countedOrNo(response.results.length, 'result');
}

/** The filters a search was narrowed by, in words (`since 2026-11-04, with role:user`); empty without any. */
export function narrowingFilters(filters: SearchFilters | undefined): string {
  if (!filters) {
    return '';
  }
  const words: string[] = [];
  for (const [name, value] of Object.entries(filters)) {
    if (value === undefined || value === null || value === '') {
      continue;
    }
    words.push(name === 'since' || name === 'until' ? `${name} ${String(value).slice(0, 10)}` : `with ${name}:${String(value)}`);
  }
  return words.join(', ');
}

/** For a question about days that found no session: when the nearest ones were written, in the period's time zone
 * (`; nearest: 2026-02-12 14:41 before, 2026-02-17 12:58 after`); empty otherwise. */
function nearestSessions(period: Period | undefined): string {
  if (!period) {
    return '';
  }
  const minutes = (iso: string): string => iso.slice(0, 16).replace('T', ' ');
  const sides = [
    period.nearestBefore ? `${minutes(period.nearestBefore)} before` : '',
    period.nearestAfter ? `${minutes(period.nearestAfter)} after` : '',
  ].filter(Boolean);
  return sides.length ? `; nearest: ${sides.join(', ')}` : '';
}

/** The label of the collapsed group that holds the hits a search withheld: `weaker matches (3)`. */
/** Where the sidebar shows withheld hits, for its summary line. */
export const WEAKER_IN_SIDEBAR = 'expand “weaker matches” to see them';
/** Where the Search Memory box sends the user for withheld hits (its toolbar button shows the answer there). */
export const WEAKER_FROM_QUICKPICK = 'the sidebar lists them';

export function weakerLabel(withheld: number): string {
  return `weaker matches (${formatCount(withheld)})`;
}

/** The request that shows what `params` withheld: the same search with no threshold. */
export function weakerParams(params: SearchParams): SearchParams {
  return { ...params, minScore: 0 };
}

/**
 * The hits the shown answer withheld: those of the threshold-free answer it did not hold, best first, as many as it
 * says it withheld (the threshold-free answer runs on to its limit with hits the server never counted).
 */
export function weakerHits(shown: Pick<SearchResponse, 'results' | 'withheld'>, all: Pick<SearchResponse, 'results'>): SearchResult[] {
  const seen = new Set(shown.results.map((hit) => hit.id));
  return all.results.filter((hit) => !seen.has(hit.id)).slice(0, Math.max(0, shown.withheld));
}
