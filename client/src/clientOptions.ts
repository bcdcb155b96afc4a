/**
 * How the VS Code language client talks to the memlens server: the server command line, which documents it serves,
 * the settings it is sent (initializationOptions, didChangeConfiguration, workspace/configuration), hover links made
 * trusted, and the server's stderr logged line by line at its own level. The lifecycle (start, restart, failure) is
 * `serverLauncher.ts`.
 */

import * as readline from 'node:readline';
import * as vscode from 'vscode';
import { DidChangeConfigurationNotification, RevealOutputChannelOn, type Executable, type LanguageClient, type LanguageClientOptions } from 'vscode-languageclient/node';
import { errorMessage } from './errors';
import { HOVER_COMMANDS, rewriteHoverLinks } from './hoverLinks';
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
    initializationFailedHandler: (err) => {
      ctx.output.error(`Initialization failed: ${errorMessage(err)}`);
      return false;
    },
  };
}
