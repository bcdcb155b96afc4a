/**
 * How the answer to "past occurrences of this error" (`memlens.fixes`) reads in a QuickPick: per session, the tool
 * result that matched (failed or not, when) and the messages that followed it, each opening the transcript at that
 * message. Pure (no `vscode` import): unit-tested.
 */

import type { ErrorFix, FixesResponse, HistoryMessage } from './protocol';
import { fixesNotes, noteRowText } from './answerNotes';
import { counted } from './counted';
import { formatDateTime, oneLine, shortId, type TimeOptions } from './format';
import { firstWords } from './query';

/** Where a row opens: a transcript at one message, or (`file`) a note's file at its line. */
export interface FixTarget {
  sessionKey: string;
  messageId: string;
  title?: string;
  file?: { path: string; line: number };
}

export interface FixRow {
  /** `separator` rows head a session (VS Code shows them while the box holds no typed text) */
  kind: 'separator' | 'occurrence' | 'after' | 'none' | 'note';
  icon?: string;
  label: string;
  description?: string;
  detail?: string;
  target?: FixTarget;
}

/** The text of a tool result without its header line (`[Bash output · error]`), on one line. */
export function toolResultLines(text: string, max = 300): string {
  const lines = text.split(/\r?\n/);
  const body = /^\[[^\]\n]*\]$/.test((lines[0] ?? '').trim()) ? lines.slice(1) : lines;
  return oneLine(body.join(' ') || text, max);
}

/**
 * A session's name in the list: its title, else its agent and short id. Short: VS Code draws a separator's label on
 * the line of the row under it, and that row's label and detail give up their width to it (an 80-character title left
 * the first occurrence showing "2…").
 */
export function fixSessionName(fix: Pick<ErrorFix, 'title' | 'format' | 'sessionId'>): string {
  return fix.title?.trim() ? firstWords(fix.title, 40) : `${fix.format} · ${shortId(fix.sessionId)}`;
}

function target(fix: ErrorFix, messageId: string): FixTarget {
  return { sessionKey: fix.sessionKey, messageId, ...(fix.title ? { title: fix.title } : {}) };
}

function afterRow(fix: ErrorFix, message: HistoryMessage, opts: TimeOptions): FixRow {
  const who = message.role === 'user' ? 'you' : message.role || 'message';
  return {
    kind: 'after',
    icon: message.role === 'user' ? 'account' : 'hubot',
    label: `then ${who}`,
    description: formatDateTime(message.timestamp, opts),
    detail: oneLine(message.text, 300),
    target: target(fix, message.messageId),
  };
}

/** What the answer says about itself (what of a long pasted error was read), one row a note, opening nothing. */
export function fixNoteRows(response: Pick<FixesResponse, 'leftOut'>): FixRow[] {
  return fixesNotes(response).map((note) => ({ kind: 'note', icon: 'info', ...noteRowText(note) }));
}

/**
 * The rows of a fixes answer: its notes first (the CLI prints them last, under the answer; a QuickPick's last rows are
 * out of sight), then best session first: a separator, the occurrence, then what followed it.
 */
export function fixRows(response: FixesResponse, opts: TimeOptions = {}): FixRow[] {
  return [...fixNoteRows(response), ...occurrenceRows(response, opts)];
}

function occurrenceRows(response: FixesResponse, opts: TimeOptions): FixRow[] {
  if (!response.fixes.length) {
    return [
      {
        kind: 'none',
        icon: 'info',
        label: 'No past occurrence of this error',
        detail: 'Nothing in the indexed tool output matches it; memlens: Search Memory searches the conversations too.',
      },
    ];
  }
  const rows: FixRow[] = [];
  for (const fix of response.fixes) {
    if (fix.source === 'note') {
      rows.push(...noteFixRows(fix));
      continue;
    }
    const name = fixSessionName(fix);
    rows.push({ kind: 'separator', label: name });
    rows.push({
      kind: 'occurrence',
      icon: fix.source === 'message' ? 'comment' : fix.error ? 'error' : 'output',
      label: fix.source === 'message' ? 'says how it was fixed' : fix.error ? 'failed' : 'tool output',
      // the session's name heads its rows (the separator VS Code draws beside the first one): not repeated here
      description: formatDateTime(fix.timestamp, opts),
      detail: toolResultLines(fix.text),
      target: target(fix, fix.messageId),
    });
    rows.push(...fix.after.map((message) => afterRow(fix, message, opts)));
  }
  return rows;
}

/** A memory note that quotes the error and says how it was fixed: its file as the separator, the piece, opening the
 * file at its line. */
function noteFixRows(fix: ErrorFix): FixRow[] {
  const line = fix.lineStart ?? 1;
  return [
    { kind: 'separator', label: `${fix.relPath || fix.path}:${line}` },
    {
      kind: 'occurrence',
      icon: 'note',
      label: 'note: how it was fixed',
      ...(fix.title ? { description: fix.title } : {}),
      detail: oneLine(fix.text, 300),
      target: { sessionKey: '', messageId: '', file: { path: fix.path, line } },
    },
  ];
}

/** The QuickPick's title: `memlens: past occurrences of “…”`. */
export function fixesTitle(response: Pick<FixesResponse, 'error' | 'fixes'>): string {
  const sessions = response.fixes.length;
  const count = sessions ? ` (${counted(sessions, 'session')})` : '';
  return `memlens: past occurrences of “${oneLine(response.error, 60)}”${count}`;
}

/** The client command the server's fixes code action is turned into (the server command alone shows nothing);
 * registered in extension.ts. */
export const SHOW_FIXES_COMMAND = 'memlens.showFixes';

/** The server's fixes command, as the client command that shows its answer (a code action's command runs as is). */
export function asShowFixes<C extends { command: string }>(command: C, fixesCommand: string, showCommand: string): C {
  return command.command === fixesCommand ? { ...command, command: showCommand } : command;
}

/** The error text of the command's argument: `{error}` (the code action's) or a string. */
export function fixesArgument(arg: unknown): string {
  if (typeof arg === 'string') {
    return arg.trim();
  }
  if (arg && typeof arg === 'object' && typeof (arg as { error?: unknown }).error === 'string') {
    return (arg as { error: string }).error.trim();
  }
  return '';
}
