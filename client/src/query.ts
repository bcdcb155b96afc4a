/**
 * The search box's little language and the highlighting of matched words. Pure (no `vscode` import): unit-tested.
 *
 *   how did we fix the DLQ role:user since:7d format:codex
 *
 * Filters are `name:value` words anywhere in the query: `role:user|assistant`, `kind:memory|transcript|summary`,
 * `format:claude-code|codex|openclaw|specstory`, `since:` / `until:` (`7d`, `12h`, `2w`, `3m`, `1y` ago, `today`,
 * `yesterday`, a weekday such as `monday` or `tue`, or an ISO date: the server's words, server/memlens/requests/
 * relative_dates.py), `session:<session key or id>`, `project:<a working folder's name or path>`. The other words are
 * the query.
 */

import { counted } from './counted';
import type { SearchFilters } from './protocol';

export interface FilterSpec {
  name: keyof SearchFilters;
  /** the values offered for completion (`session:` completes from the sessions list) */
  values: readonly string[];
  description: string;
}

export const FILTERS: readonly FilterSpec[] = [
  { name: 'role', values: ['user', 'assistant'], description: 'only messages written by you (user) or by the agent' },
  { name: 'kind', values: ['memory', 'transcript', 'summary'], description: 'only memory notes, transcripts or compaction summaries' },
  { name: 'format', values: ['claude-code', 'codex', 'openclaw', 'specstory'], description: 'only one agent’s transcripts' },
  { name: 'since', values: ['1d', '7d', '30d', '1y', 'today', 'monday'], description: 'only what is newer (7d = in the last 7 days, today, monday, or a date: 2026-02-01)' },
  { name: 'until', values: ['1d', '7d', '30d'], description: 'only what is older (a duration ago, or a date)' },
  { name: 'session', values: [], description: 'only one session (its key or id)' },
  { name: 'project', values: [], description: 'only one project’s sessions (its folder’s name, any case, or path)' },
];

const FILTER_RE = /^(role|kind|format|since|until|session|project):(.*)$/i;
/** `7d`, and `-7d`, which says the same `ago` (as the server reads it, relative_dates.py) */
const RELATIVE_RE = /^-?(\d{1,5})([hdwmy])$/i;
/** the days a `since:`/`until:` may name by their word, which the server reads as days of its display zone */
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const DATE_RE = /^\d{4}-\d{2}(-\d{2}([T ]\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:?\d{2})?)?)?$/;
/** a time on the clock of today, `14:00`, `9am`, `2:30pm`: sent as the word, which the server reads in its display zone */
const CLOCK_RE = /^(?:([01]?\d|2[0-3]):[0-5]\d|(?:0?[1-9]|1[0-2])(?::[0-5]\d)?(?:am|pm))$/;

export interface ParsedInput {
  /** the words to search for, filters removed */
  query: string;
  filters: SearchFilters;
  /** one message per invalid filter */
  errors: string[];
}

/**
 * `7d` → the ISO time 7 days before `now`; `today`, `yesterday`, a weekday (`monday`, `tue`: the latest such day,
 * today if it is one), `tonight` and a time on the clock (`14:00`, `9am`) → the word, which the server reads as a day of `memlens.display.timeZone` (relative_dates.py),
 * the zone the answers show their times in; an ISO date stays as it is; else undefined.
 */
