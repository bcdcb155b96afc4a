/**
 * The language server's lifecycle: start it (choosing and probing the interpreter first), follow its state and its
 * `memlens/indexStatus` notifications, restart and stop it (one at a time, through `serverQueue.ts`), recover it
 * after a crash, start it by itself once memlens becomes importable, say why it failed, and send it commands. How
 * the client is configured is `clientOptions.ts`; how the interpreter is found is `pythonInterpreter.ts`.
 */

import type { ChildProcess } from 'node:child_process';
import * as vscode from 'vscode';
import { DidChangeConfigurationNotification, ExecuteCommandRequest, type LanguageClient } from 'vscode-languageclient/node';
import { createMemlensClient, serverExecutable } from './clientOptions';
import { counted } from './counted';
import { displayTimeOptions } from './displayTime';
import { errorMessage } from './errors';
import { installCommands, notImportableMessage, pythonNotFoundMessage } from './installHints';
import { IndexStatusNotification, type IndexStatus } from './protocol';
import { bundledWheel, checkImportable, choosePython, findCheckout, onPythonInterpreterChange, type PythonChoice } from './pythonInterpreter';
import { ServerQueue } from './serverQueue';
import { restrictedSettingKeys, serverSettingKeys } from './serverSettings';
import { indexingDoneLine } from './statsText';
import { TraceChannel } from './traceChannel';
import { describeSettingScopes, explicitSettings, firstWorkspaceFolder, openMemlensSettings, pythonPathScope } from './workspaceSettings';

export type ServerState = 'stopped' | 'starting' | 'running' | 'failed';

/** A crashed server is started again at most this many times within CRASH_WINDOW_MS, then left failed. */
const MAX_CRASH_RESTARTS = 4;
const CRASH_WINDOW_MS = 3 * 60 * 1000;
/** How often an interpreter that lacks memlens is asked again (so that installing it starts the server): every 5 s for
 * the first 10 minutes after the failure, then every 30 s. */
const INSTALL_POLL_MS = 5000;
const INSTALL_POLL_FAST_MS = 10 * 60 * 1000;
const INSTALL_POLL_SLOW_MS = 30000;

