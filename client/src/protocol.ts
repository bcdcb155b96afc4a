/**
 * The memlens language server's custom protocol: `workspace/executeCommand` commands (one object argument each)
 * and the `memlens/indexStatus` notification. The client's one source for the wire format; tests/test_protocol.py
 * holds every interface here to what the server really answers and accepts (each key, both ways), so a field the
 * server adds or drops fails that test until it is written down here and in docs/lsp-api.md. Keep each interface
 * to `field?: type;` lines and name nested objects (no inline `{ … }` types): that test reads this file. The
 * bounds and defaults in the request fields' comments are memlens.requests' (tests/test_requests.py holds them
 * to it).
 */

export type HitKind = 'memory' | 'transcript' | 'summary' | 'tool';
export type Confidence = 'strong' | 'possible' | 'weak';
export type SearchMode = 'hybrid' | 'keyword' | 'vector';
export type AgentFormat = 'claude-code' | 'codex' | 'openclaw' | 'specstory';
export type FusionMode = 'weighted' | 'rrf' | 'rescue';

export const Commands = {
  search: 'memlens.search',
  history: 'memlens.history',
  sessions: 'memlens.sessions',
  stats: 'memlens.stats',
  reindex: 'memlens.reindex',
  sources: 'memlens.sources',
  removeSource: 'memlens.removeSource',
  context: 'memlens.context',
  fixes: 'memlens.fixes',
  summariesGrep: 'memlens.summaries.grep',
  summariesDescribe: 'memlens.summaries.describe',
  summariesExpand: 'memlens.summaries.expand',
} as const;

export const IndexStatusNotification = 'memlens/indexStatus';
/** the folders the index holds (and keeps searching) that the server's settings no longer name */
export const UnnamedSourcesNotification = 'memlens/unnamedSources';

export interface SearchFilters {
  kind?: HitKind;
  format?: AgentFormat;
  /** a working folder's name (any case) or path (and its subfolders) */
  project?: string;
  session?: string;
  role?: 'user' | 'assistant';
  /** ISO date/time */
  since?: string;
  until?: string;
}

export interface SearchParams {
  /** at most 4000 characters */
  query: string;
  /** 1..100, default `memlens.search.maxResults` */
  limit?: number;
  mode?: SearchMode;
  fusion?: FusionMode;
  filters?: SearchFilters;
  explain?: boolean;
  /** 0..1, default `memlens.search.minScore` (finite) */
  minScore?: number;
}

/** A query or pasted error longer than the bound: its first line and its end were read, the lines between them not. */
export interface LeftOut {
  /** characters left out, after the first line (from the start, for one long line) */
  chars: number;
  /** lines left out (the last of them in part when one line alone was over the bound) */
  lines: number;
  /** characters read: the first line, "…", and the end from a line's start */
  readChars: number;
  /** the first line was read (false for one long line: only its tail was) */
  firstLine: boolean;
}

/**
 * A date the query names that no calendar has ("February 30", "2026-13-01"): no day read from it, and its words searched
 * only when the rest of the query names no topic (else the rest is ranked without it).
 */
export interface UnreadDate {
  /** as the query writes it */
  text: string;
  /** why it is no day: "February has 29 days at most", "there is no month 13" */
  reason: string;
  /** its words took part in the ranking (absent from an older server, which always searched them) */
  wordsSearched?: boolean;
}

/**
 * A numeric date whose day and month may be read either way ("11/02/2026": 11 February or 2 November): no day read from
 * it, its words searched.
 */
export interface AmbiguousDate {
  /** as the query writes it */
  text: string;
  /** the days it may be, as ISO dates ("2026-02-11", "2026-11-02"), earliest first */
  readings: string[];
}