export function resolveTime(value: string, now: Date): string | undefined {
  const word = value.toLowerCase();
  if (word === 'today' || word === 'yesterday' || WEEKDAYS.some((day) => word === day || word === day.slice(0, 3))) {
    return word;
  }
  if (word === 'tonight' || CLOCK_RE.test(word)) {
    return word;
  }
  const rel = RELATIVE_RE.exec(value);
  if (rel) {
    const n = Number(rel[1]);
    const hours = { h: 1, d: 24, w: 24 * 7, m: 24 * 30, y: 24 * 365 }[rel[2].toLowerCase() as 'h' | 'd' | 'w' | 'm' | 'y'];
    return new Date(now.getTime() - n * hours * 3600 * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  if (DATE_RE.test(value) && !Number.isNaN(Date.parse(value.length === 7 ? `${value}-01` : value))) {
    return value.length === 7 ? `${value}-01` : value;
  }
  return undefined;
}

/** Split the search box's text into the query and its filters. */
export function parseSearchInput(value: string, now: Date = new Date()): ParsedInput {
  const words: string[] = [];
  const filters: SearchFilters = {};
  const errors: string[] = [];
  for (const token of value.trim().split(/\s+/).filter(Boolean)) {
    const m = FILTER_RE.exec(token);
    if (!m) {
      words.push(token);
      continue;
    }
    const name = m[1].toLowerCase() as keyof SearchFilters;
    const raw = m[2];
    const spec = FILTERS.find((f) => f.name === name);
    if (!raw) {
      errors.push(`${name}: needs a value${spec && spec.values.length ? ` (${spec.values.join(', ')})` : ''}`);
      continue;
    }
    if (name === 'since' || name === 'until') {
      const time = resolveTime(raw, now);
      if (time) {
        filters[name] = time;
      } else {
        errors.push(`${name}:${raw} is not a duration (7d, 12h, 2w, 3m, 1y), today, yesterday, a weekday, a time (9am, 14:00) or a date (2026-02-01)`);
      }
    } else if (name === 'session' || name === 'project') {
      filters[name] = raw;
    } else {
      const lowered = raw.toLowerCase();
      if (spec && spec.values.includes(lowered)) {
        (filters as Record<string, string>)[name] = lowered;
      } else {
        errors.push(`${name}:${raw} is not one of ${spec?.values.join(', ')}`);
      }
    }
  }
  return { query: words.join(' '), filters, errors };
}

export interface Completion {
  /** the text that replaces the word being typed */
  insert: string;
  description: string;
}

/**
 * Completions for the last word of the search box: filter names while it is a prefix of one (`ro` → `role:`),
 * values once the colon is typed (`role:` → `role:user`, `role:assistant`). `sessions` feeds `session:`.
 */
export function completionsFor(value: string, sessions: readonly { key: string; label: string }[] = []): Completion[] {
  if (/\s$/.test(value) || !value.trim()) {
    return [];
  }
  const words = value.split(/\s+/);
  const last = words[words.length - 1];
  const colon = last.indexOf(':');
  if (colon < 0) {
    const lowered = last.toLowerCase();
    return FILTERS.filter((f) => f.name.startsWith(lowered) && lowered.length >= 1).map((f) => ({
      insert: `${f.name}:`,
      description: f.description,
    }));
  }
  const name = last.slice(0, colon).toLowerCase();
  const typed = last.slice(colon + 1).toLowerCase();
  const spec = FILTERS.find((f) => f.name === name);
  if (!spec) {
    return [];
  }
  if (name === 'session') {
    return sessions
      .filter((s) => !typed || s.key.toLowerCase().includes(typed) || s.label.toLowerCase().includes(typed))
      .slice(0, 12)
      .map((s) => ({ insert: `session:${s.key}`, description: s.label }));
  }
  const exact = spec.values.includes(typed);
  return exact ? [] : spec.values.filter((v) => v.startsWith(typed)).map((v) => ({ insert: `${name}:${v}`, description: spec.description }));
}

/** Replace the last word of `value` by `insert` (a completed filter ends with a space, a filter name does not). */
export function applyCompletion(value: string, insert: string): string {
  const words = value.split(/\s+/);
  words[words.length - 1] = insert;
  return `${words.join(' ')}${insert.endsWith(':') ? '' : ' '}`;
}

// ---------------------------------------------------------------------------------------------------------------
// matched words

const STOP_WORDS = new Set(
  `a an and are as at be but by can did do does for from had has have how i if in into is it its me my of on or
  our so that the their then there these this to was we were what when where which who why will with you your`.split(/\s+/),
);

/** The words of a query worth highlighting: filters and stop words dropped, lower-cased, longest first. */
export function queryTerms(query: string): string[] {
  const { query: words } = parseSearchInput(query);
  const terms = new Set<string>();
  for (const word of words.toLowerCase().split(/[^\p{L}\p{N}_]+/u)) {
    if (word.length >= 2 && !STOP_WORDS.has(word)) {
      terms.add(word);
    }
  }
  return [...terms].sort((a, b) => b.length - a.length);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * [start, end) ranges of the words of `text` that begin with a term (`redrive` also marks `redrives`),
 * case-insensitively, not overlapping, in order.
 */
export function termRanges(text: string, terms: readonly string[]): [number, number][] {
  if (terms.length === 0 || !text) {
    return [];
  }
  const re = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${terms.map(escapeRegExp).join('|')})[\\p{L}\\p{N}_]*`, 'giu');
  const ranges: [number, number][] = [];
  for (const m of text.matchAll(re)) {
    ranges.push([m.index ?? 0, (m.index ?? 0) + m[0].length]);
  }
  return ranges;
}

/** Escape text for markdown (tooltips). */
export function escapeMd(text: string): string {
  return text.replace(/([\\`*_{}[\]()#+\-.!|<>~])/g, '\\$1');
}

/** `text` as markdown with every matched word in bold. */
export function boldTerms(text: string, terms: readonly string[]): string {
  let out = '';
  let at = 0;
  for (const [start, end] of termRanges(text, terms)) {
    out += `${escapeMd(text.slice(at, start))}**${escapeMd(text.slice(start, end))}**`;
    at = end;
  }
  return out + escapeMd(text.slice(at));
}

// ---------------------------------------------------------------------------------------------------------------
// ages

/** "just now", "5 min ago", "3 h ago", "4 d ago", "5 wk ago", "7 mo ago", "2 y ago"; "" when unknown. */
export function formatAge(iso: string | null | undefined, now: Date = new Date()): string {
  if (!iso) {
    return '';
  }
  const t = Date.parse(iso);
  if (Number.isNaN(t)) {
    return '';
  }
  const s = Math.max(0, (now.getTime() - t) / 1000);
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 86400 * 14) return `${Math.floor(s / 86400)} d ago`;
  if (s < 86400 * 60) return `${Math.floor(s / (86400 * 7))} wk ago`;
  if (s < 86400 * 365) return `${Math.floor(s / (86400 * 30))} mo ago`;
  return `${Math.floor(s / (86400 * 365))} y ago`;
}

/** The first words of an excerpt, for a label: whitespace collapsed, cut at a word boundary near `max`. */
export function firstWords(text: string | undefined, max = 60): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').replace(/^[…\s]+/, '').trim();
  if (flat.length <= max) {
    return flat;
  }
  const cut = flat.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

// ---------------------------------------------------------------------------------------------------------------
// an empty answer, explained

const UNIT_WORDS: Record<string, string> = { h: 'hour', d: 'day', w: 'week', m: 'month', y: 'year' };

/** The filter words of the search box as typed (`since:30d`, `role:user`), valid ones only. */
export function filterTokens(value: string): string[] {
  return value
    .trim()
    .split(/\s+/)
    .filter((token) => {
      const m = FILTER_RE.exec(token);
      return !!m && m[2] !== '' && parseSearchInput(token).errors.length === 0;
    });
}

/** `since:30d` → "since 30 days ago", `until:2026-02-01` → "until 2026-02-01", `role:user` → "with role:user". */
export function describeFilter(token: string): string {
  const m = FILTER_RE.exec(token);
  if (!m) {
    return token;
  }
  const name = m[1].toLowerCase();
  if (name === 'since' || name === 'until') {
    const rel = RELATIVE_RE.exec(m[2]);
    if (rel) {
      return `${name} ${counted(Number(rel[1]), UNIT_WORDS[rel[2].toLowerCase()])} ago`;
    }
    return `${name} ${m[2]}`;
  }
  return `with ${name}:${m[2]}`;
}

/**
 * What the QuickPick says when a search finds nothing: with filters typed, it names them and how to widen the
 * search ("No results since 30 days ago" / "remove since:30d"); with weaker matches withheld (`withheld`), that
 * Enter shows them (the row does: the sidebar lists them), not a setting to look up; otherwise the usual advice.
 */
export function noResultsText(
  value: string,
  indexing: boolean,
  withheld = 0,
): { label: string; detail: string; /** Enter on the row shows the weaker matches */ showsWeaker?: true } {
  const tokens = filterTokens(value);
  const still = indexing ? ' The index is still being built; more may come in a moment.' : '';
  if (tokens.length === 0) {
    if (withheld > 0) {
      return {
        label: 'No results',
        detail: `Press Enter to see the ${counted(withheld, 'weaker match', 'weaker matches')} in the sidebar, or try other words.${still}`,
        showsWeaker: true,
      };
    }
    return {
      label: 'No results',
      detail: indexing ? 'The index is still being built; try again in a moment.' : 'Try other words, or check memlens.search.minScore.',
    };
  }
  return {
    label: `No results ${tokens.map(describeFilter).join(', ')}`,
    detail: `Remove ${tokens.join(' or ')} to search everything.${still}`,
  };
}
