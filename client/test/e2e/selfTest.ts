/**
 * Self-test for the end-to-end test (never in the product: run.mjs installs it next to the packaged extension):
 * with MEMLENS_SELFTEST_OUT set, run a search through the real language client, show the results in the sidebar,
 * open the top hit, ask for a hover, and write a JSON report. The e2e driver asserts on that report, then clicks
 * through the UI itself.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage } from '../../src/errors';
import { treeHitText } from '../../src/hitText';
import { groupResults } from '../../src/resultGroups';
import { Commands, type SearchResponse, type SearchResult, type StatsResponse } from '../../src/protocol';
import type { ResultsModel } from '../../src/resultsTree';
import type { ServerManager } from '../../src/serverLauncher';

export interface SelfTestOptions {
  query: string;
  out?: string;
  /** keep searching while the index is being built, up to this long */
  timeoutMs: number;
}

export interface SelfTestDeps {
  server: ServerManager;
  results: ResultsModel;
  revealResults(): Promise<void>;
  openHit(hit: SearchResult): Promise<vscode.TextEditor | undefined>;
}

export interface SelfTestReport {
  ok: boolean;
  query: string;
  vscodeVersion: string;
  extensionVersion?: string;
  workspaceFolders: string[];
  startedAt: string;
  elapsedMs: number;
  serverStartMs?: number;
  searches: number;
  response?: SearchResponse;
  groups?: { label: string; description: string; hits: { label: string; description: string }[] }[];
  /** the hit opened in an editor (the best transcript hit of the top 3, else the top hit) and what it showed */
  opened?: { hitIndex: number; uri: string; languageId: string; line: number; lineText: string; lineCount: number; text: string };
  stats?: StatsResponse;
  statusBar?: unknown;
  /** hover-to-recall, asked through VS Code's hover machinery on a word of the first memory hit (one whose hover
   * links to a transcript, when there is one) */
  hover?: { uri: string; line: number; character: number; word: string; markdown: string[] };
  error?: string;
}

