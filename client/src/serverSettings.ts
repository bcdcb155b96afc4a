/**
 * The shape of the settings the client sends the server: which `memlens.*` keys the server reads (from the
 * manifest), which are restricted in untrusted workspaces, how dotted keys nest into the `memlens` section, and
 * `${…}` expansion in path settings. Pure (no `vscode` import): unit-tested; reading VS Code's configuration is in
 * `workspaceSettings.ts`.
 */

/** Client-only settings (the server ignores them). */
const CLIENT_ONLY_SETTINGS = ['memlens.server.', 'memlens.trace.'];

/** The `memlens.*` setting keys the server reads, from the extension manifest's `contributes.configuration`. */
export function serverSettingKeys(packageJSON: unknown): string[] {
  const contributes = (packageJSON as { contributes?: { configuration?: unknown } } | undefined)?.contributes;
  const sections = Array.isArray(contributes?.configuration) ? contributes.configuration : [contributes?.configuration];
  const keys: string[] = [];
  for (const section of sections) {
    const properties = (section as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
    for (const key of Object.keys(properties)) {
      if (key.startsWith('memlens.') && !CLIENT_ONLY_SETTINGS.some((prefix) => key.startsWith(prefix))) {
        keys.push(key);
      }
    }
  }
  return keys;
}

/**
 * Nest dotted `memlens.*` keys into the object shape of the `memlens` section:
 * `[['memlens.search.mode', 'keyword']]` → `{ search: { mode: 'keyword' } }`.
 */
export function nestSettings(entries: Iterable<[string, unknown]>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    const parts = key.replace(/^memlens\./, '').split('.');
    let node = root;
    for (const part of parts.slice(0, -1)) {
      const next = node[part];
      if (!next || typeof next !== 'object' || Array.isArray(next)) {
        node[part] = {};
      }
      node = node[part] as Record<string, unknown>;
    }
    node[parts[parts.length - 1]] = value === undefined ? null : JSON.parse(JSON.stringify(value));
  }
  return root;
}

/** A plain JSON copy of a configuration object (drops functions such as `get`/`update`). */
export function toPlainConfig(config: unknown): Record<string, unknown> {
  try {
    const plain = JSON.parse(JSON.stringify(config ?? {})) as unknown;
    return plain && typeof plain === 'object' && !Array.isArray(plain) ? (plain as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The settings the manifest restricts in untrusted workspaces (`capabilities.untrustedWorkspaces`). */
export function restrictedSettingKeys(packageJSON: unknown): ReadonlySet<string> {
  const capabilities = (packageJSON as { capabilities?: { untrustedWorkspaces?: unknown } } | undefined)?.capabilities;
  const restricted = (capabilities?.untrustedWorkspaces as { restrictedConfigurations?: unknown } | undefined)
    ?.restrictedConfigurations;
  return new Set(Array.isArray(restricted) ? restricted.filter((k): k is string => typeof k === 'string') : []);
}

/**
 * Expand `~`, `${userHome}`, `${workspaceFolder}` and `${env:NAME}` in a path setting. An unknown variable is left
 * as it is.
 */
export function expandPathVariables(
  value: string,
  vars: { home?: string; workspaceFolder?: string; env?: Record<string, string | undefined> },
): string {
  let out = value.trim();
  if (vars.home && (out === '~' || out.startsWith('~/') || out.startsWith('~\\'))) {
    out = vars.home + out.slice(1);
  }
  return out.replace(/\$\{(userHome|workspaceFolder|env:([A-Za-z_][A-Za-z0-9_]*))\}/g, (whole, name: string, envName?: string) => {
    if (name === 'userHome') {
      return vars.home ?? whole;
    }
    if (name === 'workspaceFolder') {
      return vars.workspaceFolder ?? whole;
    }
    return (envName && vars.env?.[envName]) ?? whole;
  });
}

/** Which of the Settings editor's scopes hold a value of one setting (from `WorkspaceConfiguration.inspect`). */
export interface SettingValues {
  global: boolean;
  workspace: boolean;
  folder: boolean;
}

/** Whether the manifest scopes a setting to the machine: a remote window keeps it in the Remote tab, not User. */
export function isMachineScoped(packageJSON: unknown, key: string): boolean {
  const contributes = (packageJSON as { contributes?: { configuration?: unknown } } | undefined)?.contributes;
  const sections = Array.isArray(contributes?.configuration) ? contributes.configuration : [contributes?.configuration];
  for (const section of sections) {
    const scope = ((section as { properties?: Record<string, { scope?: unknown }> } | undefined)?.properties ?? {})[key]?.scope;
    if (scope !== undefined) {
      return scope === 'machine' || scope === 'machine-overridable';
    }
  }
  return false;
}

/**
 * The settings scope a setting's value comes from, named as the Settings editor's tabs are: the innermost that
 * holds one (a folder's value beats the workspace's, which beats User/Remote). Undefined: the default applies. In a
 * remote window the API merges User and Remote into one value, so both are named (in a desktop VS Code a machine
 * setting comes from Remote; a browser-hosted one such as code-server keeps it in User).
 */
export function settingOrigin(values: SettingValues, ctx: { remoteName?: string }): string | undefined {
  if (values.folder) {
    return 'the Folder settings (.vscode/settings.json)';
  }
  if (values.workspace) {
    return 'the Workspace settings';
  }
  if (values.global) {
    if (!ctx.remoteName) {
      return 'the User settings';
    }
    return `the User or Remote [${ctx.remoteName}] settings`;
  }
  return undefined;
}

/** Where to set a setting so that it applies, in words: a remote window's User tab does not show machine settings. */
export function whereToSet(ctx: { remoteName?: string; machineScoped: boolean }): string {
  return ctx.remoteName && ctx.machineScoped
    ? `in the Remote [${ctx.remoteName}] tab of the Settings editor (a remote window's User tab does not show it)`
    : 'in the User or Workspace settings';
}
