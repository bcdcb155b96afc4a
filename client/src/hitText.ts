/**
 * How one search hit reads: its icon, where it is from, its label and description in the results tree and in the
 * Search Memory box, and its markdown tooltip. Pure (no `vscode` import): unit-tested. Grouping hits by file or
 * session is in `resultGroups.ts`.
 */

import type { SearchResult } from './protocol';
import { boldTerms, firstWords, formatAge } from './query';
import { basename, escapeMarkdown, formatDate, formatDateTime, formatScore, oneLine, shortId, type TimeOptions } from './format';

/** A codicon name for a hit. */
export function hitIcon(hit: Pick<SearchResult, 'kind'>): string {
  switch (hit.kind) {
    case 'memory':
      return 'book';
    case 'summary':
      return 'note';
    default:
      return 'comment-discussion';
  }
}

/**
 * A short session label: the session id's first characters, plus what the session key adds after the id (a
 * sub-agent, or a copy): `5b0e7d3c`, `5b0e7d3c › agent-a3f9c21`.
 */
export function sessionLabel(hit: Pick<SearchResult, 'sessionKey' | 'sessionId'>): string {
  const id = hit.sessionId ?? '';
  const key = hit.sessionKey ?? '';
  if (!id) {
    return shortId(key.replace(/^[^:/]*:/, ''));
  }
  const at = key.indexOf(id);
  const rest = at >= 0 ? key.slice(at + id.length).replace(/^[/~]+/, '') : '';
  return rest ? `${shortId(id)} › ${rest}` : shortId(id);
}

function lineRange(hit: SearchResult): string {
  if (!hit.lineStart) {
    return '';
  }
  return hit.lineEnd && hit.lineEnd !== hit.lineStart ? `${hit.lineStart}–${hit.lineEnd}` : String(hit.lineStart);
}

/**
 * Where a hit is: `MEMORY.md:12` for memory files, `claude-code · 258c7280 · 2026-02-10 · user` for transcript
 * messages (`· summary` for summaries).
 */
export function hitLocation(hit: SearchResult, opts: TimeOptions = {}): string {
  const file = hit.relPath || hit.path;
  if (hit.kind === 'memory' || (!hit.sessionKey && !hit.sessionId)) {
    return hit.lineStart ? `${file}:${hit.lineStart}` : file;
  }
  const parts = [
    hit.format,
    sessionLabel(hit),
    formatDate(hit.timestamp, opts),
    speaker(hit),
  ];
  return parts.filter((p): p is string => !!p).join(' · ');
}

export interface PickItemText {
  icon: string;
  label: string;
  description: string;
  detail: string;
}

/** Who wrote a hit, in words: a tool output is the command's, whatever the role of the message that carried it. */
export function speaker(hit: Pick<SearchResult, 'kind' | 'role'>): string | undefined {
  if (hit.kind === 'summary') {
    return 'summary';
  }
  return hit.kind === 'tool' ? 'tool output' : hit.role ?? undefined;
}

/** A codicon for who wrote a hit: you, the agent, a command's output, a summary, a memory note. */
export function whoIcon(hit: Pick<SearchResult, 'kind' | 'role'>): string {
  if (hit.kind === 'memory') {
    return 'book';
  }
  if (hit.kind === 'summary') {
    return 'note';
  }
  if (hit.kind === 'tool') {
    return 'terminal';
  }
  return (hit.role ?? '').toLowerCase() === 'user' ? 'account' : 'hubot';
}

/** How sure a hit is: the server's word for its calibrated chance (strong / possible / weak), else its score. */
export function hitSureness(hit: SearchResult): string {
  return hit.confidence ?? formatScore(hit.score);
}

/** Score and age (or, for memory notes, where): `91% · 3 d ago`, `82% · MEMORY.md:12`. */
export function hitDescription(hit: SearchResult, opts: TimeOptions = {}): string {
  if (hit.kind === 'memory') {
    const range = lineRange(hit);
    return [hitSureness(hit), `${hit.relPath || basename(hit.path)}${range ? `:${range}` : ''}`].join(' · ');
  }
  return [hitSureness(hit), formatAge(hit.timestamp, opts.now)].filter(Boolean).join(' · ');
}

