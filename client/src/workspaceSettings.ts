/**
 * Reading and opening memlens's settings in VS Code: the first workspace folder, the settings the user set
 * explicitly (what the server is sent; defaults are left to the server), and the Settings editor on memlens's
 * settings, in the Remote tab when remote. The pure shape of those settings is `serverSettings.ts`.
 */

import * as vscode from 'vscode';
import type { PythonSettingScope } from './installHints';
import { isMachineScoped, nestSettings, settingOrigin, whereToSet } from './serverSettings';

/** The folder the server runs in and relative settings resolve against. */
export function firstWorkspaceFolder(): vscode.WorkspaceFolder | undefined {
  return vscode.workspace.workspaceFolders?.[0];
}

/**
 * The `memlens` settings the user (or workspace) set explicitly, nested like the section. Defaults are left out on
 * purpose: the server layers defaults ← the workspace's .memlens.json ← these, so sending VS Code's defaults would
 * silently override .memlens.json. In an untrusted workspace a workspace value of a restricted setting does not
 * count as set (VS Code ignores it there).
 */
export function explicitSettings(keys: readonly string[], restricted: ReadonlySet<string>): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration(undefined, firstWorkspaceFolder()?.uri);
  const trusted = vscode.workspace.isTrusted;
  const entries: [string, unknown][] = [];
  for (const key of keys) {
    const inspected = config.inspect(key);
    const values =
      trusted || !restricted.has(key)
        ? [inspected?.globalValue, inspected?.workspaceValue, inspected?.workspaceFolderValue]
        : [inspected?.globalValue];
    const isSet = values.some((v) => v !== undefined);
    if (isSet) {
      entries.push([key, config.get(key)]);
    }
  }
  return nestSettings(entries);
}

/**
 * The settings scope that sets `key` (the Settings editor's tab: Folder, Workspace, User or Remote), or undefined
 * when its default applies. In a remote window a machine setting lives in the Remote tab, not in User.
 */
export function settingScope(key: string): string | undefined {
  const inspected = vscode.workspace.getConfiguration(undefined, firstWorkspaceFolder()?.uri).inspect(key);
  return settingOrigin(
    {
      global: inspected?.globalValue !== undefined,
      workspace: inspected?.workspaceValue !== undefined,
      folder: inspected?.workspaceFolderValue !== undefined,
    },
    { remoteName: vscode.env.remoteName },
  );
}

/** Where memlens.server.pythonPath is set and where setting it takes effect, for the "cannot run" messages. */
export function pythonPathScope(packageJSON: unknown): PythonSettingScope {
  const key = 'memlens.server.pythonPath';
  const ctx = { remoteName: vscode.env.remoteName, machineScoped: isMachineScoped(packageJSON, key) };
  const configured = vscode.workspace.getConfiguration('memlens').get<string>('server.pythonPath', '').trim();
  return { from: configured ? settingScope(key) : undefined, setIn: whereToSet(ctx) };
}

/** "memlens.scope from the Workspace settings; …": each explicitly set server setting and the scope it came from. */
export function describeSettingScopes(keys: readonly string[]): string {
  const parts: string[] = [];
  for (const key of keys) {
    const from = settingScope(key);
    if (from) {
      parts.push(`${key} from ${from}`);
    }
  }
  return parts.join('; ');
}

/**
 * Open the Settings editor on memlens's settings. By the `@ext:` filter (plus a setting id to narrow it), which
 * works in every settings tab, and in a remote window in the Remote tab, where machine settings such as
 * `memlens.server.pythonPath` live (the User tab hides them there: "No Settings Found").
 */
export async function openMemlensSettings(extensionId: string, settingId?: string): Promise<void> {
  const query = `@ext:${extensionId}${settingId ? ` ${settingId}` : ''}`;
  if (vscode.env.remoteName) {
    try {
      await vscode.commands.executeCommand('workbench.action.openRemoteSettings', { query });
      return;
    } catch {
      // older VS Code: fall through to the generic command
    }
  }
  await vscode.commands.executeCommand('workbench.action.openSettings', query);
}