export function selfTestOptionsFromEnv(env: NodeJS.ProcessEnv): SelfTestOptions | undefined {
  const out = env.MEMLENS_SELFTEST_OUT;
  if (!out) {
    return undefined;
  }
  return {
    out,
    query: env.MEMLENS_SELFTEST_QUERY || 'how did we fix the dead-letter queue backup?',
    timeoutMs: Number(env.MEMLENS_SELFTEST_TIMEOUT_MS) > 0 ? Number(env.MEMLENS_SELFTEST_TIMEOUT_MS) : 180000,
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function writeReport(out: string, report: SelfTestReport): void {
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(report, null, 2)}\n`, 'utf8');
  fs.renameSync(tmp, out); // atomic: the driver never reads half a report
}

async function hoverMarkdown(uri: vscode.Uri, position: vscode.Position): Promise<string[]> {
  const hovers = (await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, position)) ?? [];
  const markdown: string[] = [];
  for (const hover of hovers) {
    for (const content of hover.contents) {
      const value = typeof content === 'string' ? content : content.value;
      if (value.includes('memlens')) {
        markdown.push(value);
      }
    }
  }
  return markdown;
}

/**
 * Find a word of the first memory hit's file whose hover (through VS Code's hover machinery, so through the
 * client's middleware) links to a transcript: the query's words first, then the file's longer words. The e2e driver
 * then hovers that word with the mouse and clicks the link.
 */
async function probeHover(results: SearchResult[], query: string): Promise<SelfTestReport['hover']> {
  const memory = results.find((r) => r.kind === 'memory');
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const file = memory ? vscode.Uri.file(memory.path) : folder ? vscode.Uri.joinPath(folder, 'MEMORY.md') : undefined;
  if (!file) {
    return undefined;
  }
  const doc = await vscode.workspace.openTextDocument(file);
  const text = doc.getText();
  const queryWords = query.split(/[^A-Za-z0-9]+/).filter((w) => w.length >= 4).sort((a, b) => b.length - a.length);
  const fileWords = [...new Set(text.match(/\b[A-Za-z][A-Za-z0-9_-]{5,}\b/g) ?? [])];
  const candidates: RegExpExecArray[] = [];
  for (const word of [...queryWords, ...fileWords].slice(0, 40)) {
    const m = new RegExp(`\\b${word.replace(/[-]/g, '\\-')}\\b`, 'i').exec(text);
    if (m) {
      candidates.push(m);
    }
  }
  let fallback: SelfTestReport['hover'];
  for (const [i, match] of candidates.entries()) {
    const position = doc.positionAt(match.index + 1);
    let markdown: string[] = [];
    // the server may still be receiving the document: ask the first word a few times
    for (let attempt = 0; attempt < (i === 0 ? 10 : 1) && markdown.length === 0; attempt++) {
      markdown = await hoverMarkdown(doc.uri, position);
      if (markdown.length === 0 && i === 0) {
        await sleep(500);
      }
    }
    const found = { uri: doc.uri.toString(true), line: position.line, character: position.character, word: match[0], markdown };
    if (markdown.some((m) => m.includes('command:memlens.openTranscript'))) {
      return found;
    }
    if (markdown.length && !fallback) {
      fallback = found;
    }
  }
  return fallback;
}

export async function runSelfTest(deps: SelfTestDeps, options: SelfTestOptions, extensionVersion?: string): Promise<SelfTestReport> {
  const started = Date.now();
  const log = deps.server.output;
  const report: SelfTestReport = {
    ok: false,
    query: options.query,
    vscodeVersion: vscode.version,
    extensionVersion,
    workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
    startedAt: new Date(started).toISOString(),
    elapsedMs: 0,
    searches: 0,
  };
  log.info(`self-test: query ${JSON.stringify(options.query)}${options.out ? ` → ${options.out}` : ''}`);
  try {
    await deps.server.ready();
    report.serverStartMs = Date.now() - started;
    // Search until there are results and the index is complete (the first search may race the initial indexing).
    let response: SearchResponse;
    for (;;) {
      response = await deps.server.execute<SearchResponse>(Commands.search, { query: options.query });
      report.searches++;
      const done = response.results.length > 0 && !response.indexing;
      if (done || Date.now() - started > options.timeoutMs) {
        break;
      }
      await sleep(1500);
    }
    report.response = response;
    deps.results.set(response);
    report.groups = groupResults(response.results).map((g) => ({
      label: g.label,
      description: g.description,
      hits: g.hits.map((h) => {
        const t = treeHitText(h);
        return { label: t.label, description: t.description };
      }),
    }));
    await deps.revealResults();
    if (response.results.length > 0) {
      const top3 = response.results.slice(0, 3);
      const transcriptIndex = top3.findIndex((h) => h.kind !== 'memory' && !!(h.sessionKey ?? h.sessionId));
      const hitIndex = transcriptIndex >= 0 ? transcriptIndex : 0;
      const editor = await deps.openHit(response.results[hitIndex]);
      if (editor) {
        const line = editor.selection.active.line;
        report.opened = {
          hitIndex,
          uri: editor.document.uri.toString(true),
          languageId: editor.document.languageId,
          line,
          lineText: editor.document.lineAt(line).text,
          lineCount: editor.document.lineCount,
          text: editor.document.getText().slice(0, 200000),
        };
      }
      await deps.revealResults(); // opening an editor must not hide the sidebar
    }
    await vscode.commands.executeCommand('notifications.clearAll').then(undefined, () => undefined);
    report.stats = await deps.server.execute<StatsResponse>(Commands.stats, {});
    report.hover = await probeHover(response.results, options.query);
    report.statusBar = deps.server.lastIndexStatus ?? null;
    report.ok = response.results.length > 0;
    if (!report.ok) {
      report.error = `no results for ${JSON.stringify(options.query)} within ${options.timeoutMs} ms`;
    }
  } catch (err) {
    report.error = errorMessage(err);
    log.error(`self-test failed: ${report.error}`);
  }
  report.elapsedMs = Date.now() - started;
  if (options.out) {
    try {
      writeReport(options.out, report);
    } catch (err) {
      log.error(`self-test: cannot write ${options.out}: ${errorMessage(err)}`);
    }
  }
  log.info(`self-test ${report.ok ? 'passed' : 'failed'} in ${report.elapsedMs} ms`);
  return report;
}
