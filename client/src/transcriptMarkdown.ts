/**
 * A session's history (`memlens.history`) rendered as the transcript viewer's markdown document: a title and facts,
 * links to parent and subagent sessions, one heading per message, tool calls as code blocks, and the line of each
 * message so the viewer can reveal it. Pure (no `vscode` import): unit-tested.
 */

import type { HistoryMessage, HistoryParams, HistoryResponse } from './protocol';
import { counted, countedOrNo } from './counted';
import { formatDateTime, formatTimeSpan, oneLine, type TimeOptions } from './format';
import { transcriptUriString } from './transcriptUri';

export interface RenderedTranscript {
  markdown: string;
  /** 0-based line of the anchor message's heading (0 when there is no anchor) */
  anchorLine: number;
  /** 0-based heading line of every message */
  messageLines: Record<string, number>;
  /** 0-based [first, last] lines of every tool call: its one-line summary, then its code block (folded by the viewer) */
  toolRanges: [number, number][];
}

/** Sessions linked to the one shown: its parent (for a subagent or sidechain) and its subagents. */
export interface RelatedSessions {
  parent?: { sessionKey: string; title?: string };
  children?: { sessionKey: string; title?: string; firstTime?: string | null }[];
}

const FENCE_RE = /^\s{0,3}(`{3,}|~{3,})/;

/** Close an unbalanced ``` / ~~~ fence so one message cannot swallow the rest of the document. */
function balanceFences(text: string): string {
  let open: string | undefined;
  for (const line of text.split('\n')) {
    const m = FENCE_RE.exec(line);
    if (!m) {
      continue;
    }
    if (!open) {
      open = m[1];
    } else if (m[1][0] === open[0] && m[1].length >= open.length && line.trim() === m[1]) {
      open = undefined;
    }
  }
  return open ? `${text}\n${open}` : text;
}

/** A tool call as the transcripts store it: `[Bash] command…`, `[Edit] file_path=… old_string=…`. */
const TOOL_CALL_RE = /^\[([A-Za-z_][\w.:-]{0,60})\] ?(.*)$/;
/** What memlens writes in place of a secret (`[REDACTED:github-token]`): a line may start with one, no tool has it. */
const SECRET_MARKER_RE = /^REDACTED:/;

/** A fence longer than any backtick run in `text`. */
function fenceFor(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
}

/** The one line a folded tool call shows: `🔧 **Bash** · git status && git diff…`. */
export function toolSummary(tool: string, args: string): string {
  const gist = oneLine(args.replace(/^command=/, '').replace(/`/g, "'"), 90);
  return `🔧 **${tool}**${gist ? ` · \`${gist}\`` : ''}`;
}

/**
 * A tool call as a one-line summary and a code block under it. Shell commands get their line continuations back
 * (the index stores tool inputs on one line: `… \\ --queue-url …` was `… \\⏎  --queue-url …`); other tools'
 * `name=value` arguments go one per line.
 */
function toolCallBlock(tool: string, args: string): string[] {
  const shell = /^(bash|shell|sh|exec|exec_command|local_shell|run_command|terminal)$/i.test(tool);
  let body = args;
  if (shell) {
    body = args.replace(/^command=/, '').replace(/ \\ +/g, ' \\\n    ').replace(/ (&&|\|\|) (?=\S)/g, ' $1\n  ');
  } else {
    body = args.replace(/ (?=[a-z_][a-z0-9_]{1,30}=)/gi, '\n');
  }
  const fence = fenceFor(body);
  return [toolSummary(tool, args), `${fence}${shell ? 'sh' : 'text'}`, ...body.split('\n'), fence];
}

/** A message's markdown lines and, relative to them, the [first, last] lines of each tool call. */
export interface MessageBody {
  lines: string[];
  tools: [number, number][];
}

/**
 * A message's text as markdown lines that keep the document's outline: code fences and newlines kept, headings
 * (`#`…`######`) outside code escaped (`\\##`) so they do not become sections, tool calls as a summary line over a
 * code block. Only an assistant's message holds tool calls (`withTools`): a person's pasted log line
 * (`[INFO] Building…`) stays what it was.
 */
export function messageBodyWithTools(text: string, withTools = true): MessageBody {
  const out: string[] = [];
  const tools: [number, number][] = [];
  let fence: string | undefined;
  for (const line of balanceFences(text).split('\n')) {
    const m = FENCE_RE.exec(line);
    if (fence) {
      out.push(line);
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length && line.trim() === m[1]) {
        fence = undefined;
      }
      continue;
    }
    if (m) {
      fence = m[1];
      out.push(line);
      continue;
    }
    const tool = withTools ? TOOL_CALL_RE.exec(line) : null;
    if (tool && tool[2] && !SECRET_MARKER_RE.test(tool[1])) {
      if (out.length && out[out.length - 1] !== '') {
        out.push('');
      }
      const block = toolCallBlock(tool[1], tool[2]);
      tools.push([out.length, out.length + block.length - 1]);
      out.push(...block, '');
      continue;
    }
    out.push(/^\s{0,3}#{1,6}(\s|$)/.test(line) ? line.replace(/#/, '\\#') : line);
  }
  while (out.length && out[out.length - 1] === '') {
    out.pop();
  }
  return { lines: out, tools };
}

export function messageBody(text: string): string[] {
  return messageBodyWithTools(text).lines;
}

export function messageHeading(message: HistoryMessage, opts: TimeOptions = {}, anchor = false): string {
  const isSummary = message.kind === 'summary';
  const who = isSummary ? 'summary' : message.kind === 'tool' ? 'tool output' : message.role || 'message';
  const when = formatDateTime(message.timestamp, opts);
  const mark = anchor ? ' · ⭐ match' : '';
  return `### ${roleIcon(message.role, message.kind)} ${who}${when ? ` · ${when}` : ''}${mark}`;
}

/**
 * A link to another session, its title as the text. The document is read as text in an editor, where backslash
 * escapes show as they are: the title keeps its characters, only the brackets that would end the link text go.
 */
function sessionLink(sessionKey: string, title: string | undefined): string {
  const text = oneLine(title || sessionKey, 100).replace(/[[\]]/g, ' ').replace(/\s+/g, ' ').trim();
  return `[${text}](${transcriptUriString({ sessionKey })})`;
}

/**
 * Render a session as readable markdown: a title and facts, links to its parent session and its subagents, then a
 * heading per message (`### 🧑 user · date`), summaries as quotes. Returns the line of the anchored message so the
 * viewer can reveal it.
 */
export function renderTranscript(history: HistoryResponse, opts: TimeOptions = {}, related: RelatedSessions = {}): RenderedTranscript {
  const lines: string[] = [];
  const messageLines: Record<string, number> = {};
  const toolRanges: [number, number][] = [];
  const title = history.title?.trim() || `Session ${history.sessionId || history.sessionKey}`;
  lines.push(`# ${oneLine(title, 160).replace(/#/g, '\\#')}`, '');
  const times = history.messages.map((m) => m.timestamp).filter((t): t is string => !!t).sort();
  const span = formatTimeSpan(times[0], times[times.length - 1], opts);
  const facts = [
    history.format ? `**${history.format}**` : '',
    history.sessionId ? `session \`${history.sessionId}\`` : '',
    span,
    messageCount(history),
  ].filter(Boolean);
  lines.push(facts.join(' · '), '');
  if (history.path) {
    lines.push(`Source: \`${history.path}\``, '');
  }
  if (history.resumeCommand) {
    lines.push(`Resume: \`${history.resumeCommand.replace(/`/g, '')}\``, '');
  }
  const parentKey = related.parent?.sessionKey ?? history.parentSessionKey ?? undefined;
  if (parentKey) {
    lines.push(`↰ Subagent of ${sessionLink(parentKey, related.parent?.title)}`, '');
  }
  if (related.children?.length) {
    lines.push(`Subagents (${related.children.length}):`, '');
    for (const child of related.children) {
      const when = formatDateTime(child.firstTime, opts);
      lines.push(`- ${sessionLink(child.sessionKey, child.title)}${when ? ` · ${when}` : ''}`);
    }
    lines.push('');
  }
  if (history.hasMoreBefore) {
    lines.push(`> ⋯ earlier messages are not shown — ${SHOW_EARLIER}`, '');
  }
  lines.push('---', '');
  let anchorLine = 0;
  for (const message of history.messages) {
    const isAnchor = !!history.anchor && message.messageId === history.anchor;
    const headingLine = lines.length;
    messageLines[message.messageId] = headingLine;
    if (isAnchor) {
      anchorLine = headingLine;
    }
    lines.push(messageHeading(message, opts, isAnchor), '');
    // blank lines around the text go, the first line's indent stays (`cat -n` output: "     1\tdef …")
    const text = (message.text ?? '').replace(/\r\n?/g, '\n').replace(/^(?:[ \t]*\n)+/, '').trimEnd();
    if (!text) {
      lines.push('_(empty)_');
    } else if (message.kind === 'summary') {
      for (const line of messageBody(text)) {
        lines.push(line ? `> ${line}` : '>');
      }
    } else {
      // tool calls are an assistant's: a tool's output (kind 'tool', also the assistant's) prints '[INFO] …' lines
      const body = messageBodyWithTools(text, message.kind !== 'tool' && (message.role ?? '').toLowerCase() === 'assistant');
      const offset = lines.length;
      toolRanges.push(...body.tools.map(([a, b]): [number, number] => [a + offset, b + offset]));
      lines.push(...body.lines);
    }
    lines.push('');
  }
  if (history.messages.length === 0) {
    lines.push('_No messages._', '');
  }
  if (history.hasMoreAfter) {
    lines.push('> ⋯ later messages are not shown', '');
  }
  return { markdown: lines.join('\n'), anchorLine, messageLines, toolRanges };
}

/** The words of the line above the first shown message that the viewer makes a link loading the page before it. */
export const SHOW_EARLIER = 'show earlier messages';

/** How many messages one "show earlier messages" loads. */
export const EARLIER_PAGE = 200;

/**
 * The history request for the page before the first shown message, or none at the session's start. The request
 * centres its window on its anchor ((limit - 1) / 2 messages before it), so the first shown message anchors a window
 * twice the page: its earlier half is the page (`earlierMessages`).
 */
export function earlierPageParams(history: HistoryResponse): HistoryParams | undefined {
  const first = history.messages[0]?.messageId;
  if (!history.hasMoreBefore || !first) {
    return undefined;
  }
  return { sessionKey: history.sessionKey, messageId: first, limit: 2 * EARLIER_PAGE + 1 };
}

/**
 * The shown history with the page before it (`page`, anchored on the shown first message) put in front. The anchor
 * stays the shown one: the message the page was anchored on is where the reader was, not a match.
 */
export function withEarlierPage(history: HistoryResponse, page: HistoryResponse): HistoryResponse {
  const first = history.messages[0];
  const cut = first ? page.messages.findIndex((m) => m.messageId === first.messageId) : -1;
  if (cut < 0) {
    return history; // the session changed under the viewer: the page does not join the shown messages
  }
  return { ...history, messages: [...page.messages.slice(0, cut), ...history.messages], hasMoreBefore: page.hasMoreBefore };
}

/**
 * The line showing what `topLine` showed before the document was re-rendered with more messages: the same line of
 * the same message (the last message heading at or above it), or as far above the first message as it was.
 */
export function keptTopLine(before: Record<string, number>, after: Record<string, number>, topLine: number): number {
  let reading: string | undefined;
  let firstId: string | undefined;
  for (const [id, line] of Object.entries(before)) {
    if (line <= topLine && (reading === undefined || line > before[reading]) && id in after) {
      reading = id;
    }
    if (firstId === undefined || line < before[firstId]) {
      firstId = id;
    }
  }
  const ref = reading ?? firstId;
  if (ref === undefined || !(ref in after)) {
    return topLine;
  }
  return Math.max(0, after[ref] + topLine - before[ref]);
}

/**
 * How many messages the document shows, counted as the Sessions view counts them: tool outputs and compaction
 * summaries apart (they are not messages of the conversation), and "shown" when the history is a window of a longer
 * session.
 */
export function messageCount(history: Pick<HistoryResponse, 'messages' | 'hasMoreBefore' | 'hasMoreAfter'>): string {
  const of = (kind: HistoryMessage['kind']): number => history.messages.filter((m) => m.kind === kind).length;
  const partial = history.hasMoreBefore || history.hasMoreAfter ? ' shown' : '';
  return [
    `${countedOrNo(of('message'), 'message')}${partial}`,
    of('tool') ? counted(of('tool'), 'tool output') : '',
    of('summary') ? counted(of('summary'), 'summary', 'summaries') : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

export function roleIcon(role: string | undefined, kind: HistoryMessage['kind'] = 'message'): string {
  if (kind === 'summary') {
    return '📝';
  }
  if (kind === 'tool') {
    return '🔧';
  }
  switch ((role ?? '').toLowerCase()) {
    case 'user':
    case 'human':
      return '🧑';
    case 'assistant':
    case 'ai':
    case 'model':
      return '🤖';
    case 'system':
    case 'developer':
      return '⚙️';
    case 'tool':
    case 'function':
      return '🔧';
    default:
      return '💬';
  }
}
