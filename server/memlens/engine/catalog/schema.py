"""The catalog's tables: the schema, its version, and the typed `files` row.

Bump `SCHEMA_VERSION` whenever a table changes shape: a catalog of another version is rebuilt from the source files.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import NamedTuple

from memlens.engine.message_count import FIRST_PART, MESSAGE_KIND

TABLES = frozenset(
    {
        "meta",
        "files",
        "aliases",
        "sessions",
        "chunks",
        "units",
        "words",
        "word_forms",
        "words_leaving",
        "roots",
        "text_dictionaries",
        "unit_counts",
    }
)

# 2: files rows keep where an appended tail is re-parsed from, and orphaned counts; 3: units' texts and words may be
# stored compressed (compressed_text.py), which a memlens of version 2 could not read: it rebuilds the catalog;
# 4: the writer keeps the units counted by format and kind (unit_counts), which a memlens of version 3 would write
# past without counting: it rebuilds the catalog instead, and the count is taken again when this version next opens;
# 5: no `vectors` table, the vector file beside the catalog holds each vector (vectors/vector_index.py), which a
# memlens of version 4 could not find: it rebuilds the catalog (and embeds again)
SCHEMA_VERSION = 5
# Versions a catalog is brought to SCHEMA_VERSION from without a rebuild: the new tables are created at open, the
# units counted in the same transaction that records the version, and the writer compresses the texts of a
# version-2 catalog (compressed_text.py) a batch at a time, readers reading both. A catalog of 2, 3 or 4 keeps its
# `vectors` table, and the version that names it (LEGACY_VECTORS_VERSION), until the writer has written its vectors
# into the vector file (VectorIndex: `Catalog.finish_vector_migration`).
MIGRATED_VERSIONS = frozenset({"2", "3", "4"})
LEGACY_VECTORS_VERSION = 4
# What the parsers make of a file. Bump it when they read more of the same files, or read them differently (2: tool
# results became units; 3: terminal control codes left out of texts, terminal_codes.py; 4: a tool output's header
# names the call that printed it; 5: a chunk's message count leaves its compaction summaries out, message_count.py;
# 6: the units of a message stored in parts are numbered (`part`), so the counts count it once, message_count.py; 7:
# a tool output keeps its first line's indent, tool_output.without_blank_edges; 8: a call's header never falls back
# on an argument its key makes secret, common.tool_call_summary, so an index that shows one in a header re-reads it):
# an index parsed by another version re-reads every file on its next sync — its ids and vectors kept where the text
# is the same — instead of answering with what the older parsers made until a `reindex --full`.
PARSE_VERSION = 8
# What the parsers make of a line that is not JSON as a whole. Bump it when they keep more of such lines (1: the record
# behind a torn write's bytes, sources/torn_lines.py; 2: every record on such a line, and the ids of a line's records
# told apart): the files whose parse said a problem of a line (skipped lines, a torn write) are read again on the next
# sync, the others kept as they are.
BAD_LINE_VERSION = 2

# The units that count as messages of their session (message_count.is_message) as an SQL condition on `units`: what
# every count of messages the catalog works out reads.
MESSAGE_UNITS = f"(kind = '{MESSAGE_KIND}' AND part = {FIRST_PART})"
# ... less those another file of their session keeps (catalog/copies.py): what a session's and the index's message
# counts read
COUNTED_MESSAGES = f"({MESSAGE_UNITS} AND shadowed = 0)"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,               -- memory | transcript
    format TEXT NOT NULL DEFAULT '',  -- markdown | claude-code | codex | openclaw | specstory
    size INTEGER NOT NULL DEFAULT 0,
    mtime_ns INTEGER NOT NULL DEFAULT 0,
    head_hash TEXT NOT NULL DEFAULT '',
    parsed_bytes INTEGER NOT NULL DEFAULT 0,
    next_line INTEGER NOT NULL DEFAULT 1,
    session_key TEXT,
    leaf_uuid TEXT,
    bad_lines INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    synced_at REAL,
    resume_line INTEGER NOT NULL DEFAULT 1,   -- an append is parsed again from this line (it may continue a message)
    resume_bytes INTEGER NOT NULL DEFAULT 0,  -- ... at this byte offset; 0 = re-parse the whole file
    anchor_ids TEXT NOT NULL DEFAULT '[]',    -- JSON: parent ids an appended record may name (sources.base)
    orphaned INTEGER NOT NULL DEFAULT 0       -- messages kept by the broken-chain rule (sources.branches)
);                                            -- and ADDED_COLUMNS below
-- a second name of an indexed file (a hard link, a symlink to it): not indexed again (indexing/file_identity.py)
CREATE TABLE IF NOT EXISTS aliases (path TEXT PRIMARY KEY, source TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    key TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    format TEXT NOT NULL,
    file_id INTEGER NOT NULL,
    parent_key TEXT,
    agent_id TEXT,
    cwd TEXT,
    title TEXT
);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    kind TEXT NOT NULL,               -- memory | transcript | summary
    session_key TEXT,
    line_start INTEGER,
    line_end INTEGER,
    heading TEXT,
    ts_start REAL,
    ts_end REAL,
    message_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file_id);
CREATE TABLE IF NOT EXISTS units (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    chunk_id INTEGER NOT NULL,
    kind TEXT NOT NULL,               -- memory | transcript | summary | tool
    format TEXT NOT NULL DEFAULT '',
    session_key TEXT,
    message_id TEXT,
    role TEXT,
    ts REAL,
    seq INTEGER NOT NULL DEFAULT 0,   -- order within the session (transcripts) or file (memory)
    position INTEGER,                 -- line in the source file
    line_end INTEGER,
    uuid TEXT,
    text TEXT NOT NULL,               -- what is shown and keyword-indexed (maybe compressed: read plain_units)
    embed_text_hash TEXT NOT NULL     -- sha1 of the embedded text: finds its vector in the vector file
);                                    -- and ADDED_COLUMNS below
CREATE INDEX IF NOT EXISTS units_file ON units(file_id);
CREATE INDEX IF NOT EXISTS units_chunk ON units(chunk_id);
CREATE INDEX IF NOT EXISTS units_session ON units(session_key, seq);
CREATE INDEX IF NOT EXISTS units_hash ON units(embed_text_hash);
-- the units by format and kind, kept by the writer that adds or deletes them (files.py): every vector stamp counts
-- the units without reading them (vectors.py `unit_count`)
CREATE TABLE IF NOT EXISTS unit_counts (
    format TEXT NOT NULL, kind TEXT NOT NULL, units INTEGER NOT NULL, PRIMARY KEY (format, kind)
) WITHOUT ROWID;
-- zstd dictionaries the units' compressed texts and words name by number (compressed_text.py); never changed
CREATE TABLE IF NOT EXISTS text_dictionaries (id INTEGER PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS words (stem TEXT PRIMARY KEY, surface TEXT NOT NULL, vec BLOB);  -- vocabulary.py
CREATE INDEX IF NOT EXISTS words_without_vectors ON words(stem) WHERE vec IS NULL;
-- how often the units held write each surface form of a word, from which its one form is chosen (vocabulary.py), and
-- the texts of the units deleted since the writer last counted them out: every path that deletes units leaves them
CREATE TABLE IF NOT EXISTS word_forms (
    stem TEXT NOT NULL, surface TEXT NOT NULL, uses INTEGER NOT NULL, PRIMARY KEY (stem, surface)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS words_leaving (text TEXT NOT NULL, kind TEXT NOT NULL);
CREATE TRIGGER IF NOT EXISTS units_deleted_leave_words AFTER DELETE ON units BEGIN
    INSERT INTO words_leaving (text, kind) VALUES (old.text, old.kind);
END;
CREATE TABLE IF NOT EXISTS roots (    -- the folders the index was built from (roots.py); not derived from files
    path TEXT PRIMARY KEY,
    kind TEXT NOT NULL,               -- memory | transcripts | agent
    whole INTEGER NOT NULL DEFAULT 1, -- agent folders: every session (1) or only this workspace's (0)
    added_from TEXT NOT NULL DEFAULT '',
    added_at REAL
);
""" + "".join(
    # meta `files_fingerprint`: every name a whole sync found and its stat, when that sync left nothing to do
    # (indexing/files_fingerprint.py). Any write to `files` or `aliases`, by any process or version, forgets it.
    f"CREATE TRIGGER IF NOT EXISTS {table}_{event.lower()}_forgets_fingerprint AFTER {event} ON {table} BEGIN\n"
    "    DELETE FROM meta WHERE key = 'files_fingerprint';\nEND;\n"
    for table in ("files", "aliases")
    for event in ("INSERT", "UPDATE", "DELETE")
)