/** How a hit was scored (`explain: true`). */
export interface Explain {
  /** the search unit (one message, or one part of a long message) that matched */
  unitId: number;
  /** raw BM25 */
  bm25: number;
  /** BM25 normalised by the best keyword hit (0..1) */
  keyword: number;
  /** the fused keyword + vector score, before neighbour context */
  fused: number;
  /** what neighbour context, the date boost and the tool-call penalty changed (rankScore − fused) */
  context: number;
  /** the score the hits are ranked by */
  rankScore: number;
  /** the calibrated chance of relevance */
  probability: number;
  /** cosine similarity; null without vectors */
  vector: number | null;
  /** 0-based rank among the keyword retriever's hits, null when it did not return this unit */
  keywordRank: number | null;
  /** 0-based rank among the vector retriever's hits, null when it did not return this unit */
  vectorRank: number | null;
}

export interface SearchResult {
  id: string;
  kind: HitKind;
  /** 0..1 */
  score: number;
  /** absolute file path */
  path: string;
  /** workspace-relative when inside the workspace */
  relPath: string;
  /** 1-based (memory hits; a transcript hit's `lineStart` is its message's line); null when the index has none */
  lineStart?: number | null;
  lineEnd?: number | null;
  /** null for the text before a note's first heading */
  heading?: string | null;
  /** agent format (transcripts and summaries) */
  format?: string;
  /** null when the index holds no session for the hit */
  sessionKey?: string | null;
  sessionId?: string | null;
  /** `SESSION:MESSAGE`, the short name a terminal prints and memlens.history opens */
  reference?: string;
  /** the best-matching message; null when the index holds no id for it */
  messageId?: string | null;
  role?: string | null;
  /** ISO 8601 UTC; null when unknown */
  timestamp?: string | null;
  messageCount?: number;
  /** the session's title (transcripts and summaries) */
  title?: string;
  /** the shell command that resumes the session (Claude Code, Codex), else null */
  resumeCommand?: string | null;
  /** the session a subagent (or sidechain) hit belongs to */
  parentSessionKey?: string;
  excerpt: string;
  /** the calibrated chance of relevance in words; absent when scores are not calibrated */
  confidence?: Confidence;
  /** with `explain: true` */
  explain?: Explain;
  /** a team index's hit (team.url): who published it */
  publisher?: string;
  /** a team index's hit: the project it was published under */
  project?: string;
}

/** One run of the days a list names ("on Feb 10 and 12": Feb 10, then Feb 12). */
export interface PeriodPart {
  /** ISO 8601 with offset: its first day's start */
  since: string;
  /** ISO 8601 with offset: its last day's end */
  until: string;
}

/** The days a question names, in the user's time zone (`display.timeZone`). */
export interface Period {
  /** ISO 8601 with offset: the first day's start */
  since: string;
  /** ISO 8601 with offset: the last day's end */
  until: string;
  timeZone: string;
  /** a list of days ("last Monday and Friday"): those only, not the days between */
  parts?: PeriodPart[];
  /** when the period holds no message: the time of the last one before it */
  nearestBefore?: string;
  /** ...and of the first one after it */
  nearestAfter?: string;
  /** when the query's other words match nothing written in the period: the sessions written then (the note says so) */
  sessionsWritten?: number;
  /** the days are counted from an event ("the week before the offsite"): its day */
  event?: PeriodEvent;
  /** days between two events ("between the offsite and the launch"): the second (`event` is the first) */
  endEvent?: PeriodEvent;
}

/** Another day the mentions of an event state than the one taken, and how many of them state it. */
export interface StatedDay {
  /** YYYY-MM-DD */
  day: string;
  mentions: number;
}

/** The event a question counts its days from ("the week before the offsite") and the day it was taken to be: a date
 * its mentions state near its words, else the day they were written. */
