/**
 * What a search or fixes answer says about itself beside its hits, in the sentences the CLI prints under its answer
 * (server/memlens/cli/answer_notes.py, requests/pasted_text.py `left_out_note`, requests/calendar_days.py
 * `unread_date_note`, `ambiguous_date_note`): why the search was keyword-only or local-only, what of a long paste was
 * left out, the dates the query names that no calendar has, and those that read as two days. Pure (no `vscode`
 * import): unit-tested.
 */

import { counted } from './counted';
import { formatCount } from './format';
import type { AmbiguousDate, FixesResponse, LeftOut, PeriodEvent, SearchResponse, UnreadDate } from './protocol';

/**
 * `212 lines of the error after its first were left out (15,320 characters): its first line and its end were read
 * (3,987 characters)`; of one long line, `the first 1,000 characters of the query were left out: its end was read …`.
 * `what`: what was pasted ("query", "error").
 */
export function leftOutNote(leftOut: LeftOut, what: string): string {
  const read = `(${formatCount(leftOut.readChars)} characters)`;
  if (leftOut.firstLine) {
    return (
      `${counted(leftOut.lines, 'line')} of the ${what} after its first ${leftOut.lines === 1 ? 'was' : 'were'} left out ` +
      `(${formatCount(leftOut.chars)} characters): its first line and its end were read ${read}`
    );
  }
  return `the first ${formatCount(leftOut.chars)} characters of the ${what} were left out: its end was read ${read}`;
}

/**
 * `"February 30" is not a date (February has 29 days at most): left out of the search, no day read from it`, or
 * `searched as words` where it was all the query named (the CLI's `unread_date_note`).
 */
export function unreadDateNote(unread: UnreadDate): string {
  const done = unread.wordsSearched === false ? 'left out of the search' : 'searched as words';
  return `"${unread.text}" is not a date (${unread.reason}): ${done}, no day read from it`;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** `Fri 20 Feb 2026` (or without the year) for a YYYY-MM-DD day, in English whatever the locale. */
function shownDay(iso: string, withYear = true): string {
  const [year, month, day] = iso.split('-').map(Number);
  const weekday = WEEKDAYS[new Date(Date.UTC(year, month - 1, day)).getUTCDay()];
  const shown = `${weekday} ${String(day).padStart(2, '0')} ${MONTHS[month - 1].slice(0, 3)}`;
  return withYear ? `${shown} ${year}` : shown;
}

/**
 * `the offsite: Fri 20 Feb 2026 (stated in 9d3b6e21:f1d2721b: "Friday 20 Feb")`; said relative to the day the message
 * was written, that day too (`stated in s1:m1 on Thu 19 Feb: "tomorrow"`); `(the day its mentions were written)` when
 * none states a date; mentions that state other days counted, and why this one was taken (the CLI's
 * `event_day_note`).
 */
export function eventDayNote(event: PeriodEvent): string {
  let why = 'the day its mentions were written';
  if (event.stated && event.statedIn) {
    const on = event.statedOn ? ` on ${shownDay(event.statedOn, false)}` : '';
    why = `stated in ${event.statedIn}${on}: "${event.stated}"`;
  }
  if (event.otherDays?.length) {
    const mentions = event.mentions ?? 0;
    const total = mentions + event.otherDays.reduce((sum, other) => sum + other.mentions, 0);
    const reason = event.chosenBy === 'latest' ? 'the latest statement' : 'most mentions';
    const others = event.otherDays.map((other) => `${other.mentions} says ${shownDay(other.day, false)}`).join(', ');
    why += `; ${reason}: ${mentions} of ${total}, ${others}`;
  }
  return `the ${event.event}: ${shownDay(event.day)} (${why})`;
}

const MONTHS = [
  'January', 'February', 'March', 'April', 'May', 'June',
  'July', 'August', 'September', 'October', 'November', 'December',
];

/**
 * `"11/02/2026" could be 11 February or 2 November 2026: searched as words, no day read from it; write 2026-02-11 or
 * 2026-11-02 for a day` (the CLI's `ambiguous_date_note`).
 */
export function ambiguousDateNote(ambiguous: AmbiguousDate): string {
  const days = ambiguous.readings.map((iso) => iso.split('-').map(Number));
  const named = days.map(([, month, day]) => `${day} ${MONTHS[month - 1]}`).join(' or ');
  const years = [...new Set(days.map(([year]) => year))].sort((a, b) => a - b).join('/');
  return (
    `"${ambiguous.text}" could be ${named} ${years}: searched as words, no day read from it; ` +
    `write ${ambiguous.readings.join(' or ')} for a day`
  );
}

/**
 * The notes of a search answer, in the order the CLI prints them (its `note` first, as the CLI's line on stderr above
 * the hits, then what of the query was read): none when the answer has nothing to say about itself.
 */
export function searchNotes(
  response: Pick<SearchResponse, 'note' | 'leftOut' | 'unreadDates' | 'ambiguousDates' | 'period' | 'emptyIndex'>,
): string[] {
  const notes: string[] = [];
  if (response.note?.trim()) {
    notes.push(response.note.trim());
  }
  // an index that holds nothing: where it looked, and the setting that would find something (not a CLI flag)
  notes.push(...(response.emptyIndex?.settingLines ?? []));
  for (const event of [response.period?.event, response.period?.endEvent]) {
    if (event) {
      notes.push(eventDayNote(event));
    }
  }
  if (response.leftOut) {
    notes.push(leftOutNote(response.leftOut, 'query'));
  }
  notes.push(...(response.unreadDates ?? []).map(unreadDateNote));
  notes.push(...(response.ambiguousDates ?? []).map(ambiguousDateNote));
  return notes;
}

/** The notes of a fixes answer: what of a long pasted error was read. */
export function fixesNotes(response: Pick<FixesResponse, 'leftOut'>): string[] {
  return response.leftOut ? [leftOutNote(response.leftOut, 'error')] : [];
}

/**
 * A note as one QuickPick row: what happened as its label, the rest (after the last `: ` outside parentheses) as its
 * detail, so the sentence is read in two short lines rather than cut at the box's width.
 */
export function noteRowText(note: string): { label: string; detail?: string } {
  let depth = 0;
  let split = -1;
  for (let i = 0; i < note.length; i++) {
    const c = note[i];
    if (c === '(') {
      depth++;
    } else if (c === ')') {
      depth = Math.max(0, depth - 1);
    } else if (c === ':' && depth === 0 && note[i + 1] === ' ') {
      split = i;
    }
  }
  if (split <= 0) {
    return { label: note };
  }
  return { label: note.slice(0, split), detail: note.slice(split + 2) };
}

/**
 * A view's one-paragraph message: `summary`, then each note as a sentence of its own (the message is plain text, its
 * line breaks drawn as spaces): `No results for “…”. "February 30" is not a date (…): searched as words, ….`
 */
export function withNotes(summary: string, notes: readonly string[]): string {
  if (!notes.length) {
    return summary;
  }
  const sentences = [summary.replace(/\.$/, ''), ...notes.map((note) => note.charAt(0).toUpperCase() + note.slice(1))];
  return `${sentences.join('. ')}.`;
}
