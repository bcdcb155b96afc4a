/**
 * The index's state as text: the status bar item (from `memlens/indexStatus`) and the markdown report of
 * `memlens.stats`. Pure (no `vscode` import): unit-tested.
 */

import type { FileError, IndexStatus, StatsResponse } from './protocol';
import { counted, countedOrNo } from './counted';
import { escapeMarkdown, formatCount, formatDateTime, formatScore, oneLine, type TimeOptions } from './format';

export interface StatusBarText {
  text: string;
  tooltip: string;
}

/** What the index holds, in the words of `memlens stats` and the README: "23 sessions · 1,240 messages" (notes too
 * when there are no sessions). An older server sends no such counts: then its chunks. */
function heldText(status: IndexStatus): string {
  if (status.sessions === undefined) {
    return counted(status.totalChunks, 'chunk');
  }
  const notes = status.notes ?? 0;
  if (status.sessions === 0 && notes === 0) {
    return 'nothing indexed';
  }
  const sessions = `${counted(status.sessions, 'session')} · ${counted(status.messages, 'message')}`;
  return status.sessions === 0 ? counted(notes, 'note') : sessions;
}

/** How much of the index meaning search (vectors) covers, 0–99 while texts wait for vectors; undefined when all have
 * one or there is no embedding model (keyword search only, nothing waits). Rounded down, so it never says 100%
 * while something waits. */
export function meaningSearchPercent(status: IndexStatus): number | undefined {
  const waiting = status.chunksNeedingEmbeddings ?? 0;
  if (!status.provider || status.provider === 'none' || waiting <= 0 || !(status.totalChunks > 0)) {
    return undefined;
  }
  return Math.max(0, Math.floor((100 * (status.totalChunks - waiting)) / status.totalChunks));
}

/** "$(sync~spin) memlens 23 sessions · 1,240 messages · meaning search 40%" while vectors are computed,
 * "$(database) memlens 23 sessions · 1,240 messages" once every text has one. The pending count is of messages
 * waiting for a vector, which keyword search already finds: the tooltip says so, not the item. */
export function statusBarText(status: IndexStatus, opts: TimeOptions = {}): StatusBarText {
  const percent = meaningSearchPercent(status);
  const progress = percent === undefined ? '' : ` · meaning search ${percent}%`;
  const text = `${status.indexing ? '$(sync~spin)' : '$(database)'} memlens ${heldText(status)}${progress}`;
  const held =
    status.sessions === undefined
      ? `${countedOrNo(status.totalChunks, 'chunk')} indexed`
      : `${countedOrNo(status.sessions, 'session')}, ${countedOrNo(status.messages, 'message')}, ` +
        `${countedOrNo(status.notes, 'note')} indexed`;
  const waiting = status.pendingMessages
    ? `${counted(status.pendingMessages, 'message')} waiting for meaning search (keyword search finds them already)`
    : '';
  const tooltip = [
    status.indexing ? 'memlens: indexing…' : 'memlens: index up to date',
    status.message ?? '',
    held,
    percent === undefined ? '' : `meaning search ${percent}% ready`,
    waiting,
    status.provider && status.provider !== 'none' ? `embeddings: ${status.provider}` : 'embeddings: none (keyword search only)',
    status.lastSync ? `last sync: ${formatDateTime(status.lastSync, opts)}` : '',
    'Click for index stats',
  ].filter(Boolean);
  return { text, tooltip: tooltip.join('\n') };
}

/** The log line when indexing ends: "Index up to date in 3.2 s: 23 sessions · 1,240 messages, meaning search 40%,
 * embeddings: …, last sync 2026-02-10 21:11" (`seconds`: how long it took, when known). */
export function indexingDoneLine(status: IndexStatus, seconds: number | undefined, opts: TimeOptions = {}): string {
  const percent = meaningSearchPercent(status);
  return (
    `Index up to date${seconds !== undefined ? ` in ${seconds.toFixed(1)} s` : ''}: ${heldText(status)}` +
    `${percent === undefined ? '' : `, meaning search ${percent}%`}, embeddings: ${status.provider ?? 'none'}` +
    `${status.lastSync ? `, last sync ${formatDateTime(status.lastSync, opts)}` : ''}`
  );
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

/** `memlens.stats`'s `unrecognisedFiles`: files among transcripts that no parser read (older servers send none). */
function unrecognisedList(paths: readonly string[] | undefined, count: number | undefined): string[] {
  if (!paths?.length) {
    return [];
  }
  const more = (count ?? paths.length) - paths.length;
  return [
    '## Files in no format memlens reads',
    '',
    '_Nothing of these is searchable: not a transcript, or written by a tool version memlens does not know yet._',
    '',
    ...paths.map((path) => `- \`${path.replace(/`/g, '')}\``),
    ...(more > 0 ? [`- _and ${formatCount(more)} more_`] : []),
    '',
  ];
}

