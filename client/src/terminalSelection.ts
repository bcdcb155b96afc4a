/**
 * The text selected in an integrated terminal, for Search Selection from the terminal's context menu. VS Code 1.91
 * (the engine package.json declares) has no stable `Terminal.selection`: where the running VS Code has it, it is
 * read; otherwise the selection is copied with VS Code's own command and read from the clipboard, and the clipboard
 * is given back what it held.
 */

import * as vscode from 'vscode';
import { selectionThroughClipboard } from './clipboardSelection';

const COPY_SELECTION = 'workbench.action.terminal.copySelection';

/** Whether a command argument is a terminal (the terminal context menu passes the terminal it was opened on). */
export function isTerminal(arg: unknown): arg is vscode.Terminal {
  return !!arg && vscode.window.terminals.includes(arg as vscode.Terminal);
}

/**
 * `Terminal.selection` where the running VS Code has it as stable API ("" for none); undefined where it does not
 * (absent, or a proposed API whose getter throws for extensions that did not enable it).
 */
function ownSelection(terminal: vscode.Terminal): string | undefined {
  if (!('selection' in terminal)) {
    return undefined;
  }
  try {
    const selection = (terminal as { selection?: unknown }).selection;
    return typeof selection === 'string' ? selection : '';
  } catch {
    return undefined;
  }
}

/** The selection of `terminal` (default: the active one), "" when there is none. */
export async function terminalSelection(terminal: vscode.Terminal | undefined = vscode.window.activeTerminal): Promise<string> {
  if (!terminal) {
    return '';
  }
  const own = ownSelection(terminal);
  if (own !== undefined) {
    return own;
  }
  if (terminal !== vscode.window.activeTerminal) {
    terminal.show(false); // the copy command copies the active terminal's selection
  }
  return selectionThroughClipboard(vscode.env.clipboard, () => vscode.commands.executeCommand(COPY_SELECTION));
}
