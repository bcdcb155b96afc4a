/**
 * Sessions grouped for the Sessions view: by project (newest activity first), then by day of the last message,
 * subagents under their parent. Pure (no `vscode` import): unit-tested.
 */

import { formatDate, type TimeOptions } from './format';
import type { SessionSummary } from './protocol';

export interface SessionWithChildren {
  session: SessionSummary;
  children: SessionSummary[];
}

export interface DayGroup {
  /** YYYY-MM-DD, or "" for sessions without times */
  date: string;
  /** "Today", "Yesterday" or the date */
  label: string;
  sessions: SessionWithChildren[];
}

export interface ProjectGroup {
  key: string;
  label: string;
  cwd?: string;
  count: number;
  days: DayGroup[];
}

function projectOf(s: SessionSummary): { key: string; label: string; cwd?: string } {
  if (s.cwd) {
    return { key: s.cwd, label: s.project || s.cwd.split(/[\\/]/).filter(Boolean).pop() || s.cwd, cwd: s.cwd };
  }
  if (s.project) {
    return { key: `project:${s.project}`, label: s.project };
  }
  return { key: 'other', label: 'other sessions' };
}

function dayLabel(date: string, opts: TimeOptions): string {
  if (!date) {
    return 'undated';
  }
  const now = opts.now ?? new Date();
  const today = formatDate(now.toISOString(), opts);
  const yesterday = formatDate(new Date(now.getTime() - 86400000).toISOString(), opts);
  return date === today ? 'Today' : date === yesterday ? 'Yesterday' : date;
}

export function groupSessions(sessions: readonly SessionSummary[], opts: TimeOptions = {}): ProjectGroup[] {
  const byKey = new Map(sessions.map((s) => [s.sessionKey, s]));
  const children = new Map<string, SessionSummary[]>();
  const tops: SessionSummary[] = [];
  for (const s of sessions) {
    if (s.parentSessionKey && byKey.has(s.parentSessionKey)) {
      const list = children.get(s.parentSessionKey) ?? [];
      list.push(s);
      children.set(s.parentSessionKey, list);
    } else {
      tops.push(s);
    }
  }
  const newest = (s: SessionSummary): string => s.lastTime ?? s.firstTime ?? '';
  tops.sort((a, b) => newest(b).localeCompare(newest(a)));
  const projects = new Map<string, ProjectGroup>();
  for (const s of tops) {
    const p = projectOf(s);
    let project = projects.get(p.key);
    if (!project) {
      project = { key: p.key, label: p.label, cwd: p.cwd, count: 0, days: [] };
      projects.set(p.key, project);
    }
    const date = formatDate(newest(s), opts);
    let day = project.days.find((d) => d.date === date);
    if (!day) {
      day = { date, label: dayLabel(date, opts), sessions: [] };
      project.days.push(day);
    }
    const kids = (children.get(s.sessionKey) ?? []).sort((a, b) => (a.firstTime ?? '').localeCompare(b.firstTime ?? ''));
    day.sessions.push({ session: s, children: kids });
    project.count++;
  }
  // projects with the same label (two folders named alike) get their folder as a hint
  const list = [...projects.values()];
  for (const project of list) {
    if (project.cwd && list.some((o) => o !== project && o.label === project.label)) {
      project.label = `${project.label} (${project.cwd})`;
    }
  }
  return list;
}
