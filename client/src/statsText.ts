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

/** "$(sync~spin) memlens 1,204 chunks · 37 pending" while indexing, "$(database) memlens 1 chunk" when idle. */
export function statusBarText(status: IndexStatus, opts: TimeOptions = {}): StatusBarText {
  const pending = (status.chunksNeedingEmbeddings ?? 0) + (status.pendingMessages ?? 0);
  const chunks = counted(status.totalChunks, 'chunk');
  const text = status.indexing
    ? `$(sync~spin) memlens ${chunks}${pending > 0 ? ` · ${formatCount(pending)} pending` : ''}`
    : `$(database) memlens ${chunks}${pending > 0 ? ` · ${formatCount(pending)} pending` : ''}`;
  const tooltip = [
    status.indexing ? 'memlens: indexing…' : 'memlens: index up to date',
    status.message ?? '',
    `${countedOrNo(status.totalChunks, 'chunk')} indexed`,
    status.chunksNeedingEmbeddings ? `${counted(status.chunksNeedingEmbeddings, 'chunk')} waiting for embeddings` : '',
    status.pendingMessages ? `${counted(status.pendingMessages, 'message')} waiting to be indexed` : '',
    status.provider ? `embeddings: ${status.provider}` : '',
    status.lastSync ? `last sync: ${formatDateTime(status.lastSync, opts)}` : '',
    'Click for index stats',
  ].filter(Boolean);
  return { text, tooltip: tooltip.join('\n') };
}

/** The log line when indexing ends: "Index up to date in 3.2 s: 1,204 chunks, 7 waiting, embeddings: …, last sync
 * 2026-02-10 21:11" (`seconds`: how long it took, when known). */
export function indexingDoneLine(status: IndexStatus, seconds: number | undefined, opts: TimeOptions = {}): string {
  const pending = (status.chunksNeedingEmbeddings ?? 0) + (status.pendingMessages ?? 0);
  return (
    `Index up to date${seconds !== undefined ? ` in ${seconds.toFixed(1)} s` : ''}: ${counted(status.totalChunks, 'chunk')}` +
    `${pending ? `, ${formatCount(pending)} waiting` : ''}, embeddings: ${status.provider ?? 'none'}` +
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
  ];
  return lines.join('\n');
}
