/**
 * The transcript viewer's folds: every tool call folded to its one-line summary, and only the tool calls. A document
 * re-rendered with more messages is where this goes wrong if done naively: VS Code keeps a fold that was collapsed
 * before the change wherever the change moved it (as long as it spans as many lines), so the tool calls folded
 * before end up folded on other lines; and until every folding provider has answered for the new text it keeps the
 * old text's regions, so a fold asked for meanwhile folds whichever old region holds the line. So a re-render
 * unfolds first and folds once the new text's regions are in.
 */

import * as vscode from 'vscode';

/** How long to wait for VS Code to ask for a changed document's folds before folding anyway. */
const ASKED_TIMEOUT_MS = 5000;

export class ToolFolds implements vscode.Disposable {
  /** uri → the [first, last] lines of its tool calls, folded to their summary line */
  private readonly ranges = new Map<string, [number, number][]>();
  private readonly asked = new vscode.EventEmitter<vscode.TextDocument>();
  private readonly registration: vscode.Disposable;

  constructor(selector: vscode.DocumentSelector) {
    this.registration = vscode.languages.registerFoldingRangeProvider(selector, {
      provideFoldingRanges: (doc) => {
        this.asked.fire(doc);
        return (this.ranges.get(doc.uri.toString()) ?? []).map(([a, b]) => new vscode.FoldingRange(a, b, vscode.FoldingRangeKind.Region));
      },
    });
  }

  /** The tool calls of a document's text as it is rendered (set before VS Code receives the text). */
  set(uri: string, ranges: [number, number][]): void {
    this.ranges.set(uri, ranges);
  }

  forget(uri: string): void {
    this.ranges.delete(uri);
  }

  /**
   * Fold every tool call of a transcript editor to its summary line, then `reveal`. The editor asks the folding
   * providers after it shows the document, so the fold command is given a moment; a fold that finds no range yet does
   * nothing.
   */
  async fold(editor: vscode.TextEditor, reveal: () => void | Promise<void>): Promise<void> {
    if (!this.starts(editor).length || vscode.window.activeTextEditor !== editor) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    await this.foldNow(editor, reveal);
  }

  /**
   * Before a re-render of the editor's document: unfold it all, so no fold is carried through the change to where
   * the text moved, and return what `refold` waits for: VS Code asking for the folds of the changed text (in an
   * object: a promise returned from an async function would be awaited with it).
   */
  async beforeRerender(editor: vscode.TextEditor): Promise<{ asked: Promise<boolean> }> {
    const doc = editor.document;
    const version = doc.version;
    const asked = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(false), ASKED_TIMEOUT_MS);
      const listener = this.asked.event((d) => {
        if (d === doc && d.version > version) {
          done(true);
        }
      });
      const done = (ok: boolean): void => {
        clearTimeout(timer);
        listener.dispose();
        resolve(ok);
      };
    });
    if (vscode.window.activeTextEditor === editor) {
      await vscode.commands.executeCommand('editor.unfoldAll');
    }
    return { asked };
  }

  /**
   * After a re-render: once VS Code asked for the new text's folds (`asked`, from `beforeRerender`), ask every folding
   * provider once more. They answer in order, so when that answer is in, the editor's own request was answered and
   * its regions are the new text's: only then fold the tool calls.
   */
  async refold(editor: vscode.TextEditor, { asked }: { asked: Promise<boolean> }, reveal: () => void | Promise<void>): Promise<void> {
    if ((await asked) && vscode.window.activeTextEditor === editor) {
      await vscode.commands.executeCommand('vscode.executeFoldingRangeProvider', editor.document.uri).then(undefined, () => undefined);
      await this.foldNow(editor, reveal);
    }
  }

  private starts(editor: vscode.TextEditor): number[] {
    return (this.ranges.get(editor.document.uri.toString()) ?? []).map(([a]) => a);
  }

  private async foldNow(editor: vscode.TextEditor, reveal: () => void | Promise<void>): Promise<void> {
    const starts = this.starts(editor);
    if (starts.length && vscode.window.activeTextEditor === editor) {
      await vscode.commands.executeCommand('editor.fold', { levels: 1, selectionLines: starts });
      await reveal();
    }
  }

  dispose(): void {
    this.registration.dispose();
    this.asked.dispose();
  }
}