/** `memlens.stats`'s `emptyFiles`: transcripts holding nothing yet (older servers send none). */
function emptyList(paths: readonly string[] | undefined, count: number | undefined): string[] {
  if (!paths?.length) {
    return [];
  }
  const more = (count ?? paths.length) - paths.length;
  return [
    '## Empty files',
    '',
    '_Nothing to read yet: no bytes, blank space, or a first line still being written._',
    '',
    ...paths.map((path) => `- \`${path.replace(/`/g, '')}\``),
    ...(more > 0 ? [`- _and ${formatCount(more)} more_`] : []),
    '',
  ];
}

/** `memlens.stats`'s `fileErrors`: each file with its skipped lines and first reasons. */
function fileErrorList(errors: readonly FileError[] | undefined): string[] {
  if (!errors?.length) {
    return [];
  }
  const lines = ['## Files with problems', ''];
  for (const error of errors) {
    const reasons = error.reasons.map((r) => oneLine(r, 160)).join('; ');
    const bad =
      (error.badLines ? ` · ${counted(error.badLines, 'bad line')}` : '') +
      (error.replaced ? ` · ${counted(error.replaced, 'invalid byte')} replaced` : '');
    lines.push(`- \`${error.path.replace(/`/g, '')}\`${bad}${reasons ? ` · ${escapeMarkdown(reasons)}` : ''}`);
  }
  return [...lines, ''];
}

/** The `memlens.stats` response as a small markdown report. */
export function renderStats(stats: StatsResponse, opts: TimeOptions = {}): string {
  // the server names no model as "none"; older servers sent null
  const hasProvider = !!stats.provider && stats.provider !== 'none';
  const embedded =
    stats.totalChunks > 0 ? ` (${formatScore(stats.chunksWithEmbeddings / stats.totalChunks)})` : '';
  const lines = [
    '# memlens index',
    '',
    stats.filesNotIndexed
      ? `**${counted(stats.filesNotIndexed, 'file')} not indexed:** ${escapeMarkdown(stats.notIndexedReason ?? '')}`
      : stats.indexing
        ? '**Indexing in progress…**'
        : 'Index is up to date.',
    '',
    '| | |',
    '| --- | ---: |',
    `| Chunks | ${formatCount(stats.totalChunks)} |`,
    `| Chunks with embeddings | ${formatCount(stats.chunksWithEmbeddings)}${embedded} |`,
    `| Chunks waiting for embeddings | ${formatCount(stats.chunksNeedingEmbeddings)} |`,
    `| Messages waiting to be indexed | ${formatCount(stats.pendingMessages)} |`,
    `| Sessions | ${formatCount(stats.sessions)} |`,
    `| Unreadable transcript lines | ${formatCount(stats.badLines)} |`,
    `| Invalid bytes read as U+FFFD | ${formatCount(stats.replaced)} |`,
    `| Files with problems | ${formatCount(stats.filesWithErrors)} |`,
    `| Files in no format memlens reads | ${formatCount(stats.filesUnrecognised ?? 0)} |`,
    `| Empty files (nothing to read yet) | ${formatCount(stats.filesEmpty ?? 0)} |`,
    `| Other names of indexed files | ${formatCount(stats.aliases ?? 0)} |`,
    `| Live indexing failures | ${formatCount(stats.watcherErrors ?? 0)} |`,
    `| Embedding provider | ${hasProvider ? escapeMarkdown(stats.provider) : 'none (keyword search only)'} |`,
    `| Last sync | ${stats.lastSync ? formatDateTime(stats.lastSync, opts) : 'never'} |`,
    '',
    ...(stats.providerNote ? [`_${escapeMarkdown(stats.providerNote)}_`, ''] : []),
    `Index folder: \`${stats.indexDir}\`${stats.readOnly ? ` (read-only: ${stats.readOnlyReason ?? 'another process writes it'})` : ''}`,
    '',
    '## Files',
    '',
    ...countTable('format', stats.files),
    '## Messages',
    '',
    ...countTable('format', stats.messages),
    ...fileErrorList(stats.fileErrors),
    ...unrecognisedList(stats.unrecognisedFiles, stats.filesUnrecognised),
    ...emptyList(stats.emptyFiles, stats.filesEmpty),
  ];
  return lines.join('\n');
}
