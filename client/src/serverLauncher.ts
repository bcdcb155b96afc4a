/**
 * Starts, restarts and talks to the memlens language server (`<python> -m memlens serve` over stdio).
 */

import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  RevealOutputChannelOn,
  State,
  type Executable,
  type LanguageClientOptions,
} from 'vscode-languageclient/node';
import {
  errorMessage,
  expandPathVariables,
  installCommands,
  nestSettings,
  notImportableMessage,
  pythonNotFoundMessage,
  serverSettingKeys,
} from './format';
import { HOVER_COMMANDS, rewriteHoverLinks } from './hoverLinks';
import { IndexStatusNotification, type IndexStatus } from './protocol';
import { stderrLevel } from './serverLog';
import { TraceChannel } from './traceChannel';
import * as readline from 'node:readline';

export type ServerState = 'stopped' | 'starting' | 'running' | 'failed';

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
function onPythonInterpreterChange(listener: () => void): vscode.Disposable | undefined {
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

function firstWorkspaceFolder(): vscode.WorkspaceFolder | undefined {
  return vscode.workspace.workspaceFolders?.[0];
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

/** The settings the manifest restricts in untrusted workspaces (`capabilities.untrustedWorkspaces`). */
export function restrictedSettingKeys(packageJSON: unknown): ReadonlySet<string> {
  const capabilities = (packageJSON as { capabilities?: { untrustedWorkspaces?: unknown } } | undefined)?.capabilities;
  const restricted = (capabilities?.untrustedWorkspaces as { restrictedConfigurations?: unknown } | undefined)
    ?.restrictedConfigurations;
  return new Set(Array.isArray(restricted) ? restricted.filter((k): k is string => typeof k === 'string') : []);
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

/** A memlens checkout the user may be working in (for the `pip install -e <repo>` hint). */
function findCheckout(extensionPath: string): string | undefined {
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

export class ServerManager implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<LanguageClient | undefined> | undefined;
  private _state: ServerState = 'stopped';
  private lastError = '';
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  private readonly statusEmitter = new vscode.EventEmitter<IndexStatus>();
  private readonly disposables: vscode.Disposable[] = [];
  private clientDisposables: vscode.Disposable[] = [];

  /** Fires when the server starts, stops or fails. */
  readonly onDidChangeState = this.stateEmitter.event;
  /** Fires on every `memlens/indexStatus` notification. */
  readonly onIndexStatus = this.statusEmitter.event;
  lastIndexStatus: IndexStatus | undefined;
  private readonly traceChannel: TraceChannel;
  private pythonListener: vscode.Disposable | undefined;
  private indexingSince: number | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly output: vscode.LogOutputChannel,
  ) {
    this.traceChannel = new TraceChannel(output);
    this.disposables.push(this.stateEmitter, this.statusEmitter, this.traceChannel);
  }

  get state(): ServerState {
    return this._state;
  }

  /** Why the server is not running, when it failed. */
  get failure(): string {
    return this.lastError;
  }

  private setState(state: ServerState): void {
    if (this._state !== state) {
      this._state = state;
      this.stateEmitter.fire(state);
    }
  }

  /** Start the server unless it runs or is starting. Resolves to the client, or undefined when it cannot start. */
  start(): Promise<LanguageClient | undefined> {
    if (this.client && this._state === 'running') {
      return Promise.resolve(this.client);
    }
    if (!this.starting) {
      this.starting = this.doStart().finally(() => {
        this.starting = undefined;
      });
    }
    return this.starting;
  }

  private async doStart(): Promise<LanguageClient | undefined> {
    this.setState('starting');
    this.lastError = '';
    const choice = await choosePython(this.output);
    const cwd = firstWorkspaceFolder()?.uri.fsPath;
    this.output.info(`Using Python ${choice.python} (from ${choice.source})`);
    if (choice.source === 'python-extension' && !this.pythonListener) {
      this.pythonListener = onPythonInterpreterChange(() => {
        if (!vscode.workspace.getConfiguration('memlens').get<string>('server.pythonPath', '').trim()) {
          this.output.info('The Python extension switched interpreters; restarting the server');
          void this.restart();
        }
      });
    }
    const check = await checkImportable(choice.python, cwd);
    if (!check.ok) {
      const checkout = findCheckout(this.context.extensionPath);
      const wheel = bundledWheel(this.context.extensionPath);
      const message = check.notFound
        ? pythonNotFoundMessage(choice.python, check.detail)
        : notImportableMessage(choice.python, check.detail, checkout, wheel);
      const install = installCommands(choice.python, checkout, wheel)[0];
      this.fail(message, check.notFound || install.includes('<path') ? undefined : install);
      return undefined;
    }
    this.output.info(`memlens found at ${check.detail}`);

    const serverOptions: Executable = {
      command: choice.python,
      args: ['-m', 'memlens', 'serve'],
      options: { cwd, env: { ...process.env, PYTHONUNBUFFERED: '1', PYTHONIOENCODING: 'utf-8' } },
    };
    const settingKeys = serverSettingKeys(this.context.extension.packageJSON);
    const restricted = restrictedSettingKeys(this.context.extension.packageJSON);
    const settings = (): Record<string, unknown> => explicitSettings(settingKeys, restricted);
    let client: LanguageClient | undefined;
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
      outputChannel: this.output,
      traceOutputChannel: this.traceChannel,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      // the server applies .memlens.json's location settings only when told the workspace is trusted
      initializationOptions: () => ({ ...settings(), workspaceTrusted: vscode.workspace.isTrusted }),
      // didChangeConfiguration on every `memlens.*` change, carrying the explicitly set settings (see explicitSettings)
      synchronize: { configurationSection: 'memlens' },
      middleware: {
        // hover links: the server's file: and memlens-transcript: links become trusted command links (hoverLinks.ts)
        provideHover: async (document, position, token, next) => {
          const hover = await next(document, position, token);
          if (!hover) {
            return hover;
          }
          const contents = hover.contents.map((content) => {
            const value = typeof content === 'string' ? content : 'value' in content && !('language' in content) ? content.value : undefined;
            if (value === undefined) {
              return content;
            }
            const md = new vscode.MarkdownString(rewriteHoverLinks(value));
            md.isTrusted = { enabledCommands: [...HOVER_COMMANDS] };
            md.supportThemeIcons = false;
            return md;
          });
          return new vscode.Hover(contents, hover.range);
        },
        workspace: {
          didChangeConfiguration: async () => {
            await client?.sendNotification(DidChangeConfigurationNotification.type, { settings: { memlens: settings() } });
          },
          configuration: (params, token, next) => {
            if (params.items.every((item) => item.section === 'memlens')) {
              return params.items.map(() => settings());
            }
            return next(params, token);
          },
        },
      },
      markdown: { isTrusted: { enabledCommands: [...HOVER_COMMANDS] }, supportHtml: false },
      // the server's stderr is Python logging (`WARNING:pygls…:…`): each line at its own level, not all as errors
      stdioOptions: {
        stdout: (input, channel) => {
          readline.createInterface({ input, crlfDelay: Infinity, terminal: false, historySize: 0 }).on('line', (line) => channel.info(line));
        },
        stderr: (input, channel) => {
          readline.createInterface({ input, crlfDelay: Infinity, terminal: false, historySize: 0 }).on('line', (line) => {
            const level = stderrLevel(line);
            channel[level](line);
          });
        },
      },
      initializationFailedHandler: (err) => {
        this.output.error(`Initialization failed: ${errorMessage(err)}`);
        return false;
      },
    };
    client = new LanguageClient('memlens', 'memlens', serverOptions, clientOptions);
    this.clientDisposables.push(
      client.onNotification(IndexStatusNotification, (status: IndexStatus) => {
        this.logIndexing(status);
        this.lastIndexStatus = status;
        this.statusEmitter.fire(status);
      }),
      client.onDidChangeState((e) => {
        if (this.client !== client) {
          return;
        }
        if (e.newState === State.Running) {
          this.setState('running');
        } else if (e.newState === State.Starting) {
          this.setState('starting');
        } else if (e.newState === State.Stopped && this._state === 'running') {
          this.lastError = 'The memlens language server stopped.';
          this.setState('failed');
        }
      }),
    );
    this.client = client;
    try {
      await client.start();
      this.setState('running');
      this.output.info('memlens language server started');
      return client;
    } catch (err) {
      this.client = undefined;
      this.disposeClientListeners();
      try {
        await client.dispose(2000);
      } catch {
        // already dead
      }
      this.fail(`memlens: the language server did not start: ${errorMessage(err)}`);
      return undefined;
    }
  }

  /** One line when indexing starts and a summary when it ends, at info level. */
  private logIndexing(status: IndexStatus): void {
    const was = this.lastIndexStatus?.indexing ?? false;
    if (status.indexing && (!was || this.indexingSince === undefined)) {
      this.indexingSince ??= Date.now();
      if (!was) {
        this.output.info(`Indexing${status.message ? `: ${status.message}` : '…'}`);
      }
    } else if (!status.indexing && (was || this.indexingSince !== undefined)) {
      const secs = this.indexingSince !== undefined ? ` in ${((Date.now() - this.indexingSince) / 1000).toFixed(1)} s` : '';
      this.indexingSince = undefined;
      const pending = status.chunksNeedingEmbeddings + status.pendingMessages;
      this.output.info(
        `Index up to date${secs}: ${status.totalChunks} chunks` +
          `${pending ? `, ${pending} waiting` : ''}, embeddings: ${status.provider ?? 'none'}` +
          `${status.lastSync ? `, last sync ${status.lastSync}` : ''}`,
      );
    }
  }

  private fail(message: string, installCommand?: string): void {
    this.lastError = message;
    this.output.error(message);
    this.setState('failed');
    const actions = [installCommand ? 'Copy Install Command' : undefined, 'Open Settings', 'Show Output'].filter(
      (a): a is string => !!a,
    );
    void vscode.window.showErrorMessage(message, ...actions).then(async (choice) => {
      if (choice === 'Copy Install Command' && installCommand) {
        await vscode.env.clipboard.writeText(installCommand);
        void vscode.window.showInformationMessage(`Copied: ${installCommand}`);
      } else if (choice === 'Open Settings') {
        await openMemlensSettings(this.context.extension.id, 'memlens.server.pythonPath');
      } else if (choice === 'Show Output') {
        this.output.show(true);
      }
    });
  }

  private disposeClientListeners(): void {
    for (const d of this.clientDisposables) {
      d.dispose();
    }
    this.clientDisposables = [];
  }

  async stop(): Promise<void> {
    if (this.starting) {
      await this.starting.catch(() => undefined);
    }
    const client = this.client;
    this.client = undefined;
    this.disposeClientListeners();
    if (client) {
      try {
        await client.dispose(3000);
      } catch (err) {
        this.output.warn(`Stopping the server: ${errorMessage(err)}`);
      }
    }
    this.setState('stopped');
  }

  async restart(): Promise<LanguageClient | undefined> {
    this.output.info('Restarting the memlens language server');
    await this.stop();
    return this.start();
  }

  /** The running client; starts the server when needed; throws a readable error when it cannot run. */
  async ready(): Promise<LanguageClient> {
    const client = this._state === 'running' && this.client ? this.client : await this.start();
    if (!client) {
      throw new Error(
        this.lastError ||
          'memlens: the language server is not running (see the "memlens" output). Fix the cause and run "memlens: Restart Server".',
      );
    }
    return client;
  }

  /** `workspace/executeCommand` with one object argument. */
  async execute<R>(command: string, arg: object, token?: vscode.CancellationToken): Promise<R> {
    const client = await this.ready();
    return (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [arg] }, token)) as R;
  }

  dispose(): void {
    this.pythonListener?.dispose();
    void this.stop();
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
