/**
 * The memlens language server's custom protocol: `workspace/executeCommand` commands (one object argument each)
 * and the `memlens/indexStatus` notification. Types only, no runtime code.
 */

export type HitKind = 'memory' | 'transcript' | 'summary';
export type SearchMode = 'hybrid' | 'keyword' | 'vector';
export type AgentFormat = 'claude-code' | 'codex' | 'openclaw' | 'specstory';

export const Commands = {
  search: 'memlens.search',
  history: 'memlens.history',
  sessions: 'memlens.sessions',
  stats: 'memlens.stats',
  reindex: 'memlens.reindex',
  context: 'memlens.context',
} as const;

export const IndexStatusNotification = 'memlens/indexStatus';

export interface SearchFilters {
  kind?: HitKind;
  format?: AgentFormat;
  session?: string;
  role?: 'user' | 'assistant';
  /** ISO date/time */
  since?: string;
  until?: string;
}

export interface SearchParams {
  query: string;
  limit?: number;
  mode?: SearchMode;
  filters?: SearchFilters;
  explain?: boolean;
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
  /** 1-based (memory hits) */
  lineStart?: number;
  lineEnd?: number;
  heading?: string;
  /** agent format (transcripts and summaries) */
  format?: string;
  sessionKey?: string;
  sessionId?: string;
  /** the best-matching message */
  messageId?: string;
  role?: string;
  /** ISO 8601 UTC */
  timestamp?: string;
  messageCount?: number;
  /** the session's title (transcripts and summaries) */
  title?: string;
  /** the shell command that resumes the session (Claude Code, Codex), else null */
  resumeCommand?: string | null;
  excerpt: string;
  explain?: Record<string, unknown>;
}

export interface SearchResponse {
  query: string;
  mode: string;
  results: SearchResult[];
  totalResults: number;
  searchTimeMs: number;
  indexing: boolean;
}

export interface HistoryParams {
  sessionKey: string;
  messageId?: string;
  limit?: number;
}

export interface HistoryMessage {
  messageId: string;
  role: string;
  kind: 'message' | 'summary';
  timestamp?: string;
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
  /** words that must all appear in the title, cwd or session key */
  query?: string;
  format?: AgentFormat;
  /** ISO date/time: sessions active on or after it */
  since?: string;
  /** ISO date/time: sessions active on or before it (a bare date: that whole day) */
  until?: string;
  /** 1–500, default 50 */
  limit?: number;
  /** `nextCursor` of the previous page */
  cursor?: string;
}

export interface SessionSummary {
  sessionKey: string;
  sessionId: string;
  format: AgentFormat;
  title: string;
  cwd: string | null;
  project: string | null;
  path: string;
  firstTime: string | null;
  lastTime: string | null;
  messageCount: number;
  filesTouched: { path: string; count: number; edited: boolean }[];
  filesTouchedTotal: number;
  toolsUsed: { name: string; count: number }[];
  parentSessionKey: string | null;
  resumeCommand: string | null;
}

export interface SessionsResponse {
  sessions: SessionSummary[];
  totalSessions: number;
  nextCursor: string | null;
  indexing: boolean;
}

export interface StatsResponse {
  totalChunks: number;
  chunksWithEmbeddings: number;
  chunksNeedingEmbeddings: number;
  pendingMessages: number;
  lastSync: string | null;
  provider: string | null;
  files: Record<string, number>;
  messages: Record<string, number>;
  badLines: number;
  indexing: boolean;
  indexDir: string;
}

export interface ReindexParams {
  full?: boolean;
}

export interface ContextParams {
  question: string;
  tokenBudget?: number;
}

export interface ContextResponse {
  question: string;
  tokens: number;
  items: unknown[];
  markdown: string;
}

export interface IndexStatus {
  indexing: boolean;
  totalChunks: number;
  chunksNeedingEmbeddings: number;
  pendingMessages: number;
  provider: string | null;
  lastSync: string | null;
  message?: string;
}
