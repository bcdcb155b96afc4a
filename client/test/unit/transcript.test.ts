import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { messageCount, messageHeading, renderTranscript } from '../../src/transcriptMarkdown';
import type { HistoryResponse } from '../../src/protocol';

const UTC = { utc: true };

function history(overrides: Partial<HistoryResponse> = {}): HistoryResponse {
  return {
    sessionKey: 'claude-code:258c7280',
    sessionId: '258c7280-aaaa-bbbb-cccc-1234567890ab',
    format: 'claude-code',
    path: '/home/u/.claude/projects/-ws/258c7280.jsonl',
    title: 'Fix the DLQ backup',
    anchor: 'm3',
    hasMoreBefore: false,
    hasMoreAfter: false,
    messages: [
      { messageId: 'm1', role: 'user', kind: 'message', timestamp: '2026-02-10T21:11:00Z', text: 'The DLQ is backing up.', position: 0 },
      {
        messageId: 'm2',
        role: 'assistant',
        kind: 'message',
        timestamp: '2026-02-10T21:12:30Z',
        text: 'Let me look at the consumer.\n\n```ts\nconst x = 1;\n```',
        position: 1,
      },
      { messageId: 'm3', role: 'assistant', kind: 'message', timestamp: '2026-02-10T21:20:00Z', text: 'Redrove 1,204 messages.', position: 2 },
      { messageId: 's1', role: 'assistant', kind: 'summary', timestamp: '2026-02-10T21:30:00Z', text: 'Fixed the consumer.\n\nRedrove the DLQ.', position: 3 },
    ],
    ...overrides,
  };
}

describe('renderTranscript', () => {
  it('renders a title, facts and a heading per message', () => {
    const { markdown } = renderTranscript(history(), UTC);
    const lines = markdown.split('\n');
    assert.equal(lines[0], '# Fix the DLQ backup');
    assert.equal(
      lines[2],
      '**claude-code** · session `258c7280-aaaa-bbbb-cccc-1234567890ab` · 2026-02-10 21:11 – 21:30 · 3 messages · 1 summary',
    );
    assert.equal(lines[4], 'Source: `/home/u/.claude/projects/-ws/258c7280.jsonl`');
    assert.ok(lines.includes('### 🧑 user · 2026-02-10 21:11'));
    assert.ok(lines.includes('### 🤖 assistant · 2026-02-10 21:12'));
    assert.ok(lines.includes('### 📝 summary · 2026-02-10 21:30'));
    assert.ok(lines.includes('> Fixed the consumer.'));
    assert.ok(lines.includes('>'));
    assert.ok(lines.includes('```ts'));
    const days = renderTranscript(history({ messages: [history().messages[0], { ...history().messages[1], timestamp: '2026-02-11T09:02:00Z' }] }), UTC);
    assert.match(days.markdown.split('\n')[2], / · 2026-02-10 21:11 – 2026-02-11 09:02 · 2 messages$/);
  });

  it('counts messages as the Sessions view does: summaries apart, a window marked as shown', () => {
    assert.equal(messageCount(history()), '3 messages · 1 summary');
    assert.equal(messageCount(history({ hasMoreBefore: true })), '3 messages shown · 1 summary');
    const twoSummaries = history().messages.map((m) => ({ ...m, kind: 'summary' as const }));
    assert.equal(messageCount(history({ messages: twoSummaries.slice(0, 2) })), 'no messages · 2 summaries');
    const one = history().messages.slice(0, 1);
    assert.equal(messageCount(history({ messages: [...one, twoSummaries[3]] })), '1 message · 1 summary');
    const many = Array.from({ length: 1204 }, (_, i) => ({ ...one[0], messageId: `m${i}` }));
    assert.equal(messageCount(history({ messages: many, hasMoreAfter: true })), '1,204 messages shown');
    const tool = { ...one[0], messageId: 't1', role: 'tool', kind: 'tool' as const };
    assert.equal(messageCount(history({ messages: [...one, tool, { ...tool, messageId: 't2' }] })), '1 message · 2 tool outputs');
  });

  it('returns the anchor line, pointing at the anchored message heading', () => {
    const rendered = renderTranscript(history(), UTC);
    const lines = rendered.markdown.split('\n');
    assert.equal(lines[rendered.anchorLine], '### 🤖 assistant · 2026-02-10 21:20 · ⭐ match');
    assert.equal(lines[rendered.anchorLine + 2], 'Redrove 1,204 messages.');
    for (const [id, line] of Object.entries(rendered.messageLines)) {
      assert.match(lines[line], /^### /, `heading of ${id}`);
    }
    assert.deepEqual(Object.keys(rendered.messageLines), ['m1', 'm2', 'm3', 's1']);
    assert.equal(lines.filter((l) => l.includes('⭐ match')).length, 1);
  });

  it('anchors at the top without an anchor and marks hidden messages', () => {
    const rendered = renderTranscript(history({ anchor: null, hasMoreBefore: true, hasMoreAfter: true, title: undefined }), UTC);
    assert.equal(rendered.anchorLine, 0);
    assert.match(rendered.markdown, /^# Session 258c7280-aaaa-bbbb-cccc-1234567890ab/);
    assert.match(rendered.markdown, /> ⋯ earlier messages are not shown/);
    assert.match(rendered.markdown, /> ⋯ later messages are not shown\n$/);
    assert.ok(!rendered.markdown.includes('⭐'));
  });

  it('closes unbalanced code fences so later messages stay readable', () => {
    const h = history({
      anchor: 'm2',
      messages: [
        { messageId: 'm1', role: 'assistant', kind: 'message', text: 'Output:\n```\npartial log', position: 0, timestamp: null },
        { messageId: 'm2', role: 'user', kind: 'message', text: 'thanks', position: 1, timestamp: null },
      ],
    });
    const rendered = renderTranscript(h, UTC);
    const lines = rendered.markdown.split('\n');
    const fenceCount = lines.filter((l) => l.startsWith('```')).length;
    assert.equal(fenceCount % 2, 0);
    assert.equal(lines[rendered.anchorLine], '### 🧑 user · ⭐ match');
  });

  it('handles empty sessions and empty messages', () => {
    assert.match(renderTranscript(history({ messages: [], anchor: null }), UTC).markdown, /_No messages\._/);
    const r = renderTranscript(
      history({ anchor: null, messages: [{ messageId: 'x', role: 'tool', kind: 'message', text: '  ', position: 0, timestamp: null }] }),
      UTC,
    );
    assert.match(r.markdown, /### 🔧 tool\n\n_\(empty\)_/);
  });

  it('formats headings for every role', () => {
    assert.equal(
      messageHeading({ messageId: 'a', role: 'system', kind: 'message', text: '', position: 0, timestamp: '2026-01-01T00:00:00Z' }, UTC),
      '### ⚙️ system · 2026-01-01 00:00',
    );
    assert.equal(messageHeading({ messageId: 'a', role: '', kind: 'message', text: '', position: 0, timestamp: null }, UTC), '### 💬 message');
  });
});
