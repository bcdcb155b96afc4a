import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorMessage, isCancellation } from '../../src/errors';
import { formatCount, formatDate, formatDateTime, formatScore, isKnownTimeZone, oneLine, shortId } from '../../src/format';
import { hitLocation, hitTooltip, pickItemText, sessionLabel, treeHitText, weakerHitText } from '../../src/hitText';
import { installCommands, notImportableMessage, pythonNotFoundMessage } from '../../src/installHints';
import { groupResults, searchSummary, WEAKER_FROM_QUICKPICK, WEAKER_IN_SIDEBAR, weakerHits, weakerLabel, weakerParams } from '../../src/resultGroups';
import { expandPathVariables, isMachineScoped, nestSettings, serverSettingKeys, settingOrigin, toPlainConfig, whereToSet } from '../../src/serverSettings';
import { renderStats, statusBarText } from '../../src/statsText';
import { parseTranscriptUri, parseTranscriptUriString, transcriptUriComponents, transcriptUriString } from '../../src/transcriptUri';
import type { SearchResult, StatsResponse } from '../../src/protocol';

const UTC = { utc: true };

function memoryHit(overrides: Partial<SearchResult> = {}): SearchResult {
  return {
    id: 'm1',
    kind: 'memory',
    score: 0.8234,
    path: '/ws/MEMORY.md',
    relPath: 'MEMORY.md',
    lineStart: 12,
    lineEnd: 18,
    heading: 'Queues',
    excerpt: 'The DLQ redrive\n  runs nightly.',
    ...overrides,
  };
}

function transcriptHit(overrides: Partial<SearchResult> = {}): SearchResult {
  return {
    id: 't1',
    kind: 'transcript',
    score: 0.91,
    path: '/home/u/.claude/projects/-ws/258c7280-aaaa-bbbb-cccc-1234567890ab.jsonl',
    relPath: '.claude/258c7280.jsonl',
    format: 'claude-code',
    sessionKey: 'claude-code:258c7280-aaaa-bbbb-cccc-1234567890ab',
    sessionId: '258c7280-aaaa-bbbb-cccc-1234567890ab',
    messageId: 'msg-7',
    role: 'assistant',
    timestamp: '2026-02-10T21:11:05Z',
    messageCount: 4,
    excerpt: 'We redrove the dead-letter queue after fixing the consumer.',
    ...overrides,
  };
}

