import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { messageBody, renderTranscript } from '../../src/transcriptMarkdown';
import { rewriteHoverLinks } from '../../src/hoverLinks';
import type { HistoryResponse, SessionSummary } from '../../src/protocol';
import {
  applyCompletion,
  boldTerms,
  completionsFor,
  firstWords,
  formatAge,
  parseSearchInput,
  queryTerms,
  resolveTime,
  termRanges,
} from '../../src/query';
import { stderrLevel } from '../../src/serverLog';
import { groupSessions } from '../../src/sessionsModel';

const NOW = new Date('2026-02-20T12:00:00Z');

describe('hover links', () => {
  it('turns transcript and file links into trusted command links, leaving others alone', () => {
    const md = [
      '**memlens** · recall for `use_pgbouncer`',
      '',
      '- **87%** [pgbouncer keeps dropping](memlens-transcript:/claude-code%3Ac84f%2Fagent-1.md?message=m%201) · 2026-02-05 · claude-code · user  ',
      '- **60%** [Deploys](file:///ws/MEMORY.md#L12) · MEMORY.md:12  ',
      '- [elsewhere](https://example.com/x)',
    ].join('\n');
    const out = rewriteHoverLinks(md);
    const links = [...out.matchAll(/\]\((\S+)(?: "[^"]*")?\)/g)].map((m) => m[1]);
    assert.equal(links.length, 3);
    assert.ok(links[0].startsWith('command:memlens.openTranscript?'));
    assert.deepEqual(JSON.parse(decodeURIComponent(links[0].split('?')[1])), [{ sessionKey: 'claude-code:c84f/agent-1', messageId: 'm 1' }]);
    assert.ok(links[1].startsWith('command:memlens.openFileAt?'));
    assert.deepEqual(JSON.parse(decodeURIComponent(links[1].split('?')[1])), [{ uri: 'file:///ws/MEMORY.md', line: 12 }]);
    assert.equal(links[2], 'https://example.com/x');
    assert.ok(!out.includes('memlens-transcript:'), 'no dead transcript links left');
  });
});

describe('search filters', () => {
  it('splits the query from its filters and resolves relative times', () => {
    const p = parseSearchInput('how did we fix the DLQ role:user since:7d format:Codex session:claude-code:abc', NOW);
    assert.equal(p.query, 'how did we fix the DLQ');
    assert.deepEqual(p.filters, {
      role: 'user',
      since: '2026-02-13T12:00:00Z',
      format: 'codex',
      session: 'claude-code:abc',
    });
    assert.deepEqual(p.errors, []);
    assert.deepEqual(parseSearchInput('x until:2026-02-01 kind:memory', NOW).filters, { until: '2026-02-01', kind: 'memory' });
    // the server's words for days (relative_dates.py), sent as words: it reads them in its display zone
    assert.equal(resolveTime('today', NOW), 'today');
    assert.equal(resolveTime('Yesterday', NOW), 'yesterday');
    assert.equal(resolveTime('friday', NOW), 'friday');
    assert.equal(resolveTime('mon', NOW), 'mon');
    assert.equal(resolveTime('mond', NOW), undefined);
    // a part of a day said in one word, and a time on the clock: the server's words too, read in its display zone
    assert.equal(resolveTime('Tonight', NOW), 'tonight');
    assert.equal(resolveTime('14:00', NOW), '14:00');
    assert.equal(resolveTime('9am', NOW), '9am');
    assert.equal(resolveTime('2:30PM', NOW), '2:30pm');
    assert.equal(resolveTime('25:00', NOW), undefined);
    assert.equal(resolveTime('13pm', NOW), undefined);
    assert.deepEqual(parseSearchInput('deploy since:9am', NOW).filters, { since: '9am' });
    assert.equal(resolveTime('-3d', NOW), resolveTime('3d', NOW)); // the minus says the same 'ago'
    assert.equal(resolveTime('-3d', NOW), '2026-02-17T12:00:00Z');
    const bad = parseSearchInput('dlq role:robot since:soon kind:', NOW);
    assert.equal(bad.query, 'dlq');
    assert.equal(bad.errors.length, 3);
    assert.match(bad.errors[0], /role:robot is not one of user, assistant/);
    assert.match(bad.errors[1], /since:soon is not a duration/);
    assert.match(bad.errors[2], /kind: needs a value/);
    // a project by its folder's name (the server matches any case) or path
    const project = parseSearchInput('pool exhaustion project:Ledgerline', NOW);
    assert.equal(project.query, 'pool exhaustion');
    assert.deepEqual(project.filters, { project: 'Ledgerline' });
    assert.deepEqual(parseSearchInput('x project:/home/me/src/app', NOW).filters, { project: '/home/me/src/app' });
    assert.match(parseSearchInput('x project:', NOW).errors[0], /project: needs a value/);
    // a colon inside a word that is not a filter stays in the query
    assert.equal(parseSearchInput('error: pool_mode=transaction', NOW).query, 'error: pool_mode=transaction');
  });

  it('completes filter names, their values and sessions', () => {
    assert.deepEqual(completionsFor('dlq ro').map((c) => c.insert), ['role:']);
    assert.deepEqual(completionsFor('dlq role:').map((c) => c.insert), ['role:user', 'role:assistant']);
    assert.deepEqual(completionsFor('dlq role:a').map((c) => c.insert), ['role:assistant']);
    assert.deepEqual(completionsFor('dlq role:user'), []);
    assert.deepEqual(completionsFor('dlq '), []);
    assert.deepEqual(completionsFor('f').map((c) => c.insert), ['format:']);
    assert.deepEqual(completionsFor('x pro').map((c) => c.insert), ['project:']);
    const sessions = [
      { key: 'claude-code:5b0e', label: 'the orders DLQ is backing up' },
      { key: 'codex:019c', label: 'settlement test' },
    ];
    assert.deepEqual(completionsFor('x session:dlq', sessions).map((c) => c.insert), ['session:claude-code:5b0e']);
    assert.equal(applyCompletion('dlq ro', 'role:'), 'dlq role:');
    assert.equal(applyCompletion('dlq role:u', 'role:user'), 'dlq role:user ');
  });
});

describe('matched words', () => {
  it('finds the query words (not stop words or filters) at word starts', () => {
    assert.deepEqual(queryTerms('how did we fix the dead-letter queue? role:user'), ['letter', 'queue', 'dead', 'fix']);
    const text = 'We fixed the dead-letter queue; prefix stays.';
    assert.deepEqual(
      termRanges(text, ['fix', 'queue']).map(([a, b]) => text.slice(a, b)),
      ['fixed', 'queue'],
    );
    assert.equal(boldTerms('a *queue* backed', ['queue']), 'a \\***queue**\\* backed');
    assert.deepEqual(termRanges('x', []), []);
  });

  it('formats ages and first words', () => {
    assert.equal(formatAge('2026-02-20T11:59:30Z', NOW), 'just now');
    assert.equal(formatAge('2026-02-20T09:00:00Z', NOW), '3 h ago');
    assert.equal(formatAge('2026-02-17T12:00:00Z', NOW), '3 d ago');
    assert.equal(formatAge('2025-12-20T12:00:00Z', NOW), '2 mo ago');
    assert.equal(formatAge(undefined, NOW), '');
    assert.equal(firstWords('  …the orders   DLQ\nis backing up', 20), 'the orders DLQ is…');
  });
});

function session(overrides: Partial<SessionSummary>): SessionSummary {
  return {
    sessionKey: 'claude-code:a',
    sessionId: 'a',
    reference: 'a',
    format: 'claude-code',
    title: 'A',
    cwd: '/home/m/shop',
    project: 'shop',
    path: '/p/a.jsonl',
    firstTime: '2026-02-20T08:00:00Z',
    lastTime: '2026-02-20T09:00:00Z',
    messageCount: 3,
    filesTouched: [],
    filesTouchedTotal: 0,
    toolsUsed: [],
    parentSessionKey: null,
    resumeCommand: 'cd /home/m/shop && claude --resume a',
    ...overrides,
  };
}

describe('sessions view', () => {
  it('groups by project and day, newest first, subagents under their parent', () => {
    const projects = groupSessions(
      [
        session({}),
        session({ sessionKey: 'claude-code:a/agent-1', title: 'sub', parentSessionKey: 'claude-code:a' }),
        session({ sessionKey: 'claude-code:b', title: 'B', lastTime: '2026-02-19T10:00:00Z' }),
        session({ sessionKey: 'codex:c', format: 'codex', title: 'C', cwd: '/home/m/api', project: 'api', lastTime: '2026-02-21T10:00:00Z' }),
        session({ sessionKey: 'specstory:d', format: 'specstory', title: 'D', cwd: null, project: null, resumeCommand: null }),
      ],
      { utc: true, now: NOW },
    );
    assert.deepEqual(projects.map((p) => [p.label, p.count]), [['api', 1], ['shop', 2], ['other sessions', 1]]);
    const shop = projects[1];
    assert.deepEqual(shop.days.map((d) => d.label), ['Today', 'Yesterday']);
    assert.deepEqual(shop.days[0].sessions.map((s) => [s.session.title, s.children.map((c) => c.title)]), [['A', ['sub']]]);
  });
});

describe('transcript rendering', () => {
  const base: HistoryResponse = {
    sessionKey: 'claude-code:a/agent-1',
    sessionId: 'a',
    format: 'claude-code',
    path: '/p/a.jsonl',
    title: 'Trace routing',
    parentSessionKey: 'claude-code:a',
    resumeCommand: 'cd /ws && claude --resume a',
    anchor: null,
    hasMoreBefore: false,
    hasMoreAfter: false,
    messages: [
      {
        messageId: 'm1',
        role: 'assistant',
        kind: 'message',
        timestamp: '2026-02-10T08:00:00Z',
        text: '## Plan\n\nsteps:\n1. read\n\n```md\n# kept in code\n```\n[Bash] aws sqs get-queue-attributes \\ --queue-url https://x \\ --attribute-names All && echo done\n[Edit] file_path=/ws/routing.yaml old_string=a: b new_string=a: c',
        position: 0,
      },
    ],
  };

  it('keeps the outline: headings in messages escaped, code kept, tool calls as code blocks', () => {
    const { markdown } = renderTranscript(base, { utc: true });
    let inFence = false;
    const headings = markdown.split('\n').filter((l) => {
      if (/^(```|~~~)/.test(l)) {
        inFence = !inFence;
      }
      return !inFence && /^#{1,6} /.test(l);
    });
    assert.deepEqual(headings, ['# Trace routing', '### 🤖 assistant · 2026-02-10 08:00']);
    assert.match(markdown, /^\\## Plan$/m);
    assert.match(markdown, /^steps:\n1\. read$/m);
    assert.match(markdown, /```md\n# kept in code\n```/);
    assert.match(markdown, /🔧 \*\*Bash\*\* · `aws sqs get-queue-attributes [^\n]*`\n```sh\naws sqs get-queue-attributes \\\n {4}--queue-url https:\/\/x \\\n {4}--attribute-names All &&\n {2}echo done\n```/);
    assert.match(markdown, /🔧 \*\*Edit\*\* · `file_path=\/ws\/routing\.yaml old_string=a: b new_string=a: c`\n```text\nfile_path=\/ws\/routing\.yaml\nold_string=a: b\nnew_string=a: c\n```/);
  });

  it("keeps a tool output's first line indented as the tool printed it", () => {
    const output = '\n\n     1\tdef main():\n     2\t    return 0\n\n';
    const { markdown } = renderTranscript(
      { ...base, messages: [{ messageId: 't1', role: 'assistant', kind: 'tool', timestamp: null, text: output, position: 1 }] },
      { utc: true },
    );
    assert.match(markdown, /\n\n {5}1\tdef main\(\):\n {5}2\t {4}return 0\n/);
  });

  it('folds each tool call from its one-line summary to the end of its code block', () => {
    const rendered = renderTranscript(base, { utc: true });
    const lines = rendered.markdown.split('\n');
    assert.equal(rendered.toolRanges.length, 2);
    for (const [first, last] of rendered.toolRanges) {
      assert.match(lines[first], /^🔧 \*\*(Bash|Edit)\*\* · `/);
      assert.match(lines[first + 1], /^```(sh|text)$/);
      assert.equal(lines[last], '```');
    }
  });

  it("shows bracketed log lines (a person's, a tool's output) and a masked secret at a line's start as text, not as tool calls", () => {
    const said = (role: string, text: string, kind: 'message' | 'tool' = 'message') => ({ messageId: `${role}-${kind}`, role, kind, timestamp: null, text, position: 1 });
    const rendered = renderTranscript(
      {
        ...base,
        messages: [
          said('user', '[INFO] Building shop 1.0\n[ERROR] Failed to execute goal compile'),
          said('assistant', '[REDACTED:aws-access-key] is the key the deploy job used.\n[Bash] git status'),
          // a tool's output is the assistant's too (tool_output.py), and a build prints such lines
          said('assistant', '[Bash output · error] $ mvn package\n[INFO] Scanning for projects...', 'tool'),
        ],
      },
      { utc: true },
    );
    const lines = rendered.markdown.split('\n');
    assert.ok(lines.includes('[INFO] Building shop 1.0') && lines.includes('[ERROR] Failed to execute goal compile'), rendered.markdown);
    assert.ok(lines.includes('[INFO] Scanning for projects...'), rendered.markdown);
    assert.ok(lines.includes('[REDACTED:aws-access-key] is the key the deploy job used.'), rendered.markdown);
    assert.deepEqual(rendered.toolRanges.map(([first]) => lines[first]), ['🔧 **Bash** · `git status`']);
  });

  it('writes the title of a subagent link as it reads, without backslash escapes', () => {
    const { markdown } = renderTranscript(base, { utc: true }, {
      parent: { sessionKey: 'claude-code:a', title: 'Fix the dead-letter queue (DLQ) [prod] #42' },
    });
    assert.match(markdown, /↰ Subagent of \[Fix the dead-letter queue \(DLQ\) prod #42\]\(memlens-transcript:/);
    assert.ok(!/Subagent of [^\n]*\\/.test(markdown), markdown);
  });

  it('links the parent session and the subagents, and shows the resume command', () => {
    const { markdown } = renderTranscript(base, { utc: true }, {
      parent: { sessionKey: 'claude-code:a', title: 'Fix the DLQ' },
    });
    assert.match(markdown, /↰ Subagent of \[Fix the DLQ\]\(memlens-transcript:\/claude-code%3Aa\.md\)/);
    assert.match(markdown, /Resume: `cd \/ws && claude --resume a`/);
    const parent = renderTranscript({ ...base, sessionKey: 'claude-code:a', parentSessionKey: null }, { utc: true }, {
      children: [{ sessionKey: 'claude-code:a/agent-1', title: 'Trace routing', firstTime: '2026-02-10T08:01:00Z' }],
    }).markdown;
    assert.match(parent, /Subagents \(1\):\n\n- \[Trace routing\]\(memlens-transcript:\/claude-code%3Aa%2Fagent-1\.md\) · 2026-02-10 08:01/);
    assert.deepEqual(messageBody('plain\ntext'), ['plain', 'text']);
  });
});

describe('server log levels', () => {
  it('maps Python logging levels and demotes the pygls cancel warning', () => {
    assert.equal(stderrLevel('WARNING:pygls.protocol.json_rpc:Cancel notification for unknown message id "12"'), 'debug');
    assert.equal(stderrLevel('WARNING:memlens.lsp:bad setting'), 'warn');
    assert.equal(stderrLevel('INFO:memlens.engine:opened'), 'info');
    assert.equal(stderrLevel('ERROR:memlens.lsp:boom'), 'error');
    assert.equal(stderrLevel('Traceback (most recent call last):'), 'error');
    assert.equal(stderrLevel('  File "x.py", line 1'), 'error');
    assert.equal(stderrLevel('something else'), 'info');
  });
});
