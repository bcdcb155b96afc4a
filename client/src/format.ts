/**
 * Pure presentation logic: labels, grouping, transcript URIs, markdown rendering. No `vscode` import here, so all of
 * it is unit-tested with `node --test`.
 */

import type {
  HistoryMessage,
  HistoryResponse,
  IndexStatus,
  SearchResult,
  StatsResponse,
} from './protocol';
import { boldTerms, firstWords, formatAge } from './query';

// ---------------------------------------------------------------------------------------------------------------
// small formatters

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

function basename(p: string): string {
  const parts = p.split(/[\\/]/);
  return parts[parts.length - 1] || p;
}

export function roleIcon(role: string | undefined, kind: 'message' | 'summary' = 'message'): string {
  if (kind === 'summary') {
    return '📝';
  }
  switch ((role ?? '').toLowerCase()) {
    case 'user':
    case 'human':
      return '🧑';
    case 'assistant':
    case 'ai':
    case 'model':
      return '🤖';
    case 'system':
    case 'developer':
      return '⚙️';
    case 'tool':
    case 'function':
      return '🔧';
    default:
      return '💬';
  }
}

// ---------------------------------------------------------------------------------------------------------------
// search hits

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
    hit.kind === 'summary' ? 'summary' : hit.role,
  ];
  return parts.filter((p): p is string => !!p).join(' · ');
}

export interface PickItemText {
  icon: string;
  label: string;
  description: string;
  detail: string;
}

/** A codicon for who wrote a hit: you, the agent, a summary, a memory note. */
export function whoIcon(hit: Pick<SearchResult, 'kind' | 'role'>): string {
  if (hit.kind === 'memory') {
    return 'book';
  }
  if (hit.kind === 'summary') {
    return 'note';
  }
  return (hit.role ?? '').toLowerCase() === 'user' ? 'account' : 'hubot';
}

/** Score and age (or, for memory notes, where): `91% · 3 d ago`, `82% · MEMORY.md:12`. */
export function hitDescription(hit: SearchResult, opts: TimeOptions = {}): string {
  if (hit.kind === 'memory') {
    const range = lineRange(hit);
    return [formatScore(hit.score), `${hit.relPath || basename(hit.path)}${range ? `:${range}` : ''}`].join(' · ');
  }
  return [formatScore(hit.score), formatAge(hit.timestamp, opts.now)].filter(Boolean).join(' · ');
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
    const who = hit.kind === 'summary' ? 'summary' : hit.role || 'message';
    const when = formatDateTime(hit.timestamp, opts);
    label = [who, when].filter(Boolean).join(' · ');
  }
  const title = hit.kind !== 'memory' ? oneLine(hit.title || sessionLabel(hit), 60) : '';
  return {
    icon: whoIcon(hit),
    label,
    description: [formatScore(hit.score), hit.kind !== 'memory' ? formatAge(hit.timestamp, opts.now) : '', title]
      .filter(Boolean)
      .join(' · '),
    detail: oneLine(hit.excerpt, 400),
  };
}

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

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
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
        sessionKey: kind === 'session' ? (hit.sessionKey ?? hit.sessionId) : undefined,
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
    const count = plural(group.hits.length, 'hit');
    if (group.kind === 'memory') {
      group.label = first.relPath || basename(first.path);
      group.description = `${formatScore(group.bestScore)} · ${count}`;
    } else {
      const title = group.hits.map((h) => h.title?.trim()).find((t) => !!t);
      group.title = title;
      group.label = title ? oneLine(title, 80) : [first.format, sessionLabel(first)].filter(Boolean).join(' · ');
      const times = group.hits.map((h) => h.timestamp).filter((t): t is string => !!t).sort();
      const date = times.length ? formatDate(times[0], opts) : '';
      group.description = [title ? first.format : '', date, formatScore(group.bestScore), count].filter(Boolean).join(' · ');
      group.resumeCommand = group.hits.map((h) => h.resumeCommand).find((c): c is string => !!c);
    }
  }
  return ordered
    .map((group, index) => ({ group, index }))
    .sort((a, b) => b.group.bestScore - a.group.bestScore || a.index - b.index)
    .map((x) => x.group);
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

