/**
 * The language client's trace output, switched by `memlens.trace.server`.
 *
 * vscode-languageclient 11 traces only when its trace channel's log level is Trace (and then reads `trace.server`
 * just to choose messages/verbose). This channel reports log level Trace exactly when `memlens.trace.server` is not
 * "off", and writes the traces into the "memlens" output channel, so the setting alone turns tracing on and off.
 */

import * as vscode from 'vscode';

function traceSetting(): string {
  return vscode.workspace.getConfiguration('memlens').get<string>('trace.server', 'off');
}

export class TraceChannel implements vscode.LogOutputChannel {
  private readonly levelEmitter = new vscode.EventEmitter<vscode.LogLevel>();
  private readonly listener: vscode.Disposable;
  private level: vscode.LogLevel;

  readonly onDidChangeLogLevel = this.levelEmitter.event;

  constructor(private readonly target: vscode.LogOutputChannel) {
    this.level = TraceChannel.levelFor(traceSetting());
    this.listener = vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('memlens.trace.server')) {
        const level = TraceChannel.levelFor(traceSetting());
        if (level !== this.level) {
          this.level = level;
          this.levelEmitter.fire(level);
        }
      }
    });
  }

  static levelFor(setting: string): vscode.LogLevel {
    return setting === 'messages' || setting === 'verbose' ? vscode.LogLevel.Trace : vscode.LogLevel.Info;
  }

  get name(): string {
    return this.target.name;
  }

  get logLevel(): vscode.LogLevel {
    return this.level;
  }

  trace(message: string, ...args: unknown[]): void {
    if (this.level === vscode.LogLevel.Trace) {
      this.target.info(message, ...args);
    }
  }

  debug(message: string, ...args: unknown[]): void {
    this.target.debug(message, ...args);
  }

  info(message: string, ...args: unknown[]): void {
    this.target.info(message, ...args);
  }

  warn(message: string, ...args: unknown[]): void {
    this.target.warn(message, ...args);
  }

  error(error: string | Error, ...args: unknown[]): void {
    this.target.error(error, ...args);
  }

  append(value: string): void {
    this.target.append(value);
  }

  appendLine(value: string): void {
    this.target.appendLine(value);
  }

  replace(value: string): void {
    this.target.replace(value);
  }

  clear(): void {
    this.target.clear();
  }

  show(columnOrPreserveFocus?: vscode.ViewColumn | boolean, preserveFocus?: boolean): void {
    if (typeof columnOrPreserveFocus === 'boolean' || columnOrPreserveFocus === undefined) {
      this.target.show(columnOrPreserveFocus);
    } else {
      this.target.show(columnOrPreserveFocus, preserveFocus);
    }
  }

  hide(): void {
    this.target.hide();
  }

  /** Disposes the listener only; the "memlens" channel belongs to the extension. */
  dispose(): void {
    this.listener.dispose();
    this.levelEmitter.dispose();
  }
}