export interface PeriodEvent {
  /** the event's words as the query names them ("offsite") */
  event: string;
  /** the days from it, as the query says them ("the week before"; "between the offsite and the launch") */
  offset: string;
  /** the event's day (YYYY-MM-DD) */
  day: string;
  /** the date as a message states it ("Friday 20 Feb"; absent: dated by when its mentions were written) */
  stated?: string;
  /** that message: its reference (SESSION:MESSAGE), or a note's relPath:line */
  statedIn?: string;
  /** the day that message was written (YYYY-MM-DD), when what it states is relative to it ("tomorrow", "on Friday") */
  statedOn?: string;
  /** when mentions state other days: how many state this one */
  mentions?: number;
  /** ...the other days stated, most first */
  otherDays?: StatedDay[];
  /** ...and why this day was taken: more mentions state it, or as many state another and this was stated last */
  chosenBy?: 'most' | 'latest';
}

/** An event a question counts its days from that no message this search may show names: no day was read. */
export interface UnnamedEvent {
  /** the event's words as the query names them ("offsite") */
  event: string;
  /** the days from it, as the query says them ("the week before"; "between the offsite and the launch") */
  offset: string;
  /** which end of days between two events it is ("between the offsite and the launch") */
  end?: 'start' | 'end';
}

/** A search's `since`/`until` window that holds no message at all: nothing was searched (the answer's note says
 * so). Times are ISO 8601 with offset, in the user's time zone (`display.timeZone`); a side not given is absent. */
export interface EmptyWindow {
  since?: string;
  until?: string;
  timeZone: string;
  /** true: the `since` is later than now */
  sinceInFuture?: boolean;
  /** the time of the last message before the window (absent: none) */
  nearestBefore?: string;
  /** ...and of the first one after it */
  nearestAfter?: string;
}

export interface SearchResponse {
  query: string;
  mode: string;
  results: SearchResult[];
  totalResults: number;
  searchTimeMs: number;
  indexing: boolean;
  /** hits among the first `limit` under minScore, not shown (minScore 0 shows them) */
  withheld: number;
  /** the days the query asked about, when it is a question about a period */
  period?: Period;
  /** the filters' since/until window held no message at all: the note says so */
  emptyWindow?: EmptyWindow;
  /** the index holds nothing: where a sync looked and what would find something */
  emptyIndex?: EmptyIndex;
  /** the event the days are counted from is named nowhere: the note says so */
  unnamedEvent?: UnnamedEvent;
  /** the fusion used (with `explain: true`) */
  fusion?: FusionMode;
  /** why the mode differs from the one asked for (no embedding model: keyword search only), that the team
   * index was unreachable, that the query names no topic, or that its date window holds no message */
  note?: string;
  /** true: only stop words or lone letters, nothing searched */
  namesNoTopic?: boolean;
  /** with team.url set: whether the team index answered and how many hits it gave */
  team?: TeamStatus;
  /** the query was longer than the bound: only its end was read */
  leftOut?: LeftOut;
  /** dates the query names that cannot exist */
  unreadDates?: UnreadDate[];
  /** numeric dates whose day and month may be read either way ("11/02/2026") */
  ambiguousDates?: AmbiguousDate[];
}

export interface TeamStatus {
  reachable: boolean;
  hits: number;
  /** why the team index could not be asked */
  reason?: string;
}

export interface HistoryParams {
  sessionKey: string;
  messageId?: string;
  /** 1..500, default 20 */
  limit?: number;
}

export interface HistoryMessage {
  messageId: string;
  role: string;
  /** a tool result (a command's output, trimmed to what matters) is kind 'tool' */
  kind: 'message' | 'summary' | 'tool';
  timestamp: string | null;
  text: string;
  position: number;
}

export interface HistoryResponse {
  sessionKey: string;
  sessionId: string;
  format: string;
  path: string;
  title?: string;
  /** the shell command that resumes the session in its agent (Claude Code, Codex), else null */
  resumeCommand?: string | null;
  /** the session a subagent (or sidechain) belongs to */
  parentSessionKey?: string | null;
  anchor: string | null;
  messages: HistoryMessage[];
  hasMoreBefore: boolean;
  hasMoreAfter: boolean;
}

