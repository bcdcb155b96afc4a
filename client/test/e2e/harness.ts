/**
 * The end-to-end test's entry point, installed by run.mjs next to the packaged extension (never shipped): it
 * activates the production bundle (`out/extension.js` of the installed .vsix) and, with MEMLENS_SELFTEST_OUT set,
 * runs the self-test against the API that activate returns. It also adds "memlens e2e: Apply Setting" (run.mjs
 * declares it in the installed manifest), which sets the setting run.mjs wrote to MEMLENS_E2E_SETTING_FILE through
 * VS Code's configuration API, as the Settings editor does: the driver runs it from the command palette while
 * "memlens: Restart Server" runs.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type * as Extension from '../../src/extension';
import { Commands, type SearchParams, type SearchResponse } from '../../src/protocol';
import { runSelfTest, selfTestOptionsFromEnv } from './selfTest';

/** An error that lives in the example workspace's tool output (a failed command of session 5b0e7d3c). */
const E2E_ERROR = "UnroutableEvent: no route for detail-type 'order.refunded'";

// the packaged bundle, loaded at run time (not bundled into this file)
const extension = require(path.join(__dirname, 'extension.js')) as typeof Extension;

interface SettingRequest {
  key: string;
  value: unknown;
}

async function applySetting(log: vscode.LogOutputChannel): Promise<void> {
  const file = process.env.MEMLENS_E2E_SETTING_FILE;
  if (!file) {
    return;
  }
  const { key, value } = JSON.parse(fs.readFileSync(file, 'utf8')) as SettingRequest;
  log.info(`e2e: setting ${key} to ${JSON.stringify(value)}`);
  await vscode.workspace.getConfiguration().update(key, value, vscode.ConfigurationTarget.Global);
}

/** A diagnostic on the cursor's line of the active editor, as a compiler or linter would report it. */
function addDiagnostic(collection: vscode.DiagnosticCollection): void {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    return;
  }
  const line = editor.document.lineAt(editor.selection.active.line);
  const diagnostic = new vscode.Diagnostic(line.range, E2E_ERROR, vscode.DiagnosticSeverity.Error);
  diagnostic.source = 'e2e';
  collection.set(editor.document.uri, [diagnostic]);
}

/** The self-test's query with a threshold nothing reaches: its hits are withheld, the sidebar offers them. */
async function showWithheld(api: Extension.MemlensApi): Promise<void> {
  const params: SearchParams = { query: process.env.MEMLENS_SELFTEST_QUERY || 'how did we fix the dead-letter queue backup?', minScore: 1 };
  const response = await api.server.execute<SearchResponse>(Commands.search, params);
  api.server.output.info(`e2e: ${response.results.length} shown, ${response.withheld} withheld at minScore 1`);
  api.results.set(response, params);
  await api.revealResults();
}

export function activate(context: vscode.ExtensionContext): Extension.MemlensApi {
  const api = extension.activate(context);
  const diagnostics = vscode.languages.createDiagnosticCollection('memlens-e2e');
  context.subscriptions.push(
    diagnostics,
    vscode.commands.registerCommand('memlens.e2e.applySetting', () => applySetting(api.server.output)),
    vscode.commands.registerCommand('memlens.e2e.addDiagnostic', () => addDiagnostic(diagnostics)),
    vscode.commands.registerCommand('memlens.e2e.showWithheld', () => showWithheld(api)),
    // what the sidebar holds, each time it changes: a check of the sidebar that fails can say what replaced it
    api.results.onDidChange(() => {
      const response = api.results.response;
      api.server.output.info(
        `e2e: the sidebar holds generation ${api.results.generation}: ${response ? `${response.results.length} shown, ${response.withheld ?? 0} withheld` : 'nothing'}`,
      );
    }),
  );
  const options = selfTestOptionsFromEnv(process.env);
  if (options) {
    void runSelfTest(api, options, context.extension.packageJSON?.version as string | undefined);
  }
  return api;
}

export function deactivate(): Promise<void> {
  return extension.deactivate();
}
