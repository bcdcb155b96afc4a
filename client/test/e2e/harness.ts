/**
 * The end-to-end test's entry point, installed by run.mjs next to the packaged extension (never shipped): it
 * activates the production bundle (`out/extension.js` of the installed .vsix) and, with MEMLENS_SELFTEST_OUT set,
 * runs the self-test against the API that activate returns.
 */

import * as path from 'node:path';
import type * as vscode from 'vscode';
import type * as Extension from '../../src/extension';
import { runSelfTest, selfTestOptionsFromEnv } from './selfTest';

// the packaged bundle, loaded at run time (not bundled into this file)
const extension = require(path.join(__dirname, 'extension.js')) as typeof Extension;

export function activate(context: vscode.ExtensionContext): Extension.MemlensApi {
  const api = extension.activate(context);
  const options = selfTestOptionsFromEnv(process.env);
  if (options) {
    void runSelfTest(api, options, context.extension.packageJSON?.version as string | undefined);
  }
  return api;
}

export function deactivate(): Promise<void> {
  return extension.deactivate();
}