describe('small formatters', () => {
  it('formats scores as rounded, clamped percentages', () => {
    assert.equal(formatScore(0.8234), '82%');
    assert.equal(formatScore(0.875), '88%');
    assert.equal(formatScore(1.3), '100%');
    assert.equal(formatScore(-1), '0%');
    assert.equal(formatScore(Number.NaN), '–');
  });

  it('formats counts with thousands separators', () => {
    assert.equal(formatCount(1204), '1,204');
    assert.equal(formatCount(0), '0');
    assert.equal(formatCount(undefined), '0');
    assert.equal(formatCount(1234567), '1,234,567');
  });

  it('formats timestamps (UTC for determinism) and tolerates bad input', () => {
    assert.equal(formatDate('2026-02-10T21:11:05Z', UTC), '2026-02-10');
    assert.equal(formatDateTime('2026-02-10T21:11:05Z', UTC), '2026-02-10 21:11');
    assert.equal(formatDateTime('2026-02-10T21:11:05+02:00', UTC), '2026-02-10 19:11');
    assert.equal(formatDateTime('not a date', UTC), '');
    assert.equal(formatDate(undefined), '');
    assert.match(formatDateTime('2026-02-10T21:11:05Z'), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
  });

  it('renders times in the chosen time zone (memlens.display.timeZone), across a day and a DST change', () => {
    const berlin = { timeZone: 'Europe/Berlin' };
    assert.equal(formatDateTime('2026-02-10T23:30:00Z', berlin), '2026-02-11 00:30'); // winter: +1, the next day
    assert.equal(formatDate('2026-02-10T23:30:00Z', berlin), '2026-02-11');
    assert.equal(formatDateTime('2026-07-10T22:15:00Z', berlin), '2026-07-11 00:15'); // summer: +2
    assert.equal(formatDateTime('2026-02-10T03:05:00Z', { timeZone: 'America/Los_Angeles' }), '2026-02-09 19:05');
    assert.equal(formatDateTime('2026-02-10T00:00:00Z', { timeZone: 'Asia/Kolkata' }), '2026-02-10 05:30');
    assert.equal(formatDateTime('2026-02-10T12:00:00Z', { timeZone: '  UTC ' }), '2026-02-10 12:00');
    // utc wins; an empty or unknown zone is the machine's (never an exception)
    assert.equal(formatDateTime('2026-02-10T23:30:00Z', { utc: true, timeZone: 'Europe/Berlin' }), '2026-02-10 23:30');
    const machine = formatDateTime('2026-02-10T23:30:00Z');
    assert.equal(formatDateTime('2026-02-10T23:30:00Z', { timeZone: '' }), machine);
    assert.equal(formatDateTime('2026-02-10T23:30:00Z', { timeZone: 'Mars/Olympus_Mons' }), machine);
    assert.equal(isKnownTimeZone('Europe/Berlin'), true);
    assert.equal(isKnownTimeZone(''), true);
    assert.equal(isKnownTimeZone('Mars/Olympus_Mons'), false);
  });

  it('puts a hit in the chosen zone in the QuickPick, the tree tooltip and its group', () => {
    const hit = transcriptHit({ timestamp: '2026-02-10T23:30:00Z' });
    const opts = { timeZone: 'Asia/Tokyo', now: new Date('2026-02-12T00:00:00Z') };
    assert.match(pickItemText(hit, opts).label, /2026-02-11 08:30/);
    assert.match(hitLocation(hit, opts), /2026-02-11/);
    assert.match(treeHitText(hit, opts).tooltip, /2026\\-02\\-11/);
    assert.equal(groupResults([hit], opts)[0]?.when, '2026-02-11');
  });
});

describe('weaker matches', () => {
  const shown = transcriptHit({ id: 'a', score: 0.7, confidence: 'strong' });
  const weak = transcriptHit({ id: 'b', score: 0.2, confidence: 'weak', title: 'the linter complained' });
  const memo = memoryHit({ id: 'c', score: 0.1, confidence: 'weak' });

  it('asks the same search again without the threshold', () => {
    const params = { query: 'ruff E501', limit: 5, filters: { kind: 'tool' as const }, minScore: 0.4 };
    assert.deepEqual(weakerParams(params), { query: 'ruff E501', limit: 5, filters: { kind: 'tool' }, minScore: 0 });
    assert.deepEqual(params.minScore, 0.4); // the shown search's own params are left alone
  });

  it('lists only the hits not shown already, in the server order', () => {
    const all = { results: [shown, weak, memo] };
    assert.deepEqual(weakerHits({ results: [shown], withheld: 2 }, all).map((h) => h.id), ['b', 'c']);
    assert.deepEqual(weakerHits({ results: [], withheld: 3 }, all).map((h) => h.id), ['a', 'b', 'c']);
    assert.deepEqual(weakerHits({ results: [shown, weak, memo], withheld: 0 }, all), []);
    // as many as were withheld: the threshold-free answer runs on to its limit with hits never counted
    assert.deepEqual(weakerHits({ results: [], withheld: 1 }, all).map((h) => h.id), ['a']);
    assert.deepEqual(weakerHits({ results: [shown], withheld: 5 }, all).map((h) => h.id), ['b', 'c']);
    assert.equal(weakerLabel(3), 'weaker matches (3)');
    assert.equal(weakerLabel(1200), 'weaker matches (1,200)');
  });

  it('marks each weaker hit with its confidence and where it is from', () => {
    const text = weakerHitText(weak, { utc: true, now: new Date('2026-02-12T00:00:00Z') });
    assert.match(text.description, /^weak · the linter complained · /);
    assert.match(weakerHitText(memo, UTC).description, /^weak · MEMORY\.md:12$/);
    // without a confidence word (an uncalibrated score) the score is shown
    assert.match(weakerHitText({ ...weak, confidence: undefined }, UTC).description, /^20% · /);
  });

  it('shows confidence words, not percentages, on hits and groups', () => {
    const [group] = groupResults([shown, { ...shown, id: 'a2', score: 0.5, confidence: 'possible' }], UTC);
    assert.match(group?.description ?? '', /^strong · /);
    assert.match(treeHitText(weak, UTC).description, /^weak/);
    assert.match(pickItemText(weak, UTC).description, /^weak · /);
  });

  it('shortens ids and flattens text', () => {
    assert.equal(shortId('258c7280-aaaa-bbbb-cccc-1234567890ab'), '258c7280');
    assert.equal(shortId('abc'), 'abc');
    assert.equal(shortId(undefined), '');
    assert.equal(oneLine('  a\n\n b\tc  '), 'a b c');
    assert.equal(oneLine('abcdefghij', 5), 'abcd…');
  });
});

describe('hit labels', () => {
  it('shows memory file:line and a heading', () => {
    const hit = memoryHit();
    assert.equal(hitLocation(hit, UTC), 'MEMORY.md:12');
    const item = pickItemText(hit, UTC);
    assert.deepEqual(item, {
      icon: 'book',
      label: 'MEMORY.md:12 — Queues',
      description: '82%',
      detail: 'The DLQ redrive runs nightly.',
    });
    assert.equal(pickItemText(memoryHit({ heading: 'Ops › Queues › DLQ' }), UTC).label, 'MEMORY.md:12 — DLQ');
  });

  it('says how sure a hit is in the server\'s words when it has them', () => {
    assert.equal(pickItemText(memoryHit({ confidence: 'possible' }), UTC).description, 'possible');
    assert.equal(pickItemText(memoryHit(), UTC).description, '82%'); // an older server: its score
  });

  it('shows agent · session · date · role for transcripts', () => {
    const hit = transcriptHit();
    assert.equal(hitLocation(hit, UTC), 'claude-code · 258c7280 · 2026-02-10 · assistant');
    const now = new Date('2026-02-13T21:11:05Z');
    assert.deepEqual(pickItemText(hit, { ...UTC, now }), {
      icon: 'hubot',
      label: 'assistant · 2026-02-10 21:11',
      description: '91% · 258c7280',
      detail: 'We redrove the dead-letter queue after fixing the consumer.',
    });
    const titled = pickItemText(transcriptHit({ title: 'Fix the DLQ backup', role: 'user' }), { ...UTC, now });
    assert.equal(titled.icon, 'account');
    assert.equal(titled.description, '91% · Fix the DLQ backup');
    assert.ok(!/ago/.test(titled.description), 'one date per item: the label has it');
    const summary = transcriptHit({ kind: 'summary', role: undefined });
    assert.equal(hitLocation(summary, UTC), 'claude-code · 258c7280 · 2026-02-10 · summary');
    assert.equal(pickItemText(summary, UTC).icon, 'note');
    assert.equal(pickItemText(summary, UTC).label, 'summary · 2026-02-10 21:11');
    // a command's output rides in a message of the user's role (Claude Code): it is named as output, not as you
    const output = transcriptHit({ kind: 'tool', role: 'user' });
    assert.equal(hitLocation(output, UTC), 'claude-code · 258c7280 · 2026-02-10 · tool output');
    assert.equal(pickItemText(output, UTC).icon, 'terminal');
    assert.equal(pickItemText(output, UTC).label, 'tool output · 2026-02-10 21:11');
  });

  it('labels sub-agent and copied sessions apart from their parent', () => {
    const id = '5b0e7d3c-2f41-4a8e-9c6b-81d4f0a7e2c9';
    assert.equal(sessionLabel({ sessionKey: `claude-code:${id}`, sessionId: id }), '5b0e7d3c');
    assert.equal(sessionLabel({ sessionKey: `claude-code:${id}/agent-a3f9c21`, sessionId: id }), '5b0e7d3c › agent-a3f9c21');
    assert.equal(sessionLabel({ sessionKey: `codex:${id}~rollout-2`, sessionId: id }), '5b0e7d3c › rollout-2');
    assert.equal(sessionLabel({ sessionKey: `codex:${id}` }), '5b0e7d3c');
    const sub = transcriptHit({ sessionKey: `claude-code:${id}/agent-a3f9c21`, sessionId: id, role: 'user' });
    assert.equal(hitLocation(sub, UTC), 'claude-code · 5b0e7d3c › agent-a3f9c21 · 2026-02-10 · user');
    const groups = groupResults([transcriptHit({ sessionKey: `claude-code:${id}`, sessionId: id }), sub], UTC);
    assert.deepEqual(groups.map((g) => g.label), ['claude-code · 5b0e7d3c', 'claude-code · 5b0e7d3c › agent-a3f9c21']);
  });

  it('falls back to the file for transcript hits without a session', () => {
    const hit = transcriptHit({ sessionKey: undefined, sessionId: undefined, lineStart: 3 });
    assert.equal(hitLocation(hit, UTC), '.claude/258c7280.jsonl:3');
  });

  it('builds tree labels (heading or first words), score and age, and a tooltip with the matched words bold', () => {
    const now = new Date('2026-02-10T23:11:05Z');
    const mem = treeHitText(memoryHit(), { ...UTC, now });
    assert.equal(mem.label, 'Queues');
    assert.equal(mem.description, '82% · MEMORY.md:12–18');
    const tr = treeHitText(transcriptHit({ title: 'Fix the DLQ backup' }), { ...UTC, now }, ['dead', 'queue', 'redrove']);
    assert.equal(tr.label, 'We redrove the dead-letter queue after fixing the consumer.');
    assert.equal(tr.description, '91% · 2 h ago');
    assert.match(tr.tooltip, /^\*\*Fix the DLQ backup\*\*\n\nclaude\\-code · 258c7280 · 2026\\-02\\-10 · assistant — \*\*91%\*\*/);
    assert.match(tr.tooltip, /\n> We \*\*redrove\*\* the \*\*dead\*\*\\-letter \*\*queue\*\* after fixing the consumer\\./);
    const noHeading = treeHitText(memoryHit({ heading: undefined, lineEnd: 12, excerpt: 'word '.repeat(40) }), UTC);
    assert.ok(noHeading.label.endsWith('…') && noHeading.label.length <= 61, noHeading.label);
  });

  it('escapes markdown in tooltips', () => {
    const tip = hitTooltip(memoryHit({ excerpt: '*bold* [link](x)', heading: undefined }), UTC);
    assert.ok(tip.includes('> \\*bold\\* \\[link\\]\\(x\\)'));
  });

  it('summarises a response', () => {
    assert.equal(
      searchSummary({ query: 'dlq', results: [1, 2], totalResults: 5, searchTimeMs: 12.4, indexing: false }),
      '2 results of 5 for “dlq” in 12 ms',
    );
    assert.equal(searchSummary({ query: 'x', results: [], indexing: true }), 'No results for “x” (still indexing).');
    assert.equal(
      searchSummary({ query: 'x', results: [], withheld: 3 }),
      'No results for “x”; 3 weaker matches hidden (minScore 0 shows them).',
    );
    assert.equal(searchSummary({ query: 'x', results: [1], withheld: 1 }), '1 result for “x”; 1 weaker match hidden (minScore 0 shows them)');
    // the views say where they show them
    assert.equal(
      searchSummary({ query: 'x', results: [], withheld: 2 }, WEAKER_IN_SIDEBAR),
      'No results for “x”; 2 weaker matches hidden (expand “weaker matches” to see them).',
    );
    assert.match(searchSummary({ query: 'x', results: [1], withheld: 2 }, WEAKER_FROM_QUICKPICK), /hidden \(the sidebar lists them\)$/);
    assert.equal(searchSummary({ query: 'x', results: [1] }), '1 result for “x”');
    // a question about days that found nothing: when the nearest sessions were written, in the period's zone
    const period = { since: '2026-02-15T00:00:00+01:00', until: '2026-02-15T23:59:59+01:00', timeZone: 'Europe/Berlin' };
    assert.equal(
      searchSummary({ query: 'what did we do on Feb 15', results: [], period: { ...period, nearestBefore: '2026-02-12T14:41:07+01:00', nearestAfter: '2026-02-17T12:58:00+01:00' } }),
      'No results for “what did we do on Feb 15”; nearest: 2026-02-12 14:41 before, 2026-02-17 12:58 after.',
    );
    assert.equal(searchSummary({ query: 'q', results: [], period: { ...period, nearestAfter: '2026-02-17T12:58:00+01:00' } }), 'No results for “q”; nearest: 2026-02-17 12:58 after.');
    assert.equal(searchSummary({ query: 'q', results: [], period }), 'No results for “q”.');
    // filters that narrowed a search to nothing are named, with the way out
    assert.equal(
      searchSummary({ query: 'dlq', results: [] }, WEAKER_IN_SIDEBAR, { since: '2026-11-04T00:00:00Z', role: 'user' }),
      'No results for “dlq” since 2026-11-04, with role:user; remove the filters to search everything.',
    );
    assert.equal(searchSummary({ query: 'dlq', results: [] }, WEAKER_IN_SIDEBAR, {}), 'No results for “dlq”.');
    assert.equal(searchSummary({ query: 'dlq', results: [1] }, WEAKER_IN_SIDEBAR, { role: 'user' }), '1 result for “dlq”');
  });
});

describe('groupResults', () => {
  it('groups by memory file and by session, best group first, hits by score', () => {
    const results: SearchResult[] = [
      memoryHit({ id: 'a', score: 0.5, lineStart: 40, lineEnd: 44 }),
      transcriptHit({ id: 'b', score: 0.9 }),
      memoryHit({ id: 'c', score: 0.7 }),
      transcriptHit({ id: 'd', score: 0.6, role: 'user', timestamp: '2026-02-09T08:00:00Z', messageId: 'msg-1' }),
      memoryHit({ id: 'e', score: 0.65, path: '/ws/memory/ops.md', relPath: 'memory/ops.md' }),
      transcriptHit({ id: 'f', score: 0.4, sessionKey: 'codex:xyz', sessionId: 'xyz', format: 'codex' }),
    ];
    const groups = groupResults(results, { ...UTC, now: new Date('2026-02-13T21:11:05Z') });
    assert.deepEqual(
      groups.map((g) => [g.key, g.kind, g.hits.map((h) => h.id)]),
      [
        ['session:claude-code:258c7280-aaaa-bbbb-cccc-1234567890ab', 'session', ['b', 'd']],
        ['memory:/ws/MEMORY.md', 'memory', ['c', 'a']],
        ['memory:/ws/memory/ops.md', 'memory', ['e']],
        ['session:codex:xyz', 'session', ['f']],
      ],
    );
    assert.equal(groups[0].label, 'claude-code · 258c7280');
    assert.equal(groups[0].description, '90% · 3 d ago · 2 hits');
    assert.equal(groups[0].when, '2026-02-09');
    const titled = groupResults([transcriptHit({ title: 'Fix the DLQ backup', resumeCommand: 'cd /ws && claude --resume 258c7280' })], {
      ...UTC,
      now: new Date('2026-02-10T22:11:05Z'),
    });
    assert.equal(titled[0].label, 'Fix the DLQ backup');
    assert.equal(titled[0].description, '91% · 1 h ago · 1 hit');
    assert.equal(titled[0].resumeCommand, 'cd /ws && claude --resume 258c7280');
    assert.equal(groups[0].sessionKey, 'claude-code:258c7280-aaaa-bbbb-cccc-1234567890ab');
    assert.equal(groups[1].label, 'MEMORY.md');
    assert.equal(groups[1].description, '70% · 2 hits');
    assert.equal(groups[2].description, '65% · 1 hit');
    assert.equal(groups[3].label, 'codex · xyz');
  });

  it('keeps the server order for equal scores and handles no results', () => {
    const groups = groupResults([memoryHit({ id: 'x', score: 0.5 }), memoryHit({ id: 'y', score: 0.5 })]);
    assert.deepEqual(groups[0].hits.map((h) => h.id), ['x', 'y']);
    assert.deepEqual(groupResults([]), []);
  });
});

describe('transcript URIs', () => {
  const cases = [
    { sessionKey: 'claude-code:258c7280-aaaa', messageId: 'msg-7' },
    { sessionKey: '/home/u/.codex/sessions/2026/05/11/rollout-1.jsonl', messageId: 'a b&c=d?#' },
    { sessionKey: 'specstory:2026-02-10 21-11Z-fix dlq.md' },
    { sessionKey: 'ünïcødé 🚀', messageId: '🙂' },
    { sessionKey: 'claude-code:5b0e7d3c/agent-a3f9c21~copy', messageId: 'uuid-1' },
    { sessionKey: 'odd:50%off%41', messageId: '%41' },
  ];

  it('builds the documented shape', () => {
    assert.equal(
      transcriptUriString({ sessionKey: 'claude-code:abc/def', messageId: 'm1' }),
      'memlens-transcript:/claude-code%3Aabc%2Fdef.md?message=m1',
    );
    assert.deepEqual(transcriptUriComponents({ sessionKey: 'k' }), { scheme: 'memlens-transcript', path: '/k.md', query: '' });
    // Uri.from components: the path is what Uri.parse decodes the string form to, so both name the same document
    assert.deepEqual(transcriptUriComponents({ sessionKey: 'claude-code:abc/agent-x', messageId: 'a&b' }), {
      scheme: 'memlens-transcript',
      path: '/claude-code:abc/agent-x.md',
      query: 'message=a%26b',
    });
    assert.equal(transcriptUriComponents({ sessionKey: '/abs/path.jsonl' }).path, '/%2Fabs/path.jsonl.md');
  });

  for (const ref of cases) {
    it(`round-trips ${JSON.stringify(ref)}`, () => {
      const c = transcriptUriComponents(ref);
      assert.deepEqual(parseTranscriptUri(c.path, c.query), ref);
      assert.deepEqual(parseTranscriptUriString(transcriptUriString(ref)), ref);
      // a link written by the server, opened through Uri.parse: the path arrives decoded (keys without '%' or a leading '/')
      if (!ref.sessionKey.includes('%') && !ref.sessionKey.startsWith('/')) {
        const s = transcriptUriString(ref);
        const parsedPath = decodeURIComponent(s.slice('memlens-transcript:'.length).split('?')[0]);
        assert.equal(parsedPath, c.path);
        assert.equal(parseTranscriptUri(parsedPath, c.query).sessionKey, ref.sessionKey);
      }
    });
  }

  it('ignores other query parameters and rejects other schemes', () => {
    assert.deepEqual(parseTranscriptUri('/k.md', 'x=1&message=m2&y'), { sessionKey: 'k', messageId: 'm2' });
    assert.deepEqual(parseTranscriptUri('/k.md', '?message='), { sessionKey: 'k' });
    assert.equal(parseTranscriptUriString('file:///k.md'), undefined);
  });
});

describe('status bar and stats', () => {
  const status = {
    indexing: true,
    totalChunks: 1204,
    chunksNeedingEmbeddings: 30,
    pendingMessages: 7,
    provider: 'fastembed:all-MiniLM-L6-v2-int8',
    lastSync: '2026-02-10T21:11:05Z',
  };

  it('shows progress while indexing and counts when idle', () => {
    assert.equal(statusBarText(status, UTC).text, '$(sync~spin) memlens 1,204 chunks · meaning search 97%');
    const idle = statusBarText({ ...status, indexing: false, chunksNeedingEmbeddings: 0, pendingMessages: 0 }, UTC);
    assert.equal(idle.text, '$(database) memlens 1,204 chunks');
    assert.match(idle.tooltip, /index up to date/);
    assert.match(idle.tooltip, /last sync: 2026-02-10 21:11/);
    assert.match(statusBarText(status, UTC).tooltip, /meaning search 97% ready\n7 messages waiting for meaning search \(keyword search finds them already\)/);
  });

  it('says sessions and messages, not chunks, and the vectors as how far meaning search has come', () => {
    const counts = { ...status, sessions: 23, messages: 1240, notes: 4, totalChunks: 100, chunksNeedingEmbeddings: 60, pendingMessages: 606 };
    const { text, tooltip } = statusBarText(counts, UTC);
    assert.equal(text, '$(sync~spin) memlens 23 sessions · 1,240 messages · meaning search 40%');
    assert.match(tooltip, /^23 sessions, 1,240 messages, 4 notes indexed$/m);
    assert.match(tooltip, /^606 messages waiting for meaning search \(keyword search finds them already\)$/m);
    assert.doesNotMatch(text, /chunk|pending/);
    const done = statusBarText({ ...counts, indexing: false, chunksNeedingEmbeddings: 0, pendingMessages: 0 }, UTC);
    assert.equal(done.text, '$(database) memlens 23 sessions · 1,240 messages');
    assert.doesNotMatch(done.tooltip, /meaning search \d/);
  });

  it('never says 100% while a text waits, and no progress at all without an embedding model', () => {
    const counts = { ...status, sessions: 2, messages: 9, notes: 0, totalChunks: 1000, chunksNeedingEmbeddings: 1 };
    assert.match(statusBarText(counts, UTC).text, / · meaning search 99%$/);
    const keywordOnly = statusBarText({ ...counts, provider: 'none', chunksNeedingEmbeddings: 1000, pendingMessages: 0 }, UTC);
    assert.equal(keywordOnly.text, '$(sync~spin) memlens 2 sessions · 9 messages');
    assert.match(keywordOnly.tooltip, /^embeddings: none \(keyword search only\)$/m);
  });

  it('counts notes when there are no sessions, and says when nothing is indexed', () => {
    const idle = { ...status, indexing: false, chunksNeedingEmbeddings: 0, pendingMessages: 0, messages: 0 };
    assert.equal(statusBarText({ ...idle, sessions: 0, notes: 12 }, UTC).text, '$(database) memlens 12 notes');
    assert.equal(statusBarText({ ...idle, sessions: 0, notes: 0 }, UTC).text, '$(database) memlens nothing indexed');
  });

  it('renders stats as markdown tables', () => {
    const stats: StatsResponse = {
      totalChunks: 1204,
      chunksWithEmbeddings: 1174,
      chunksNeedingEmbeddings: 30,
      pendingMessages: 0,
      lastSync: null,
      provider: 'none',
      providerNote: 'embeddings are off; keyword search only',
      files: { 'claude-code': 3, memory: 2 },
      messages: {},
      sessions: 4,
      badLines: 1,
      replaced: 2,
      orphanedMessages: 0,
      filesWithErrors: 1,
      fileErrors: [{ path: '/t/a.jsonl', badLines: 1, replaced: 2, reasons: ['line 3: not JSON'] }],
      filesUnrecognised: 3,
      unrecognisedFiles: ['/t/new-format.jsonl', '/t/README.md'],
      filesEmpty: 1,
      emptyFiles: ['/t/truncated.jsonl'],
      aliases: 2,
      watcherErrors: 1,
      indexing: false,
      indexDir: '/cache/memlens/ws',
      readOnly: true,
      readOnlyReason: '`memlens serve` (pid 4242) writes it',
      filesNotIndexed: 0,
      notIndexedReason: null,
    };
    const md = renderStats(stats, UTC);
    assert.match(md, /^# memlens index/);
    assert.match(md, /\| Chunks \| 1,204 \|/);
    assert.match(md, /\| Chunks with embeddings \| 1,174 \(98%\) \|/);
    assert.match(md, /\| Last sync \| never \|/);
    assert.match(md, /Index is up to date\./);
    const stuck = renderStats({ ...stats, filesNotIndexed: 1300, notIndexedReason: 'no space left on device' }, UTC);
    assert.match(stuck, /\*\*1,300 files not indexed:\*\* no space left on device/);
    assert.doesNotMatch(stuck, /up to date/);
    assert.match(md, /none \(keyword search only\)/);
    assert.match(md, /\| claude-code \| 3 \|\n\| memory \| 2 \|/);
    assert.match(md, /_format: none_/);
    assert.match(md, /Index folder: `\/cache\/memlens\/ws` \(read-only: `memlens serve` \(pid 4242\) writes it\)/);
    assert.match(md, /\| Sessions \| 4 \|/);
    assert.match(md, /\| Invalid bytes read as U\+FFFD \| 2 \|/);
    assert.match(md, /1 bad line · 2 invalid bytes replaced/);
    assert.match(md, /_embeddings are off; keyword search only_/);
    assert.match(md, /\| Invalid bytes read as U\+FFFD \| 2 \|/);
    assert.match(md, /## Files with problems\n\n- `\/t\/a\.jsonl` · 1 bad line · 2 invalid bytes replaced · line 3: not JSON/);
    assert.match(md, /\| Files in no format memlens reads \| 3 \|/);
    assert.match(md, /\| Other names of indexed files \| 2 \|/);
    assert.match(md, /\| Live indexing failures \| 1 \|/);
    assert.match(md, /## Files in no format memlens reads\n\n_Nothing[^\n]*_\n\n- `\/t\/new-format\.jsonl`\n- `\/t\/README\.md`\n- _and 1 more_/);
    assert.match(md, /\| Empty files \(nothing to read yet\) \| 1 \|/);
    assert.match(md, /## Empty files\n\n_Nothing to read yet[^\n]*_\n\n- `\/t\/truncated\.jsonl`\n/);
  });
});

describe('server launch helpers', () => {
  it('suggests install commands', () => {
    // memlens is not on PyPI: never `pip install memlens`
    assert.deepEqual(installCommands('python3'), ['python3 -m pip install <path to a memlens checkout>']);
    assert.deepEqual(installCommands('/opt/my py/bin/python', '/src/memlens', '/ext/out/server/memlens-0.1.0-py3-none-any.whl'), [
      '"/opt/my py/bin/python" -m pip install /ext/out/server/memlens-0.1.0-py3-none-any.whl',
      '"/opt/my py/bin/python" -m pip install -e /src/memlens',
    ]);
    assert.deepEqual(installCommands('python3', undefined, '/my ext/m.whl'), ['python3 -m pip install "/my ext/m.whl"']);
    const msg = notImportableMessage('python3', "ModuleNotFoundError: No module named 'memlens'", undefined, '/ext/m.whl');
    assert.match(msg, /not importable by python3 \(ModuleNotFoundError: No module named 'memlens'\)/);
    assert.match(msg, /`python3 -m pip install \/ext\/m\.whl`/);
    assert.doesNotMatch(msg, /pip install memlens\b/);
    assert.match(msg, /memlens\.server\.pythonPath/);
    assert.match(notImportableMessage('py', '', '/src/m'), /`py -m pip install -e \/src\/m`/);
    assert.equal(
      pythonNotFoundMessage('python9', 'ENOENT: spawn python9 ENOENT'),
      'memlens: cannot run the Python interpreter "python9": not found on the PATH. Install Python 3.11+ or set memlens.server.pythonPath to one that runs.',
    );
    assert.match(pythonNotFoundMessage('/nope/bin/python3', 'ENOENT: spawn /nope/bin/python3 ENOENT'), /"\/nope\/bin\/python3": no such file\. /);
    assert.match(pythonNotFoundMessage('/venv/bin/python', 'EACCES: spawn /venv/bin/python EACCES'), /": not executable \(permission denied\)\. /);
    assert.match(pythonNotFoundMessage('python3', 'EPERM: spawn python3 EPERM'), /"python3": EPERM: spawn python3 EPERM\. /);
  });

  it('names the settings scope the interpreter came from, and where to set it in a remote window', () => {
    const remote = { remoteName: 'ssh-remote', machineScoped: true };
    const none = { global: false, workspace: false, folder: false };
    assert.equal(settingOrigin(none, remote), undefined);
    assert.equal(settingOrigin({ ...none, global: true }, {}), 'the User settings');
    assert.equal(settingOrigin({ ...none, global: true }, remote), 'the User or Remote [ssh-remote] settings');
    assert.equal(settingOrigin({ global: true, workspace: true, folder: false }, remote), 'the Workspace settings');
    assert.equal(settingOrigin({ global: true, workspace: true, folder: true }, remote), 'the Folder settings (.vscode/settings.json)');
    assert.match(whereToSet(remote), /Remote \[ssh-remote\] tab .*User tab does not show it/);
    assert.equal(whereToSet({ machineScoped: true }), 'in the User or Workspace settings');
    const manifest = { contributes: { configuration: [{ properties: { 'memlens.server.pythonPath': { scope: 'machine-overridable' }, 'memlens.hover.enabled': {} } }] } };
    assert.equal(isMachineScoped(manifest, 'memlens.server.pythonPath'), true);
    assert.equal(isMachineScoped(manifest, 'memlens.hover.enabled'), false);

    const unset = notImportableMessage('python3', "No module named 'memlens'", undefined, '/ext/m.whl', { setIn: whereToSet(remote) });
    assert.match(unset, /or set memlens\.server\.pythonPath in the Remote \[ssh-remote\] tab of the Settings editor \(a remote window's User tab does not show it\) to an interpreter that has it\.$/);
    const fromRemote = { from: settingOrigin({ ...none, global: true }, remote), setIn: whereToSet(remote) };
    const set = notImportableMessage('/venv/bin/python', "No module named 'memlens'", undefined, '/ext/m.whl', fromRemote);
    assert.match(set, /not importable by \/venv\/bin\/python \(memlens\.server\.pythonPath in the User or Remote \[ssh-remote\] settings\)/);
    assert.match(set, /change memlens\.server\.pythonPath in the User or Remote \[ssh-remote\] settings to an interpreter that has it\.$/);
    // the setting and its scope named once, in the advice
    assert.equal(
      pythonNotFoundMessage('/nope/python', 'ENOENT', fromRemote),
      'memlens: cannot run the Python interpreter "/nope/python": no such file. Install Python 3.11+ or change memlens.server.pythonPath in the User or Remote [ssh-remote] settings to one that runs.',
    );
  });

  it('expands variables in the interpreter path', () => {
    const vars = { home: '/home/u', workspaceFolder: '/ws', env: { VENV: '/venvs/a' } };
    assert.equal(expandPathVariables('~/venv/bin/python', vars), '/home/u/venv/bin/python');
    assert.equal(expandPathVariables('${workspaceFolder}/.venv/bin/python', vars), '/ws/.venv/bin/python');
    assert.equal(expandPathVariables('${env:VENV}/bin/python', vars), '/venvs/a/bin/python');
    assert.equal(expandPathVariables('${userHome}/x', vars), '/home/u/x');
    assert.equal(expandPathVariables('${env:NOPE}/x', vars), '${env:NOPE}/x');
    assert.equal(expandPathVariables(' python3 ', vars), 'python3');
  });

  it('lists the server settings of the manifest and nests explicitly set values', () => {
    const manifest = {
      contributes: {
        configuration: [
          {
            properties: {
              'memlens.server.pythonPath': {},
              'memlens.trace.server': {},
              'memlens.scope': {},
              'memlens.search.mode': {},
              'memlens.search.minScore': {},
            },
          },
        ],
      },
    };
    assert.deepEqual(serverSettingKeys(manifest), ['memlens.scope', 'memlens.search.mode', 'memlens.search.minScore']);
    assert.deepEqual(serverSettingKeys({ contributes: { configuration: { properties: { 'memlens.hover.enabled': {} } } } }), [
      'memlens.hover.enabled',
    ]);
    assert.deepEqual(serverSettingKeys(undefined), []);
    assert.deepEqual(
      nestSettings([
        ['memlens.search.mode', 'keyword'],
        ['memlens.search.minScore', 0.5],
        ['memlens.scope', 'all'],
        ['memlens.transcripts.paths', ['a', 'b']],
      ]),
      { search: { mode: 'keyword', minScore: 0.5 }, scope: 'all', transcripts: { paths: ['a', 'b'] } },
    );
    assert.deepEqual(nestSettings([]), {});
  });

  it('copies configuration objects to plain JSON', () => {
    const config = {
      search: { mode: 'keyword', maxResults: 5 },
      hover: { enabled: false },
      get: () => 1,
      has: () => true,
    };
    assert.deepEqual(toPlainConfig(config), { search: { mode: 'keyword', maxResults: 5 }, hover: { enabled: false } });
    assert.deepEqual(toPlainConfig(undefined), {});
    assert.deepEqual(toPlainConfig([1]), {});
  });

  it('reads error messages and recognises cancellations', () => {
    assert.equal(errorMessage(new Error('boom')), 'boom');
    assert.equal(errorMessage({ code: -32603, message: 'index is locked' }), 'index is locked');
    assert.equal(errorMessage('plain'), 'plain');
    assert.equal(isCancellation({ code: -32800, message: 'Request got cancelled' }), true);
    assert.equal(isCancellation({ code: -32802 }), true);
    assert.equal(isCancellation({ name: 'Canceled', message: 'Canceled' }), true);
    assert.equal(isCancellation(new Error('boom')), false);
    assert.equal(isCancellation(undefined), false);
  });
});
