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
import { runSelfTest, selfTestOptionsFromEnv } from './selfTest';

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

export function activate(context: vscode.ExtensionContext): Extension.MemlensApi {
  const api = extension.activate(context);
  context.subscriptions.push(vscode.commands.registerCommand('memlens.e2e.applySetting', () => applySetting(api.server.output)));
  const options = selfTestOptionsFromEnv(process.env);
  if (options) {
    void runSelfTest(api, options, context.extension.packageJSON?.version as string | undefined);
  }
  return api;
}

export function deactivate(): Promise<void> {
  return extension.deactivate();
}