export interface SessionsParams {
  /** words that must all appear in the title, cwd, session key, files touched, tools or commands run */
  query?: string;
  format?: AgentFormat;
  /** a working folder's name (any case) or path (and its subfolders) */
  project?: string;
  /** ISO date/time: sessions active on or after it */
  since?: string;
  /** ISO date/time: sessions active on or before it (a bare date: that whole day) */
  until?: string;
  /** 1..500, default 50 */
  limit?: number;
  /** `nextCursor` of the previous page */
  cursor?: string;
}

export interface SessionSummary {
  sessionKey: string;
  sessionId: string;
  /** the shortest form memlens.history opens this session alone by */
  reference: string;
  format: AgentFormat;
  title: string;
  cwd: string | null;
  project: string | null;
  path: string;
  firstTime: string | null;
  lastTime: string | null;
  messageCount: number;
  filesTouched: FileTouched[];
  filesTouchedTotal: number;
  toolsUsed: ToolUse[];
  parentSessionKey: string | null;
  resumeCommand: string | null;
}

/** A file a session's tool calls read or edited. */
export interface FileTouched {
  path: string;
  count: number;
  edited: boolean;
}

/** A tool a session called, and how often. */
export interface ToolUse {
  name: string;
  count: number;
}

export interface SessionsResponse {
  sessions: SessionSummary[];
  totalSessions: number;
  nextCursor: string | null;
  indexing: boolean;
  /** why none is listed when a filter names what no session has (a project no session worked in) */
  note?: string;
}

/** A file with skipped lines, replaced bytes or a failure (`memlens.stats` lists at most 50). */
export interface FileError {
  path: string;
  badLines: number;
  /** characters read as U+FFFD (invalid bytes, NULs, lone surrogates); their messages are kept */
  replaced: number;
  reasons: string[];
}

export interface StatsResponse {
  totalChunks: number;
  chunksWithEmbeddings: number;
  chunksNeedingEmbeddings: number;
  pendingMessages: number;
  lastSync: string | null;
  /** the embedding model, or "none" */
  provider: string;
  /** why there is no model (or other news about it), else null */
  providerNote: string | null;
  /** format → files indexed (memory notes count as "markdown") */
  files: Record<string, number>;
  /** format → messages indexed */
  messages: Record<string, number>;
  sessions: number;
  badLines: number;
  /** characters read as U+FFFD (invalid bytes, NULs, lone surrogates) in the messages and notes kept */
  replaced: number;
  /** messages kept although their parent record is missing (a dangling link or a malformed line) */
  orphanedMessages: number;
  filesWithErrors: number;
  fileErrors: FileError[];
  /** files found among transcripts that no parser recognised: nothing of them is searchable */
  filesUnrecognised: number;
  /** the first 50 of them, by path */
  unrecognisedFiles: string[];
  /** transcripts holding nothing yet (no bytes, blank space, a first line begun): not of an unknown format */
  filesEmpty: number;
  /** the first 50 of them, by path */
  emptyFiles: string[];
  /** names of indexed files found under another name too (hard links, symlinks): not indexed again */
  aliases: number;
  /** changes live indexing failed on since the server started (each logged; watching goes on) */
  watcherErrors: number;
  indexing: boolean;
  indexDir: string;
  /** this server only reads the index (readOnlyReason says why) */
  readOnly: boolean;
  /** why this process only reads (another writer, a folder it may not write); null when it writes */
  readOnlyReason: string | null;
  /** source files the index does not hold as they are now (new, or changed since the last sync) */
  filesNotIndexed: number;
  /** why they wait (a full disk, a broken writer lock, no sync yet); null when none wait */
  notIndexedReason: string | null;
}

export interface RemoveSourceParams {
  /** absolute, or `~/…` */
  path: string;
}

export interface ReindexParams {
  full?: boolean;
}

/** Files a flag would read: `count` of them in `folder`, counted up to a cap (`more`: there are more). */
export interface EmptyIndexFind {
  folder: string;
  count: number;
  more: boolean;
  /** `--scope all`, or `--transcripts DIR` */
  flag: string;
  /** the same step as a setting: `memlens.scope "all"`, `'DIR' in memlens.transcripts.paths` */
  setting: string;
}

