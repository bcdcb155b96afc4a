/**
 * The transcript viewer's URIs, `memlens-transcript:/<sessionKey url-encoded>.md?message=<messageId>`: built here and
 * parsed here, so the server's hover links, the viewer's documents and the sidebar's links all name the same
 * document. Pure (no `vscode` import): unit-tested.
 */

export const TRANSCRIPT_SCHEME = 'memlens-transcript';

export interface TranscriptRef {
  sessionKey: string;
  messageId?: string;
}

/**
 * The components of a transcript URI, for `Uri.from`. The path holds the session key as `Uri.parse` would decode it
 * from the string form (so links written by the server and URIs built here name the same document, and editor tabs
 * read `claude-code:5b0e7d3c….md`); only `%` and a leading `/` are escaped to keep it reversible and valid.
 */
export function transcriptUriComponents(ref: TranscriptRef): { scheme: string; path: string; query: string } {
  const key = ref.sessionKey.replace(/%/g, '%25').replace(/^\//, '%2F');
  return {
    scheme: TRANSCRIPT_SCHEME,
    path: `/${key}.md`,
    query: ref.messageId ? `message=${encodeURIComponent(ref.messageId)}` : '',
  };
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
  let key = path.startsWith('/') ? path.slice(1) : path;
  key = key.endsWith('.md') ? key.slice(0, -3) : key;
  return withMessage(safeDecode(key), query);
}

function withMessage(sessionKey: string, query: string): TranscriptRef {
  let messageId: string | undefined;
  for (const part of query.replace(/^\?/, '').split('&')) {
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    if (name === 'message' && eq >= 0) {
      messageId = safeDecode(part.slice(eq + 1)) || undefined;
    }
  }
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
