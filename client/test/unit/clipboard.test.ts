import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { selectionThroughClipboard, type Clipboard } from '../../src/clipboardSelection';

/** A clipboard in memory that logs every write. */
function memoryClipboard(initial: string): Clipboard & { text: string; writes: string[] } {
  const board = {
    text: initial,
    writes: [] as string[],
    readText: async () => board.text,
    writeText: async (text: string) => {
      board.writes.push(text);
      board.text = text;
    },
  };
  return board;
}

describe('a terminal selection read through the clipboard', () => {
  it('returns what the copy command copied and gives the clipboard back what it held', async () => {
    const clipboard = memoryClipboard('my own clipboard');
    const text = await selectionThroughClipboard(clipboard, async () => {
      clipboard.text = "ModuleNotFoundError: No module named 'psycopg2'";
    });
    assert.equal(text, "ModuleNotFoundError: No module named 'psycopg2'");
    assert.equal(clipboard.text, 'my own clipboard');
  });

  it('reads no selection as empty, not as what the clipboard held', async () => {
    const clipboard = memoryClipboard('an old paste');
    assert.equal(await selectionThroughClipboard(clipboard, async () => undefined), '');
    assert.equal(clipboard.text, 'an old paste');
  });

  it('gives the clipboard back even when the copy command fails', async () => {
    const clipboard = memoryClipboard('keep me');
    await assert.rejects(
      selectionThroughClipboard(clipboard, async () => {
        throw new Error('command not found');
      }),
      /command not found/,
    );
    assert.equal(clipboard.text, 'keep me');
    assert.deepEqual(clipboard.writes, ['', 'keep me']);
  });
});
