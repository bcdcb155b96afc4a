import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  EARLIER_PAGE,
  earlierPageParams,
  keptTopLine,
  messageCount,
  messageHeading,
  renderTranscript,
  SHOW_EARLIER,
  withEarlierPage,
} from '../../src/transcriptMarkdown';
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

describe('show earlier messages', () => {
  const msg = (id: string, position: number): HistoryResponse['messages'][number] => ({
    messageId: id,
    role: position % 2 ? 'assistant' : 'user',
    kind: 'message',
    timestamp: null,
    text: `text of ${id}`,
    position,
  });

  it('offers the link iff there are earlier messages, and asks for the page before the first shown one', () => {
    const tail = history({ anchor: null, hasMoreBefore: true });
    assert.match(renderTranscript(tail, UTC).markdown, new RegExp(`^> ⋯ earlier messages are not shown — ${SHOW_EARLIER}$`, 'm'));
    assert.deepEqual(earlierPageParams(tail), { sessionKey: tail.sessionKey, messageId: 'm1', limit: 2 * EARLIER_PAGE + 1 });
    const start = history({ anchor: null, hasMoreBefore: false });
    assert.doesNotMatch(renderTranscript(start, UTC).markdown, new RegExp(SHOW_EARLIER));
    assert.equal(earlierPageParams(start), undefined);
  });

  it('puts the page in front without marking the message it was anchored on as the match', () => {
    const shown = history({ anchor: null, hasMoreBefore: true, messages: [msg('m5', 5), msg('m6', 6)] });
    // the server's window around m5: what comes before it, m5 itself (its anchor) and what follows
    const page = history({ anchor: 'm5', hasMoreBefore: false, hasMoreAfter: true, messages: [msg('m3', 3), msg('m4', 4), msg('m5', 5), msg('m6', 6)] });
    const merged = withEarlierPage(shown, page);
    assert.deepEqual(merged.messages.map((m) => m.messageId), ['m3', 'm4', 'm5', 'm6']);
    assert.equal(merged.anchor, null);
    assert.equal(merged.hasMoreBefore, false);
    const { markdown } = renderTranscript(merged, UTC);
    assert.doesNotMatch(markdown, /⭐/);
    assert.doesNotMatch(markdown, new RegExp(SHOW_EARLIER));
    assert.match(markdown, /text of m3[\s\S]*text of m4[\s\S]*text of m5/);
  });

  it('keeps the star on the match of an anchored window when earlier pages are loaded', () => {
    const shown = history({ anchor: 'm6', hasMoreBefore: true, messages: [msg('m5', 5), msg('m6', 6)] });
    const page = history({ anchor: 'm5', hasMoreBefore: true, messages: [msg('m4', 4), msg('m5', 5), msg('m6', 6)] });
    const merged = withEarlierPage(shown, page);
    const rendered = renderTranscript(merged, UTC);
    assert.equal(rendered.markdown.match(/⭐/g)?.length, 1);
    assert.match(rendered.markdown.split('\n')[rendered.anchorLine], /⭐ match/);
    assert.equal(rendered.anchorLine, rendered.messageLines.m6);
    assert.match(rendered.markdown, new RegExp(SHOW_EARLIER));
    assert.deepEqual(earlierPageParams(merged)?.messageId, 'm4');
  });

  it('leaves the shown history as it was when the page does not reach its first message', () => {
    const shown = history({ anchor: null, hasMoreBefore: true, messages: [msg('m5', 5)] });
    const page = history({ anchor: 'x', hasMoreBefore: false, messages: [msg('m1', 1)] });
    assert.equal(withEarlierPage(shown, page), shown);
  });

  it('keeps the line the reader was at on the same line of the same message', () => {
    const shown = history({ anchor: null, hasMoreBefore: true, messages: [msg('m5', 5), msg('m6', 6)] });
    const page = history({ anchor: 'm5', hasMoreBefore: false, messages: [msg('m3', 3), msg('m4', 4), msg('m5', 5)] });
    const before = renderTranscript(shown, UTC);
    const after = renderTranscript(withEarlierPage(shown, page), UTC);
    const reading = before.messageLines.m6 + 1;
    const kept = keptTopLine(before.messageLines, after.messageLines, reading);
    assert.equal(kept, after.messageLines.m6 + 1);
    assert.equal(after.markdown.split('\n')[kept], before.markdown.split('\n')[reading]);
    // above the first message (at the link itself): as far above the message that was first
    const atLink = before.messageLines.m5 - 3;
    assert.equal(keptTopLine(before.messageLines, after.messageLines, atLink), after.messageLines.m5 - 3);
  });
});
