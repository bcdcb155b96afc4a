/**
 * Every surface of the client says a count as people do ("1 chunk", "12,345 files", "no results"): each test holds one
 * of something where the text used to say "1 chunks", "(1 files)" or "1 messages".
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contextPackCopiedMessage } from '../../src/contextPackText';
import { fixesTitle } from '../../src/fixText';
import type { ErrorFix, IndexStatus, SearchResult, SessionSummary, SourceFolder } from '../../src/protocol';
import { describeFilter } from '../../src/query';
import { groupResults, resultsCount, searchSummary } from '../../src/resultGroups';
import { projectDescription, sessionCompletionLabel, sessionDescription, sessionTooltip } from '../../src/sessionText';
import { removalQuestion, removedMessage } from '../../src/sourceScopes';
import { indexingDoneLine, statusBarText } from '../../src/statsText';

const UTC = { utc: true };

const status: IndexStatus = {
  indexing: false,
  totalChunks: 1,
  chunksNeedingEmbeddings: 1,
  pendingMessages: 1,
  provider: 'fastembed:all-MiniLM-L6-v2',
  lastSync: '2026-02-10T21:11:05Z',
};

function session(overrides: Partial<SessionSummary> = {}): SessionSummary {
  return {
    sessionKey: 'claude-code:5b0e7d3c-2f41-4a8e-9c6b-81d4f0a7e2c9',
    sessionId: '5b0e7d3c-2f41-4a8e-9c6b-81d4f0a7e2c9',
    reference: '5b0e7d3c',
    format: 'claude-code',
    title: 'Fix the DLQ backup',
    cwd: '/home/m/shop',
    project: 'shop',
    path: '/p/5b0e7d3c.jsonl',
    firstTime: '2026-02-10T21:11:00Z',
    lastTime: '2026-02-10T21:40:00Z',
    messageCount: 1,
    filesTouched: [],
    filesTouchedTotal: 0,
    toolsUsed: [{ name: 'Bash', count: 1204 }],
    parentSessionKey: null,
    resumeCommand: null,
    ...overrides,
  };
}

describe('the status bar and the index log', () => {
  it('says one session, one message, one note and one waiting message, and thousands with separators', () => {
    const one = { ...status, sessions: 1, messages: 1, notes: 1, totalChunks: 2 };
    const { text, tooltip } = statusBarText(one, UTC);
    assert.equal(text, '$(database) memlens 1 session · 1 message · meaning search 50%');
    assert.match(tooltip, /^1 session, 1 message, 1 note indexed$/m);
    assert.match(tooltip, /^1 message waiting for meaning search/m);
    assert.match(statusBarText({ ...one, sessions: 12345, messages: 1240 }, UTC).text, /memlens 12,345 sessions · 1,240 messages /);
    assert.match(statusBarText({ ...one, sessions: 0, messages: 0, notes: 0 }, UTC).tooltip, /^no sessions, no messages, no notes indexed$/m);
    assert.match(statusBarText({ ...status, totalChunks: 0 }, UTC).tooltip, /^no chunks indexed$/m);
  });

  it('logs the end of indexing with one session, and the last sync as a time, not an ISO string', () => {
    const one = { ...status, sessions: 1, messages: 1, notes: 0, totalChunks: 2 };
    assert.equal(
      indexingDoneLine(one, 3.24, UTC),
      'Index up to date in 3.2 s: 1 session · 1 message, meaning search 50%, embeddings: fastembed:all-MiniLM-L6-v2, last sync 2026-02-10 21:11',
    );
    assert.equal(indexingDoneLine({ ...status, totalChunks: 12345, chunksNeedingEmbeddings: 0, pendingMessages: 0, lastSync: null }, undefined), 'Index up to date: 12,345 chunks, embeddings: fastembed:all-MiniLM-L6-v2');
  });
});

describe('a folder the settings no longer name', () => {
  const folder: SourceFolder = { path: '/n', displayPath: '~/n', kind: 'transcripts', files: 1, units: 3, addedFrom: 'memlens index', named: false };

  it('is removed with one file, no files or many, said in words', () => {
    assert.equal(removedMessage({ path: '/n', displayPath: '~/n', filesRemoved: 1 }), 'memlens: removed ~/n from the index (1 file).');
    assert.equal(removedMessage({ path: '/n', displayPath: '~/n', filesRemoved: 0 }), 'memlens: removed ~/n from the index (no files).');
    assert.equal(removedMessage({ path: '/n', displayPath: '~/n', filesRemoved: 69445 }), 'memlens: removed ~/n from the index (69,445 files).');
  });

  it('is asked about with its files counted with separators', () => {
    assert.match(removalQuestion({ ...folder, files: 69445 }, undefined), /still holds its 69,445 files /);
  });
});

describe('the Sessions view', () => {
  it('says one session of a project, and a session of one message in its tooltip', () => {
    assert.equal(projectDescription(1), '1 session');
    assert.equal(projectDescription(1204), '1,204 sessions');
    const tooltip = sessionTooltip(session(), UTC);
    assert.match(tooltip, /· 1 message$/m);
    assert.doesNotMatch(tooltip, /1 messages/);
    assert.match(sessionTooltip(session({ messageCount: 1204 }), UTC), /· 1,204 messages$/m);
  });

  it('says the day of a session once, cuts a long title and counts tool calls with separators', () => {
    const tooltip = sessionTooltip(session({ title: `${'very long title '.repeat(40)}end` }), UTC);
    assert.match(tooltip, /claude\\-code · 2026\\-02\\-10 21:11 – 21:40 \(/);
    const title = tooltip.split('\n')[0];
    assert.ok(title.length < 200, title);
    assert.match(title, /…\*\*$/);
    assert.match(tooltip, /Bash ×1,204/);
    assert.doesNotMatch(sessionTooltip(session({ firstTime: null, lastTime: null }), UTC), / – |\(\)/);
  });

  it('puts the size beside the title with separators', () => {
    assert.equal(sessionDescription(session({ messageCount: 1204 }), UTC), '21:40 · 1,204 msg · claude-code');
  });

  it('offers a session for session: by its title, else its short id, and its day in the display zone', () => {
    assert.equal(sessionCompletionLabel(session(), UTC), 'Fix the DLQ backup · claude-code · 2026-02-10');
    assert.equal(sessionCompletionLabel(session({ title: '' }), UTC), '5b0e7d3c · claude-code · 2026-02-10');
    assert.equal(sessionCompletionLabel(session({ lastTime: '2026-02-10T23:30:00Z' }), { timeZone: 'Europe/Berlin' }), 'Fix the DLQ backup · claude-code · 2026-02-11');
  });
});

describe('search results', () => {
  const hit: SearchResult = { id: 'm1', kind: 'memory', score: 0.8, path: '/ws/MEMORY.md', relPath: 'MEMORY.md', lineStart: 1, excerpt: 'x' };

  it('says "no results" in the Results view title, and counts the rest', () => {
    assert.equal(resultsCount({ results: [] }), 'no results');
    assert.equal(resultsCount({ results: [hit] }), '1 result');
  });

  it('counts a group of a thousand hits and a thousand withheld with separators', () => {
    const many = Array.from({ length: 1204 }, (_, i) => ({ ...hit, id: `m${i}` }));
    assert.match(groupResults(many)[0].description, / · 1,204 hits$/);
    assert.match(searchSummary({ query: 'x', results: [hit], withheld: 1204 }), /; 1,204 weaker matches hidden/);
  });
});

describe('past occurrences, context packs and filters', () => {
  const fix = { sessionKey: 'k', sessionId: 's', format: 'codex', title: null, messageId: 'm', timestamp: null, error: true, score: 1, text: 't', after: [] } as unknown as ErrorFix;

  it('says one session of past occurrences', () => {
    assert.equal(fixesTitle({ error: 'boom', fixes: [fix] }), 'memlens: past occurrences of “boom” (1 session)');
  });

  it('says one item and one token of a context pack', () => {
    assert.equal(contextPackCopiedMessage({ items: [{}] as never, tokens: 1 }), 'memlens: copied a context pack (1 item, ~1 token) to the clipboard.');
    assert.equal(contextPackCopiedMessage({ items: [] as never, tokens: 12345 }), 'memlens: copied a context pack (0 items, ~12,345 tokens) to the clipboard.');
  });

  it('says a filter of one day, and of many days with separators', () => {
    assert.equal(describeFilter('since:1d'), 'since 1 day ago');
    assert.equal(describeFilter('since:10000d'), 'since 10,000 days ago');
  });
});