/** Escape text for inclusion in markdown (tooltips and rendered documents). */
export function escapeMarkdown(text: string): string {
  return text.replace(/([\\`*_{}[\]()#+\-.!|<>])/g, '\\$1');
}

/** A markdown tooltip: title, where, score and the excerpt as a quote, the query's words in bold. */
export function hitTooltip(hit: SearchResult, opts: TimeOptions = {}, terms: readonly string[] = []): string {
  const title = hit.kind !== 'memory' && hit.title ? `**${escapeMarkdown(oneLine(hit.title, 120))}**\n\n` : '';
  const head = `${title}${escapeMarkdown(hitLocation(hit, opts))} — **${formatScore(hit.score)}**`;
  const heading = hit.heading ? `\n\n_${escapeMarkdown(hit.heading)}_` : '';
  const body = (hit.excerpt ?? '')
    .trim()
    .split(/\r?\n/)
    .map((line) => `> ${boldTerms(line, terms)}`)
    .join('\n');
  return `${head}${heading}\n\n${body}`;
}

/** One line summarising a search response (tree view message, logs). */
export function searchSummary(response: { query: string; results: unknown[]; totalResults?: number; searchTimeMs?: number; indexing?: boolean }): string {
  const n = response.results.length;
  const total = response.totalResults && response.totalResults > n ? ` of ${formatCount(response.totalResults)}` : '';
  const time = typeof response.searchTimeMs === 'number' ? ` in ${Math.round(response.searchTimeMs)} ms` : '';
  const indexing = response.indexing ? ' (still indexing)' : '';
  if (n === 0) {
    return `No results for “${oneLine(response.query, 60)}”${indexing}.`;
  }
  return `${plural(n, 'result')}${total} for “${oneLine(response.query, 60)}”${time}${indexing}`;
}

// ---------------------------------------------------------------------------------------------------------------
// transcript URIs: memlens-transcript:/<sessionKey url-encoded>.md?message=<messageId>

export const TRANSCRIPT_SCHEME = 'memlens-transcript';

export interface TranscriptRef {
  sessionKey: string;
  messageId?: string;
}

/**
 * The components of a transcript URI, for `Uri.from`. The path holds the session key as `Uri.parse` would decode it
 * from the string form (so links written by the server and URIs built here name the same document, and editor tabs
 * read `claude-code:5b0e7d3c….md`); only `%` and a leading `/` are escaped to keep it reversible and valid.
 */
export function transcriptUriComponents(ref: TranscriptRef): { scheme: string; path: string; query: string } {
  const key = ref.sessionKey.replace(/%/g, '%25').replace(/^\//, '%2F');
  return {
    scheme: TRANSCRIPT_SCHEME,
    path: `/${key}.md`,
    query: ref.messageId ? `message=${encodeURIComponent(ref.messageId)}` : '',
  };
}

/** The URI as a string, e.g. `memlens-transcript:/claude-code%3Aabc.md?message=m1`. */
export function transcriptUriString(ref: TranscriptRef): string {
  const query = ref.messageId ? `?message=${encodeURIComponent(ref.messageId)}` : '';
  return `${TRANSCRIPT_SCHEME}:/${encodeURIComponent(ref.sessionKey)}.md${query}`;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Parse the (decoded) path and query of a transcript URI, as `Uri.path` / `Uri.query` give them. */
export function parseTranscriptUri(path: string, query: string): TranscriptRef {
  let key = path.startsWith('/') ? path.slice(1) : path;
  key = key.endsWith('.md') ? key.slice(0, -3) : key;
  return withMessage(safeDecode(key), query);
}

function withMessage(sessionKey: string, query: string): TranscriptRef {
  let messageId: string | undefined;
  for (const part of query.replace(/^\?/, '').split('&')) {
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    if (name === 'message' && eq >= 0) {
      messageId = safeDecode(part.slice(eq + 1)) || undefined;
    }
  }
  return messageId ? { sessionKey, messageId } : { sessionKey };
}

/** Parse a whole `memlens-transcript:` URI string. */
export function parseTranscriptUriString(uri: string): TranscriptRef | undefined {
  const m = /^memlens-transcript:([^?#]*)(?:\?([^#]*))?/.exec(uri);
  if (!m) {
    return undefined;
  }
  let key = m[1].startsWith('/') ? m[1].slice(1) : m[1];
  key = key.endsWith('.md') ? key.slice(0, -3) : key;
  return withMessage(safeDecode(key), m[2] ?? '');
}

// ---------------------------------------------------------------------------------------------------------------
// transcript rendering

export interface RenderedTranscript {
  markdown: string;
  /** 0-based line of the anchor message's heading (0 when there is no anchor) */
  anchorLine: number;
  /** 0-based heading line of every message */
  messageLines: Record<string, number>;
}

/** Sessions linked to the one shown: its parent (for a subagent or sidechain) and its subagents. */
export interface RelatedSessions {
  parent?: { sessionKey: string; title?: string };
  children?: { sessionKey: string; title?: string; firstTime?: string | null }[];
}

const FENCE_RE = /^\s{0,3}(`{3,}|~{3,})/;

/** Close an unbalanced ``` / ~~~ fence so one message cannot swallow the rest of the document. */
function balanceFences(text: string): string {
  let open: string | undefined;
  for (const line of text.split('\n')) {
    const m = FENCE_RE.exec(line);
    if (!m) {
      continue;
    }
    if (!open) {
      open = m[1];
    } else if (m[1][0] === open[0] && m[1].length >= open.length && line.trim() === m[1]) {
      open = undefined;
    }
  }
  return open ? `${text}\n${open}` : text;
}

/** A tool call as the transcripts store it: `[Bash] command…`, `[Edit] file_path=… old_string=…`. */
const TOOL_CALL_RE = /^\[([A-Za-z_][\w.:-]{0,60})\] ?(.*)$/;

/** A fence longer than any backtick run in `text`. */
function fenceFor(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
}

/**
 * A tool call as a code block. Shell commands get their line continuations back (the index stores tool inputs on
 * one line: `… \\ --queue-url …` was `… \\⏎  --queue-url …`); other tools' `name=value` arguments go one per line.
 */
function toolCallBlock(tool: string, args: string): string[] {
  const shell = /^(bash|shell|sh|exec|exec_command|local_shell|run_command|terminal)$/i.test(tool);
  let body = args;
  if (shell) {
    body = args.replace(/^command=/, '').replace(/ \\ +/g, ' \\\n    ').replace(/ (&&|\|\|) (?=\S)/g, ' $1\n  ');
  } else {
    body = args.replace(/ (?=[a-z_][a-z0-9_]{1,30}=)/gi, '\n');
  }
  const fence = fenceFor(body);
  return [`🔧 **${tool}**`, '', `${fence}${shell ? 'sh' : 'text'}`, ...body.split('\n'), fence];
}

/**
 * A message's text as markdown lines that keep the document's outline: code fences and newlines kept, headings
 * (`#`…`######`) outside code escaped (`\\##`) so they do not become sections, tool calls as code blocks.
 */
export function messageBody(text: string): string[] {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of balanceFences(text).split('\n')) {
    const m = FENCE_RE.exec(line);
    if (fence) {
      out.push(line);
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length && line.trim() === m[1]) {
        fence = undefined;
      }
      continue;
    }
    if (m) {
      fence = m[1];
      out.push(line);
      continue;
    }
    const tool = TOOL_CALL_RE.exec(line);
    if (tool && tool[2]) {
      if (out.length && out[out.length - 1] !== '') {
        out.push('');
      }
      out.push(...toolCallBlock(tool[1], tool[2]), '');
      continue;
    }
    out.push(/^\s{0,3}#{1,6}(\s|$)/.test(line) ? line.replace(/#/, '\\#') : line);
  }
  while (out.length && out[out.length - 1] === '') {
    out.pop();
  }
  return out;
}

export function messageHeading(message: HistoryMessage, opts: TimeOptions = {}, anchor = false): string {
  const isSummary = message.kind === 'summary';
  const who = isSummary ? 'summary' : message.role || 'message';
  const when = formatDateTime(message.timestamp, opts);
  const mark = anchor ? ' · ⭐ match' : '';
  return `### ${roleIcon(message.role, message.kind)} ${who}${when ? ` · ${when}` : ''}${mark}`;
}

function sessionLink(sessionKey: string, title: string | undefined): string {
  const text = escapeMarkdown(oneLine(title || sessionKey, 100));
  return `[${text}](${transcriptUriString({ sessionKey })})`;
}

/**
 * Render a session as readable markdown: a title and facts, links to its parent session and its subagents, then a
 * heading per message (`### 🧑 user · date`), summaries as quotes. Returns the line of the anchored message so the
 * viewer can reveal it.
 */
export function renderTranscript(history: HistoryResponse, opts: TimeOptions = {}, related: RelatedSessions = {}): RenderedTranscript {
  const lines: string[] = [];
  const messageLines: Record<string, number> = {};
  const title = history.title?.trim() || `Session ${history.sessionId || history.sessionKey}`;
  lines.push(`# ${oneLine(title, 160).replace(/#/g, '\\#')}`, '');
  const times = history.messages.map((m) => m.timestamp).filter((t): t is string => !!t).sort();
  const span =
    times.length > 0
      ? formatDateTime(times[0], opts) === formatDateTime(times[times.length - 1], opts)
        ? formatDateTime(times[0], opts)
        : `${formatDateTime(times[0], opts)} – ${formatDateTime(times[times.length - 1], opts)}`
      : '';
  const facts = [
    history.format ? `**${history.format}**` : '',
    history.sessionId ? `session \`${history.sessionId}\`` : '',
    span,
    plural(history.messages.length, 'message'),
  ].filter(Boolean);
  lines.push(facts.join(' · '), '');
  if (history.path) {
    lines.push(`Source: \`${history.path}\``, '');
  }
  if (history.resumeCommand) {
    lines.push(`Resume: \`${history.resumeCommand.replace(/`/g, '')}\``, '');
  }
  const parentKey = related.parent?.sessionKey ?? history.parentSessionKey ?? undefined;
  if (parentKey) {
    lines.push(`↰ Subagent of ${sessionLink(parentKey, related.parent?.title)}`, '');
  }
  if (related.children?.length) {
    lines.push(`Subagents (${related.children.length}):`, '');
    for (const child of related.children) {
      const when = formatDateTime(child.firstTime, opts);
      lines.push(`- ${sessionLink(child.sessionKey, child.title)}${when ? ` · ${when}` : ''}`);
    }
    lines.push('');
  }
  if (history.hasMoreBefore) {
    lines.push('> ⋯ earlier messages are not shown', '');
  }
  lines.push('---', '');
  let anchorLine = 0;
  for (const message of history.messages) {
    const isAnchor = !!history.anchor && message.messageId === history.anchor;
    const headingLine = lines.length;
    messageLines[message.messageId] = headingLine;
    if (isAnchor) {
      anchorLine = headingLine;
    }
    lines.push(messageHeading(message, opts, isAnchor), '');
    const text = (message.text ?? '').replace(/\r\n?/g, '\n').trim();
    if (!text) {
      lines.push('_(empty)_');
    } else if (message.kind === 'summary') {
      for (const line of messageBody(text)) {
        lines.push(line ? `> ${line}` : '>');
      }
    } else {
      lines.push(...messageBody(text));
    }
    lines.push('');
  }
  if (history.messages.length === 0) {
    lines.push('_No messages._', '');
  }
  if (history.hasMoreAfter) {
    lines.push('> ⋯ later messages are not shown', '');
  }
  return { markdown: lines.join('\n'), anchorLine, messageLines };
}