/** An index that holds nothing after a sync: what was looked in, and what would find something. */
export interface EmptyIndex {
  workspaces: string[];
  /** the memory-note globs looked for in each workspace */
  memoryFiles: string[];
  /** the transcript folders looked in that exist */
  transcriptFolders: string[];
  /** `workspace`: only the agents' sessions whose cwd is in a workspace; `all`: every session */
  scope: string;
  /** each way found to read something, a workspace's folder first */
  finds: EmptyIndexFind[];
  /** the facts in one or two sentences: what was looked in, the next step (by its command-line flag) */
  lines: string[];
  /** the same sentences, the next step named by its setting (what the editor shows) */
  settingLines: string[];
}

/** What `memlens.reindex` did. */
export interface ReindexReport {
  filesSeen: number;
  filesParsed: number;
  filesAppended: number;
  filesUnchanged: number;
  filesDeleted: number;
  filesFailed: number;
  /** transcripts that held a session and were found empty (truncated): their messages left the index */
  filesEmptied: number;
  /** names of files also found under another name (hard links, symlinks): indexed once */
  aliases: number;
  /** messages the index holds more than before (one read again or moved is none) */
  messagesAdded: number;
  /** chunks the index holds more than before (one written again is none), as `totalChunks` counts them */
  chunksAdded: number;
  unitsEmbedded: number;
  chunksEmbedded: number;
  badLines: number;
  /** one line per file that could not be indexed (at most 50) */
  errors: string[];
  seconds: number;
  cancelled: boolean;
  /** changed files a cancelled sync left for the next one (about); 0 when not cancelled */
  filesLeft: number;
  /** of the files read, those a cancel stopped part-way (a huge transcript), kept as far as they were read */
  filesPartly: number;
  /** the bytes of those files read and kept: the next sync reads the rest as an append */
  partlyReadBytes: number;
  /** their sizes */
  partlySizeBytes: number;
  /** the index holds nothing after this sync: where it looked, what would find something */
  empty?: EmptyIndex;
}

export interface SummariesGrepParams {
  /** a case-insensitive RE2 regular expression */
  pattern: string;
  /** 1..200, default 20 */
  limit?: number;
}

export interface SummaryHit {
  /** `chunk:<n>`, the same as a search hit's `id` for `kind: "summary"` */
  summaryId: string;
  sessionKey: string;
  format: string;
  messageId: string;
  timestamp: string | null;
  excerpt: string;
}

export interface SummariesGrepResponse {
  pattern: string;
  totalMatches: number;
  truncated: boolean;
  /** newest first */
  results: SummaryHit[];
}

export interface SummariesDescribeParams {
  summaryId: string;
}

/** The span of messages a summary replaced. */
export interface SummaryCovers {
  messageCount: number;
  firstMessageId: string | null;
  lastMessageId: string | null;
  from: string | null;
  to: string | null;
  tokens: number;
}

export interface SummaryDescription {
  summaryId: string;
  sessionKey: string;
  sessionId: string;
  format: string;
  messageId: string;
  timestamp: string | null;
  text: string;
  /** estimated as characters / 4 */
  tokens: number;
  covers: SummaryCovers;
}

export interface SummariesExpandParams {
  summaryId: string;
  /** 1..200000, default 2000 */
  tokenBudget?: number;
}

export interface SummaryMessage {
  messageId: string;
  role: string;
  timestamp: string | null;
  text: string;
  position: number;
  /** only the beginning of the message fitted the budget */
  truncated?: boolean;
}

export interface SummariesExpandResponse {
  summaryId: string;
  sessionKey: string;
  sessionId: string;
  format: string;
  messageId: string;
  timestamp: string | null;
  tokenBudget: number;
  tokens: number;
  /** oldest first */
  messages: SummaryMessage[];
  totalMessages: number;
  omittedMessages: number;
  truncated: boolean;
}

