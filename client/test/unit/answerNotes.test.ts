import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixesNotes, leftOutNote, noteRowText, searchNotes, unreadDateNote, withNotes } from '../../src/answerNotes';
import type { SearchResponse } from '../../src/protocol';

function answer(overrides: Partial<SearchResponse> = {}): SearchResponse {
  return {
    query: 'what did we do on February 30',
    mode: 'hybrid',
    results: [],
    totalResults: 0,
    searchTimeMs: 12,
    indexing: false,
    withheld: 0,
    ...overrides,
  };
}

// the sentences below are the CLI's, as server/memlens/requests (left_out_note, unread_date_note) prints them
describe('what an answer says about itself (the CLI notes)', () => {
  it('says nothing when the answer has no note, left nothing out and read every date', () => {
    assert.deepEqual(searchNotes(answer()), []);
    assert.deepEqual(searchNotes(answer({ note: '  ', unreadDates: [] })), []);
    assert.deepEqual(fixesNotes({}), []);
  });

  it('says an empty index is empty, naming the setting that would find something, not a flag', () => {
    const find = { folder: '/w/x', count: 2, more: false, flag: '--transcripts /w/x', setting: "'/w/x' in memlens.transcripts.paths" };
    const looked = 'the index is empty: looked in /w for MEMORY.md';
    const emptyIndex = {
      workspaces: ['/w'],
      memoryFiles: ['MEMORY.md'],
      transcriptFolders: [],
      scope: 'workspace',
      finds: [find],
      lines: [looked, '2 transcript files are under /w/x: --transcripts /w/x reads them'],
      settingLines: [looked, "2 transcript files are under /w/x: '/w/x' in memlens.transcripts.paths reads them"],
    };
    assert.deepEqual(searchNotes(answer({ emptyIndex })), emptyIndex.settingLines);
  });

  it('says which day the event a period is counted from was taken to be, and why (as event_day_note does)', () => {
    const period = { since: '2026-02-13T00:00:00+00:00', until: '2026-02-19T23:59:59+00:00', timeZone: 'UTC' };
    const stated = { event: 'offsite', offset: 'the week before', day: '2026-02-20', stated: 'Friday 20 Feb', statedIn: '9d3b6e21:f1d2721b' };
    assert.deepEqual(searchNotes(answer({ period: { ...period, event: stated } })), [
      'the offsite: Fri 20 Feb 2026 (stated in 9d3b6e21:f1d2721b: "Friday 20 Feb")',
    ]);
    const written = { event: 'launch', offset: 'two days after', day: '2026-03-01' };
    assert.deepEqual(searchNotes(answer({ period: { ...period, event: written } })), [
      'the launch: Sun 01 Mar 2026 (the day its mentions were written)',
    ]);
    assert.deepEqual(searchNotes(answer({ period })), []);
  });

  it('says a relative statement with the day it was written, mentions that disagree, and both ends of a span', () => {
    const period = { since: '2024-03-01T00:00:00+00:00', until: '2024-03-12T23:59:59+00:00', timeZone: 'UTC' };
    const offset = 'between the offsite and the launch';
    const offsite = { event: 'offsite', offset, day: '2024-03-01', stated: 'tomorrow', statedIn: 'r2:m1', statedOn: '2024-02-29' };
    const launch = {
      event: 'launch', offset, day: '2024-03-12', stated: 'next Tuesday', statedIn: 'r3:m1', statedOn: '2024-03-04',
      mentions: 2, otherDays: [{ day: '2024-03-06', mentions: 1 }], chosenBy: 'most' as const,
    };
    assert.deepEqual(searchNotes(answer({ period: { ...period, event: offsite, endEvent: launch } })), [
      'the offsite: Fri 01 Mar 2024 (stated in r2:m1 on Thu 29 Feb: "tomorrow")',
      'the launch: Tue 12 Mar 2024 (stated in r3:m1 on Mon 04 Mar: "next Tuesday"; most mentions: 2 of 3, 1 says Wed 06 Mar)',
    ]);
    const latest = { ...launch, mentions: 1, chosenBy: 'latest' as const };
    assert.match(searchNotes(answer({ period: { ...period, event: latest } }))[0], /; the latest statement: 1 of 2, 1 says Wed 06 Mar\)$/);
  });

  it("passes the server's note on as written (keyword-only search, an unreachable team index)", () => {
    const note = 'no embedding model (no vectors yet); keyword search only';
    assert.deepEqual(searchNotes(answer({ note })), [note]);
  });

  it('says what of a long paste was read: its first line and end, in counts with thousands separated', () => {
    const leftOut = { chars: 15320, lines: 212, readChars: 3987, firstLine: true };
    assert.equal(
      leftOutNote(leftOut, 'query'),
      '212 lines of the query after its first were left out (15,320 characters): its first line and its end were read (3,987 characters)',
    );
    assert.equal(
      leftOutNote({ ...leftOut, lines: 1 }, 'error'),
      '1 line of the error after its first was left out (15,320 characters): its first line and its end were read (3,987 characters)',
    );
  });

  it('says of one long line that only its end was read', () => {
    assert.equal(
      leftOutNote({ chars: 1000, lines: 1, readChars: 4000, firstLine: false }, 'query'),
      'the first 1,000 characters of the query were left out: its end was read (4,000 characters)',
    );
  });

  it('names each date no calendar has and why', () => {
    assert.equal(
      unreadDateNote({ text: 'February 30', reason: 'February has 29 days at most' }),
      '"February 30" is not a date (February has 29 days at most): searched as words, no day read from it',
    );
    assert.equal(
      unreadDateNote({ text: 'April 31', reason: 'April has 30 days', wordsSearched: false }),
      '"April 31" is not a date (April has 30 days): left out of the search, no day read from it',
    );
  });

  it("lists a search's notes in the CLI's order: the server's note, what of the query was read, then the dates", () => {
    const notes = searchNotes(
      answer({
        note: 'no embedding model (no vectors yet); keyword search only',
        leftOut: { chars: 9000, lines: 40, readChars: 4000, firstLine: true },
        unreadDates: [
          { text: 'February 30', reason: 'February has 29 days at most' },
          { text: '2026-13-01', reason: 'there is no month 13' },
        ],
      }),
    );
    assert.deepEqual(notes, [
      'no embedding model (no vectors yet); keyword search only',
      '40 lines of the query after its first were left out (9,000 characters): its first line and its end were read (4,000 characters)',
      '"February 30" is not a date (February has 29 days at most): searched as words, no day read from it',
      '"2026-13-01" is not a date (there is no month 13): searched as words, no day read from it',
    ]);
  });

  it('names both days a numeric date may be, and how to write the one meant, after the impossible dates', () => {
    const notes = searchNotes(
      answer({
        unreadDates: [{ text: 'February 30', reason: 'February has 29 days at most' }],
        ambiguousDates: [{ text: '11/02/2026', readings: ['2026-02-11', '2026-11-02'] }],
      }),
    );
    assert.deepEqual(notes, [
      '"February 30" is not a date (February has 29 days at most): searched as words, no day read from it',
      '"11/02/2026" could be 11 February or 2 November 2026: searched as words, no day read from it; write 2026-02-11 or 2026-11-02 for a day',
    ]);
    assert.deepEqual(noteRowText(notes[1]), {
      label: '"11/02/2026" could be 11 February or 2 November 2026',
      detail: 'searched as words, no day read from it; write 2026-02-11 or 2026-11-02 for a day',
    });
  });

  it('says of a fixes answer what of the pasted error was read (the error, not the query)', () => {
    assert.deepEqual(fixesNotes({ leftOut: { chars: 500, lines: 1, readChars: 4000, firstLine: false } }), [
      'the first 500 characters of the error were left out: its end was read (4,000 characters)',
    ]);
  });
});

