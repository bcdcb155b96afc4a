#!/usr/bin/env node
// End-to-end test of the memlens extension in a real VS Code (code-server 4.100.3 = VS Code 1.100.3) opened in
// Debian's headless Chromium.
//
//  1. installs the packaged .vsix into a fresh extensions folder, then the test harness next to it (out/e2e/harness.js,
//     built by `npm run bundle:e2e`: it activates the packaged out/extension.js and runs the self-test; the .vsix
//     itself holds no test code),
//  2. starts code-server on examples/workspace with MEMLENS_SELFTEST_OUT set: after activation the extension starts
//     the real language server (`<MEMLENS_PYTHON> -m memlens serve`), runs memlens.search for the query through the
//     real language client, fills the results sidebar, opens the top hit and writes a JSON report,
//  3. opens the workbench in Chromium (playwright-core), waits for the report, checks it and the rendered sidebar,
//  4. clicks like a person: hovers a word and clicks the rendered hover link, clicks a sidebar hit, clicks a session
//     in the Sessions view, opens a long session (generated in a temporary folder, longSession.mjs) and Ctrl+clicks
//     its "show earlier messages", types into Search Memory (with a filter completion), and leaves a screenshot of
//     each surface in test-artifacts/ (vscode-*.png),
//  5. changes memlens.server.pythonPath (from the palette: the harness's "memlens e2e: Apply Setting", through VS Code's
//     configuration API) while "memlens: Restart Server" runs, kills the server process and restarts
//     it again, and proves each time that a search answers and that one server runs,
//  6. points memlens.server.pythonPath at an interpreter that cannot import memlens (red status, install prompt), makes
//     memlens importable there and waits for the server to start by itself.
// Exits non-zero on any failure (with a failure screenshot and the logs in test-artifacts/).
//
// Environment:
//   MEMLENS_PYTHON            interpreter with memlens installed (default python3); PYTHONPATH is passed through
//   MEMLENS_VSIX              the .vsix to test (default out/memlens.vsix)
//   MEMLENS_E2E_WORKSPACE     folder to open (default examples/workspace)
//   MEMLENS_E2E_QUERY         the query (default "how did we fix the dead-letter queue backup?")
//   MEMLENS_E2E_EXPECT        regex a transcript hit among the top 3 must match (default for the default query:
//                             dead-letter/DLQ/redrive; set to "" to only check that results came back)
//   MEMLENS_E2E_TIMEOUT_S     overall time limit (default 300)
//   MEMLENS_CODE_SERVER_DIR   where install-code-server.sh put code-server (default client/test/e2e/.code-server)
//   MEMLENS_E2E_KEEP=1        keep the temporary user-data/extensions folders
//   MEMLENS_E2E_STEPS         regex: run only the clicking steps whose names match (a quicker loop while working on
//                             one; CI runs them all)

import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { LONG_SESSION_ID, LONG_SESSION_ROUNDS, LONG_SESSION_TITLE, questionText, writeLongSession } from './longSession.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../../..');
const env = process.env;
const DEFAULT_QUERY = 'how did we fix the dead-letter queue backup?';
const QUERY = env.MEMLENS_E2E_QUERY || DEFAULT_QUERY;
const EXPECT =
  env.MEMLENS_E2E_EXPECT !== undefined
    ? env.MEMLENS_E2E_EXPECT
    : QUERY === DEFAULT_QUERY
      ? 'dead.?letter|\\bDLQ\\b|redriv'
      : '';
const VSIX = path.resolve(ROOT, env.MEMLENS_VSIX || 'out/memlens.vsix');
const WORKSPACE = path.resolve(ROOT, env.MEMLENS_E2E_WORKSPACE || 'examples/workspace');
const PYTHON = env.MEMLENS_PYTHON || 'python3';
const TIMEOUT_MS = (Number(env.MEMLENS_E2E_TIMEOUT_S) || 300) * 1000;
const ONLY_STEPS = env.MEMLENS_E2E_STEPS ? new RegExp(env.MEMLENS_E2E_STEPS, 'i') : undefined;
const CS_DIR = path.resolve(ROOT, env.MEMLENS_CODE_SERVER_DIR || path.join(HERE, '.code-server'));
const CODE_SERVER = path.join(CS_DIR, 'node_modules/code-server/out/node/entry.js');
const CHROMIUM = env.MEMLENS_CHROMIUM || '/usr/bin/chromium';
const ARTIFACTS = path.join(ROOT, 'test-artifacts');
const SCREENSHOT = path.join(ARTIFACTS, 'vscode-sidebar.png');
const HARNESS = path.join(ROOT, 'out', 'e2e', 'harness.js');

const t0 = Date.now();
const log = (msg) => console.log(`[e2e +${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

class Failure extends Error {}
const failures = [];
function check(cond, msg) {
  if (cond) {
    log(`ok   ${msg}`);
  } else {
    log(`FAIL ${msg}`);
    failures.push(msg);
  }
  return !!cond;
}

/** A count as a person says it: "1 file", "2 files", never "1 files" (the client's counted.ts). */
const ONE_OF_MANY = /(?<![\d,.])1 (chunks|files|messages|sessions|results|hits|items|tokens|summaries|matches|days|minutes|times)\b/;
function checkCounts(text, where) {
  const wrong = ONE_OF_MANY.exec(text);
  return check(!wrong, `${where} says its counts as a person would (${wrong ? `"${wrong[0]}"` : `"${text.slice(0, 90)}"`})`);
}

/** "N messages" in `text` agrees with N: "1 message", "2 messages", "1,204 messages". */
function checkMessageCount(text, where) {
  const m = /(\d[\d,]*) (messages?)\b/.exec(text);
  return check(!!m && (m[1] === '1') === (m[2] === 'message'), `${where} counts its messages in words (${m ? `"${m[0]}"` : 'no count'})`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitFor(what, fn, timeoutMs, intervalMs = 250) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Failure(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
    }
    await sleep(intervalMs);
  }
}

function findFiles(dir, pattern, out = []) {
  if (!fs.existsSync(dir)) {
    return out;
  }
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      findFiles(p, pattern, out);
    } else if (pattern.test(entry.name)) {
      out.push(p);
    }
  }
  return out;
}

// -- checks on the self-test report --------------------------------------------------------------------------------

const KINDS = new Set(['memory', 'transcript', 'summary']);

function checkResult(r, i) {
  const where = `results[${i}]`;
  const problems = [];
  if (typeof r.id !== 'string' || !r.id) problems.push('id');
  if (!KINDS.has(r.kind)) problems.push(`kind=${r.kind}`);
  if (typeof r.score !== 'number' || r.score < 0 || r.score > 1) problems.push(`score=${r.score}`);
  if (typeof r.path !== 'string' || !path.isAbsolute(r.path)) problems.push(`path=${r.path}`);
  if (typeof r.relPath !== 'string') problems.push('relPath');
  if (typeof r.excerpt !== 'string' || !r.excerpt.trim()) problems.push('excerpt');
  if (r.kind === 'memory' && r.lineStart !== undefined && !(Number.isInteger(r.lineStart) && r.lineStart >= 1)) {
    problems.push(`lineStart=${r.lineStart}`);
  }
  if (r.kind !== 'memory' && typeof r.sessionKey !== 'string') problems.push('sessionKey');
  if (r.timestamp !== undefined && r.timestamp !== null && Number.isNaN(Date.parse(r.timestamp))) {
    problems.push(`timestamp=${r.timestamp}`);
  }
  return check(problems.length === 0, `${where} (${r.kind} ${r.relPath}) has the contract's fields${problems.length ? `: bad ${problems.join(', ')}` : ''}`);
}

