/**
 * The language server's lifecycle: start it (choosing and probing the interpreter first), follow its state and its
 * `memlens/indexStatus` notifications, restart and stop it, say why it failed, and send it commands. How the client
 * is configured is `clientOptions.ts`; how the interpreter is found is `pythonInterpreter.ts`.
 */

import * as vscode from 'vscode';
import { ExecuteCommandRequest, LanguageClient, State } from 'vscode-languageclient/node';
import { memlensClientOptions, serverExecutable } from './clientOptions';
import { errorMessage } from './errors';
import { installCommands, notImportableMessage, pythonNotFoundMessage } from './installHints';
import { IndexStatusNotification, type IndexStatus } from './protocol';
import { bundledWheel, checkImportable, choosePython, findCheckout, onPythonInterpreterChange } from './pythonInterpreter';
import { restrictedSettingKeys, serverSettingKeys } from './serverSettings';
import { TraceChannel } from './traceChannel';
import { explicitSettings, firstWorkspaceFolder, openMemlensSettings } from './workspaceSettings';

export type ServerState = 'stopped' | 'starting' | 'running' | 'failed';

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

    const serverOptions = serverExecutable(choice.python, cwd);
    const settingKeys = serverSettingKeys(this.context.extension.packageJSON);
    const restricted = restrictedSettingKeys(this.context.extension.packageJSON);
    const settings = (): Record<string, unknown> => explicitSettings(settingKeys, restricted);
    let client: LanguageClient | undefined;
    const clientOptions = memlensClientOptions({
      output: this.output,
      traceChannel: this.traceChannel,
      settings,
      client: () => client,
    });
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