describe('a note as a QuickPick row', () => {
  it('splits at the last colon outside parentheses: what happened, then what was done about it', () => {
    assert.deepEqual(noteRowText('"February 30" is not a date (February has 29 days at most): searched as words, no day read from it'), {
      label: '"February 30" is not a date (February has 29 days at most)',
      detail: 'searched as words, no day read from it',
    });
  });

  it('keeps a note without such a colon whole (a colon inside parentheses is part of a reason)', () => {
    const note = 'the team index was unreachable (connect: connection refused); local results only';
    assert.deepEqual(noteRowText(note), { label: note });
  });
});

describe("a view's message with the notes", () => {
  it('is the summary alone when there is no note', () => {
    assert.equal(withNotes('3 results for “refunds” in 12 ms', []), '3 results for “refunds” in 12 ms');
  });

  it('adds each note as a sentence of its own after the summary', () => {
    assert.equal(
      withNotes('No results for “what did we do on February 30”.', [
        unreadDateNote({ text: 'February 30', reason: 'February has 29 days at most' }),
        'no embedding model (no vectors yet); keyword search only',
      ]),
      'No results for “what did we do on February 30”. "February 30" is not a date (February has 29 days at most): searched as words, no day read from it. No embedding model (no vectors yet); keyword search only.',
    );
  });
});
