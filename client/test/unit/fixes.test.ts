import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asShowFixes, fixesArgument, fixesTitle, fixRows, fixSessionName, toolResultLines } from '../../src/fixText';
import type { ErrorFix, FixesResponse } from '../../src/protocol';

const UTC = { utc: true };

function fix(overrides: Partial<ErrorFix> = {}): ErrorFix {
  return {
    sessionKey: 'claude-code:5b0e7d3c-2f41-4a8e-9c6b-81d4f0a7e2c9',
    sessionId: '5b0e7d3c-2f41-4a8e-9c6b-81d4f0a7e2c9',
    format: 'claude-code',
    path: '/t/5b0e7d3c.jsonl',
    title: 'Refunds never reach the ledger',
    messageId: 'tool-1',
    timestamp: '2026-02-10T08:41:02Z',
    error: true,
    score: 0.81,
    text: "[Bash output · error]\nFAILED tests/test_refund.py\nUnroutableEvent: no route for detail-type 'order.refunded'",
    after: [
      { messageId: 'a-1', role: 'assistant', kind: 'message', timestamp: '2026-02-10T08:41:30Z', text: 'The rule\nlacks the detail-type.', position: 41 },
      { messageId: 'u-1', role: 'user', kind: 'message', timestamp: '2026-02-10T08:43:00Z', text: 'ok, add it', position: 42 },
    ],
    ...overrides,
  };
}

describe('past occurrences of an error (memlens.fixes)', () => {
  it('lists a note that says how it was fixed under its file and line, opening the file there', () => {
    const note = fix({ source: 'note', sessionKey: '', sessionId: '', messageId: '', format: 'markdown', path: '/w/MEMORY.md', relPath: 'MEMORY.md', lineStart: 5, title: 'Notes › Frontend', error: false, text: '- `TypeError: x is not a function`: fixed by binding it', after: [] });
    const message = fix({ source: 'message', error: false, after: [] });
    const rows = fixRows({ error: 'TypeError: x is not a function', fixes: [note, message] }, UTC);
    assert.deepEqual(
      rows.map((r) => [r.kind, r.label]),
      [
        ['separator', 'MEMORY.md:5'],
        ['occurrence', 'note: how it was fixed'],
        ['separator', 'Refunds never reach the ledger'],
        ['occurrence', 'says how it was fixed'],
      ],
    );
    assert.deepEqual(rows[1]?.target, { sessionKey: '', messageId: '', file: { path: '/w/MEMORY.md', line: 5 } });
    assert.equal(rows[1]?.detail, '- `TypeError: x is not a function`: fixed by binding it');
  });

  it('lists each occurrence under its session, failed or not, then what followed, each opening its message', () => {
    const response: FixesResponse = { error: 'UnroutableEvent', fixes: [fix(), fix({ sessionKey: 'codex:x', sessionId: 'x', format: 'codex', title: null, messageId: 'tool-9', error: false, after: [] })] };
    const rows = fixRows(response, UTC);
    assert.deepEqual(
      rows.map((r) => [r.kind, r.label]),
      [
        ['separator', 'Refunds never reach the ledger'],
        ['occurrence', 'failed'],
        ['after', 'then assistant'],
        ['after', 'then you'],
        ['separator', 'codex · x'],
        ['occurrence', 'tool output'],
      ],
    );
    const [, occurrence, reply] = rows;
    assert.equal(occurrence?.icon, 'error');
    assert.equal(occurrence?.description, '2026-02-10 08:41');
    assert.equal(occurrence?.detail, "FAILED tests/test_refund.py UnroutableEvent: no route for detail-type 'order.refunded'");
    assert.deepEqual(occurrence?.target, { sessionKey: fix().sessionKey, messageId: 'tool-1', title: 'Refunds never reach the ledger' });
    assert.equal(reply?.detail, 'The rule lacks the detail-type.');
    assert.deepEqual(reply?.target, { sessionKey: fix().sessionKey, messageId: 'a-1', title: 'Refunds never reach the ledger' });
    assert.equal(rows[5]?.icon, 'output');
    assert.deepEqual(rows[5]?.target, { sessionKey: 'codex:x', messageId: 'tool-9' }); // no title: none passed on
  });

  it('says so when nothing matched', () => {
    const rows = fixRows({ error: 'E999 nothing', fixes: [] });
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.kind, 'none');
    assert.equal(rows[0]?.target, undefined);
    assert.equal(fixesTitle({ error: 'E999 nothing', fixes: [] }), 'memlens: past occurrences of “E999 nothing”');
    assert.equal(fixesTitle({ error: 'x', fixes: [fix(), fix()] }), 'memlens: past occurrences of “x” (2 sessions)');
  });

  it('heads the rows with what of a long pasted error was read, a row that opens nothing', () => {
    const leftOut = { chars: 15320, lines: 212, readChars: 3987, firstLine: true };
    const rows = fixRows({ error: 'UnroutableEvent', fixes: [fix()], leftOut }, UTC);
    assert.deepEqual(rows[0], {
      kind: 'note',
      icon: 'info',
      label: '212 lines of the error after its first were left out (15,320 characters)',
      detail: 'its first line and its end were read (3,987 characters)',
    });
    assert.deepEqual(rows.slice(1).map((r) => r.kind), ['separator', 'occurrence', 'after', 'after']);
    assert.equal(fixRows({ error: 'E999 nothing', fixes: [], leftOut })[1]?.kind, 'none');
  });

  it('reads a tool result without its header, and names untitled sessions by agent and id', () => {
    assert.equal(toolResultLines('[Bash output · error]\nline one\nline two'), 'line one line two');
    assert.equal(toolResultLines('no header here\nsecond'), 'no header here second');
    assert.equal(toolResultLines('[only a header]'), '[only a header]');
    assert.equal(fixSessionName({ title: '  ', format: 'codex', sessionId: '0123456789abcdef' }), 'codex · 01234567');
    const long = fixSessionName({ title: 'the orders DLQ is backing up: failed messages have been piling up in orders-events-dlq', format: 'claude-code', sessionId: 'x' });
    assert.equal(long, 'the orders DLQ is backing up: failed…');
  });

  it("turns the server's code-action command into the client's, and reads the command's argument", () => {
    const command = { title: 'memlens: past occurrences of this error', command: 'memlens.fixes', arguments: [{ error: 'E501' }] };
    assert.deepEqual(asShowFixes(command, 'memlens.fixes', 'memlens.showFixes'), { ...command, command: 'memlens.showFixes' });
    const other = { title: 'x', command: 'memlens.search' };
    assert.equal(asShowFixes(other, 'memlens.fixes', 'memlens.showFixes'), other);
    assert.equal(fixesArgument({ error: '  E501 line too long ' }), 'E501 line too long');
    assert.equal(fixesArgument('TypeError: x'), 'TypeError: x');
    assert.equal(fixesArgument(undefined), '');
    assert.equal(fixesArgument({ error: 42 }), '');
  });
});
