/**
 * Small text formatters every view shares: scores, counts, dates, short ids, one-line cuts, plurals and markdown
 * escaping. Pure (no `vscode` import) so `node --test` covers them; anything about a particular kind of answer
 * (hits, transcripts, stats) lives in its own module and builds on these.
 */

export interface TimeOptions {
  /** Render times in UTC instead of the local time zone (tests use this to be deterministic). */
  utc?: boolean;
  /** "now" for ages ("3 d ago"); tests pass a fixed time */
  now?: Date;
}

/** 0.873 → "87%"; clamps to 0..100. */
export function formatScore(score: number): string {
  if (!Number.isFinite(score)) {
    return '–';
  }
  const pct = Math.round(Math.min(1, Math.max(0, score)) * 100);
  return `${pct}%`;
}

/** 1204 → "1,204". */
export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) {
    return '0';
  }
  return Math.round(n).toLocaleString('en-US');
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

function parseTime(iso: string | null | undefined): Date | undefined {
  if (!iso) {
    return undefined;
  }
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** "2026-02-10T21:11:05Z" → "2026-02-10" (local date unless `utc`); "" when absent or unparsable. */
export function formatDate(iso: string | null | undefined, opts: TimeOptions = {}): string {
  const d = parseTime(iso);
  if (!d) {
    return '';
  }
  return opts.utc
    ? `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`
    : `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}`;
}

/** "2026-02-10T21:11:05Z" → "2026-02-10 21:11"; "" when absent or unparsable. */
export function formatDateTime(iso: string | null | undefined, opts: TimeOptions = {}): string {
  const d = parseTime(iso);
  if (!d) {
    return '';
  }
  const time = opts.utc
    ? `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`
    : `${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
  return `${formatDate(iso, opts)} ${time}`;
}

/** A session id shortened for labels: uuids and long ids keep their first 8 characters. */
export function shortId(id: string | undefined, length = 8): string {
  if (!id) {
    return '';
  }
  return id.length > length + 2 ? id.slice(0, length) : id;
}

/** Collapse whitespace to single spaces and cut to `max` characters with an ellipsis. */
export function oneLine(text: string | undefined, max = 200): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  if (flat.length <= max) {
    return flat;
  }
  return `${flat.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
}

export function basename(p: string): string {
  const parts = p.split(/[\\/]/);
  return parts[parts.length - 1] || p;
}

/** `1 hit`, `2 hits`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Escape text for inclusion in markdown (tooltips and rendered documents). */
export function escapeMarkdown(text: string): string {
  return text.replace(/([\\`*_{}[\]()#+\-.!|<>])/g, '\\$1');
}