export class ServerManager implements vscode.Disposable {
  private readonly queue: ServerQueue<LanguageClient>;
  private _state: ServerState = 'stopped';
  private lastError = '';
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  private readonly statusEmitter = new vscode.EventEmitter<IndexStatus>();
  private readonly disposables: vscode.Disposable[] = [];
  private clientDisposables: vscode.Disposable[] = [];
  private crashes: number[] = [];
  private installPoll: NodeJS.Timeout | undefined;
  /** the last start found memlens not importable: the next one that works says it was installed, however it came */
  private awaitingInstall = false;
  private disposed = false;

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
    this.queue = new ServerQueue<LanguageClient>({
      start: () => this.launch(),
      stop: (client) => this.shutdown(client),
      isAlive: (client) => client.isRunning(),
      onError: (what, err) => this.output.warn(`${what === 'start' ? 'Starting' : 'Stopping'} the server: ${errorMessage(err)}`),
    });
  }

  get state(): ServerState {
    return this._state;
  }

  /** The client of the running server, if one runs now (requests other than commands, e.g. hovers, go through it). */
  get runningClient(): LanguageClient | undefined {
    const client = this.queue.current;
    return client && this._state === 'running' && client.isRunning() ? client : undefined;
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
    const client = this.queue.current;
    if (client && this._state === 'running' && client.isRunning()) {
      return Promise.resolve(client);
    }
    return this.queue.start();
  }

  /**
   * Stop the server and start it again, from whatever state: running, starting, stopping, crashed or failed. Asked
   * for while a restart runs (a settings change during "Restart Server"), it is one more restart after that one.
   */
  restart(): Promise<LanguageClient | undefined> {
    this.output.info('Restarting the memlens language server');
    this.crashes = [];
    return this.queue.restart();
  }

  async stop(): Promise<void> {
    this.stopInstallPoll();
    await this.queue.stop();
    if (!this.queue.current) {
      this.setState('stopped');
    }
  }

  /** Make and start one client; run only by the queue, so never beside another. */
  private async launch(): Promise<LanguageClient | undefined> {
    this.stopInstallPoll();
    if (this.disposed) {
      return undefined;
    }
    this.setState('starting');
    this.lastError = '';
    const choice = await choosePython(this.output);
    const cwd = firstWorkspaceFolder()?.uri.fsPath;
    this.output.info(`Using Python ${choice.python} (from ${this.pythonOrigin(choice)})`);
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
      const scope = pythonPathScope(this.context.extension.packageJSON);
      const message = check.notFound
        ? pythonNotFoundMessage(choice.python, check.detail, scope)
        : notImportableMessage(choice.python, check.detail, checkout, wheel, scope);
      const install = installCommands(choice.python, checkout, wheel)[0];
      this.fail(message, check.notFound || install.includes('<path') ? undefined : install);
      if (!check.notFound) {
        this.awaitingInstall = true;
        this.pollUntilImportable(choice, cwd);
      }
      return undefined;
    }
    this.output.info(`memlens found at ${check.detail}`);

    const serverOptions = serverExecutable(choice.python, cwd);
    const settingKeys = serverSettingKeys(this.context.extension.packageJSON);
    const restricted = restrictedSettingKeys(this.context.extension.packageJSON);
    // what the server was last sent (initializationOptions, didChangeConfiguration): a setting changed after the
    // start read it and before the client listens for changes is sent once the client runs
    let sent = '';
    const settings = (): Record<string, unknown> => {
      const current = explicitSettings(settingKeys, restricted);
      sent = JSON.stringify(current);
      return current;
    };
    // which scope each setting came from: in a remote window User and Remote settings are two places, and a value
    // in the one not looked at is a setting that "vanished"
    const scopes = describeSettingScopes(settingKeys);
    this.output.info(`Settings sent to the server: ${scopes || 'none set (defaults and .memlens.json apply)'}`);
    let client: LanguageClient | undefined;
    client = createMemlensClient(serverOptions, {
      output: this.output,
      traceChannel: this.traceChannel,
      settings,
      client: () => client,
      onClosed: () => {
        if (client && this.queue.current === client) {
          this.onCrash();
        }
      },
    });
    this.clientDisposables.push(
      client.onNotification(IndexStatusNotification, (status: IndexStatus) => {
        this.logIndexing(status);
        this.lastIndexStatus = status;
        this.statusEmitter.fire(status);
      }),
    );
    try {
      await client.start();
      if (JSON.stringify(explicitSettings(settingKeys, restricted)) !== sent) {
        this.output.info('Settings changed while the server started; sending them');
        await client.sendNotification(DidChangeConfigurationNotification.type, { settings: { memlens: settings() } });
      }
      this.setState('running');
      this.output.info('memlens language server started');
      if (this.awaitingInstall) {
        // by the poll, or by a restart a settings change queued meanwhile: either way the install is what changed
        this.awaitingInstall = false;
        void vscode.window.showInformationMessage('memlens: installed; the language server started.');
      }
      return client;
    } catch (err) {
      await this.shutdown(client);
      this.fail(`memlens: the language server did not start: ${errorMessage(err)}`);
      return undefined;
    }
  }

  /** "memlens.server.pythonPath "${env:PY}" in the User settings", "python-extension", "default". */
  private pythonOrigin(choice: PythonChoice): string {
    if (choice.source !== 'setting') {
      return choice.source;
    }
    const raw = vscode.workspace.getConfiguration('memlens').get<string>('server.pythonPath', '').trim();
    const from = pythonPathScope(this.context.extension.packageJSON).from ?? 'the settings';
    return `memlens.server.pythonPath${raw !== choice.python ? ` "${raw}"` : ''} in ${from}`;
  }

  /** The server exited unasked: start it again through the queue, unless it keeps crashing. */
  private onCrash(): void {
    const now = Date.now();
    this.crashes = [...this.crashes.filter((t) => now - t < CRASH_WINDOW_MS), now];
    if (this.crashes.length > MAX_CRASH_RESTARTS) {
      this.fail(
        `memlens: the language server exited ${counted(this.crashes.length, 'time')} within ${counted(CRASH_WINDOW_MS / 60000, 'minute')}; ` +
          'see the "memlens" output, fix the cause and run "memlens: Restart Server".',
      );
      void this.queue.stop();
      return;
    }
    this.output.warn(`The memlens language server exited; starting it again (${this.crashes.length} of ${MAX_CRASH_RESTARTS})`);
    this.setState('starting');
    void this.queue.restart();
  }

  /**
   * After "memlens is not importable": ask the interpreter again every few seconds (less often after a while), and
   * start the server as soon as it imports memlens, however it was installed (Install in Terminal, a copied
   * command, anything else): no restart needed.
   */
  private pollUntilImportable(choice: PythonChoice, cwd: string | undefined): void {
    this.stopInstallPoll();
    const since = Date.now();
    const poll = async (): Promise<void> => {
      const check = await checkImportable(choice.python, cwd);
      if (this.disposed || this._state !== 'failed' || this.installPoll === undefined) {
        return;
      }
      if (!check.ok) {
        this.installPoll = setTimeout(() => void poll(), Date.now() - since < INSTALL_POLL_FAST_MS ? INSTALL_POLL_MS : INSTALL_POLL_SLOW_MS);
        return;
      }
      this.installPoll = undefined;
      this.output.info(`memlens is now importable by ${choice.python} (${check.detail}); starting the server`);
      await this.queue.start(); // its start says so (awaitingInstall)
    };
    this.installPoll = setTimeout(() => void poll(), INSTALL_POLL_MS);
  }

  private stopInstallPoll(): void {
    if (this.installPoll !== undefined) {
      clearTimeout(this.installPoll);
      this.installPoll = undefined;
    }
  }

  /**
   * Stop and dispose one client whatever its state, and make sure its server process is gone before the next one
   * starts (two servers would contend for the index writer). vscode-languageclient refuses to stop a client that is
   * still starting ("Client is not running and can't be stopped"); then the process is ended here.
   */
  private async shutdown(client: LanguageClient): Promise<void> {
    const serverProcess = client.serverProcess;
    this.disposeClientListeners();
    try {
      await client.dispose(3000);
    } catch (err) {
      this.output.warn(`Stopping the server: ${errorMessage(err)}`);
    }
    if (serverProcess && !(await exited(serverProcess, 3000))) {
      this.output.warn(`The server (pid ${serverProcess.pid}) did not exit; ending it`);
      serverProcess.kill('SIGTERM');
      if (!(await exited(serverProcess, 2000))) {
        serverProcess.kill('SIGKILL');
        await exited(serverProcess, 2000);
      }
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
      const seconds = this.indexingSince !== undefined ? (Date.now() - this.indexingSince) / 1000 : undefined;
      this.indexingSince = undefined;
      this.output.info(indexingDoneLine(status, seconds, displayTimeOptions()));
    }
  }

  private fail(message: string, installCommand?: string): void {
    this.lastError = message;
    this.output.error(message);
    this.setState('failed');
    const actions = [
      installCommand ? 'Install in Terminal' : undefined,
      installCommand ? 'Copy Install Command' : undefined,
      'Open Settings',
      'Show Output',
    ].filter((a): a is string => !!a);
    void vscode.window.showErrorMessage(message, ...actions).then(async (choice) => {
      if (choice === 'Install in Terminal' && installCommand) {
        // the server starts by itself once the install is done (pollUntilImportable)
        const terminal = vscode.window.createTerminal({ name: 'memlens: install', cwd: firstWorkspaceFolder()?.uri });
        terminal.show();
        terminal.sendText(installCommand);
      } else if (choice === 'Copy Install Command' && installCommand) {
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

  /** The running client; starts the server when needed; throws a readable error when it cannot run. */
  async ready(): Promise<LanguageClient> {
    const client = await this.start();
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
    return this.executeWith<R>(command, [arg], token);
  }

  /** `workspace/executeCommand` with the arguments as given (a server command run as a VS Code command). */
  async executeWith<R>(command: string, args: unknown[], token?: vscode.CancellationToken): Promise<R> {
    const client = await this.ready();
    return (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args }, token)) as R;
  }

  dispose(): void {
    this.disposed = true;
    this.pythonListener?.dispose();
    void this.stop();
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}

/** Whether the process has exited, waiting up to `ms` for it. */
function exited(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve(true);
  }
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      resolve(false);
    }, ms);
    const onExit = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once('exit', onExit);
  });
}
