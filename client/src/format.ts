/**
 * Small text formatters every view shares: scores, counts, dates, short ids, one-line cuts and markdown escaping (a
 * count with its noun: counted.ts). Pure (no `vscode` import) so `node --test` covers them; anything about a
 * particular kind of answer (hits, transcripts, stats) lives in its own module and builds on these.
 */

export interface TimeOptions {
  /** Render times in UTC instead of the local time zone (tests use this to be deterministic). */
  utc?: boolean;
  /** An IANA time zone (`Europe/Berlin`) to render times in (the `memlens.display.timeZone` setting); empty or
   * unknown = the machine's zone. `utc` wins. */
  timeZone?: string;
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

/** The wall-clock fields of a moment in one time zone. */
interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const zoneFormats = new Map<string, Intl.DateTimeFormat | null>();

/** A formatter for `zone`, cached; null when the zone is unknown to this runtime. */
function zoneFormat(zone: string): Intl.DateTimeFormat | null {
  let format = zoneFormats.get(zone);
  if (format === undefined) {
    try {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        hourCycle: 'h23',
      });
    } catch {
      format = null; // a RangeError: not a time zone this runtime knows
    }
    zoneFormats.set(zone, format);
  }
  return format;
}

/** Whether `zone` is a time zone this runtime can render (an empty one is "the machine's": valid). */
export function isKnownTimeZone(zone: string | undefined): boolean {
  return !zone?.trim() || zoneFormat(zone.trim()) !== null;
}

function wallClock(d: Date, opts: TimeOptions): WallClock {
  if (opts.utc) {
    return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes() };
  }
  const format = opts.timeZone?.trim() ? zoneFormat(opts.timeZone.trim()) : null;
  if (format) {
    const part = (type: Intl.DateTimeFormatPartTypes): number =>
      Number(format.formatToParts(d).find((p) => p.type === type)?.value ?? 0);
    return { year: part('year'), month: part('month'), day: part('day'), hour: part('hour') % 24, minute: part('minute') };
  }
  return { year: d.getFullYear(), month: d.getMonth() + 1, day: d.getDate(), hour: d.getHours(), minute: d.getMinutes() };
}

/** "2026-02-10T21:11:05Z" → "2026-02-10" (in `timeZone`, else the machine's zone, or UTC with `utc`); "" when
 * absent or unparsable. */
export function formatDate(iso: string | null | undefined, opts: TimeOptions = {}): string {
  const d = parseTime(iso);
  if (!d) {
    return '';
  }
  const w = wallClock(d, opts);
  return `${w.year}-${pad2(w.month)}-${pad2(w.day)}`;
}

/** "2026-02-10T21:11:05Z" → "2026-02-10 21:11" (the zone as for formatDate); "" when absent or unparsable. */
export function formatDateTime(iso: string | null | undefined, opts: TimeOptions = {}): string {
  const d = parseTime(iso);
  if (!d) {
    return '';
  }
  const w = wallClock(d, opts);
  return `${w.year}-${pad2(w.month)}-${pad2(w.day)} ${pad2(w.hour)}:${pad2(w.minute)}`;
}

/**
 * The span from `first` to `last` (the zone as for formatDate), the day not said twice: "2026-02-10 21:11 – 21:40",
 * "2026-02-10 21:11 – 2026-02-11 09:02", one time when they fall in the same minute; "" when neither parses.
 */
export function formatTimeSpan(first: string | null | undefined, last: string | null | undefined, opts: TimeOptions = {}): string {
  const from = formatDateTime(first, opts);
  const to = formatDateTime(last, opts);
  if (!from || !to || from === to) {
    return from || to;
  }
  return from.slice(0, 10) === to.slice(0, 10) ? `${from} – ${to.slice(11)}` : `${from} – ${to}`;
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

/** Escape text for inclusion in markdown (tooltips and rendered documents). */
export function escapeMarkdown(text: string): string {
  return text.replace(/([\\`*_{}[\]()#+\-.!|<>])/g, '\\$1');
}