/** The label of a hit under its group: its heading (memory) or the excerpt's first words. */
export function hitLabel(hit: SearchResult, max = 60): string {
  if (hit.kind === 'memory' && hit.heading) {
    const last = hit.heading.split(' › ').pop() ?? hit.heading;
    return oneLine(last, max);
  }
  return firstWords(hit.excerpt, max) || basename(hit.path);
}

/**
 * The three lines of a QuickPick item: who and when, or the memory file and heading (label); score, age and the
 * session's title (description); the excerpt (detail). Labels hold no excerpt words on purpose: VS Code moves items
 * whose label matches the typed text to the top, which would tear a session's hits apart.
 */
export function pickItemText(hit: SearchResult, opts: TimeOptions = {}): PickItemText {
  let label: string;
  if (hit.kind === 'memory' || (!hit.sessionKey && !hit.sessionId)) {
    const where = hitLocation(hit, opts);
    label = hit.heading ? `${where} — ${oneLine(hit.heading.split(' › ').pop(), 60)}` : where;
  } else {
    const who = speaker(hit) || 'message';
    const when = formatDateTime(hit.timestamp, opts);
    label = [who, when].filter(Boolean).join(' · ');
  }
  const title = hit.kind !== 'memory' ? oneLine(hit.title || sessionLabel(hit), 60) : '';
  return {
    icon: whoIcon(hit),
    label,
    // the label holds the date and time already: no age beside it (the same moment twice)
    description: [hitSureness(hit), title]
      .filter(Boolean)
      .join(' · '),
    detail: oneLine(hit.excerpt, 400),
  };
}

export interface TreeHitText {
  label: string;
  description: string;
  /** markdown */
  tooltip: string;
}

/**
 * Label, description and markdown tooltip of a hit under its group in the results tree: the heading or the
 * excerpt's first words, then score and age; the tooltip is the excerpt with the query's words in bold.
 */
export function treeHitText(hit: SearchResult, opts: TimeOptions = {}, terms: readonly string[] = []): TreeHitText {
  return { label: hitLabel(hit), description: hitDescription(hit, opts), tooltip: hitTooltip(hit, opts, terms) };
}

/**
 * A hit in the "weaker matches" group, which holds hits of any session or file side by side: its label, then how
 * sure it is, where it is from (the session's title, or the file) and its age.
 */
export function weakerHitText(hit: SearchResult, opts: TimeOptions = {}, terms: readonly string[] = []): TreeHitText {
  const from = hit.kind === 'memory' ? hitLocation(hit, opts) : oneLine(hit.title || hitLocation(hit, opts), 50);
  const age = hit.kind === 'memory' ? '' : formatAge(hit.timestamp, opts.now);
  return {
    label: hitLabel(hit),
    description: [hitSureness(hit), from, age].filter(Boolean).join(' · '),
    tooltip: hitTooltip(hit, opts, terms),
  };
}

/** A markdown tooltip: title, where, score and the excerpt as a quote, the query's words in bold. */
export function hitTooltip(hit: SearchResult, opts: TimeOptions = {}, terms: readonly string[] = []): string {
  const title = hit.kind !== 'memory' && hit.title ? `**${escapeMarkdown(oneLine(hit.title, 120))}**\n\n` : '';
  const head = `${title}${escapeMarkdown(hitLocation(hit, opts))} — **${hitSureness(hit)}**`;
  const heading = hit.heading ? `\n\n_${escapeMarkdown(hit.heading)}_` : '';
  const body = (hit.excerpt ?? '')
    .trim()
    .split(/\r?\n/)
    .map((line) => `> ${boldTerms(line, terms)}`)
    .join('\n');
  return `${head}${heading}\n\n${body}`;
}