function checkReport(report) {
  check(report.ok === true, `self-test reported ok${report.error ? ` (error: ${report.error})` : ''}`);
  check(/^1\.\d+\.\d+/.test(report.vscodeVersion ?? ''), `ran in VS Code ${report.vscodeVersion}`);
  check(
    (report.workspaceFolders ?? []).some((f) => path.resolve(f) === WORKSPACE),
    `workspace folder is ${path.relative(ROOT, WORKSPACE)}`,
  );
  const response = report.response;
  if (!check(response && Array.isArray(response.results), 'memlens.search returned a response with results[]')) {
    return;
  }
  check(response.query === QUERY, `response.query echoes the query`);
  check(typeof response.mode === 'string' && typeof response.searchTimeMs === 'number', 'response has mode and searchTimeMs');
  check(response.results.length > 0, `search returned ${response.results.length} results`);
  check(
    typeof response.totalResults === 'number' && response.totalResults >= response.results.length,
    `totalResults (${response.totalResults}) >= results returned`,
  );
  response.results.forEach(checkResult);
  const scores = response.results.map((r) => r.score);
  check(scores.every((s, i) => i === 0 || scores[i - 1] >= s), 'results are sorted by score');
  const groups = report.groups ?? [];
  check(groups.length > 0 && groups.every((g) => g.label && g.hits.length > 0), `results grouped into ${groups.length} sidebar groups`);
  const opened = report.opened;
  if (check(opened, 'a hit was opened in an editor')) {
    const hit = response.results[opened.hitIndex ?? 0];
    if (hit.kind === 'memory') {
      check(opened.uri.startsWith('file://') && opened.uri.endsWith(path.basename(hit.path)), `memory hit opened ${opened.uri}`);
      check(hit.lineStart === undefined || opened.line === hit.lineStart - 1, `cursor on line ${hit.lineStart}`);
    } else {
      check(opened.uri.startsWith('memlens-transcript:/'), `transcript hit #${opened.hitIndex + 1} opened in the viewer: ${opened.uri}`);
      check(opened.languageId === 'markdown', `transcript shown as ${opened.languageId}`);
      check(/^# /.test(opened.text) && (opened.text.match(/^### /gm) ?? []).length > 0, `the viewer rendered ${(opened.text.match(/^### /gm) ?? []).length} message headings`);
      if (hit.messageId) {
        check(opened.uri.includes(`message=${hit.messageId}`), 'the viewer URI carries the message id');
        check(/^### .+ · ⭐ match$/.test(opened.lineText) && opened.line > 0, `the viewer revealed the matching message "${opened.lineText}" (line ${opened.line + 1})`);
      }
    }
  }
  if (EXPECT) {
    // "a transcript hit about the DLQ redrive": a transcript hit in the top 3 whose excerpt, or whose session as the
    // viewer rendered it from memlens.history, is about it
    const re = new RegExp(EXPECT, 'i');
    const top = response.results.slice(0, 3).map((r, i) => ({ r, i })).filter(({ r }) => r.kind !== 'memory');
    const byExcerpt = top.find(({ r }) => re.test(`${r.excerpt} ${r.heading ?? ''}`));
    const openedTranscript = opened && response.results[opened.hitIndex]?.kind !== 'memory' && opened.hitIndex < 3;
    const bySession = openedTranscript && re.test(opened.text);
    check(
      top.length > 0 && (byExcerpt || bySession),
      `a transcript hit in the top 3 is about /${EXPECT}/i` +
        (byExcerpt ? ` (excerpt of #${byExcerpt.i + 1})` : bySession ? ` (session of #${opened.hitIndex + 1}, as rendered by the viewer)` : ` (top 3: ${response.results.slice(0, 3).map((r) => `${r.kind} ${r.relPath}`).join('; ')})`),
    );
  }
  if (report.hover) {
    const md = report.hover.markdown.join('\n');
    check(
      /\*\*memlens\*\*/.test(md) && /\]\(command:memlens\.(openTranscript|openFileAt)\?/.test(md) && !/\]\((memlens-transcript|file):/.test(md),
      `hover-to-recall on "${report.hover.word}" (${path.basename(report.hover.uri)}:${report.hover.line + 1}) shows memlens hits as trusted command links`,
    );
  }
  const stats = report.stats;
  if (check(stats && typeof stats.totalChunks === 'number', 'memlens.stats answered')) {
    check(stats.totalChunks > 0, `index holds ${stats.totalChunks} chunks`);
  }
}

/**
 * Opens the command palette (F1) or Quick Open (Control+P) and waits for it. A key pressed while the workbench moves
 * the focus (an editor opening, a notification, a busy machine's late layout) can be lost: a person presses it again.
 */
async function openQuickInput(page, key) {
  const widget = page.locator('.quick-input-widget');
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press(key);
    if (await found(widget.waitFor({ state: 'visible', timeout: 5000 }))) return;
    if (attempt === 3) throw new Error(`${key} opened no quick input in ${attempt} tries`);
    log(`${key} opened no quick input (attempt ${attempt}): pressing it again`);
  }
}

async function runCommand(page, title) {
  const widget = page.locator('.quick-input-widget');
  const row = widget.locator('.monaco-list-row', { hasText: title }).first();
  // a notification or an editor taking the focus (a server restart shows both) can close the palette under the
  // typing: the palette is opened and the title typed again, once, before the command counts as missing
  for (let attempt = 1; ; attempt++) {
    await openQuickInput(page, 'F1');
    await page.keyboard.type(title);
    if (await found(row.waitFor({ timeout: 10000 }))) break;
    if (attempt === 2) await row.waitFor({ timeout: 1 });  // throws: the command is not in the palette
    await page.keyboard.press('Escape');
  }
  await page.keyboard.press('Enter');
  await widget.waitFor({ state: 'hidden', timeout: 10000 }).catch(() => undefined);
}

/** The start of a transcript tab's title, as transcriptUri.tabTitle writes it (the session key when untitled). */
function tabStart(title, sessionKey) {
  const flat = (title ?? '').replace(/[\\/%?#]+/g, ' ').replace(/\s+/g, ' ').trim();
  return flat ? flat.slice(0, 20) : `${sessionKey.split('/').pop()}.md`;
}

// -- clicking like a person ----------------------------------------------------------------------------------------

async function step(name, fn) {
  if (ONLY_STEPS && !ONLY_STEPS.test(name)) {
    log(`skip ${name} (MEMLENS_E2E_STEPS)`);
    return;
  }
  try {
    await fn();
  } catch (err) {
    failures.push(`${name}: ${err instanceof Failure ? err.message : String(err?.stack ?? err)}`);
    log(`FAIL ${failures[failures.length - 1]}`);
    await pageRef?.screenshot({ path: path.join(ARTIFACTS, `vscode-failure-${name.replace(/\W+/g, '-')}.png`) }).catch(() => undefined);
  }
}
let pageRef;

const found = (promise) => promise.then(
  () => true,
  () => false,
);

/** The visible text of the active editor. */
async function editorText(page) {
  return (await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().innerText().catch(() => '')).replace(/\u00a0/g, ' ');
}

async function clickSidebarHit(page, report) {
  const sidebar = page.locator('[id="workbench.parts.sidebar"]');
  await runCommand(page, 'View: Close All Editors');
  const group = report.groups.find((g) => g.hits.some((h) => h.description)) ?? report.groups[0];
  const hitIndex = report.groups.indexOf(group);
  const hit = group.hits[0];
  const row = sidebar.locator('[id="workbench.view.extension.memlens"] .monaco-list-row, .monaco-list-row', { hasText: hit.label }).first();
  await row.click({ timeout: 10000 });
  const tabs = page.locator('.tabs-container .tab');
  const opened = await found(tabs.first().waitFor({ timeout: 15000 }));
  const tab = opened ? (await page.locator('.tabs-container .tab.active').innerText().catch(() => '')).trim() : '';
  check(opened, `clicking the sidebar hit "${hit.label}" (group ${hitIndex + 1}) opened "${tab}"`);
  await sleep(800);
  const text = await editorText(page);
  if (/\.md$/.test(tab) && !/^(MEMORY|USER|IDENTITY)/.test(tab) && !/^\d{4}-/.test(tab)) {
    check(/⭐ match/.test(text), 'the transcript viewer shows the matching message at the top');
    check(!/^(claude-code|codex|openclaw|specstory)[:%]/.test(tab), `the transcript tab is titled by the session ("${tab}")`);
    const firstTool = (t) => {
      const lines = t.split('\n');
      const tool = lines.findIndex((l) => l.startsWith('🔧'));
      return tool < 0 ? null : { line: lines[tool], folded: !/^(```|~~~)/.test(lines[tool + 1] ?? '') };
    };
    const tool = firstTool(text);
    if (tool) {
      // the viewer folds tool calls once VS Code has the document's folding ranges, a moment after its text shows
      const folded = await waitFor('the tool calls folded', async () => firstTool(await editorText(page))?.folded, 15000)
        .then(() => true, () => false);
      check(folded, `tool calls are folded to their summary line ("${tool.line.slice(0, 60)}")`);
    }
  }
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-transcript.png') });
}

async function clickHoverLink(page, report) {
  const hover = report.hover;
  if (!check(hover && hover.markdown.length, 'the self-test found a word with a memlens hover')) {
    return;
  }
  const wantsTranscript = hover.markdown.some((m) => m.includes('command:memlens.openTranscript'));
  const file = path.basename(decodeURIComponent(new URL(hover.uri).pathname));
  await runCommand(page, 'View: Close All Editors');
  // open the file with Quick Open and put the cursor on the word with Go to Line, like a person would
  const widget = page.locator('.quick-input-widget');
  const rel = path.relative(WORKSPACE, decodeURIComponent(new URL(hover.uri).pathname));
  const opened = page.locator('.tabs-container .tab.active', { hasText: file });
  // Quick Open ranks while it is typed into: an Enter pressed as its list is redrawn can open the row that was
  // first a moment before (MEMORY.md for "memory/2026-02-10.md"); a person would look and open it again
  for (let attempt = 0; attempt < 3; attempt++) {
    await openQuickInput(page, 'Control+P');
    await page.keyboard.type(rel);
    await widget.locator('.monaco-list-row', { hasText: file }).first().waitFor({ timeout: 10000 });
    await sleep(300);
    await page.keyboard.press('Enter');
    if (await found(opened.waitFor({ timeout: 8000 }))) {
      break;
    }
    log(`Quick Open did not open ${file} (attempt ${attempt + 1}); again`);
    await page.keyboard.press('Escape');
  }
  await opened.waitFor({ timeout: 5000 });
  await page.keyboard.press('Control+G');
  await widget.waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.type(`${hover.line + 1}:${hover.character + 1}`);
  await page.keyboard.press('Enter');
  await sleep(600);
  const cursor = page.locator('.editor-group-container.active .monaco-editor .cursors-layer .cursor').first();
  const box = await cursor.boundingBox();
  if (!check(box, `the cursor is on "${hover.word}" in ${file}:${hover.line + 1}`)) {
    return;
  }
  const hoverWidget = page.locator('.monaco-hover', { hasText: 'memlens' }).first();
  let shown = false;
  for (let attempt = 0; attempt < 4 && !shown; attempt++) {
    await page.mouse.move(box.x + 40, box.y - 60);
    await sleep(200);
    await page.mouse.move(box.x + 3, box.y + box.height / 2, { steps: 4 });
    shown = await found(hoverWidget.waitFor({ state: 'visible', timeout: 6000 }));
  }
  if (!check(shown, `hovering "${hover.word}" with the mouse shows the memlens hover`)) {
    return;
  }
  const links = hoverWidget.locator('a');
  const hrefs = await links.evaluateAll((as) => as.map((a) => a.getAttribute('data-href') || a.getAttribute('href') || ''));
  const texts = await links.allInnerTexts();
  log(`hover links: ${JSON.stringify(texts.map((t, i) => `${t} → ${hrefs[i].slice(0, 60)}`))}`);
  const hoverText = (await hoverWidget.innerText()).replace(/\s+/g, ' ');
  check(
    hrefs.length > 0 && hrefs.every((h) => h.startsWith('command:memlens.')),
    `every hit in the hover is a link (${hrefs.length} links, all trusted commands)`,
  );
  check(/\b(strong|possible|weak)\b|\d{1,3}%/.test(hoverText), `the hover says how sure each hit is ("${hoverText.slice(0, 140)}…")`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-hover.png') });
  const index = wantsTranscript ? hrefs.findIndex((h) => h.startsWith('command:memlens.openTranscript')) : 0;
  const target = links.nth(Math.max(0, index));
  const targetText = (await target.innerText()).trim();
  await target.hover();
  await sleep(200);
  await target.click();
  if (wantsTranscript) {
    const arg = JSON.parse(decodeURIComponent(hrefs[index].split('?')[1]))[0];
    check(!!arg.title && !targetText.startsWith(arg.title.slice(0, 30)), `the hover link reads the hit's own words ("${targetText.slice(0, 50)}"), its session's title ("${(arg.title ?? '').slice(0, 50)}") goes to the tab`);
    const tabText = tabStart(arg.title, arg.sessionKey);
    const opened = await found(page.locator('.tabs-container .tab.active', { hasText: tabText }).waitFor({ timeout: 15000 }));
    check(opened, `clicking the hover link "${targetText}" opened the transcript viewer (tab "${tabText}")`);
    await sleep(1000);
    const text = await editorText(page);
    check(/⭐ match/.test(text.split('\n').slice(0, 6).join('\n')), 'the viewer shows the linked message at the top ("⭐ match")');
  } else {
    const opened = await found(page.locator('.tabs-container .tab.active').waitFor({ timeout: 15000 }));
    check(opened, `clicking the hover link "${targetText}" opened a file`);
  }
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-hover-opened.png') });
}

/** The Sessions view (under Results in the memlens container), expanded, with no editor open beside it. */
async function sessionsPane(page) {
  const sidebar = page.locator('[id="workbench.parts.sidebar"]');
  await runCommand(page, 'View: Close All Editors');
  const header = sidebar.locator('.pane-header', { hasText: /sessions/i }).first();
  await header.waitFor({ timeout: 10000 });
  if ((await header.getAttribute('aria-expanded')) === 'false') {
    await header.click();
  }
  return sidebar.locator('.pane', { has: page.locator('.pane-header', { hasText: /sessions/i }) }).first();
}

async function clickSession(page) {
  const pane = await sessionsPane(page);
  const rows = pane.locator('.monaco-list-row');
  await rows.first().waitFor({ timeout: 30000 });
  await sleep(500);
  const texts = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
  log(`sessions view: ${JSON.stringify(texts.slice(0, 8))}`);
  // a session row: not a project or a day (they expand), the first that names messages
  const index = texts.findIndex((t) => / msg /.test(` ${t} `) || /\d+ msg/.test(t));
  check(index >= 0, `the Sessions view lists sessions by title (${texts.length} rows)`);
  checkCounts(texts.join(' | '), 'the Sessions view');
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-sessions.png') });
  if (index < 0) {
    return;
  }
  // the session's tooltip: its title, when, and how many messages, in words
  const tooltip = page.locator('.monaco-hover, .workbench-hover', { hasText: /\d message/ }).first();
  let tipShown = false;
  let tipCount;
  for (let attempt = 0; attempt < 3 && !tipShown; attempt++) {
    await page.mouse.move(900, 900);
    await sleep(200);
    await rows.nth(index).hover();
    tipShown = await found(tooltip.waitFor({ state: 'visible', timeout: 5000 }));
  }
  if (check(tipShown, "hovering a session shows its tooltip")) {
    const tip = (await tooltip.innerText()).replace(/\s+/g, ' ').trim();
    log(`session tooltip: ${tip.slice(0, 200)}`);
    checkMessageCount(tip, "the session's tooltip");
    tipCount = /(\d[\d,]*) messages?\b/.exec(tip)?.[1];
    checkCounts(tip, "the session's tooltip");
    await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-session-tooltip.png') });
  }
  await page.mouse.move(900, 900);
  const title = texts[index].split(' ')[0];
  await rows.nth(index).click();
  const opened = await found(page.locator('.tabs-container .tab.active', { hasText: '.md' }).waitFor({ timeout: 15000 }));
  await sleep(1000);
  const text = await editorText(page);
  check(opened && /^# /m.test(text), `clicking the session "${texts[index].slice(0, 60)}" opened its transcript (${title}…)`);
  // the facts under the transcript's title (the messages below may say anything)
  const facts = text.split('\n').slice(1, 8).join(' ').replace(/\s+/g, ' ');
  checkMessageCount(facts, "the transcript's facts line");
  const factsCount = /(\d[\d,]*) messages?\b/.exec(facts)?.[1];
  check(!tipCount || factsCount === tipCount, `the transcript counts the messages its session's tooltip does (${factsCount} and ${tipCount})`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-session-opened.png') });
}

// -- a long session's earlier messages, loaded by a click on the link above its first shown message ---------------

/** The lines the active editor shows, top to bottom: their text, where they are, and whether a fold starts there. */
async function viewportLines(page) {
  const lines = await page
    .locator('.editor-group-container.active .monaco-editor .view-lines .view-line')
    .evaluateAll((els) =>
      els.map((el) => ({ top: el.getBoundingClientRect().top, text: (el.textContent ?? '').replace(/\u00a0/g, ' '), folded: !!el.querySelector('.inline-folded') })),
    )
    .catch(() => []);
  return lines.sort((a, b) => a.top - b.top);
}

/** Where `words` are drawn in a line of the editor (a DOM range over its text nodes), or null. */
async function wordsBox(line, words) {
  return line
    .evaluate((el, wanted) => {
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      const nodes = [];
      let text = '';
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        nodes.push({ node, at: text.length });
        text += node.textContent ?? '';
      }
      const start = text.replace(/\u00a0/g, ' ').indexOf(wanted);
      if (start < 0) return null;
      const locate = (offset) => {
        const hit = nodes.findLast((n) => n.at <= offset) ?? nodes[0];
        return [hit.node, offset - hit.at];
      };
      const range = document.createRange();
      range.setStart(...locate(start));
      range.setEnd(...locate(start + wanted.length - 1));
      const r = range.getBoundingClientRect();
      return { x: r.left, y: r.top, width: r.width, height: r.height };
    }, words)
    .catch(() => null);
}

/** What is wrong with the folds in view: a fold on a line that is no tool call, or a tool call left open. */
function foldProblems(lines) {
  const problems = [];
  lines.forEach((line, i) => {
    const next = lines[i + 1]?.text ?? '';
    if (line.folded && !line.text.startsWith('🔧')) problems.push(`folded: "${line.text.slice(0, 50)}"`);
    if (line.text.startsWith('🔧') && !line.folded && lines[i + 1] && /^(```|~~~)/.test(next)) problems.push(`open: "${line.text.slice(0, 50)}"`);
  });
  return problems;
}

/**
 * The long session (longSession.mjs), opened from the Sessions view: its last 200 messages, under the line "⋯ N
 * earlier messages are not shown — show earlier messages". A Ctrl+click on the link, as a person follows a link in an
 * editor, puts the messages before them above, in the same editor: the message that was first stays where it was on
 * the screen, the messages before it are above it, only tool calls are folded (after a reload one tool output was
 * folded too), and the session's start has no link left.
 */
async function checkShowEarlier(page) {
  const pane = await sessionsPane(page);
  const row = pane.locator('.monaco-list-row', { hasText: LONG_SESSION_TITLE }).first();
  // the list renders the rows in view: its project is the last, below the example's (and a project's rows come a
  // moment after the project's)
  await waitFor(
    'the long session in the Sessions view',
    async () => {
      if (await row.isVisible().catch(() => false)) return true;
      await pane.locator('.monaco-list').first().hover().catch(() => undefined);
      await page.mouse.wheel(0, 400);
      return false;
    },
    30000,
    500,
  );
  await row.click({ timeout: 10000 });
  const tab = page.locator('.tabs-container .tab.active', { hasText: tabStart(LONG_SESSION_TITLE, LONG_SESSION_ID) });
  await tab.waitFor({ timeout: 15000 });
  const editor = page.locator('.editor-group-container.active .monaco-editor .view-lines');
  const linkLine = editor.locator('.view-line', { hasText: 'show earlier messages' }).first();
  await linkLine.waitFor({ timeout: 15000 });
  // the first shown message: the window is the session's last 200 messages, 4 a round
  const firstRound = LONG_SESSION_ROUNDS - 200 / 4 + 1;
  const firstQuestion = editor.locator('.view-line', { hasText: questionText(firstRound) }).first();
  await firstQuestion.waitFor({ timeout: 10000 });
  await waitFor('the tool calls in view folded', async () => (await viewportLines(page)).some((l) => l.folded), 15000).catch(() => undefined);
  const before = await viewportLines(page);
  // the facts line wraps: its parts are several view lines
  const facts = before.map((l) => l.text).join(' ').match(/\S+ messages shown[^#]*?tool\s+outputs/)?.[0] ?? '';
  check(/^150 messages shown · 50 tool\s+outputs$/.test(facts), `the long session opens at its last 200 messages ("${facts}")`);
  const yBefore = (await firstQuestion.boundingBox())?.y ?? -1;
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-show-earlier-before.png') });
  // the link's words, wherever the line's spans split them: Ctrl+click their middle, as VS Code's hover on a link says
  const box = await wordsBox(linkLine, 'show earlier messages');
  if (!check(box, 'the line above the first message shows "show earlier messages"')) {
    return;
  }
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  await page.mouse.move(x, y - 40);
  await page.mouse.move(x, y, { steps: 4 });
  await page.keyboard.down('Control');
  await sleep(200);
  await page.mouse.click(x, y);
  await page.keyboard.up('Control');
  // the round before the first shown one appears above it, and the link is gone with the session's start reached
  const previous = editor.locator('.view-line', { hasText: `Pier ${firstRound - 1} drifts` }).first();
  const loaded = await found(previous.waitFor({ timeout: 20000 }));
  // the page's tool calls fold a moment after its text shows; the place is kept again after they fold
  await waitFor('the folds to settle', async () => foldProblems(await viewportLines(page)).length === 0, 15000).catch(() => undefined);
  await sleep(500);
  const after = await viewportLines(page);
  const yAfter = (await firstQuestion.boundingBox().catch(() => null))?.y ?? -1;
  const lineHeight = before.length > 1 ? before[1].top - before[0].top : 19;
  const above = after.findIndex((l) => l.text.includes(`Pier ${firstRound - 1} drifts`));
  const kept = after.findIndex((l) => l.text.includes(questionText(firstRound)));
  check(loaded && above >= 0 && kept > above, `clicking "show earlier messages" put round ${firstRound - 1} above round ${firstRound} (lines ${above} and ${kept} of the view)`);
  check(yBefore >= 0 && yAfter >= 0 && Math.abs(yAfter - yBefore) <= lineHeight, `the reader's place is kept: round ${firstRound}'s question was at y=${Math.round(yBefore)}, is at y=${Math.round(yAfter)}`);
  const problems = foldProblems(after);
  check(problems.length === 0 && after.some((l) => l.folded), `after the load only tool calls are folded, each of them (${problems.length ? problems.join('; ') : `${after.filter((l) => l.folded).length} folded in view`})`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-show-earlier.png') });
  // the whole document, a page at a time: no tool output folded anywhere, no tool call left open
  await page.keyboard.press('Control+Home');
  await sleep(300);
  const top = await viewportLines(page);
  const startFacts = top.map((l) => l.text).join(' ').match(/\S+ messages?( shown)? · \S+ tool\s+outputs/)?.[0] ?? '';
  check(/^210 messages · 70 tool\s+outputs$/.test(startFacts) && !top.some((l) => l.text.includes('show earlier messages')), `the session's start is reached: "${startFacts}", no link left`);
  const seen = [];
  let last = '';
  for (let pageNo = 0; pageNo < 80; pageNo++) {
    const lines = await viewportLines(page);
    seen.push(...foldProblems(lines.slice(0, -1)));
    const bottom = lines.map((l) => l.text).join('\n');
    if (bottom === last) break;
    last = bottom;
    await page.keyboard.press('PageDown');
    await sleep(120);
  }
  check(seen.length === 0, `through the whole document only tool calls are folded, each of them (${seen.length ? [...new Set(seen)].slice(0, 4).join('; ') : 'none else'})`);
}

/**
 * The Sessions view in an 800 px wide window (a row was once seen listed twice at that width): every row once, and
 * after a refresh too. The rows are read from the list's own indexes (it renders the rows in view: scrolled through).
 */
async function checkSessionsAt800(page) {
  const sidebar = page.locator('[id="workbench.parts.sidebar"]');
  await runCommand(page, 'View: Close All Editors');
  await page.setViewportSize({ width: 800, height: 960 });
  try {
    await sleep(800);
    const pane = sidebar.locator('.pane', { has: page.locator('.pane-header', { hasText: /sessions/i }) }).first();
    const rows = pane.locator('.monaco-list-row');
    await rows.first().waitFor({ timeout: 15000 });
    const read = async () => {
      const byIndex = new Map();
      const list = pane.locator('.monaco-list').first();
      await list.hover();
      for (let i = 0; i < 12; i++) {
        const seen = await rows.evaluateAll((els) => els.map((el) => [el.getAttribute('data-index'), el.getBoundingClientRect().top, (el.textContent ?? '').trim()]));
        for (const [index, top, text] of seen) {
          byIndex.set(index, { top, text });
        }
        await page.mouse.wheel(0, 200);
        await sleep(150);
      }
      await page.mouse.wheel(0, -5000);
      return [...byIndex.entries()].sort((a, b) => Number(a[0]) - Number(b[0])).map(([, row]) => row.text);
    };
    const twice = (texts) => texts.filter((t, i) => /msg/.test(t) && texts.indexOf(t) !== i);
    const first = await read();
    log(`sessions view at 800 px: ${JSON.stringify(first.map((t) => t.slice(0, 40)))}`);
    // on screen: no two rows drawn at the same height
    const tops = await rows.evaluateAll((els) => els.filter((el) => el.offsetParent).map((el) => Math.round(el.getBoundingClientRect().top)));
    check(new Set(tops).size === tops.length, `at 800 px no two Sessions rows are drawn on one another (${tops.length} rows)`);
    check(first.length > 0 && twice(first).length === 0, `at 800 px the Sessions view lists each session once (${first.length} rows${twice(first).length ? `; twice: ${twice(first)[0]}` : ''})`);
    await page.mouse.move(700, 900); // no row's tooltip over the list
    await sleep(300);
    await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-sessions-800.png') });
    await pane.locator('.pane-header').hover();
    const refresh = pane.locator('.pane-header .action-label[aria-label^="Refresh"]').first();
    if (await found(refresh.click({ timeout: 5000 }))) {
      await sleep(1500);
      const again = await read();
      check(twice(again).length === 0 && again.length === first.length, `after a refresh too (${again.length} rows)`);
    }
  } finally {
    await page.setViewportSize({ width: 1600, height: 960 });
    await sleep(500);
  }
}

// -- the search QuickPick, driven from the keyboard like a person would ------------------------------------------

async function checkQuickPick(page, report) {
  const expected = report.response.results[0];
  const widget = page.locator('.quick-input-widget');
  await page.locator('.monaco-workbench').click({ position: { x: 900, y: 500 } }).catch(() => undefined);
  await runCommand(page, 'View: Close All Editors');
  await page.locator('.tabs-container .tab').first().waitFor({ state: 'detached', timeout: 10000 }).catch(() => undefined);
  await openQuickInput(page, 'F1');
  await page.keyboard.type('memlens: Search Memory');
  await widget.locator('.monaco-list-row', { hasText: 'memlens: Search Memory' }).first().waitFor({ timeout: 10000 });
  await page.keyboard.press('Enter');
  await widget.locator('.quick-input-title', { hasText: 'memlens' }).waitFor({ timeout: 10000 });
  await typeIntoSearchBox(page, widget, QUERY, 'as you type', { delay: 15 }); // faster than the debounce: only the last query is searched
  const rows = widget.locator('.quick-input-list .monaco-list-row');
  const shown = await widget
    .locator('.quick-input-title', { hasText: /results? .*for/ })
    .waitFor({ timeout: 30000 })
    .then(
      () => true,
      () => false,
    );
  const title = await widget.locator('.quick-input-title').innerText().catch(() => '');
  check(shown, `the QuickPick searched as you type: "${title.trim()}"`);
  await sleep(500); // the list renders right after the title
  // the same query as the self-test's last search, which said the index was complete: the same answer
  const final = report.response.results.length;
  // the list renders only the rows in view (and a two-line title leaves room for fewer): the rows at its top, then
  // the rest after scrolling it with the mouse wheel, which moves no focus, then back to the top
  const rendered = async () =>
    rows.evaluateAll((els) => els.map((el) => [Number(el.getAttribute('data-index')), el.innerText]));
  const byIndex = new Map(await rendered());
  if (byIndex.size < final) {
    await widget.locator('.quick-input-list').hover();
    await page.mouse.wheel(0, 2000);
    await sleep(300);
    for (const [index, text] of await rendered()) byIndex.set(index, text);
    await page.mouse.wheel(0, -2000);
    await sleep(300);
  }
  const texts = [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, t]) => t.replace(/\s+/g, ' ').trim());
  check(texts.length === final, `the QuickPick lists ${texts.length} hits, as the self-test's final answer did (${final})`);
  // how sure a hit is: its confidence word, or its score where the server sends no word (uncalibrated)
  const sure = expected.confidence ?? `${Math.round(expected.score * 100)}%`;
  check(texts.length > 0 && /(strong|possible|weak)\b|\d{1,3}%/.test(texts[0]) && texts.some((t) => t.includes(sure)), `its items say how sure they are (top hit ${sure}): ${JSON.stringify(texts.slice(0, 2))}`);
  check(texts.every((t) => !/\bago\b/.test(t)), 'each QuickPick item shows its date once (no age beside it)');
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-quickpick.png') });
  // filters complete as you type them
  await page.keyboard.type(' ro');
  const completion = await found(widget.locator('.monaco-list-row', { hasText: 'role:' }).first().waitFor({ timeout: 5000 }));
  check(completion, 'typing " ro" offers the filter completion "role:"');
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-quickpick-filter.png') });
  for (let i = 0; i < 3; i++) {
    await page.keyboard.press('Backspace');
  }
  await widget.locator('.monaco-list-row', { hasText: 'role:' }).first().waitFor({ state: 'detached', timeout: 5000 }).catch(() => undefined);
  await sleep(400);
  // Enter opens the top hit: a memory file, or the session in the transcript viewer
  const sessionKey = expected.kind !== 'memory' ? (expected.sessionKey ?? expected.sessionId) : undefined;
  const tab = sessionKey ? tabStart(expected.title, sessionKey) : path.basename(expected.path);
  await page.keyboard.press('Enter');
  const opened = await page
    .locator('.tabs-container .tab.active', { hasText: tab })
    .waitFor({ timeout: 15000 })
    .then(
      () => true,
      () => false,
    );
  check(opened, `Enter opened the top hit in the editor (tab "${tab}")`);
}

/** A filter that leaves nothing: the QuickPick names it (the fixtures are older than 30 days). */
async function checkEmptiedQuickPick(page) {
  const widget = page.locator('.quick-input-widget');
  await openQuickInput(page, 'F1');
  await page.keyboard.type('memlens: Search Memory');
  await widget.locator('.monaco-list-row', { hasText: 'memlens: Search Memory' }).first().waitFor({ timeout: 10000 });
  await page.keyboard.press('Enter');
  await widget.locator('.quick-input-title', { hasText: 'memlens' }).waitFor({ timeout: 10000 });
  await typeIntoSearchBox(page, widget, `${QUERY} since:30d`, 'with a filter', { delay: 15 });
  const row = widget.locator('.monaco-list-row', { hasText: 'No results since 30 days ago' }).first();
  const named = await found(row.waitFor({ timeout: 30000 }));
  const text = named ? (await row.innerText()).replace(/\s+/g, ' ').trim() : '';
  check(named && /remove since:30d/i.test(text), `a filter that empties the list is named: "${text}"`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-quickpick-emptied.png') });
  await page.keyboard.press('Escape');
}

/** A date no calendar has: Search Memory and the Results view say it was searched as words (the CLI's note), and
 * Enter still opens the top hit, not the note above it. */
async function checkUnreadDate(page) {
  const widget = page.locator('.quick-input-widget');
  const sidebar = page.locator('[id="workbench.parts.sidebar"]');
  const flat = (text) => text.replace(/\s+/g, ' ').trim();
  const note = widget.locator('.quick-input-list .monaco-list-row', { hasText: '"February 30" is not a date' }).first();
  const title = widget.locator('.quick-input-title');
  await openQuickInput(page, 'F1');
  await page.keyboard.type('memlens: Search Memory');
  await widget.locator('.monaco-list-row', { hasText: 'memlens: Search Memory' }).first().waitFor({ timeout: 10000 });
  await page.keyboard.press('Enter');
  await title.filter({ hasText: 'memlens' }).waitFor({ timeout: 10000 });
  // words that find hits, and the date: the note heads the hits, and the focus (what Enter opens) is on the top hit
  await typeIntoSearchBox(page, widget, 'dead-letter queue backup on February 30', 'with hits and a date no calendar has', { delay: 15 });
  const listed = await found(title.filter({ hasText: /\d results?( of [\d,]+)? for .*February 30/ }).waitFor({ timeout: 30000 }));
  const above = listed && (await found(note.waitFor({ timeout: 5000 })));
  await sleep(500); // the focus settles on the hit under the note
  const focused = flat(await widget.locator('.quick-input-list .monaco-list-row.focused').first().innerText().catch(() => ''));
  check(above && (await note.getAttribute('data-index')) === '0', `with hits, the note is the first row ("${flat(await title.innerText().catch(() => ''))}")`);
  check(focused !== '' && !focused.includes('is not a date'), `the top hit, not the note, is the row Enter opens: "${focused.slice(0, 80)}"`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-quickpick-unread-date-hits.png') });
  // the question the note is for: nothing that day, and why no day was read
  await page.keyboard.press('Control+A');
  await typeIntoSearchBox(page, widget, 'what did we do on February 30', 'with a date no calendar has', { delay: 15 });
  // the title names the query once its answer is in (the rows until then are the last answer's)
  const answered = await found(title.filter({ hasText: 'what did we do on February 30' }).waitFor({ timeout: 30000 }));
  const shown = answered && (await found(note.waitFor({ timeout: 5000 })));
  const text = shown ? flat(await note.innerText()) : '';
  check(shown && text.includes('(February has 29 days at most)') && text.includes('searched as words, no day read from it'), `Search Memory says the date is none: "${text}"`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-quickpick-unread-date.png') });
  await page.keyboard.press('Escape'); // the box leaves its answer in the sidebar
  const message = sidebar.locator('.tree-explorer-viewlet-tree-view .message', { hasText: 'is not a date' }).first();
  if (!(await found(message.waitFor({ timeout: 5000 })))) {
    await runCommand(page, 'View: Show memlens').catch(() => undefined);
  }
  const said = await found(message.waitFor({ timeout: 10000 }));
  const words = said ? flat(await message.innerText()) : '';
  check(said && words.includes('"February 30" is not a date (February has 29 days at most): searched as words, no day read from it.'), `the Results view says so under its summary: "${words}"`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-results-unread-date.png') });
}

/** The sidebar dragged to 250 px by its sash, like a person would. */
async function narrowSidebar(page, width) {
  const sidebar = page.locator('[id="workbench.parts.sidebar"]');
  const box = await sidebar.boundingBox();
  if (!check(box, 'the sidebar is visible')) {
    return;
  }
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width - 1, y);
  await sleep(300);
  await page.mouse.down();
  await page.mouse.move(box.x + width, y, { steps: 8 });
  await page.mouse.up();
  await sleep(500);
  const after = await sidebar.boundingBox();
  check(after && Math.abs(after.width - width) <= 4, `dragging the sash made the sidebar ${Math.round(after?.width ?? 0)} px wide`);
}

/**
 * At 250 px: each result row shows its label first (the label is not the part that is cut), the score and age
 * after it; the mouse over a row shows no inline icons over the text; the activity bar icon has no badge (the
 * count is in the view's header).
 */
async function checkNarrowSidebar(page, report) {
  await narrowSidebar(page, 250);
  const sidebar = page.locator('[id="workbench.parts.sidebar"]');
  const pane = sidebar.locator('.pane', { has: page.locator('.pane-header', { hasText: /results/i }) }).first();
  const rows = pane.locator('.monaco-list-row');
  const measures = await rows.evaluateAll((els) =>
    els.slice(0, 8).map((el) => {
      const name = el.querySelector('.label-name');
      const description = el.querySelector('.label-description');
      const r = (e) => (e ? e.getBoundingClientRect() : undefined);
      const n = r(name);
      const d = r(description);
      return {
        text: (name?.textContent ?? '').trim(),
        nameWidth: n ? Math.round(n.width) : 0,
        nameLeft: n ? Math.round(n.left) : 0,
        descriptionLeft: d ? Math.round(d.left) : 0,
        description: (description?.textContent ?? '').trim(),
      };
    }),
  );
  log(`rows at 250 px: ${JSON.stringify(measures.slice(0, 4))}`);
  check(
    measures.length > 0 && measures.every((m) => !m.description || (m.descriptionLeft >= m.nameLeft && m.nameWidth >= 60)),
    `at 250 px every result row shows its label first and at least 60 px of it (${measures.map((m) => m.nameWidth).join(', ')} px)`,
  );
  const hitRow = rows.filter({ hasText: report.groups[0].hits[0]?.label ?? '' }).first();
  await hitRow.hover();
  await sleep(400);
  const icons = await hitRow.locator('.actions .action-item').count();
  check(icons === 0, `the mouse over a result row shows ${icons} inline icons over its text`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-sidebar-250.png') });
  // the row opens with a click at 250 px too
  await clickSidebarHit(page, report);
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-sidebar-250-opened.png') });
  // the activity bar: no badge on the memlens icon
  const icon = page.locator('[id="workbench.parts.activitybar"] .action-item', { has: page.locator('[aria-label^="memlens"]') }).first();
  const badges = await icon.locator('.badge-content').evaluateAll((els) => els.filter((e) => e.textContent?.trim() && e.offsetParent).length);
  check((await icon.count()) > 0 && badges === 0, 'the memlens activity bar icon carries no badge');
  const description = (await pane.locator('.pane-header').innerText().catch(() => '')).replace(/\s+/g, ' ').trim();
  check(/\d+ results?/.test(description), `the Results view's header shows the count instead ("${description}")`);
  checkCounts(description, "the Results view's header");
}

/**
 * A JavaScript identifier hovered in a real editor: the language's own hover (its type) comes first, memlens's
 * recall after it, both in one hover.
 */
async function checkBothHovers(page, report) {
  const word = /^[A-Za-z_]\w*$/.test(report.hover?.word ?? '') ? report.hover.word : 'consumer';
  await runCommand(page, 'View: Close All Editors');
  const widget = page.locator('.quick-input-widget');
  // click the command itself: Enter would run whichever row the fuzzy match put first ("Compare New Untitled…")
  const clickCommand = async (title, typed = title) => {
    await openQuickInput(page, 'F1');
    await page.keyboard.type(typed);
    await widget.locator('.monaco-list-row', { hasText: title }).first().click({ timeout: 10000 });
    await widget.waitFor({ state: 'hidden', timeout: 10000 }).catch(() => undefined);
  };
  await clickCommand('File: New Untitled Text File');
  await clickCommand('Change Language Mode');
  await widget.waitFor({ state: 'visible', timeout: 10000 }).catch(() => undefined);
  await page.keyboard.type('JavaScript');
  await widget.locator('.monaco-list-row', { hasText: /^JavaScript/ }).first().click({ timeout: 10000 });
  await widget.waitFor({ state: 'hidden', timeout: 10000 }).catch(() => undefined);
  await page.locator('.editor-group-container.active .monaco-editor textarea').first().focus();
  // inserted, not typed key by key: on a busy machine the suggest widget and bracket closing can take keys
  await page.keyboard.insertText(`const ${word} = 42;\nconsole.log(${word});\n`);
  await sleep(1500);
  const token = page.locator('.editor-group-container.active .view-lines .view-line').nth(1).locator('span span', { hasText: word }).first();
  const box = await token.boundingBox();
  if (!check(box, `typed "${word}" into a JavaScript editor`)) {
    return;
  }
  const hoverWidget = page.locator('.monaco-hover', { hasText: 'memlens' }).first();
  let text = '';
  // the TypeScript server starts on the first JavaScript document: give it time on a busy machine
  for (let attempt = 0; attempt < 20; attempt++) {
    await page.mouse.move(box.x + box.width / 2, box.y - 80);
    await sleep(300);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 4 });
    if (await found(hoverWidget.waitFor({ state: 'visible', timeout: 6000 }))) {
      text = (await hoverWidget.innerText()).replace(/\s+/g, ' ');
      if (text.includes(word) && /const|number|42/.test(text.split('memlens')[0])) {
        break;
      }
    }
    await sleep(1500);
  }
  const typeAt = text.search(new RegExp(`(const|let) ${word}`));
  const recallAt = text.indexOf('memlens');
  log(`hover text: ${text.slice(0, 240)}`);
  check(typeAt >= 0 && recallAt > typeAt, `the language's hover ("${text.slice(typeAt, typeAt + 30)}") comes first, memlens's recall after it (at ${typeAt} and ${recallAt})`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-hover-both.png') });
  await page.mouse.move(900, 900);
  await runCommand(page, 'View: Revert and Close Editor').catch(() => undefined);
  await page.keyboard.press('Escape');
}

// -- the other commands: stats preview, clearing the results, restarting the server ------------------------------

async function checkOtherCommands(page, report) {
  await runCommand(page, 'memlens: Show Index Stats');
  const preview = await page
    .locator('.tabs-container .tab.active', { hasText: 'memlens index' })
    .waitFor({ timeout: 15000 })
    .then(
      () => true,
      () => false,
    );
  check(preview, 'Show Index Stats opened the "memlens index" report');
  if (preview) {
    await sleep(1500);
    await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-stats.png') });
  }
  // the report is a Markdown preview, a webview: left open and focused, it took the focus back from the Search
  // Memory box opened later and the query's keys went into the report. Read, it is closed, as a person would.
  await runCommand(page, 'View: Close All Editors');

  const sidebar = page.locator('[id="workbench.parts.sidebar"]');
  await runCommand(page, 'memlens: Clear Results');
  const welcome = await sidebar
    .locator('.welcome-view-content', { hasText: 'Search what your coding agents remember' })
    .waitFor({ timeout: 10000 })
    .then(
      () => true,
      () => false,
    );
  check(welcome, 'Clear Results emptied the sidebar and shows the welcome text');

  // the view's toolbar search: input box → results in the sidebar
  const groups = report.groups ?? [];
  // two views in the container: the Results view's actions sit in its pane header and show on hover
  const resultsHeader = sidebar.locator('.pane-header', { hasText: /results/i }).first();
  await resultsHeader.hover().catch(() => undefined);
  const searchAction = sidebar
    .locator('.pane-header', { hasText: /results/i })
    .locator('.action-label[aria-label^="Search"]')
    .first();
  const clicked = await searchAction.click({ timeout: 5000 }).then(
    () => true,
    () => false,
  );
  if (check(clicked, 'the results view has a search action in its toolbar')) {
    const input = page.locator('.quick-input-widget');
    await input.waitFor({ state: 'visible', timeout: 10000 });
    await page.keyboard.press('Control+A');
    await page.keyboard.type(QUERY);
    await page.keyboard.press('Enter');
    const back = await sidebar
      .locator('.monaco-list-row', { hasText: new RegExp(groups.map((g) => g.label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|') || 'memlens') })
      .first()
      .waitFor({ timeout: 30000 })
      .then(
        () => true,
        () => false,
      );
    check(back, 'searching from the view toolbar filled the sidebar again');
  }

  const statusbar = page.locator('[id="workbench.parts.statusbar"]');
  await page.keyboard.press('Escape');
  await page.locator('.editor-group-container.active').first().click({ position: { x: 400, y: 300 } }).catch(() => undefined);
  await sleep(500);
  await runCommand(page, 'memlens: Restart Server');
  const restarted = await page
    .locator('.notifications-toasts', { hasText: 'language server restarted' })
    .waitFor({ timeout: 60000 })
    .then(
      () => true,
      () => false,
    );
  const status = (await statusbar.innerText().catch(() => '')).split('\n').find((t) => /memlens/.test(t)) ?? '';
  check(restarted && !/error/i.test(status), `Restart Server restarted the language server (status bar "${status.trim()}")`);
}

/**
 * A diagnostic in the editor (the harness adds one, as a linter would: an error that lives in the example's tool
 * output), its quick fix "memlens: past occurrences of this error" from the lightbulb menu (Ctrl+.), the list of past
 * occurrences with what followed, and Enter opening the transcript at the failed command.
 */
async function checkFixesCodeAction(page) {
  const widget = page.locator('.quick-input-widget');
  await page.keyboard.press('Escape');
  await runCommand(page, 'View: Close All Editors');
  await openQuickInput(page, 'Control+P');
  await page.keyboard.type('MEMORY.md');
  await widget.locator('.monaco-list-row', { hasText: 'MEMORY.md' }).first().waitFor({ timeout: 10000 });
  await page.keyboard.press('Enter');
  await page.locator('.tabs-container .tab.active', { hasText: 'MEMORY.md' }).waitFor({ timeout: 15000 });
  await sleep(500);
  await runCommand(page, 'memlens e2e: Add Diagnostic');
  await page.locator('.editor-group-container.active .monaco-editor .squiggly-error').first().waitFor({ timeout: 10000 }).catch(() => undefined);
  const title = 'memlens: past occurrences of this error';
  const menuItem = page.locator('.action-widget .monaco-list-row, .context-view .monaco-list-row', { hasText: title }).first();
  let offered = false;
  for (let attempt = 0; attempt < 5 && !offered; attempt++) {
    await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click({ position: { x: 5, y: 5 } }).catch(() => undefined);
    await page.keyboard.press('Control+.');
    offered = await found(menuItem.waitFor({ state: 'visible', timeout: 4000 }));
    if (!offered) {
      await page.keyboard.press('Escape');
      await sleep(1000);
    }
  }
  if (!check(offered, `the quick fix menu on the diagnostic offers "${title}"`)) {
    return;
  }
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-fixes-action.png') });
  await page.keyboard.press('Enter'); // the menu's only item is focused (a click lands on its pointer block)
  const shown = await found(widget.locator('.quick-input-title', { hasText: 'past occurrences of “' }).waitFor({ timeout: 30000 }));
  const qpTitle = (await widget.locator('.quick-input-title').innerText().catch(() => '')).trim();
  check(shown && /session/.test(qpTitle), `the quick fix lists past occurrences: "${qpTitle}"`);
  const rows = widget.locator('.quick-input-list .monaco-list-row');
  await rows.first().waitFor({ timeout: 10000 }).catch(() => undefined);
  await sleep(400);
  const texts = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
  log(`past occurrences: ${JSON.stringify(texts.slice(0, 5))}`);
  // the example's failed command exited 0 (Lambda logs): it reads as tool output, not as failed
  check(/^(failed|tool output)/.test(texts[0] ?? '') && /UnroutableEvent/.test(texts[0] ?? ''), 'the first past occurrence shows the error line');
  check(texts.some((t) => /^then (assistant|you)/.test(t)), 'the messages that followed it are listed');
  check(/past occurrences of “UnroutableEvent/.test(qpTitle) && !texts.some((t) => /claude-code · 5b0e7d3c.*claude-code · 5b0e7d3c/.test(t)), 'each row names its session once');
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-fixes.png') });
  await page.keyboard.press('Enter'); // the first row: the failed command
  const opened = await found(page.locator('.tabs-container .tab.active', { hasText: /\.md$|Refund|order/i }).waitFor({ timeout: 15000 }));
  await sleep(1000);
  const text = await editorText(page);
  check(opened && /⭐ match/.test(text.split('\n').slice(0, 8).join('\n')), 'Enter opened the transcript at the failed command ("⭐ match")');
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-fixes-opened.png') });
  await runCommand(page, 'View: Close All Editors');
}

/** A search whose hits all stayed under the threshold: a collapsed "weaker matches (N)" group, which lists them,
 * each with its confidence word, once expanded. */
async function checkWeakerMatches(page, { userData }) {
  const sidebar = page.locator('[id="workbench.parts.sidebar"]');
  await page.keyboard.press('Escape');
  await runCommand(page, 'memlens e2e: Show Withheld Hits');
  const group = sidebar.locator('.monaco-list-row', { hasText: /weaker matches \(\d+\)/ }).first();
  if (!check(await found(group.waitFor({ timeout: 30000 })), 'the sidebar shows a "weaker matches (N)" group')) {
    return;
  }
  const collapsed = await group.getAttribute('aria-expanded');
  check(collapsed === 'false', `the group starts collapsed (aria-expanded=${collapsed})`);
  // A click that lands while the tree renders the row again is lost, and a row seen expanded has been seen to end
  // up collapsed with nothing under it: as a person would, click the row whenever it says it is collapsed (never
  // when it says it is expanded, which would collapse it) until its hits are listed.
  const expandedGroup = sidebar.locator('.monaco-list-row[aria-expanded="true"]', { hasText: /weaker matches \(\d+\)/ }).first();
  // the hits under the group: rows of the Results pane (the Sessions pane has second-level rows too)
  const pane = sidebar.locator('.pane', { has: page.locator('.pane-header', { hasText: /results/i }) }).first();
  const children = pane.locator('.monaco-list-row[aria-level="2"]');
  let listed = false;
  for (let attempt = 1; attempt <= 3 && !listed; attempt++) {
    if ((await group.getAttribute('aria-expanded').catch(() => null)) !== 'true') {
      await group.click();
      if (!(await found(expandedGroup.waitFor({ timeout: 5000 })))) {
        log(`the click on the group left it collapsed (attempt ${attempt})`);
        continue;
      }
    }
    listed = await found(children.first().waitFor({ timeout: 15000 }));
    if (!listed) {
      const rows = await pane
        .locator('.monaco-list-row')
        .evaluateAll((all) => all.map((r) => `${r.getAttribute('aria-level')}:${r.getAttribute('aria-expanded')}:${r.textContent}`))
        .catch(() => []);
      log(`no hit under the group (attempt ${attempt}); the Results pane's rows (level:expanded:text): ${JSON.stringify(rows)}`);
      log(`what the extension logged of the sidebar: ${JSON.stringify(memlensLog(userData).split('\n').filter((l) => / e2e: /.test(l)).slice(-6))}`);
      await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-weaker-unlisted.png') });
    }
  }
  await sleep(500);
  const texts = (await children.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
  log(`weaker matches: ${JSON.stringify(texts.slice(0, 4))}`);
  const withheld = Number(/weaker matches \((\d+)\)/.exec(await group.innerText())?.[1] ?? -1);
  check(texts.length === withheld, `the group lists as many hits as it says it holds (${texts.length} of ${withheld})`);
  check(listed && texts.length > 0 && texts.every((t) => /(strong|possible|weak)\b|\d{1,3}%/.test(t)), `expanding it lists ${texts.length} hits, each saying how sure it is`);
  // the harness's search shows none of its hits: the header says so in words
  const header = (await pane.locator('.pane-header').innerText().catch(() => '')).replace(/\s+/g, ' ').trim();
  check(/\bno results\b/.test(header), `the Results view's header says "no results" ("${header}")`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-weaker.png') });
}

// -- restarts that overlap, and a killed server ------------------------------------------------------------------

/** Wait for `pids` to exit (a server closes its index and its model cache's files when told to stop), killing
 * those still running after 15 s. */
async function stopped(pids) {
  const running = () => pids.filter((pid) => fs.existsSync(`/proc/${pid}`));
  for (let waited = 0; running().length && waited < 15000; waited += 200) {
    await sleep(200);
  }
  for (const pid of running()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

/** The `<python> -m memlens serve` processes code-server started (its descendants), by pid. */
function serverPids(rootPid) {
  const parents = new Map();
  const commands = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      commands.set(Number(entry), fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0'));
    } catch {
      // gone meanwhile
    }
  }
  const descends = (pid) => {
    for (let p = pid, n = 0; p > 1 && n < 64; p = parents.get(p) ?? 0, n++) {
      if (p === rootPid) return true;
    }
    return false;
  };
  return [...commands].filter(([pid, argv]) => argv.includes('memlens') && argv.includes('serve') && argv.includes('-m') && descends(pid)).map(([pid]) => pid);
}

function memlensLog(userData) {
  return findFiles(path.join(userData, 'logs'), /memlens\.log$/).map((f) => fs.readFileSync(f, 'utf8')).join('\n');
}

/**
 * Type into the open Search Memory box where a person types: once it has the focus. Right after a restart a key can
 * arrive before the box takes it, or the focus can be elsewhere when the typing starts; a person who sees the box
 * still empty clicks into it and types again, and so does this (twice at most, each logged with where the focus
 * was). The check says so when the text never arrived, rather than a later wait timing out.
 */
async function typeIntoSearchBox(page, widget, text, when, options = {}) {
  const box = widget.locator('.quick-input-box input');
  let typed = '';
  for (let attempt = 1; attempt <= 3; attempt++) {
    const focused = await found(waitFor('the Search Memory box to take the focus', () => box.evaluate((el) => el === document.activeElement), 10000, 100));
    if (!focused) {
      const where = await page.evaluate(() => {
        const el = document.activeElement;
        return el ? `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} "${el.getAttribute('aria-label') ?? ''}"` : 'nothing';
      }).catch(() => 'unknown');
      log(`the Search Memory box does not have the focus (attempt ${attempt}; the focus is on ${where}): clicking into it`);
      await box.click({ timeout: 5000 }).catch(() => undefined);
    }
    await page.keyboard.type(text, options);
    typed = await box.inputValue().catch(() => '');
    if (typed === text) break;
    log(`the box holds "${typed}" after typing (attempt ${attempt}): clearing it and typing again`);
    await box.click({ timeout: 5000 }).catch(() => undefined);
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
  }
  check(typed === text, `${when}: the query typed into Search Memory is in its box ("${typed}")`);
}

/** Search Memory from the command palette, as a person would: the QuickPick must list hits. */
async function searchWorks(page, when) {
  const widget = page.locator('.quick-input-widget');
  await page.keyboard.press('Escape');
  await runCommand(page, 'memlens: Search Memory');
  await widget.locator('.quick-input-title', { hasText: 'memlens' }).waitFor({ timeout: 10000 });
  await typeIntoSearchBox(page, widget, QUERY, when);
  const shown = await found(widget.locator('.quick-input-title', { hasText: /results? .*for/ }).waitFor({ timeout: 60000 }));
  await sleep(500);
  const rows = (await widget.locator('.quick-input-list .monaco-list-row').allInnerTexts()).length;
  const title = (await widget.locator('.quick-input-title').innerText().catch(() => '')).trim();
  check(shown && rows > 0, `${when}: Search Memory answers ("${title}", ${rows} hits)`);
  await page.screenshot({ path: path.join(ARTIFACTS, `vscode-search-${when.replace(/\W+/g, '-').replace(/-+$/, '')}.png`) });
  await page.keyboard.press('Escape');
}

async function restartServer(page) {
  await runCommand(page, 'Notifications: Clear All Notifications').catch(() => undefined);
  await runCommand(page, 'memlens: Restart Server');
}

async function waitRestarted(page) {
  return found(page.locator('.notifications-toasts', { hasText: 'language server restarted' }).waitFor({ timeout: 90000 }));
}

async function memlensStatus(page) {
  const text = await page.locator('[id="workbench.parts.statusbar"]').innerText().catch(() => '');
  return (text.split('\n').find((t) => /memlens/.test(t)) ?? '').trim();
}

/**
 * Change a setting through VS Code's configuration API (as the Settings editor does), from the command palette:
 * "memlens e2e: Apply Setting" (the harness's) sets what this writes to MEMLENS_E2E_SETTING_FILE.
 */
async function applySetting(page, tmp, key, value) {
  fs.writeFileSync(path.join(tmp, 'setting.json'), JSON.stringify({ key, value }));
  await runCommand(page, 'memlens e2e: Apply Setting');
}

async function checkOverlappingRestarts(page, { userData, csPid, tmp }) {
  const before = serverPids(csPid);
  check(before.length === 1, `one memlens server runs under code-server (pids ${before.join(', ')})`);
  // "memlens: Restart Server", and while it runs a settings change that restarts the server too: the same
  // interpreter, named through ${env:…} this time, so the value changes and nothing else does
  await restartServer(page);
  await applySetting(page, tmp, 'memlens.server.pythonPath', '${env:MEMLENS_E2E_PYTHON}');
  log('changed memlens.server.pythonPath right after Restart Server');
  const restarted = await waitRestarted(page);
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-restart-settings.png') });
  check(restarted, 'Restart Server finished while the settings change restarted the server as well');
  const lastStart = () => memlensLog(userData).split('Restarting the memlens language server').slice(-1)[0] ?? '';
  // the start that uses the new value, not the harness's "e2e: setting …" line, which names it before that restart
  const usesChanged = /Using Python \S+ \(from memlens\.server\.pythonPath "\$\{env:MEMLENS_E2E_PYTHON\}"[\s\S]*memlens language server started/;
  await waitFor('the restart that applies the changed setting', () => usesChanged.test(lastStart()), 60000, 500).catch(() => undefined);
  check(usesChanged.test(lastStart()), 'the server runs with the changed setting');
  const restarts = (memlensLog(userData).match(/Restarting the memlens language server/g) ?? []).length;
  check(restarts >= 3, `the settings change asked for a restart while one ran (${restarts} restarts asked for in all)`);
  await searchWorks(page, 'after a setting changed during Restart Server');
  check(!(await statusIsError(page)), `the status bar is not red ("${await memlensStatus(page)}")`);
  const afterSettings = serverPids(csPid);
  check(afterSettings.length === 1 && !afterSettings.includes(before[0]), `one new server process (pids ${afterSettings.join(', ')})`);

  // the server killed from outside, then Restart Server at once (while the client's crash recovery runs too)
  if (afterSettings.length > 0) {
    for (const pid of afterSettings) {
      process.kill(pid, 'SIGKILL');
    }
    log(`killed the server (pid ${afterSettings.join(', ')}) with SIGKILL`);
    await restartServer(page);
    check(await waitRestarted(page), 'Restart Server right after the server was killed says it restarted');
    await searchWorks(page, 'after the server was killed');
    const pids = serverPids(csPid);
    check(pids.length === 1 && !afterSettings.includes(pids[0]), `one server runs again (pids ${pids.join(', ')})`);
    check(!(await statusIsError(page)), `the status bar is not red after the kill ("${await memlensStatus(page)}")`);
  }
  const logText = memlensLog(userData);
  check(!/already exists/.test(logText), 'no "command … already exists" in the memlens log');
  check(
    /Using Python \S+ \(from memlens\.server\.pythonPath in the User( or Remote \[[^\]]+\])? settings\)/.test(logText) &&
      /Settings sent to the server: .*memlens\.hover\.minScore from the User( or Remote \[[^\]]+\])? settings/.test(logText),
    'the log names the settings scope of the interpreter and of each setting sent',
  );
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-restarts.png') });
}

/** Whether the memlens status-bar item shows the error state (red, with the error icon). */
async function statusIsError(page) {
  const html = await page
    .locator('[id="workbench.parts.statusbar"] .statusbar-item', { hasText: 'memlens' })
    .first()
    .evaluate((el) => `${el.className} ${el.innerHTML}`)
    .catch(() => '');
  return /codicon-error|error-kind/.test(html);
}

/**
 * The install flow: an interpreter that cannot import memlens (a wrapper around MEMLENS_PYTHON whose path starts with
 * a memlens that fails to import) makes the status red with the install prompt; making memlens importable there
 * (removing that shadow: the install, without touching any real environment) starts the server by itself.
 */
async function checkInstallFlow(page, { tmp }) {
  const shadow = path.join(tmp, 'shadow');
  fs.mkdirSync(path.join(shadow, 'memlens'), { recursive: true });
  fs.writeFileSync(path.join(shadow, 'memlens', '__init__.py'), 'raise ModuleNotFoundError("No module named \'memlens\'")\n');
  const wrapper = path.join(tmp, 'python-without-memlens');
  fs.writeFileSync(wrapper, `#!/bin/sh\nPYTHONPATH="${shadow}\${PYTHONPATH:+:$PYTHONPATH}" exec "${PYTHON}" "$@"\n`, { mode: 0o755 });
  await runCommand(page, 'Notifications: Clear All Notifications').catch(() => undefined);
  await applySetting(page, tmp, 'memlens.server.pythonPath', wrapper);
  const prompt = page.locator('.notifications-toasts', { hasText: 'not importable by' });
  const prompted = await found(prompt.waitFor({ timeout: 90000 }));
  const promptText = prompted ? (await prompt.innerText()).replace(/\s+/g, ' ') : '';
  check(prompted && /Install in Terminal/.test(promptText), `an interpreter without memlens: the install prompt ("${promptText.slice(0, 200)}…")`);
  check(/memlens\.server\.pythonPath in the User( or Remote \[[^\]]+\])? settings/.test(promptText), 'the prompt names the settings scope that chose the interpreter');
  check(await statusIsError(page), 'the status bar is red');
  await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-install-needed.png') });
  fs.renameSync(path.join(shadow, 'memlens'), path.join(shadow, 'memlens.removed'));
  log('memlens is importable by the interpreter now; no command run');
  const started = await found(page.locator('.notifications-toasts', { hasText: 'installed; the language server started' }).waitFor({ timeout: 90000 }));
  check(started, 'once memlens imports, the server starts by itself');
  check(!(await statusIsError(page)), `the status bar is no longer red ("${await memlensStatus(page)}")`);
  await searchWorks(page, 'after memlens was installed');
}

// -- main ----------------------------------------------------------------------------------------------------------

async function main() {
  for (const [what, p] of [
    ['the .vsix (run npm run package)', VSIX],
    ['the e2e harness (run npm run bundle:e2e)', HARNESS],
    ['code-server (run client/test/e2e/install-code-server.sh)', CODE_SERVER],
    ['Chromium (apt-get install chromium)', CHROMIUM],
    ['the workspace', WORKSPACE],
  ]) {
    if (!fs.existsSync(p)) {
      throw new Failure(`missing ${what}: ${p}`);
    }
  }
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  for (const f of fs.existsSync(ARTIFACTS) ? fs.readdirSync(ARTIFACTS).filter((f) => /^vscode-.*\.png$/.test(f)) : []) {
    fs.rmSync(path.join(ARTIFACTS, f), { force: true });
  }
  for (const f of ['vscode-sidebar.png', 'vscode-failure.png', 'selftest.json', 'memlens-output.log', 'code-server.log', 'browser-console.log']) {
    fs.rmSync(path.join(ARTIFACTS, f), { force: true });
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'memlens-e2e-'));
  const userData = path.join(tmp, 'user-data');
  const extensions = path.join(tmp, 'extensions');
  const xdg = path.join(tmp, 'xdg');
  const reportFile = path.join(tmp, 'selftest.json');
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
  fs.writeFileSync(
    path.join(userData, 'User', 'settings.json'),
    JSON.stringify(
      {
        'memlens.server.pythonPath': PYTHON,
        // the workspace's own folders (its .memlens.json names them) and a long session written for the viewer's
        // "show earlier messages" (longSession.mjs): the bundled example stays as other tests count it
        'memlens.transcripts.paths': [path.join(WORKSPACE, 'transcripts'), path.join(WORKSPACE, '.specstory', 'history'), writeLongSession(path.join(tmp, 'long-session'))],
        'memlens.trace.server': 'messages',
        // the e2e tests the editor, not the ranking: a hover whatever the engine's score calibration
        'memlens.hover.minScore': 0.05,
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'workbench.welcomePage.walkthroughs.openOnInstall': false,
        'workbench.colorTheme': 'Default Dark Modern',
        'security.workspace.trust.enabled': false,
        'telemetry.telemetryLevel': 'off',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'extensions.ignoreRecommendations': true,
        'update.mode': 'none',
        'chat.commandCenter.enabled': false,
        'chat.disableAIFeatures': true,
        'window.restoreWindows': 'none',
        'git.openRepositoryInParentFolders': 'never',
        'workbench.editor.enablePreview': true,
      },
      null,
      2,
    ),
  );
  const childEnv = {
    ...env,
    // keep code-server's config, the memlens index and caches out of the real home folder
    XDG_CONFIG_HOME: path.join(xdg, 'config'),
    XDG_DATA_HOME: path.join(xdg, 'data'),
    XDG_CACHE_HOME: path.join(xdg, 'cache'),
    MEMLENS_SELFTEST_OUT: reportFile,
    // the same interpreter named through a variable: the e2e changes memlens.server.pythonPath to it mid-restart
    MEMLENS_E2E_PYTHON: PYTHON,
    // what "memlens e2e: Apply Setting" (the harness) sets: { key, value }
    MEMLENS_E2E_SETTING_FILE: path.join(tmp, 'setting.json'),
    MEMLENS_SELFTEST_QUERY: QUERY,
    MEMLENS_SELFTEST_TIMEOUT_MS: String(Math.max(30000, TIMEOUT_MS - 60000)),
  };
  delete childEnv.VSCODE_IPC_HOOK_CLI;
  const common = ['--user-data-dir', userData, '--extensions-dir', extensions, '--config', path.join(tmp, 'code-server.yaml')];

  log(`installing ${path.relative(ROOT, VSIX)} into a fresh extensions folder`);
  const install = spawnSync(process.execPath, [CODE_SERVER, ...common, '--install-extension', VSIX, '--force'], {
    env: childEnv,
    encoding: 'utf8',
    timeout: 120000,
  });
  if (install.status !== 0) {
    throw new Failure(`code-server --install-extension failed (${install.status}):\n${install.stdout}\n${install.stderr}`);
  }
  const installed = fs.readdirSync(extensions).filter((d) => d.startsWith('memlens.memlens-'));
  check(installed.length === 1, `extension installed: ${installed.join(', ')}`);
  // the product holds no test code; the harness goes next to the installed bundle, only here
  const extDir = path.join(extensions, installed[0]);
  const manifestPath = path.join(extDir, 'package.json');
  const installedManifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  check(
    !JSON.stringify(installedManifest).includes('selfTest') && !fs.readFileSync(path.join(extDir, 'out', 'extension.js'), 'utf8').includes('MEMLENS_SELFTEST'),
    'the packaged extension holds no self-test (manifest and bundle)',
  );
  check(fs.readdirSync(path.join(extDir, 'out', 'server')).some((f) => f.endsWith('.whl')), 'the .vsix carries the memlens wheel');
  fs.copyFileSync(HARNESS, path.join(extDir, 'out', 'harness.js'));
  installedManifest.main = './out/harness.js';
  installedManifest.contributes.commands.push({ command: 'memlens.e2e.applySetting', title: 'Apply Setting', category: 'memlens e2e' });
  installedManifest.contributes.commands.push({ command: 'memlens.e2e.addDiagnostic', title: 'Add Diagnostic', category: 'memlens e2e' });
  installedManifest.contributes.commands.push({ command: 'memlens.e2e.showWithheld', title: 'Show Withheld Hits', category: 'memlens e2e' });
  fs.writeFileSync(manifestPath, JSON.stringify(installedManifest, null, 2));

  const port = await freePort();
  const csLog = fs.openSync(path.join(ARTIFACTS, 'code-server.log'), 'w');
  log(`starting code-server on 127.0.0.1:${port} with ${path.relative(ROOT, WORKSPACE)}; memlens python: ${PYTHON}`);
  const cs = spawn(
    process.execPath,
    [
      CODE_SERVER,
      ...common,
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--auth',
      'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--ignore-last-opened',
      WORKSPACE,
    ],
    { env: childEnv, stdio: ['ignore', csLog, csLog], detached: true },
  );
  let csExit = null;
  cs.on('exit', (code, signal) => {
    csExit = `code-server exited (${code ?? signal})`;
  });

  let browser;
  let page;
  const consoleLines = [];
  try {
    await waitFor(
      'code-server to listen',
      async () => {
        if (csExit) throw new Failure(csExit);
        try {
          const res = await fetch(`http://127.0.0.1:${port}/healthz`);
          return res.ok;
        } catch {
          return false;
        }
      },
      60000,
    );
    log('code-server is up; opening the workbench in headless Chromium');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    const context = await browser.newContext({ viewport: { width: 1600, height: 960 }, deviceScaleFactor: 1 });
    page = await context.newPage();
    pageRef = page;
    page.on('console', (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
    page.on('pageerror', (e) => consoleLines.push(`[pageerror] ${e.message}`));
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(WORKSPACE)}`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
    log('workbench loaded; waiting for the extension self-test report');

    const report = await waitFor(
      'the self-test report (MEMLENS_SELFTEST_OUT)',
      () => {
        if (csExit) throw new Failure(csExit);
        return fs.existsSync(reportFile) ? JSON.parse(fs.readFileSync(reportFile, 'utf8')) : undefined;
      },
      Math.max(10000, TIMEOUT_MS - (Date.now() - t0)),
      500,
    );
    fs.copyFileSync(reportFile, path.join(ARTIFACTS, 'selftest.json'));
    log(
      `report: ok=${report.ok} results=${report.response?.results?.length ?? 0} searches=${report.searches} ` +
        `server ready after ${report.serverStartMs ?? '?'} ms, self-test took ${report.elapsedMs} ms`,
    );
    checkReport(report);

    // The sidebar as a person sees it: the memlens view with the grouped hits.
    const sidebar = page.locator('[id="workbench.parts.sidebar"]');
    const firstGroup = report.groups?.[0]?.label;
    if (firstGroup) {
      const row = sidebar.locator('.monaco-list-row', { hasText: firstGroup }).first();
      const shown = await row.waitFor({ state: 'visible', timeout: 30000 }).then(
        () => true,
        () => false,
      );
      check(shown, `the sidebar shows the result group "${firstGroup}"`);
      const rows = await sidebar.locator('.monaco-list-row').allInnerTexts();
      check(rows.length >= (report.groups?.length ?? 0), `the sidebar lists ${rows.length} rows`);
      const firstHit = report.groups[0].hits[0]?.label;
      if (firstHit) {
        check(rows.some((t) => t.includes(firstHit)), `the sidebar shows the hit "${firstHit}"`);
      }
    }
    const title = await sidebar.locator('.composite.title').first().innerText().catch(() => '');
    check(/memlens/i.test(title), `the memlens view container is open ("${title.replace(/\s+/g, ' ').trim()}")`);
    // the sidebar at its default width, as a user first sees it
    await page.mouse.move(900, 900);
    await sleep(1000); // let the editor finish painting the transcript
    const shot = failures.length ? path.join(ARTIFACTS, 'vscode-failure.png') : SCREENSHOT;
    await page.screenshot({ path: shot });
    log(`screenshot: ${path.relative(ROOT, shot)}`);

    const statusText = await page.locator('[id="workbench.parts.statusbar"]').innerText().catch(() => '');
    const memlensStatus = statusText.split('\n').find((t) => /memlens/.test(t)) ?? '';
    check(/memlens/.test(memlensStatus), `the status bar shows "${memlensStatus.trim()}"`);
    checkCounts(memlensStatus, 'the status bar');

    if (report.ok) {
      await step('click a sidebar hit', () => clickSidebarHit(page, report));
      await step('click a hover link', () => clickHoverLink(page, report));
      await step('click a session', () => clickSession(page));
      await step('show earlier messages', () => checkShowEarlier(page));
      await step('the Sessions view at 800 px', () => checkSessionsAt800(page));
      await step('Search Memory', () => checkQuickPick(page, report));
      await step('a 250 px sidebar', () => checkNarrowSidebar(page, report));
      await step('hover beside the language hover', () => checkBothHovers(page, report));
      // the last of the searches: the QuickPick leaves its answer in the sidebar (an empty one, then a date's note)
      await step('a filter empties Search Memory', () => checkEmptiedQuickPick(page));
      await step('a date no calendar has', () => checkUnreadDate(page));
      await step('past occurrences from a diagnostic', () => checkFixesCodeAction(page));
      await step('weaker matches in the sidebar', () => checkWeakerMatches(page, { userData }));
      await step('other commands', () => checkOtherCommands(page, report));
      await step('overlapping restarts', () => checkOverlappingRestarts(page, { userData, csPid: cs.pid, tmp }));
      await step('install flow', () => checkInstallFlow(page, { tmp }));
      // pygls shows an exception in a notification's handler as "Error in server: …" (an untitled file's changes did)
      const shown = consoleLines.filter((line) => line.includes('Error in server'));
      check(shown.length === 0, `the language server showed no error through all of it${shown.length ? `: ${shown[0]}` : ''}`);
    }
  } catch (err) {
    failures.push(err instanceof Failure ? err.message : String(err?.stack ?? err));
    log(`FAIL ${failures[failures.length - 1]}`);
    if (page) {
      await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-failure.png') }).catch(() => undefined);
    }
  } finally {
    fs.writeFileSync(path.join(ARTIFACTS, 'browser-console.log'), `${consoleLines.join('\n')}\n`);
    for (const f of findFiles(path.join(userData, 'logs'), /memlens\.log$/)) {
      fs.copyFileSync(f, path.join(ARTIFACTS, 'memlens-output.log'));
    }
    if (fs.existsSync(reportFile) && !fs.existsSync(path.join(ARTIFACTS, 'selftest.json'))) {
      fs.copyFileSync(reportFile, path.join(ARTIFACTS, 'selftest.json'));
    }
    await browser?.close().catch(() => undefined);
    const servers = cs.pid ? serverPids(cs.pid) : []; // they outlive code-server for as long as they close their work
    if (!csExit && cs.pid) {
      try {
        process.kill(-cs.pid, 'SIGTERM'); // code-server and the extension host / language server it started
      } catch {
        // already gone
      }
      await Promise.race([new Promise((r) => cs.once('exit', r)), sleep(5000)]);
      if (!csExit) {
        try {
          process.kill(-cs.pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
    fs.closeSync(csLog);
    await stopped(servers);
    if (env.MEMLENS_E2E_KEEP === '1') {
      log(`kept ${tmp}`);
    } else {
      try {
        fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 10, retryDelay: 300 });
      } catch (err) {
        log(`could not remove ${tmp}: ${err}`); // a temporary folder left behind is no failure of the client
      }
    }
  }
}

try {
  await main();
} catch (err) {
  failures.push(err instanceof Failure ? err.message : String(err?.stack ?? err));
  log(`FAIL ${failures[failures.length - 1]}`);
}
const secs = ((Date.now() - t0) / 1000).toFixed(1);
if (failures.length) {
  console.error(`\ne2e FAILED in ${secs}s (${failures.length} problem${failures.length === 1 ? '' : 's'}); logs in test-artifacts/`);
  process.exit(1);
}
console.log(`\ne2e passed in ${secs}s; screenshot: ${path.relative(ROOT, SCREENSHOT)}`);