# Columns added after a table first shipped: every catalog gains the ones it lacks at open (NULL in the rows already
# there) instead of being rebuilt, and AFTER_ADDED_COLUMNS runs once they exist. The units' four are derived for
# ranking (unit_facts.DerivedFacts): the analysed words (space-separated), the share of tool-call lines, the digest
# that identical texts share and the share that asks; the writer fills them in after each commit, and readers work
# out the ones still NULL (NULL words mark a unit whose facts are to be filled in).
# The words' `near` is each embedded word's nearest words in meaning, worked out by the writer (vocabulary.py), so a
# search expands its words without reading any vector; NULL until then. `near_floor`: the cosine of the list's last
# word when the list is full (a new word must beat it to enter), else -2.
# The files' `dev`, `ino` and `ctime_ns` say, with size and mtime, whether a file changed and which names are one
# file (indexing/file_identity.py); NULL in a row from before them: filled in at the next sync without a re-read.
ADDED_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "files": (
        ("dev", "INTEGER"),
        ("ino", "INTEGER"),
        ("ctime_ns", "INTEGER"),
        ("replaced", "INTEGER NOT NULL DEFAULT 0"),  # characters read as U+FFFD (ingest.FileContent)
        ("empty", "INTEGER NOT NULL DEFAULT 0"),  # 1: a transcript holding nothing yet (ingest.FileContent.empty)
    ),
    "units": (
        ("words", "TEXT"),
        ("tool", "REAL"),
        ("dup_key", "TEXT"),
        ("question", "REAL"),
        ("error", "INTEGER"),  # a tool result's `error` (sources/tool_output.py): 1 when it failed
        ("vector_ready", "INTEGER"),  # 1 once the vector file of the model in meta vector_ready_model holds its row
        ("queue_ts", "REAL"),  # the embedding queue's order, newest first: the message's time, else its file's mtime
        # which part of its message (0: the whole message or its first part); rows from before it read 0 until the
        # re-parse PARSE_VERSION 6 asks for numbers them
        ("part", "INTEGER NOT NULL DEFAULT 0"),
        # 1: another file of its session holds this message and keeps it (catalog/copies.py): counted and shown there
        ("shadowed", "INTEGER NOT NULL DEFAULT 0"),
        # what makes it the same message in another file of its session (catalog/copies.py `_identity`, hashed), set
        # while several files hold the session (NULL in one no other file ever held): an append finds copies by it
        ("copy_identity", "BLOB"),
    ),
    "words": (("near", "TEXT"), ("near_floor", "REAL")),
    # each session's transcript messages and its first and last time (summaries and tool output count toward the
    # times), kept by the writer for the sessions each write touches: a list of every session read them by a scan
    # of every unit (0.4 s at a million messages). NULL `messages`: not yet worked out (a catalog from before them)
    "sessions": (("messages", "INTEGER"), ("first_ts", "REAL"), ("last_ts", "REAL")),
}
# What the writer does once it has added a column to an older catalog: the transcripts it read as no format are read
# again, so those holding nothing are told from those of an unknown format (stats' `filesEmpty`)
ON_COLUMN_ADDED: dict[tuple[str, str], str] = {
    ("files", "empty"): "UPDATE files SET size = -1, parsed_bytes = 0 WHERE kind = 'transcript' AND format = ''",
    # and the files of a session held by several files are read again, so the writer chooses which keeps each message
    ("units", "shadowed"): """UPDATE files SET size = -1, parsed_bytes = 0 WHERE id IN (
        SELECT s.file_id FROM sessions s JOIN (
            SELECT format, session_id, IFNULL(agent_id, '') AS agent FROM sessions
            GROUP BY format, session_id, IFNULL(agent_id, '') HAVING COUNT(DISTINCT file_id) > 1) m
        ON s.format = m.format AND s.session_id = m.session_id AND IFNULL(s.agent_id, '') = m.agent)""",
}
# What a catalog of LEGACY_VECTORS_VERSION held besides: each text's vector, and the texts of deleted units (to drop
# the vectors no unit used any more). Dropped once the vector file holds the vectors (`finish_vector_migration`).
LEGACY_VECTOR_TABLES = (
    "DROP TRIGGER IF EXISTS units_deleted; DROP TABLE IF EXISTS unused_hashes; DROP TABLE IF EXISTS vectors;"
)
# the units units_transcript_time holds the times of, and the others (kind is never NULL): a query names one of
# them as written here for SQLite to read the index
TRANSCRIPT_TIMES = "kind = 'transcript' AND session_key IS NOT NULL"
OTHER_TIMES = "(kind != 'transcript' OR session_key IS NULL)"
AFTER_ADDED_COLUMNS = (
    "CREATE INDEX IF NOT EXISTS files_identity ON files(ino, dev);"
    "CREATE INDEX IF NOT EXISTS units_without_facts ON units(id) WHERE words IS NULL;"
    "CREATE INDEX IF NOT EXISTS words_without_neighbours ON words(stem) WHERE near IS NULL;"
    # what waits for a vector, by id, holding what the backlog's counts read (`embedding_backlog`): a status line
    # counts it from this index alone, not from a row of the table per unit waiting (at 300,000 units waiting, 71 ms
    # of CPU instead of 508: bench/status_cost.py); an older catalog's index of the ids alone, which it covers, goes
    "DROP INDEX IF EXISTS units_without_vector;"
    "CREATE INDEX IF NOT EXISTS units_waiting_for_vector ON units(id, chunk_id, kind, part, vector_ready)"
    " WHERE vector_ready IS NULL;"
    "CREATE INDEX IF NOT EXISTS units_queue_newest ON units(queue_ts DESC, id DESC) WHERE vector_ready IS NULL;"
    "CREATE INDEX IF NOT EXISTS sessions_file ON sessions(file_id);"
    # the few units another file of their session keeps (catalog/copies.py): a write to a session of one file looks
    # here, not at every unit of the session
    "CREATE INDEX IF NOT EXISTS units_shadowed ON units(session_key) WHERE shadowed = 1;"
    # the units of the sessions several files hold, by what makes them a message (catalog/copies.py): an append to
    # such a session reads the copies of its new messages here, not every unit of the session's files (the identity
    # alone: with the session key beside it the index took five times the bytes)
    "CREATE INDEX IF NOT EXISTS units_copy_identity ON units(copy_identity) WHERE copy_identity IS NOT NULL;"
    # a search hit's reference is as long as its session id's nearest neighbours in this order (answers/references)
    "CREATE INDEX IF NOT EXISTS sessions_id ON sessions(session_id);"
    "CREATE INDEX IF NOT EXISTS sessions_without_activity ON sessions(key) WHERE messages IS NULL;"
    # a question about days reads the messages of its period, and of the nearest ones when it holds none: through
    # this index instead of a scan of every unit (0.3–0.4 s CPU at a million messages, bench/RESULTS.md)
    "CREATE INDEX IF NOT EXISTS units_transcript_time ON units(ts)"
    f" WHERE {TRANSCRIPT_TIMES};"
    # and the other units' times: with the one above, every unit's under one index (`UnitReads.time_span` reads the
    # first and last of each instead of every unit's)
    f"CREATE INDEX IF NOT EXISTS units_other_time ON units(ts) WHERE {OTHER_TIMES};"
)


