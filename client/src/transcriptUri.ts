/**
 * The transcript viewer's URIs, `memlens-transcript:/<sessionKey url-encoded>.md?message=<messageId>`: built here and
 * parsed here, so the server's hover links, the viewer's documents and the sidebar's links all name the same
 * document. Pure (no `vscode` import): unit-tested.
 */

export const TRANSCRIPT_SCHEME = 'memlens-transcript';

export interface TranscriptRef {
  sessionKey: string;
  messageId?: string;
  /** the session's title: with it, the document's tab reads the title instead of the session key */
  title?: string;
}

/** The most characters of a title in a tab. */
const TAB_TITLE_CHARS = 48;

/**
 * A title as the last path segment of a URI (what an editor tab shows): one line, cut at a word, no path or URI
 * separators; "" when nothing readable is left.
 */
export function tabTitle(title: string | undefined): string {
  const flat = (title ?? '').replace(/[\\/%?#]+/g, ' ').replace(/\s+/g, ' ').trim();
  if (flat.length <= TAB_TITLE_CHARS) {
    return flat;
  }
  const cut = flat.slice(0, TAB_TITLE_CHARS);
  const space = cut.lastIndexOf(' ');
  return `${(space > TAB_TITLE_CHARS * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * The components of a transcript URI, for `Uri.from`. With a title: `/<title>.md?session=<key>&message=<id>`, so the
 * tab reads the session's title. Without: the path holds the session key as `Uri.parse` would decode it from the
 * string form (so links written by the server and URIs built here name the same document); only `%` and a leading
 * `/` are escaped to keep it reversible and valid.
 */
export function transcriptUriComponents(ref: TranscriptRef): { scheme: string; path: string; query: string } {
  const message = ref.messageId ? `message=${encodeURIComponent(ref.messageId)}` : '';
  const title = tabTitle(ref.title);
  if (title) {
    return {
      scheme: TRANSCRIPT_SCHEME,
      path: `/${title}.md`,
      query: [`session=${encodeURIComponent(ref.sessionKey)}`, message].filter(Boolean).join('&'),
    };
  }
  const key = ref.sessionKey.replace(/%/g, '%25').replace(/^\//, '%2F');
  return { scheme: TRANSCRIPT_SCHEME, path: `/${key}.md`, query: message };
}

/** The URI as a string, e.g. `memlens-transcript:/claude-code%3Aabc.md?message=m1`. */
export function transcriptUriString(ref: TranscriptRef): string {
  const query = ref.messageId ? `?message=${encodeURIComponent(ref.messageId)}` : '';
  return `${TRANSCRIPT_SCHEME}:/${encodeURIComponent(ref.sessionKey)}.md${query}`;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Parse the (decoded) path and query of a transcript URI, as `Uri.path` / `Uri.query` give them. */
export function parseTranscriptUri(path: string, query: string): TranscriptRef {
  let name = path.startsWith('/') ? path.slice(1) : path;
  name = name.endsWith('.md') ? name.slice(0, -3) : name;
  const session = queryParam(query, 'session');
  if (session) {
    return { ...withMessage(session, query), title: name };
  }
  return withMessage(safeDecode(name), query);
}

function queryParam(query: string, wanted: string): string | undefined {
  for (const part of query.replace(/^\?/, '').split('&')) {
    const eq = part.indexOf('=');
    if (eq >= 0 && part.slice(0, eq) === wanted) {
      return safeDecode(part.slice(eq + 1)) || undefined;
    }
  }
  return undefined;
}

function withMessage(sessionKey: string, query: string): TranscriptRef {
  const messageId = queryParam(query, 'message');
  return messageId ? { sessionKey, messageId } : { sessionKey };
}

/** Parse a whole `memlens-transcript:` URI string. */
export function parseTranscriptUriString(uri: string): TranscriptRef | undefined {
  const m = /^memlens-transcript:([^?#]*)(?:\?([^#]*))?/.exec(uri);
  if (!m) {
    return undefined;
  }
  let key = m[1].startsWith('/') ? m[1].slice(1) : m[1];
  key = key.endsWith('.md') ? key.slice(0, -3) : key;
  return withMessage(safeDecode(key), m[2] ?? '');
}
