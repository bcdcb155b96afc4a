/**
 * How the VS Code language client talks to the memlens server: the server command line, which documents it serves,
 * the settings it is sent (initializationOptions, didChangeConfiguration, workspace/configuration), hover links made
 * trusted (the hover itself: hover.ts), the server's stderr logged line by line at its own level, and a crash handed to the lifecycle (start,
 * restart, failure: `serverLauncher.ts`) instead of restarted here.
 */

import * as readline from 'node:readline';
import * as vscode from 'vscode';
import {
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  ExecuteCommandRequest,
  HoverRequest,
  LanguageClient,
  RevealOutputChannelOn,
  type DynamicFeature,
  type Executable,
  type LanguageClientOptions,
  type ServerOptions,
  type StaticFeature,
} from 'vscode-languageclient/node';
import { errorMessage } from './errors';
import { asShowFixes, SHOW_FIXES_COMMAND } from './fixText';
import { Commands } from './protocol';
import { HOVER_COMMANDS } from './hoverLinks';
import { stderrLevel } from './serverLog';
import type { TraceChannel } from './traceChannel';

/** `<python> -m memlens serve` over stdio, in the first workspace folder, unbuffered UTF-8. */
export function serverExecutable(python: string, cwd: string | undefined): Executable {
  return {
    command: python,
    args: ['-m', 'memlens', 'serve'],
    options: { cwd, env: { ...process.env, PYTHONUNBUFFERED: '1', PYTHONIOENCODING: 'utf-8' } },
  };
}

export interface ClientOptionsContext {
  output: vscode.LogOutputChannel;
  traceChannel: TraceChannel;
  /** the `memlens` settings to send, read afresh on every call (see workspaceSettings.explicitSettings) */
  settings: () => Record<string, unknown>;
  /** the client these options belong to, once it exists (didChangeConfiguration is sent through it) */
  client: () => LanguageClient | undefined;
  /** the connection to the server closed unasked (it crashed or was killed); the lifecycle decides what follows */
  onClosed: () => void;
}

/** Features the extension provides itself instead of the language client: commands (below) and hovers (hover.ts). */
const OWN_FEATURES = new Set<string>([ExecuteCommandRequest.method, HoverRequest.method]);

/**
 * The language client without its executeCommand and hover features. The hover is registered by the extension
 * (hover.ts) so that it comes after the language's own hover. That feature registers each command the server
 * advertises as a VS Code command, per client: a second client alive beside the first (a restart overlapping
 * another) fails with "command 'memlens.search' already exists", and a client that failed half-way keeps its
 * registrations. The extension registers those commands once instead (extension.ts), forwarding to the current
 * client; `workspace/executeCommand` requests are sent as before.
 */
export class MemlensLanguageClient extends LanguageClient {
  override registerFeature(feature: StaticFeature | DynamicFeature<unknown>): void {
    if ('registrationType' in feature && OWN_FEATURES.has(feature.registrationType.method)) {
      return;
    }
    super.registerFeature(feature);
  }
}

export function createMemlensClient(serverOptions: ServerOptions, ctx: ClientOptionsContext): MemlensLanguageClient {
  return new MemlensLanguageClient('memlens', 'memlens', serverOptions, memlensClientOptions(ctx));
}

export function memlensClientOptions(ctx: ClientOptionsContext): LanguageClientOptions {
  return {
    documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
    outputChannel: ctx.output,
    traceOutputChannel: ctx.traceChannel,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    // the server applies .memlens.json's location settings only when told the workspace is trusted
    initializationOptions: () => ({ ...ctx.settings(), workspaceTrusted: vscode.workspace.isTrusted }),
    // didChangeConfiguration on every `memlens.*` change, carrying the explicitly set settings (see explicitSettings)
    synchronize: { configurationSection: 'memlens' },
    middleware: {
      // the server's quick fix on a diagnostic runs `memlens.fixes`, whose answer a bare command run would drop:
      // the client's own command asks the same and shows the answer (fixesQuickPick.ts)
      provideCodeActions: async (document, range, context, token, next) => {
        const actions = await next(document, range, context, token);
        return actions?.map((action) => {
          if (action instanceof vscode.CodeAction) {
            if (action.command) {
              action.command = asShowFixes(action.command, Commands.fixes, SHOW_FIXES_COMMAND);
            }
            return action;
          }
          return asShowFixes(action, Commands.fixes, SHOW_FIXES_COMMAND);
        });
      },
      workspace: {
        didChangeConfiguration: async () => {
          await ctx.client()?.sendNotification(DidChangeConfigurationNotification.type, { settings: { memlens: ctx.settings() } });
        },
        configuration: (params, token, next) => {
          if (params.items.every((item) => item.section === 'memlens')) {
            return params.items.map(() => ctx.settings());
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
    // a write error is retried as vscode-languageclient's default handler does; a closed connection is never
    // restarted by the client itself: restarts go through the one queue in serverLauncher.ts
    errorHandler: {
      error: (_error, _message, count) => ({ action: count !== undefined && count <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown }),
      closed: () => {
        ctx.onClosed();
        return { action: CloseAction.DoNotRestart, handled: true };
      },
    },
    initializationFailedHandler: (err) => {
      ctx.output.error(`Initialization failed: ${errorMessage(err)}`);
      return false;
    },
  };
}
