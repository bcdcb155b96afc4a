/**
 * How a session reads in the Sessions view: its project's description, its row's description and its markdown
 * tooltip. Pure (no `vscode` import): unit-tested; `sessionsTree.ts` builds the tree items from these.
 */

import { counted } from './counted';
import { escapeMarkdown, formatCount, formatDate, formatDateTime, formatTimeSpan, oneLine, shortId, type TimeOptions } from './format';
import type { SessionSummary } from './protocol';
import { formatAge } from './query';

/** A project's row: how many sessions it holds ("1 session", "12 sessions"). */
export function projectDescription(count: number): string {
  return counted(count, 'session');
}

/** A session's row beside its title: its last message's time (the day is the row above), size and agent. */
export function sessionDescription(s: Pick<SessionSummary, 'lastTime' | 'messageCount' | 'format'>, opts: TimeOptions = {}): string {
  const time = formatDateTime(s.lastTime, opts).slice(11);
  // "msg" reads the same for one and many: the sidebar is narrow, and the tooltip says it in full
  return [time, `${formatCount(s.messageCount)} msg`, s.format].filter(Boolean).join(' · ');
}

/** A session's tooltip (markdown): its title, when and how long, its folder, tools, edited files and resume command. */
export function sessionTooltip(s: SessionSummary, opts: TimeOptions = {}): string {
  const age = formatAge(s.lastTime, opts.now);
  const facts = [
    escapeMarkdown(s.format),
    escapeMarkdown(formatTimeSpan(s.firstTime, s.lastTime, opts)) + (age ? ` (${escapeMarkdown(age)})` : ''),
    counted(s.messageCount, 'message'),
  ].filter(Boolean);
  const parts = [`**${escapeMarkdown(oneLine(s.title || s.sessionId, 160))}**`, facts.join(' · ')];
  if (s.cwd) {
    parts.push(`Folder: \`${s.cwd.replace(/`/g, '')}\``);
  }
  if (s.toolsUsed.length) {
    parts.push(`Tools: ${escapeMarkdown(s.toolsUsed.slice(0, 8).map((t) => `${t.name} ×${formatCount(t.count)}`).join(', '))}`);
  }
  const edited = s.filesTouched.filter((f) => f.edited).slice(0, 6);
  if (edited.length) {
    parts.push(`Edited: ${edited.map((f) => `\`${f.path.split('/').pop()?.replace(/`/g, '')}\``).join(', ')}`);
  }
  if (s.resumeCommand) {
    parts.push(`Resume: \`${s.resumeCommand.replace(/`/g, '')}\``);
  }
  return parts.join('\n\n');
}

/** A session offered for `session:` in Search Memory: its title (else its short id), agent and last day. */
export function sessionCompletionLabel(s: Pick<SessionSummary, 'title' | 'sessionId' | 'format' | 'lastTime'>, opts: TimeOptions = {}): string {
  return [oneLine(s.title, 60) || shortId(s.sessionId), s.format, formatDate(s.lastTime, opts)].filter(Boolean).join(' · ');
}
