import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { rewriteHoverLinks } from '../../src/hoverLinks';
import { describeFilter, filterTokens, noResultsText } from '../../src/query';
import { type MachineProbe, missingForResume, resumeNeeds } from '../../src/resumeCheck';
import { parseTranscriptUri, tabTitle, transcriptUriComponents } from '../../src/transcriptUri';

describe('transcript tabs titled by the session', () => {
  it('puts the title in the path (what the tab shows) and the session key in the query', () => {
    const c = transcriptUriComponents({ sessionKey: 'claude-code:5b0e/agent-1', messageId: 'm 1', title: 'Fix the DLQ backup' });
    assert.deepEqual(c, {
      scheme: 'memlens-transcript',
      path: '/Fix the DLQ backup.md',
      query: 'session=claude-code%3A5b0e%2Fagent-1&message=m%201',
    });
    assert.deepEqual(parseTranscriptUri(c.path, decodeURIComponent(c.query).replace('5b0e/agent-1', '5b0e%2Fagent-1')), {
      sessionKey: 'claude-code:5b0e/agent-1',
      messageId: 'm 1',
      title: 'Fix the DLQ backup',
    });
  });

  it('keeps tab titles short and free of path and URI separators', () => {
    assert.equal(tabTitle('a/b\\c?d#e%f'), 'a b c d e f');
    const long = tabTitle('Work on bead spotter-dov. Run bd show spotter-dov and then fix every failing test in the suite');
    assert.ok(long.endsWith('…') && long.length <= 49, long);
    assert.equal(tabTitle('   '), '');
    // no title: the key names the document, as the server's links do
    assert.equal(transcriptUriComponents({ sessionKey: 'k', title: ' ' }).path, '/k.md');
  });
});

describe('hover links', () => {
  it('keeps the session title of a transcript link as its tooltip and passes it on for the tab', () => {
    const md = '- **80%** [The DLQ was backed up…](memlens-transcript:/claude-code%3Aabc.md?message=m1 "Work on \\"bead\\" dov") · x';
    const out = rewriteHoverLinks(md);
    const m = /\]\((command:memlens\.openTranscript\?\S+) "((?:[^"\\]|\\.)*)"\)/.exec(out);
    assert.ok(m, out);
    assert.deepEqual(JSON.parse(decodeURIComponent(m[1].split('?')[1])), [
      { sessionKey: 'claude-code:abc', messageId: 'm1', title: 'Work on "bead" dov' },
    ]);
    assert.equal(m[2], 'Work on \\"bead\\" dov — open the transcript at this message');
    assert.ok(out.startsWith('- **80%** [The DLQ was backed up…]('), 'the label is the hit’s own first words');
  });
});

describe('an empty QuickPick names the filter that emptied it', () => {
  it('describes each kind of filter', () => {
    assert.equal(describeFilter('since:30d'), 'since 30 days ago');
    assert.equal(describeFilter('until:1w'), 'until 1 week ago');
    assert.equal(describeFilter('since:2026-02-01'), 'since 2026-02-01');
    assert.equal(describeFilter('role:user'), 'with role:user');
  });

  it('names the typed filters and how to widen the search', () => {
    assert.deepEqual(filterTokens('dlq  since:30d role:user since:bogus'), ['since:30d', 'role:user']);
    assert.deepEqual(noResultsText('dlq since:30d', false), {
      label: 'No results since 30 days ago',
      detail: 'Remove since:30d to search everything.',
    });
    assert.equal(noResultsText('dlq since:30d kind:memory', false).label, 'No results since 30 days ago, with kind:memory');
    assert.equal(noResultsText('dlq', false).label, 'No results');
    assert.match(noResultsText('dlq', true).detail, /still being built/);
    // weaker matches withheld: the row says how to see them, not which setting to look up
    assert.deepEqual(noResultsText('capital of Mongolia', false, 7), {
      label: 'No results',
      detail: 'Press Enter to see the 7 weaker matches in the sidebar, or try other words.',
      showsWeaker: true,
    });
    assert.match(noResultsText('dlq', false, 1).detail, /the 1 weaker match in/);
    assert.match(noResultsText('dlq', true, 2).detail, /2 weaker matches .*still being built/);
    assert.equal(noResultsText('dlq', false, 0).detail, 'Try other words, or check memlens.search.minScore.');
    assert.equal(noResultsText('dlq since:30d', false, 3).detail, 'Remove since:30d to search everything.');
  });
});

describe('resume in terminal checks first', () => {
  function machine(dirs: string[], files: string[]): MachineProbe {
    return {
      isDirectory: (p) => dirs.includes(p),
      isFile: (p) => files.includes(p),
      pathEntries: ['/usr/bin', '/home/u/.local/bin'],
      suffixes: [''],
    };
  }

  it('reads the folder and the program from the command as the server writes it', () => {
    assert.deepEqual(resumeNeeds("cd '/ws/my project' && claude --resume 5b0e"), { folder: '/ws/my project', program: 'claude' });
    assert.deepEqual(resumeNeeds(`cd '/ws/it'"'"'s' && claude --resume x`), { folder: "/ws/it's", program: 'claude' });
    assert.deepEqual(resumeNeeds('codex resume 019a', '/ws'), { folder: '/ws', program: 'codex' });
    assert.deepEqual(resumeNeeds('codex resume 019a'), { program: 'codex' });
  });

  it('names what is missing on this machine', () => {
    const needs = resumeNeeds('cd /elsewhere && claude --resume x');
    assert.deepEqual(missingForResume(needs, machine([], [])), ['the folder /elsewhere does not exist here', 'claude is not on PATH']);
    assert.deepEqual(missingForResume(needs, machine(['/elsewhere'], [path.join('/home/u/.local/bin', 'claude')])), []);
    assert.deepEqual(missingForResume({ program: '/opt/codex' }, machine([], ['/opt/codex'])), []);
  });
});
