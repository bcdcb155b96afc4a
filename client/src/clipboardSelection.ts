/**
 * Reading a selection that only a copy command can reach (a terminal's, in VS Code versions without
 * `Terminal.selection`): through the clipboard, which gets back what it held. Pure (the clipboard and the copy
 * command are passed in): unit-tested.
 */

export interface Clipboard {
  readText(): Thenable<string>;
  writeText(text: string): Thenable<void>;
}

/** What `copy` puts on the clipboard ("" when it copies nothing); the clipboard holds what it held before, after. */
export async function selectionThroughClipboard(clipboard: Clipboard, copy: () => Thenable<unknown>): Promise<string> {
  const saved = await clipboard.readText();
  try {
    await clipboard.writeText(''); // so that no selection reads as "", not as what the clipboard held
    await copy();
    return await clipboard.readText();
  } finally {
    await clipboard.writeText(saved);
  }
}
