/**
 * Which Python runs the server and whether it can: the `memlens.server.pythonPath` setting, else the Python
 * extension's active interpreter, else `python3`; a probe that memlens imports there; the wheel the .vsix bundles
 * and a checkout to install from. What to tell the user when it cannot is `installHints.ts`.
 */

import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage } from './errors';
import { expandPathVariables } from './serverSettings';
import { firstWorkspaceFolder } from './workspaceSettings';

export interface PythonChoice {
  python: string;
  source: 'setting' | 'python-extension' | 'default';
}

interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath?(resource?: vscode.Uri): { id?: string; path: string } | undefined;
    resolveEnvironment?(
      env: { id?: string; path: string } | string,
    ): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
}

/** Call `listener` when the Python extension's active interpreter changes (no-op without that extension). */
export function onPythonInterpreterChange(listener: () => void): vscode.Disposable | undefined {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>('ms-python.python');
  const event = ext?.isActive ? ext.exports?.environments?.onDidChangeActiveEnvironmentPath : undefined;
  try {
    return event?.(listener);
  } catch {
    return undefined;
  }
}

function withTimeout<T>(promise: Thenable<T>, ms: number): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    Promise.resolve(promise).then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      () => {
        clearTimeout(timer);
        resolve(undefined);
      },
    );
  });
}

/** The Python extension's active interpreter, if that extension is installed (optional, never throws). */
async function pythonFromPythonExtension(log: vscode.LogOutputChannel): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>('ms-python.python');
  if (!ext) {
    return undefined;
  }
  try {
    const api = ext.isActive ? ext.exports : await withTimeout(ext.activate(), 15000);
    const envs = api?.environments;
    const active = envs?.getActiveEnvironmentPath?.(firstWorkspaceFolder()?.uri);
    if (!active?.path) {
      return undefined;
    }
    const resolved = envs?.resolveEnvironment ? await withTimeout(envs.resolveEnvironment(active), 15000) : undefined;
    return resolved?.executable?.uri?.fsPath || active.path;
  } catch (err) {
    log.warn(`Python extension: cannot read the active interpreter: ${errorMessage(err)}`);
    return undefined;
  }
}

/** The interpreter to run the server with: the setting, else the Python extension's, else python3. */
export async function choosePython(log: vscode.LogOutputChannel): Promise<PythonChoice> {
  const configured = vscode.workspace.getConfiguration('memlens').get<string>('server.pythonPath', '').trim();
  if (configured) {
    const python = expandPathVariables(configured, {
      home: os.homedir(),
      workspaceFolder: firstWorkspaceFolder()?.uri.fsPath,
      env: process.env,
    });
    return { python, source: 'setting' };
  }
  const fromExtension = await pythonFromPythonExtension(log);
  if (fromExtension) {
    return { python: fromExtension, source: 'python-extension' };
  }
  return { python: process.platform === 'win32' ? 'python' : 'python3', source: 'default' };
}

export interface ImportCheck {
  ok: boolean;
  /** the interpreter could not be run at all */
  notFound: boolean;
  detail: string;
}

/** Run `<python> -c "import memlens"`. */
export function checkImportable(python: string, cwd: string | undefined): Promise<ImportCheck> {
  return new Promise((resolve) => {
    execFile(
      python,
      ['-c', 'import memlens, sys; sys.stdout.write(memlens.__file__ or "")'],
      { cwd, timeout: 60000, windowsHide: true, env: process.env },
      (err, stdout, stderr) => {
        if (!err) {
          resolve({ ok: true, notFound: false, detail: stdout.trim() });
          return;
        }
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'EACCES') {
          resolve({ ok: false, notFound: true, detail: `${code}: ${err.message}` });
          return;
        }
        const lines = stderr.trim().split(/\r?\n/);
        resolve({ ok: false, notFound: false, detail: lines[lines.length - 1] || err.message });
      },
    );
  });
}

/** The memlens wheel the .vsix carries (`out/server/memlens-*.whl`), if any. */
export function bundledWheel(extensionPath: string): string | undefined {
  const dir = path.join(extensionPath, 'out', 'server');
  try {
    const wheel = fs.readdirSync(dir).find((f) => /^memlens-.*\.whl$/.test(f));
    return wheel ? path.join(dir, wheel) : undefined;
  } catch {
    return undefined;
  }
}

/** A memlens checkout the user may be working in (for the `pip install -e <repo>` hint). */
export function findCheckout(extensionPath: string): string | undefined {
  const candidates = [
    ...(vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
    extensionPath,
  ];
  for (const dir of candidates) {
    if (fs.existsSync(path.join(dir, 'server', 'memlens', '__init__.py')) && fs.existsSync(path.join(dir, 'pyproject.toml'))) {
      return dir;
    }
  }
  return undefined;
}