// ---------------------------------------------------------------------------------------------------------------
// index status & stats

export interface StatusBarText {
  text: string;
  tooltip: string;
}

/** "$(sync~spin) memlens 1,204 chunks · 37 pending" while indexing, "$(database) memlens 1,204 chunks" when idle. */
export function statusBarText(status: IndexStatus, opts: TimeOptions = {}): StatusBarText {
  const pending = (status.chunksNeedingEmbeddings ?? 0) + (status.pendingMessages ?? 0);
  const chunks = `${formatCount(status.totalChunks)} chunks`;
  const text = status.indexing
    ? `$(sync~spin) memlens ${chunks}${pending > 0 ? ` · ${formatCount(pending)} pending` : ''}`
    : `$(database) memlens ${chunks}${pending > 0 ? ` · ${formatCount(pending)} pending` : ''}`;
  const tooltip = [
    status.indexing ? 'memlens: indexing…' : 'memlens: index up to date',
    status.message ?? '',
    `${formatCount(status.totalChunks)} chunks indexed`,
    status.chunksNeedingEmbeddings ? `${formatCount(status.chunksNeedingEmbeddings)} chunks waiting for embeddings` : '',
    status.pendingMessages ? `${formatCount(status.pendingMessages)} messages waiting to be indexed` : '',
    status.provider ? `embeddings: ${status.provider}` : '',
    status.lastSync ? `last sync: ${formatDateTime(status.lastSync, opts)}` : '',
    'Click for index stats',
  ].filter(Boolean);
  return { text, tooltip: tooltip.join('\n') };
}