export interface ContextParams {
  question: string;
  /** 50..200000, default 2000 */
  tokenBudget?: number;
  /** 1..100: the most items */
  limit?: number;
}

export interface ContextMessage {
  messageId: string;
  role: string;
  timestamp: string | null;
  text: string;
}

/** One passage of a context pack: a transcript message (or summary) with its neighbour, or a memory section. */
export interface ContextItem {
  kind: HitKind;
  score: number;
  relPath: string;
  /** the session key, or the memory file's path */
  source: string;
  citation: string;
  tokens: number;
  /** cut to fit the budget */
  truncated?: boolean;
  /** transcript items */
  sessionKey?: string;
  messageId?: string;
  timestamp?: string | null;
  format?: string;
  messages?: ContextMessage[];
  /** memory items (null when the index has no line numbers) */
  lineStart?: number | null;
  lineEnd?: number | null;
  heading?: string | null;
  text?: string;
}

export interface ContextResponse {
  question: string;
  tokenBudget: number;
  tokens: number;
  /** how many sessions and memory files the items come from */
  sources: number;
  /** something relevant was left out or cut */
  truncated: boolean;
  indexing: boolean;
  mode: SearchMode;
  items: ContextItem[];
  /** ready to paste into a prompt: one section per item with its citation */
  markdown: string;
}

export interface FixesParams {
  /** an error text (a pasted error or log line) or a question about one */
  error: string;
  /** 1..20, default 3: past errors to show, one per session */
  limit?: number;
  /** 1..10, default 3: messages after each error */
  follow?: number;
}

/** a past tool result that matched the error, and the messages after it in its session */
export interface ErrorFix {
  sessionKey: string;
  sessionId: string;
  format: string;
  path: string;
  title: string | null;
  messageId: string;
  timestamp: string | null;
  /** the tool result failed (is_error, a non-zero exit, a traceback) */
  error: boolean;
  score: number;
  /** the tool result as indexed: a header naming the tool, then its telling lines (a note's or message's piece that
   * quotes the error and says how it was fixed, for `source`) */
  text: string;
  after: HistoryMessage[];
  /** a memory note or a message that quotes the error with its fix; absent for a tool result that printed it. A note
   * has no session (`sessionKey`, `sessionId` and `messageId` are empty): its file and line */
  source?: 'note' | 'message';
  relPath?: string;
  lineStart?: number | null;
}

export interface FixesResponse {
  /** the error as read: its end, when `leftOut` says its start was left out */
  error: string;
  fixes: ErrorFix[];
  /** the pasted error was longer than the bound: only its end was read */
  leftOut?: LeftOut;
}

export interface IndexStatus {
  indexing: boolean;
  /** sessions indexed (older servers send none) */
  sessions?: number;
  /** the sessions' messages, as `memlens.stats` counts them (older servers send none) */
  messages?: number;
  /** memory notes indexed (older servers send none) */
  notes?: number;
  totalChunks: number;
  chunksNeedingEmbeddings: number;
  pendingMessages: number;
  /** the embedding model, or "none" */
  provider: string;
  lastSync: string | null;
  message?: string;
}

/** One folder the index was built from (or the settings name and no sync has recorded yet). */
export interface SourceFolder {
  path: string;
  /** `~/…` under the home folder */
  displayPath: string;
  kind: 'memory' | 'transcripts' | 'agent';
  files: number;
  units: number;
  /** e.g. "editor setting memlens.transcripts.paths", "memlens index --transcripts" */
  addedFrom: string;
  /** named by the server's current settings; false = only remembered */
  named: boolean;
}

export interface SourcesResponse {
  sources: SourceFolder[];
}

export interface RemoveSourceResponse {
  path: string;
  displayPath: string;
  filesRemoved: number;
}

export interface UnnamedSources {
  sources: SourceFolder[];
}