@dataclass(slots=True)
class FileRow:
    """A `files` row (fields in `FILE_COLUMNS` order)."""

    id: int
    path: str
    kind: str
    format: str
    size: int
    mtime_ns: int
    head_hash: str
    parsed_bytes: int
    next_line: int
    session_key: str | None
    leaf_uuid: str | None
    bad_lines: int
    error: str | None
    resume_line: int = 1
    resume_bytes: int = 0
    anchor_ids: str = "[]"
    orphaned: int = 0
    replaced: int = 0
    dev: int | None = None
    ino: int | None = None
    ctime_ns: int | None = None

    def state(self) -> FileState:
        return FileState(*(getattr(self, name) for name in FileState._fields))


FILE_COLUMNS = ", ".join(f.name for f in fields(FileRow))


class FileState(NamedTuple):
    """The columns of a `files` row a sync compares with the file's stat: whether it changed
    (file_identity.changed) and whether its last line waits (file_reader.tail_waiting). A sync reads these of every
    file and the whole row (FileRow) only of the files that changed: at tens of thousands of files, reading and
    building every whole row was most of what a sync that found nothing changed spent on the catalog."""

    id: int
    kind: str
    format: str
    size: int
    mtime_ns: int
    parsed_bytes: int
    dev: int | None
    ino: int | None
    ctime_ns: int | None


FILE_STATE_COLUMNS = ", ".join(FileState._fields)