function countTable(title: string, counts: Record<string, number> | undefined): string[] {
  const entries = Object.entries(counts ?? {}).sort((a, b) => a[0].localeCompare(b[0]));
  if (entries.length === 0) {
    return [`_${title}: none_`, ''];
  }
  return [
    `| ${title} | count |`,
    '| --- | ---: |',
    ...entries.map(([k, v]) => `| ${k} | ${formatCount(v)} |`),
    '',
  ];
}

/** The `memlens.stats` response as a small markdown report. */
export function renderStats(stats: StatsResponse, opts: TimeOptions = {}): string {
  const embedded =
    stats.totalChunks > 0 ? ` (${formatScore(stats.chunksWithEmbeddings / stats.totalChunks)})` : '';
  const lines = [
    '# memlens index',
    '',
    stats.indexing ? '**Indexing in progress…**' : 'Index is up to date.',
    '',
    '| | |',
    '| --- | ---: |',
    `| Chunks | ${formatCount(stats.totalChunks)} |`,
    `| Chunks with embeddings | ${formatCount(stats.chunksWithEmbeddings)}${embedded} |`,
    `| Chunks waiting for embeddings | ${formatCount(stats.chunksNeedingEmbeddings)} |`,
    `| Messages waiting to be indexed | ${formatCount(stats.pendingMessages)} |`,
    `| Unreadable transcript lines | ${formatCount(stats.badLines)} |`,
    `| Embedding provider | ${stats.provider ? escapeMarkdown(stats.provider) : 'none (keyword search only)'} |`,
    `| Last sync | ${stats.lastSync ? formatDateTime(stats.lastSync, opts) : 'never'} |`,
    '',
    `Index folder: \`${stats.indexDir}\``,
    '',
    '## Files',
    '',
    ...countTable('format', stats.files),
    '## Messages',
    '',
    ...countTable('format', stats.messages),
  ];
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// server launch helpers

function quoteArg(arg: string): string {
  return /[\s"'$`\\]/.test(arg) ? `"${arg.replace(/(["$`\\])/g, '\\$1')}"` : arg;
}

/**
 * The command lines that make memlens importable by `python`, best first. memlens is not on PyPI: the .vsix
 * carries its wheel (`wheel`), and a checkout can be installed from its folder (`repoRoot`).
 */
export function installCommands(python: string, repoRoot?: string, wheel?: string): string[] {
  const py = quoteArg(python);
  const cmds: string[] = [];
  if (wheel) {
    cmds.push(`${py} -m pip install ${quoteArg(wheel)}`);
  }
  if (repoRoot) {
    cmds.push(`${py} -m pip install -e ${quoteArg(repoRoot)}`);
  }
  if (cmds.length === 0) {
    cmds.push(`${py} -m pip install <path to a memlens checkout>`);
  }
  return cmds;
}

/** The message shown when memlens cannot be imported by the chosen interpreter. */
export function notImportableMessage(python: string, detail: string, repoRoot?: string, wheel?: string): string {
  const cmds = installCommands(python, repoRoot, wheel);
  const how = cmds.length > 1 ? `\`${cmds[0]}\` (or, from a checkout, \`${cmds[1]}\`)` : `\`${cmds[0]}\``;
  const why = detail ? ` (${oneLine(detail, 160)})` : '';
  return `memlens: the Python package "memlens" is not importable by ${python}${why}. Install it with ${how}, or point the setting memlens.server.pythonPath at an interpreter that has it.`;
}

/** The message shown when the interpreter itself cannot be run. */
export function pythonNotFoundMessage(python: string, detail: string): string {
  return `memlens: cannot run the Python interpreter "${python}" (${oneLine(detail, 160)}). Install Python 3.11+ or set memlens.server.pythonPath.`;
}

/** Client-only settings (the server ignores them). */
const CLIENT_ONLY_SETTINGS = ['memlens.server.', 'memlens.trace.'];

/** The `memlens.*` setting keys the server reads, from the extension manifest's `contributes.configuration`. */
export function serverSettingKeys(packageJSON: unknown): string[] {
  const contributes = (packageJSON as { contributes?: { configuration?: unknown } } | undefined)?.contributes;
  const sections = Array.isArray(contributes?.configuration) ? contributes.configuration : [contributes?.configuration];
  const keys: string[] = [];
  for (const section of sections) {
    const properties = (section as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
    for (const key of Object.keys(properties)) {
      if (key.startsWith('memlens.') && !CLIENT_ONLY_SETTINGS.some((prefix) => key.startsWith(prefix))) {
        keys.push(key);
      }
    }
  }
  return keys;
}

/**
 * Nest dotted `memlens.*` keys into the object shape of the `memlens` section:
 * `[['memlens.search.mode', 'keyword']]` → `{ search: { mode: 'keyword' } }`.
 */
export function nestSettings(entries: Iterable<[string, unknown]>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    const parts = key.replace(/^memlens\./, '').split('.');
    let node = root;
    for (const part of parts.slice(0, -1)) {
      const next = node[part];
      if (!next || typeof next !== 'object' || Array.isArray(next)) {
        node[part] = {};
      }
      node = node[part] as Record<string, unknown>;
    }
    node[parts[parts.length - 1]] = value === undefined ? null : JSON.parse(JSON.stringify(value));
  }
  return root;
}

/** A plain JSON copy of a configuration object (drops functions such as `get`/`update`). */
export function toPlainConfig(config: unknown): Record<string, unknown> {
  try {
    const plain = JSON.parse(JSON.stringify(config ?? {})) as unknown;
    return plain && typeof plain === 'object' && !Array.isArray(plain) ? (plain as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The readable message of an error (LSP ResponseErrors carry the server's message). */
export function errorMessage(err: unknown): string {
  if (err && typeof err === 'object' && 'message' in err && typeof (err as { message: unknown }).message === 'string') {
    return (err as { message: string }).message;
  }
  return String(err);
}

/** True for the errors a cancelled request rejects with (LSP RequestCancelled -32800 or a Canceled error). */
export function isCancellation(err: unknown): boolean {
  if (!err || typeof err !== 'object') {
    return false;
  }
  const e = err as { code?: unknown; name?: unknown; message?: unknown };
  return e.code === -32800 || e.code === -32802 || e.name === 'Canceled' || e.message === 'Canceled';
}

/**
 * Expand `~`, `${userHome}`, `${workspaceFolder}` and `${env:NAME}` in a path setting. An unknown variable is left
 * as it is.
 */
export function expandPathVariables(
  value: string,
  vars: { home?: string; workspaceFolder?: string; env?: Record<string, string | undefined> },
): string {
  let out = value.trim();
  if (vars.home && (out === '~' || out.startsWith('~/') || out.startsWith('~\\'))) {
    out = vars.home + out.slice(1);
  }
  return out.replace(/\$\{(userHome|workspaceFolder|env:([A-Za-z_][A-Za-z0-9_]*))\}/g, (whole, name: string, envName?: string) => {
    if (name === 'userHome') {
      return vars.home ?? whole;
    }
    if (name === 'workspaceFolder') {
      return vars.workspaceFolder ?? whole;
    }
    return (envName && vars.env?.[envName]) ?? whole;
  });
}
