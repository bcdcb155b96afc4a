/**
 * Which settings scope named a transcript folder, the question put to the user when the settings stop naming one the
 * index holds, and what they are told once it is removed. Pure (no `vscode` import): unit-tested; `sourceRemoval.ts`
 * reads VS Code's configuration and asks.
 *
 * The server only sees the merged settings, and by the time it says a folder is no longer named, the scope that named
 * it has already changed; so the client keeps, per folder, the last scope it saw naming it.
 */

import * as path from 'node:path';
import { counted, countedOrNo } from './counted';
import { expandPathVariables } from './serverSettings';
import type { RemoveSourceResponse, SourceFolder } from './protocol';

/** One settings scope's `memlens.transcripts.paths` (undefined when that scope does not set it). */
export interface ScopedPaths {
  scope: string;
  paths: readonly string[] | undefined;
}

export interface PathVariables {
  home?: string;
  workspaceFolder?: string;
  env?: Record<string, string | undefined>;
}

/** A `transcripts.paths` entry as the server resolves it: variables expanded, relative to the workspace folder. */
export function resolveSettingPath(value: string, vars: PathVariables): string {
  const expanded = expandPathVariables(value, vars);
  const joined = path.normalize(path.isAbsolute(expanded) || !vars.workspaceFolder ? expanded : path.join(vars.workspaceFolder, expanded));
  return joined.length > 1 ? joined.replace(/[\\/]+$/, '') : joined; // the server's paths have no trailing separator
}

/** `known` (folder → scope) with every folder the scopes name now; a folder no scope names keeps its last scope. */
export function rememberScopes(known: Readonly<Record<string, string>>, scopes: readonly ScopedPaths[], vars: PathVariables): Record<string, string> {
  const out: Record<string, string> = { ...known };
  for (const { scope, paths } of scopes) {
    for (const value of paths ?? []) {
      if (typeof value === 'string' && value.trim()) {
        out[resolveSettingPath(value, vars)] = scope;
      }
    }
  }
  return out;
}

/** The question for one folder the index holds that the settings no longer name (`scope`: where it was named). */
export function removalQuestion(folder: SourceFolder, scope: string | undefined): string {
  const where = scope
    ? `it was in memlens.transcripts.paths of your ${scope} settings`
    : `it was added from ${folder.addedFrom}`;
  return (
    `memlens: the settings no longer name ${folder.displayPath} (${where}). The index still holds its ${counted(folder.files, 'file')} ` +
    'and keeps searching them. Remove this folder from the index?'
  );
}

/** What the user is told once a folder is removed from the index. */
export function removedMessage(removed: RemoveSourceResponse): string {
  return `memlens: removed ${removed.displayPath} from the index (${countedOrNo(removed.filesRemoved, 'file')}).`;
}
