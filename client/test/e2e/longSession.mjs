// A long Claude Code session written into a temporary folder for the e2e: the bundled example's sessions are all
// under 100 messages (tests and benchmarks count on them as they are), so its transcripts never offer "show earlier
// messages". This one has ROUNDS rounds of a question, a Bash call, its output and a reply: 4 messages each, more
// than the viewer's first window of 200 holds, and tool outputs the viewer must not fold (only the calls).
//
// Its words are its own (tide tables, a harbour): no query the e2e types finds it, and its times are a month before
// the example's, so its project is the last in the Sessions view.

import * as fs from 'node:fs';
import * as path from 'node:path';

export const LONG_SESSION_ID = '7e1d0c55-3b9a-4f2e-8d61-a4c2e9f0b713';
/** Four messages a round: the session has 4 × ROUNDS (history counts the tool outputs too). */
export const LONG_SESSION_ROUNDS = 70;
/** A word only the long session's last reply holds: the e2e searches it to open the session at its end. */
export const LONG_SESSION_LAST_WORD = 'kelpmarker';
export const LONG_SESSION_TITLE = 'Harbour tide tables: the nightly import';

const CWD = '/home/maren/code/tidewatch';

/** The words of round `i`'s question, unique to the round: the e2e looks for them on the screen. */
export function questionText(i) {
  return `tide round ${i}: does the ${i % 2 ? 'ebb' : 'flood'} import for pier ${i} still drift?`;
}

/** The first line a round's Bash call prints (its output's second line): never a folded line's. */
export function outputLine(i) {
  return `pier-${i} high water 0${i % 10}:1${i % 6} ok`;
}

/**
 * Round `i`'s Bash output: 1 to 5 lines, so the rounds are not alike line for line (a document repeating one shape
 * hides a fold put on the wrong line: it lands on a line like the right one).
 */
function outputText(i) {
  const readings = Array.from({ length: 4 + ((i * 7) % 19) }, (_, k) => `  ${String(k).padStart(2, '0')}:00  level ${(i * 31 + k * 17) % 400} cm  gauge pier-${i}/${k}  status ok`);
  return [outputLine(i), ...readings, `pier-${i} drift 0.${i % 9} cm`].join('\n');
}

/** The session's JSONL records, oldest first. */
function records() {
  const out = [];
  let parent = null;
  let clock = Date.parse('2026-01-09T07:00:00Z');
  const base = { isSidechain: false, userType: 'external', cwd: CWD, sessionId: LONG_SESSION_ID, version: '2.1.38', gitBranch: 'main' };
  const push = (record) => {
    clock += 20_000;
    const uuid = `${LONG_SESSION_ID.slice(0, 8)}-0000-4000-8000-${String(out.length).padStart(12, '0')}`;
    out.push({ parentUuid: parent, ...base, ...record, uuid, timestamp: new Date(clock).toISOString() });
    parent = uuid;
  };
  out.push({ type: 'summary', summary: LONG_SESSION_TITLE, leafUuid: 'none' });
  for (let i = 1; i <= LONG_SESSION_ROUNDS; i++) {
    const tool = `toolu_tide${String(i).padStart(4, '0')}`;
    push({ type: 'user', message: { role: 'user', content: questionText(i) } });
    push({
      type: 'assistant',
      message: {
        model: 'claude-opus-4-6',
        id: `msg_tide_call_${i}`,
        type: 'message',
        role: 'assistant',
        content: [
          { type: 'text', text: `Reading pier ${i}'s import log.` },
          { type: 'tool_use', id: tool, name: 'Bash', input: { command: `tidectl log --pier ${i} --tail 3`, description: `pier ${i} log` } },
        ],
      },
    });
    push({
      type: 'user',
      message: { role: 'user', content: [{ tool_use_id: tool, type: 'tool_result', content: outputText(i), is_error: false }] },
    });
    const reply =
      i === LONG_SESSION_ROUNDS
        ? `Pier ${i} is steady; the ${LONG_SESSION_LAST_WORD} import is done.`
        : `Pier ${i} drifts ${i % 9} mm: within bounds.${i % 3 ? '' : `\n\nThe gauge at pier ${i} reads ${i * 7}.`}`;
    push({ type: 'assistant', message: { model: 'claude-opus-4-6', id: `msg_tide_reply_${i}`, type: 'message', role: 'assistant', content: [{ type: 'text', text: reply }] } });
  }
  return out;
}

/** Writes the session as `<dir>/claude-code/<id>.jsonl`; returns the folder to index. */
export function writeLongSession(dir) {
  const folder = path.join(dir, 'claude-code');
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, `${LONG_SESSION_ID}.jsonl`), `${records().map((r) => JSON.stringify(r)).join('\n')}\n`);
  return dir;
}
