"""The team index in PostgreSQL + pgvector: every SQL statement the team feature sends lives here.

One table of published units, keyed by (project, publisher, content hash: the project first, so the key holds a Citus
distribution column): publishing again sends only what the server lacks and deletes what the publisher no longer has.
Full text by a generated tsvector with a GIN index (and one over its word pairs: keyword_candidates), meaning by a
pgvector `halfvec` column (the local index keeps a vector to about 12 bits a component, or as float16 in an older
catalog: float16 adds about as little error again, and the rows and graph are half the size). The table is split by a
hash of the publisher into PARTITIONS partitions, each with its own HNSW index (cosine): a publisher's bulk load
rebuilds the graph of its own partition, never of every row; a vector search reads each partition's graph and merges
them in order (PostgreSQL's Merge Append). The schema carries its version (`memlens_team_schema`); `MIGRATIONS` brings
any older one up to `TEAM_SCHEMA_VERSION` under an advisory lock, so two publishers starting at once do not race each
other's DDL. Works against any PostgreSQL 15 or later with the `vector` extension.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from memlens.engine.lazy import lazy_module
from memlens.engine.message_count import MESSAGE_KIND
from memlens.errors import MemlensError

if TYPE_CHECKING:
    import numpy as np
    import psycopg
else:
    np = lazy_module("numpy")

log = logging.getLogger(__name__)

TEAM_SCHEMA_VERSION = 4
CALL_SCHEMA_VERSION = 4
"""The first schema whose rows keep a tool output's call in a column of its own (`call`), out of `text`."""
PARTITIONS = 16
"""Hash partitions by publisher: a bulk publish rebuilds about 1/PARTITIONS of the vectors (more when publishers share
a partition), a vector search reads one small graph per partition that holds rows (bench/team.py)."""
HNSW_OPTIONS = "m = 16, ef_construction = 32"
"""pgvector's default m; ef_construction halved from its default 64: builds ran 1.6x and inserts 1.5x as fast, and
recall@10 against an exact scan stayed 0.99 at 50k rows (ef_search 100)."""
BUILD_WORKERS = 2
"""max_parallel_maintenance_workers for an HNSW build (session-local; the server's max_worker_processes caps it)."""
VECTOR_DIM = 384
"""The bundled model's dimension: an HNSW index needs a fixed one, and every publisher of a team embeds alike."""
CONNECT_SECONDS = 5
SEARCH_TIMEOUT = "10s"
"""The longest one team search statement may run (an overloaded server): then the local answer comes back alone."""
GRAPH_BYTES_PER_ROW = 1536
"""What one row takes in pgvector's HNSW graph while it is built (its 384-d halfvec and its neighbour lists)."""
INDEX_BUILD_MEMORY_MB = (256, 2048)
"""The least and the most maintenance_work_mem the HNSW build asks for. Between them it asks for the graph of the
rows the table holds, with a quarter to spare: a graph that outgrows its memory is finished on disk, several times
slower (bench/team.py: a 198k-row build with 256 MB took 4.2× as long as with room for the graph)."""
SCHEMA_LOCK = 0x6D656D6C  # pg_advisory_xact_lock key: one migration at a time per database
TS_CONFIG = "english"
SSL_MODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")


EF_SEARCH_PER_CANDIDATE = 1.0
"""hnsw.ef_search per candidate asked for (pgvector's 40 at least, 1000 at most). Each partition's graph is searched
with it, so it is paid once per partition that holds rows. With the search's 100 candidates, ef_search 100 took half
the time of 200, recall@10 against an exact scan 0.99 (500k rows) and 0.96 (1M rows; 200: 0.99), bench/team.py."""


HYBRID_EF_SEARCH_PER_CANDIDATE = 1.0
"""The same for the vector side of a hybrid search, where it is one of the two lists the fusion reads: what matters
there is the fused answer's agreement with one fused from an exact scan (bench/team.py `hybridByEfSearch`)."""


def ef_search(candidates: int, *, hybrid: bool = False) -> int:
    share = HYBRID_EF_SEARCH_PER_CANDIDATE if hybrid else EF_SEARCH_PER_CANDIDATE
    return max(40, min(1000, round(share * candidates)))


def partition_name(remainder: int) -> str:
    return f"memlens_units_p{remainder}"


def vector_index_name(remainder: int) -> str:
    return f"memlens_units_p{remainder}_embedding"


def index_build_memory_mb(rows: int) -> int:
    """maintenance_work_mem (MB) for building the HNSW index over `rows` rows (INDEX_BUILD_MEMORY_MB)."""
    least, most = INDEX_BUILD_MEMORY_MB
    wanted = math.ceil(1.25 * rows * GRAPH_BYTES_PER_ROW / (1 << 20))
    return max(least, min(most, wanted))


_CREATE_PARTITIONS = "\n".join(
    f"CREATE TABLE {partition_name(r)} PARTITION OF memlens_units"
    f" FOR VALUES WITH (MODULUS {PARTITIONS}, REMAINDER {r});"
    for r in range(PARTITIONS)
)

_WORD_PAIRS_FUNCTION = """
CREATE OR REPLACE FUNCTION memlens_word_pairs(words tsvector) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(DISTINCT least(lexeme, next_lexeme) || ' ' || greatest(lexeme, next_lexeme)), '{}')
    FROM (
        SELECT lexeme COLLATE "C" AS lexeme, position, lead(lexeme COLLATE "C") OVER (ORDER BY position) AS next_lexeme,
               lead(position) OVER (ORDER BY position) AS next_position
        FROM (SELECT lexeme, unnest(positions) AS position FROM unnest(words)) AS placed
    ) AS pairs
    WHERE next_position = position + 1
$$"""
"""The lexemes that stand side by side in a tsvector, as 'first second' strings in byte order (cover density
ranks 'token auth' as 'auth token'; stop words keep their positions, so 'letter of the queue' pairs nothing): a GIN
index over them finds the rows where two words of a query stand together without reading every row that holds
both."""

_EVERY_WORD = f"websearch_to_tsquery('{TS_CONFIG}', %s)"
_ANY_WORD = f"to_tsquery('{TS_CONFIG}', replace({_EVERY_WORD}::text, '&', '|'))"
_CALL_WORDS = f"to_tsvector('{TS_CONFIG}', call)"
"""A row's call as words: the expression its GIN index (`memlens_units_call`) is built over, spelled alike."""


def _with_call_steps(query: str) -> list[tuple[str, str, str, tuple[str, ...], int]]:
    """keyword_candidates' steps 2 and 3 over a row's text and call words together. A row holding every word of
    the query in the two holds them all in its text or one of them in its call, so each condition first asks that
    of the two GIN indexes (the full-text one and the call's), then checks the words together."""
    words = f"(tsv || coalesce({_CALL_WORDS}, ''::tsvector))"
    every = f"(tsv @@ q OR {_CALL_WORDS} @@ qa) AND {words} @@ q"
    return [
        (f"{_EVERY_WORD} q, {_ANY_WORD} qa", every, words, (query, query), 1),
        (f"{_ANY_WORD} q", f"tsv @@ q OR {_CALL_WORDS} @@ q", words, (query,), 1),
    ]


MIGRATIONS: tuple[tuple[int, str], ...] = (
    (
        1,
        f"""
        CREATE EXTENSION IF NOT EXISTS vector;
        CREATE TABLE IF NOT EXISTS memlens_team_meta (key text PRIMARY KEY, value text NOT NULL);
        CREATE TABLE IF NOT EXISTS memlens_units (
            publisher text NOT NULL,
            hash text NOT NULL,
            project text NOT NULL,
            kind text NOT NULL,
            format text NOT NULL DEFAULT '',
            session_key text,
            session_id text,
            message_id text,
            role text,
            ts timestamptz,
            seq integer NOT NULL DEFAULT 0,
            path text NOT NULL DEFAULT '',
            line_start integer,
            heading text,
            title text,
            text text NOT NULL,
            tsv tsvector GENERATED ALWAYS AS (to_tsvector('{TS_CONFIG}', text)) STORED,
            embedding vector({VECTOR_DIM}),
            published_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (project, publisher, hash)
        );
        CREATE INDEX IF NOT EXISTS memlens_units_tsv ON memlens_units USING gin (tsv);
        CREATE INDEX IF NOT EXISTS memlens_units_embedding ON memlens_units USING hnsw (embedding vector_cosine_ops);
        CREATE INDEX IF NOT EXISTS memlens_units_session ON memlens_units (publisher, project, session_key, seq);
        """,
    ),
    (
        2,
        # the same columns, the vector as halfvec, in hash partitions by publisher; rows carried over; the HNSW
        # indexes (one per partition) are built by the publish that migrates (ensure_vector_index). The old table's
        # grants and row-level security policies are not carried over: run the setup SQL of docs/team.md again
        # (until then only the owner reads: closed, not open).
        f"""
        DROP INDEX IF EXISTS memlens_units_tsv, memlens_units_embedding, memlens_units_session;
        ALTER TABLE memlens_units RENAME TO memlens_units_v1;
        ALTER TABLE memlens_units_v1 RENAME CONSTRAINT memlens_units_pkey TO memlens_units_v1_pkey;
        CREATE TABLE memlens_units (
            publisher text NOT NULL,
            hash text NOT NULL,
            project text NOT NULL,
            kind text NOT NULL,
            format text NOT NULL DEFAULT '',
            session_key text,
            session_id text,
            message_id text,
            role text,
            ts timestamptz,
            seq integer NOT NULL DEFAULT 0,
            path text NOT NULL DEFAULT '',
            line_start integer,
            heading text,
            title text,
            text text NOT NULL,
            tsv tsvector GENERATED ALWAYS AS (to_tsvector('{TS_CONFIG}', text)) STORED,
            embedding halfvec({VECTOR_DIM}),
            published_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (project, publisher, hash)
        ) PARTITION BY HASH (publisher);
        {_CREATE_PARTITIONS}
        INSERT INTO memlens_units (publisher, hash, project, kind, format, session_key, session_id, message_id, role,
                                   ts, seq, path, line_start, heading, title, text, embedding, published_at)
            SELECT publisher, hash, project, kind, format, session_key, session_id, message_id, role, ts, seq, path,
                   line_start, heading, title, text, embedding::halfvec({VECTOR_DIM}), published_at
            FROM memlens_units_v1;
        DROP TABLE memlens_units_v1;
        CREATE INDEX memlens_units_tsv ON memlens_units USING gin (tsv);
        CREATE INDEX memlens_units_session ON memlens_units (publisher, project, session_key, seq);
        """,
    ),
    (
        3,
        # the word pairs of each row (see keyword_candidates), indexed: at 1M rows about half a minute
        f"""
        {_WORD_PAIRS_FUNCTION};
        CREATE INDEX memlens_units_pairs ON memlens_units USING gin (memlens_word_pairs(tsv));
        """,
    ),
    (
        CALL_SCHEMA_VERSION,
        # the call a tool output's header names (sources/tool_output.split_call), out of `text` and so of `tsv`:
        # searched only by a question asking what a command printed (keyword_candidates). Adding a column without
        # a default rewrites no row; the rows published before keep their call in `text` (and `call` NULL) until
        # their publisher's next publish replaces them (their content hash changed: publish.content_hash)
        f"""
        ALTER TABLE memlens_units ADD COLUMN call text;
        CREATE INDEX memlens_units_call ON memlens_units USING gin (to_tsvector('{TS_CONFIG}', call));
        """,
    ),
)

UNIT_COLUMNS = (
    "publisher",
    "hash",
    "project",
    "kind",
    "format",
    "session_key",
    "session_id",
    "message_id",
    "role",
    "ts",
    "seq",
    "path",
    "line_start",
    "heading",
    "title",
    "text",
    "call",
    "embedding",
)
UNIT_TYPES = (
    *("text",) * 9,  # publisher … role
    "timestamptz",
    "int4",  # seq
    "text",
    "int4",  # line_start
    *("text",) * 4,  # heading, title, text, call
    "halfvec",
)
"""The COPY's column types, in UNIT_COLUMNS order (a binary COPY names them)."""
_SHOWN = (
    "publisher, project, kind, format, session_key, session_id, message_id, role, ts, path, line_start, heading,"
    " title, text, {call}, hash"
)


class TeamUnavailable(MemlensError):
    """The team server did not answer (down, unreachable, timed out): a search still answers from the local index."""


class TeamRefused(MemlensError):
    """A team URL that is malformed, or a server that refused these credentials or database: said, never retried."""


class TeamSchemaTooNew(MemlensError):
    """The team index was made by a newer memlens."""


@dataclass(frozen=True, slots=True)
class TeamRow:
    """One published unit as a search reads it back (`_SHOWN` order), with its rank in one retriever."""

    publisher: str
    project: str
    kind: str
    format: str
    session_key: str | None
    session_id: str | None
    message_id: str | None
    role: str | None
    ts: datetime | None
    path: str
    line_start: int | None
    heading: str | None
    title: str | None
    text: str  # a tool output's without the call its header names (`call`), in a schema since CALL_SCHEMA_VERSION
    call: str | None
    hash: str
    score: float


@dataclass(frozen=True, slots=True)
class TeamSessionRow:
    publisher: str
    project: str
    session_key: str
    format: str
    title: str | None
    first: datetime | None
    last: datetime | None
    messages: int


def _safe_address(url: str) -> str:
    """The URL without its password, for messages."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        parts = conninfo_to_dict(url)
    except Exception:
        return "the team URL"
    host = parts.get("host") or "localhost"
    return f"{parts.get('user') or ''}@{host}:{parts.get('port') or 5432}/{parts.get('dbname') or ''}"


def _check_url(url: str) -> None:
    from psycopg import ProgrammingError
    from psycopg.conninfo import conninfo_to_dict

    if not url.startswith(("postgresql://", "postgres://")):
        raise TeamRefused("the team URL must start with postgresql:// (e.g. postgresql://user:password@host/db)")
    try:
        parts = conninfo_to_dict(url)
    except ProgrammingError as exc:
        raise TeamRefused(f"the team URL cannot be read: {str(exc).splitlines()[0]}") from None
    ports = str(parts.get("port") or "5432").split(",")
    if not all(p.strip().isdigit() and 0 < int(p) < 65536 for p in ports):
        raise TeamRefused(f"the team URL's port must be a number from 1 to 65535, not {parts.get('port')!r}")
    if parts.get("sslmode") not in (None, *SSL_MODES):
        raise TeamRefused(f"the team URL's sslmode must be one of {', '.join(SSL_MODES)}")


def _connect_error(exc: Exception, url: str) -> MemlensError:
    """A refusal by the server (it answered FATAL: bad password, no such role or database) is the user's to fix;
    anything else means the server was not reached."""
    text = " ".join(str(exc).split())
    where = _safe_address(url)
    if "FATAL:" in text:
        reason = text.split("FATAL:", 1)[1].strip()
        return TeamRefused(f"the team server {where} refused the connection: {reason}")
    reason = text.removeprefix("connection failed: ")
    return TeamUnavailable(f"the team server {where} is unreachable: {reason[:200]}")


class TeamCatalog:
    """One connection to a team index. `open` checks the URL, connects and classifies a failure."""

    def __init__(self, conn: psycopg.Connection[Any], url: str) -> None:
        self.conn = conn
        self.url = url
        self._vector_registered = False
        self.schema = TEAM_SCHEMA_VERSION  # what a search reads: as the last searchable_model or migration found it

    @classmethod
    def open(cls, url: str, *, application: str = "memlens") -> TeamCatalog:
        try:
            import pgvector.psycopg  # noqa: F401  (the COPY's vectors; imported here to fail before connecting)
            import psycopg
        except ImportError:  # the optional extra is not installed
            raise TeamRefused("the team index needs psycopg and pgvector: pip install 'memlens[team]'") from None
        _check_url(url)
        try:
            conn = psycopg.connect(url, connect_timeout=CONNECT_SECONDS, application_name=application)
        except psycopg.OperationalError as exc:
            raise _connect_error(exc, url) from None
        except psycopg.ProgrammingError as exc:
            raise TeamRefused(f"the team URL cannot be used: {str(exc).splitlines()[0]}") from None
        return cls(conn, url)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> TeamCatalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _failures(self) -> Iterator[None]:
        """A connection lost mid-way is the server being unavailable; anything the server refuses, said in a line."""
        import psycopg

        try:
            yield
        except psycopg.errors.QueryCanceled:
            raise TeamUnavailable(f"the team server took longer than {SEARCH_TIMEOUT} to answer") from None
        except psycopg.OperationalError as exc:
            raise TeamUnavailable(f"the team server {_safe_address(self.url)} went away: {str(exc).strip()}") from None
        except psycopg.errors.InsufficientPrivilege as exc:
            raise TeamRefused(f"the team server refused: {str(exc).strip().splitlines()[0]}") from None

    # -- schema ----------------------------------------------------------------------------------------------------

    def schema_version(self) -> int:
        """0 when nothing was ever published here."""
        with self._failures():
            row = self.conn.execute("SELECT to_regclass('memlens_team_schema') IS NOT NULL").fetchone()
            if not row or not row[0]:
                self.conn.rollback()
                return 0
            found = self.conn.execute("SELECT max(version) FROM memlens_team_schema").fetchone()
            self.conn.rollback()
        return int(found[0] or 0) if found else 0

    def ensure_schema(self) -> int:
        """Bring the schema to TEAM_SCHEMA_VERSION (one migrating client at a time); returns the version found.
        A schema already current takes no DDL, so a role without CREATE rights (row-level security) publishes."""
        current = self.schema_version()
        if current == TEAM_SCHEMA_VERSION:
            self.schema = current
            return current
        with self._failures(), self.conn.transaction():
            self.conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            self.conn.execute("CREATE TABLE IF NOT EXISTS memlens_team_schema (version integer PRIMARY KEY)")
            found = self.conn.execute("SELECT coalesce(max(version), 0) FROM memlens_team_schema").fetchone()
            version = int(found[0]) if found else 0
            if version > TEAM_SCHEMA_VERSION:
                raise TeamSchemaTooNew(
                    f"the team index has schema version {version}; this memlens knows up to {TEAM_SCHEMA_VERSION}:"
                    " upgrade memlens"
                )
            for number, sql in MIGRATIONS:
                if number > version:
                    self.conn.execute(sql.encode())
                    self.conn.execute("INSERT INTO memlens_team_schema (version) VALUES (%s)", (number,))
        self.schema = TEAM_SCHEMA_VERSION
        return version

    def check_readable(self) -> bool:
        """Whether there is an index to search (False: nobody has published yet); a newer schema is an error."""
        return self.searchable_model()[0]

    def searchable_model(self) -> tuple[bool, str | None]:
        """Whether there is an index to search (False: nobody has published yet; a newer schema is an error) and the
        model its vectors come from, in one transaction (a search asks both; each round trip to a distant server
        counts)."""
        with self._failures():
            found = self.conn.execute(
                "SELECT to_regclass('memlens_team_schema') IS NOT NULL, to_regclass('memlens_team_meta') IS NOT NULL"
            ).fetchone()
            row = None
            if found and found[0] and found[1]:
                row = self.conn.execute(
                    "SELECT (SELECT max(version) FROM memlens_team_schema),"
                    " (SELECT value FROM memlens_team_meta WHERE key = 'model')"
                ).fetchone()
            elif found and found[0]:  # a schema this memlens does not know names no model table
                row = self.conn.execute("SELECT max(version), NULL FROM memlens_team_schema").fetchone()
            self.conn.rollback()
        version = int(row[0] or 0) if row else 0
        if version > TEAM_SCHEMA_VERSION:
            raise TeamSchemaTooNew(
                f"the team index has schema version {version}; this memlens knows up to {TEAM_SCHEMA_VERSION}:"
                " upgrade memlens"
            )
        self.schema = version
        return version > 0, (str(row[1]) if row and row[1] is not None else None)

    def team_model(self, model: str | None) -> str | None:
        """The embedding model the team's vectors come from; the first publisher with vectors names it."""
        with self._failures(), self.conn.transaction():
            row = self.conn.execute("SELECT value FROM memlens_team_meta WHERE key = 'model'").fetchone()
            if row is None and model is not None:
                self.conn.execute(
                    "INSERT INTO memlens_team_meta (key, value) VALUES ('model', %s) ON CONFLICT DO NOTHING", (model,)
                )
                row = self.conn.execute("SELECT value FROM memlens_team_meta WHERE key = 'model'").fetchone()
        return str(row[0]) if row else None

    def read_model(self) -> str | None:
        with self._failures():
            row = self.conn.execute("SELECT value FROM memlens_team_meta WHERE key = 'model'").fetchone()
            self.conn.rollback()
        return str(row[0]) if row else None

    # -- publishing ------------------------------------------------------------------------------------------------

    def published_hashes(self, publisher: str, project: str) -> set[str]:
        with self._failures():
            rows = self.conn.execute(
                "SELECT hash FROM memlens_units WHERE publisher = %s AND project = %s", (publisher, project)
            ).fetchall()
            self.conn.rollback()
        return {str(r[0]) for r in rows}

    def delete_units(self, publisher: str, project: str, hashes: Sequence[str]) -> int:
        """Delete this publisher's rows of `project` whose hash is listed; one transaction."""
        with self._failures(), self.conn.transaction():
            cursor = self.conn.execute(
                "DELETE FROM memlens_units WHERE publisher = %s AND project = %s AND hash = ANY(%s)",
                (publisher, project, list(hashes)),
            )
        return max(0, cursor.rowcount)

    def copy_units(self, rows: Iterable[Sequence[object]]) -> int:
        """One batch of rows (UNIT_COLUMNS order) in one transaction: COPY into a staging table, then into the
        table, skipping a row already there (another run of the same publisher got there first)."""
        columns = ", ".join(UNIT_COLUMNS)
        with self._failures(), self.conn.transaction():
            self._register_vector()
            self.conn.execute(
                "CREATE TEMP TABLE IF NOT EXISTS memlens_staging"
                " (LIKE memlens_units INCLUDING DEFAULTS EXCLUDING GENERATED) ON COMMIT DELETE ROWS"
            )
            with self.conn.cursor() as cursor:
                # binary: a vector goes as 1.5 KB of float4 instead of 4 KB of digits to format and parse again
                with cursor.copy(f"COPY memlens_staging ({columns}) FROM STDIN WITH (FORMAT BINARY)") as copy:
                    copy.set_types(list(UNIT_TYPES))
                    for row in rows:
                        copy.write_row(_as_halfvec(row))
                cursor.execute(
                    f"INSERT INTO memlens_units ({columns}) SELECT {columns} FROM memlens_staging"
                    " ON CONFLICT (project, publisher, hash) DO NOTHING"
                )
                return max(0, cursor.rowcount)

    def _register_vector(self) -> None:
        """numpy arrays as pgvector's `vector` (pgvector's own psycopg adapter), once per connection."""
        if not self._vector_registered:
            from pgvector.psycopg import register_vector

            register_vector(self.conn)
            self._vector_registered = True

    def partition_of(self, publisher: str) -> int:
        """The partition (its remainder) that holds `publisher`'s rows: PostgreSQL's own hash of the key."""
        with self._failures():
            row = self.conn.execute(
                "SELECT r FROM generate_series(0, %s - 1) r"
                " WHERE satisfies_hash_partition('memlens_units'::regclass, %s, r, %s::text)",
                (PARTITIONS, PARTITIONS, publisher),
            ).fetchone()
            self.conn.rollback()
        if row is None:
            raise TeamRefused("the team index's table is not partitioned as this memlens expects")
        return int(row[0])

    def owns_units(self) -> bool:
        """Whether this role owns the units table (and so may drop and build its indexes, and read a partition)."""
        with self._failures():
            row = self.conn.execute(
                "SELECT pg_has_role(relowner, 'USAGE') FROM pg_class WHERE oid = 'memlens_units'::regclass"
            ).fetchone()
            self.conn.rollback()
        return bool(row and row[0])

    def partition_rows(self, remainder: int) -> int:
        with self._failures():
            row = self.conn.execute(f"SELECT count(*) FROM {partition_name(remainder)}").fetchone()
            self.conn.rollback()
        return int(row[0]) if row else 0

    def drop_vector_index(self, remainder: int) -> bool:
        """Drop one partition's HNSW index before a bulk load into it (see publish.rebuild_vector_index); False
        when this role may not (it does not own the table)."""
        import psycopg

        try:
            with self._failures(), self.conn.transaction():
                self.conn.execute(f"DROP INDEX IF EXISTS {vector_index_name(remainder)}")
        except (TeamRefused, psycopg.errors.InsufficientPrivilege):
            return False
        return True

    def analyze_partition(self, remainder: int) -> None:
        """The planner's statistics of one partition, fresh after a bulk load into it: until autovacuum gets to it,
        a search would be planned on the row counts and word pairs of before."""
        import psycopg

        try:
            with self._failures(), self.conn.transaction():
                self.conn.execute(f"ANALYZE {partition_name(remainder)}")
        except (TeamRefused, psycopg.errors.InsufficientPrivilege):
            log.info("this role may not analyze the team index's partition %s", remainder)

    def missing_vector_indexes(self) -> list[int]:
        with self._failures():
            found = self.conn.execute(
                "SELECT r FROM generate_series(0, %s - 1) r"
                " WHERE to_regclass(format('memlens_units_p%%s_embedding', r)) IS NULL",
                (PARTITIONS,),
            ).fetchall()
            self.conn.rollback()
        return [int(r[0]) for r in found]

    def ensure_vector_index(self) -> list[int]:
        """Each partition's HNSW index, built where it is missing (after a bulk load, one cut short, a migration);
        the partitions built. A role that may not create one leaves that to the owner."""
        import psycopg

        built: list[int] = []
        missing = self.missing_vector_indexes()
        if missing and not self.owns_units():
            log.info("the team index's HNSW indexes %s are missing and this role may not build them", missing)
            return built
        for remainder in missing:
            memory = index_build_memory_mb(self.partition_rows(remainder))
            try:
                with self._failures(), self.conn.transaction():
                    # one build per partition at a time: two publishers finishing together build it once
                    self.conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (SCHEMA_LOCK, remainder))
                    self.conn.execute(f"SET LOCAL maintenance_work_mem = '{memory}MB'")
                    self.conn.execute(f"SET LOCAL max_parallel_maintenance_workers = {BUILD_WORKERS}")
                    self.conn.execute(
                        f"CREATE INDEX IF NOT EXISTS {vector_index_name(remainder)} ON {partition_name(remainder)}"
                        f" USING hnsw (embedding halfvec_cosine_ops) WITH ({HNSW_OPTIONS})"
                    )
            except (TeamRefused, psycopg.errors.InsufficientPrivilege):
                log.info("the team index's HNSW index is missing and this role may not build it")
                break
            built.append(remainder)
        return built

    # -- searching ---------------------------------------------------------------------------------------------

    def _shown(self) -> str:
        """The columns a search reads back (TeamRow's order): an index no publish has migrated yet has no `call`
        column, and its rows keep the call in `text`."""
        return _SHOWN.format(call="call" if self.schema >= CALL_SCHEMA_VERSION else "NULL::text AS call")

    def _where(self, publisher: str | None, project: str | None) -> tuple[str, list[object]]:
        clauses: list[str] = []
        params: list[object] = []
        if publisher:
            clauses.append("publisher = %s")
            params.append(publisher)
        if project:
            clauses.append("project = %s")
            params.append(project)
        return "".join(f" AND {c}" for c in clauses), params

    def keyword_candidates(
        self, query: str, *, publisher: str | None, project: str | None, limit: int, with_call: bool = False
    ) -> list[TeamRow]:
        """The best rows by full text: ts_rank_cd over the query as a web search reads it (words ANDed, "phrases",
        -not). Each step runs only when the one before found too few rows:
        1. the rows holding every word where two of the query's words stand side by side (`memlens_word_pairs`),
           when they are at least `limit`: the rows that rank best by cover density anyway, found through their
           own index instead of by ranking every row that holds the words somewhere (a broad query over many
           publishers matches thousands of rows, each read from the table to be ranked);
        2. every row holding every word;
        3. any row holding any word.
        `with_call` (a question asking what a command printed): a row's words are its text's and then its call's
        (the call a tool output's header names, which `tsv` leaves out), and step 1 is skipped (its index pairs the
        text's words only)."""
        if with_call and self.schema >= CALL_SCHEMA_VERSION:
            return self._keyword_rows(_with_call_steps(query), publisher=publisher, project=project, limit=limit)
        steps: list[tuple[str, str, str, tuple[str, ...], int]] = [
            (f"{_EVERY_WORD} q", "tsv @@ q", "tsv", (query,), 1),
            (f"{_ANY_WORD} q", "tsv @@ q", "tsv", (query,), 1),
        ]
        if len(query.split()) > 1:
            # two plain words: a row holding them side by side holds both, so the full-text index would only find
            # again the rows the pairs index found (a third of the step's time at 1M rows): the match is checked on
            # those rows instead (ts_match_vq is the function behind @@, which no index serves; the same rows)
            plain_pair = len(query.split()) == 2 and not any(mark in query for mark in '"-')
            match = "ts_match_vq(tsv, q)" if plain_pair else "tsv @@ q"
            side_by_side = f"{match} AND memlens_word_pairs(tsv) && pairs"
            together = f"memlens_word_pairs(to_tsvector('{TS_CONFIG}', %s))"
            steps.insert(0, (f"{_EVERY_WORD} q, {together} pairs", side_by_side, "tsv", (query, query), limit))
        return self._keyword_rows(steps, publisher=publisher, project=project, limit=limit)

    def _keyword_rows(
        self,
        steps: list[tuple[str, str, str, tuple[str, ...], int]],
        *,
        publisher: str | None,
        project: str | None,
        limit: int,
    ) -> list[TeamRow]:
        """Each step's best rows (source, condition, the words ranked, how many times the query is passed, how many
        rows are enough) until one finds enough."""
        where, params = self._where(publisher, project)
        rows: list[TeamRow] = []
        with self._failures():
            self.conn.execute(f"SET LOCAL statement_timeout = '{SEARCH_TIMEOUT}'")
            for source, condition, ranked, words, enough in steps:
                sql = (
                    f"SELECT {self._shown()}, ts_rank_cd({ranked}, q, 32) AS rank FROM memlens_units, {source}"
                    f" WHERE ({condition}){where} ORDER BY rank DESC LIMIT %s"
                )
                # never a prepared statement: its generic plan would not know the query's words and word pairs,
                # and ranks every row holding the words before it filters by pairs (ten times as slow at 1M rows)
                found = self.conn.execute(sql, (*words, *params, limit), prepare=False).fetchall()
                rows = [TeamRow(*r) for r in found]
                if len(rows) >= enough:
                    break
            self.conn.rollback()
        return rows

    def vector_candidates(
        self,
        vector: Sequence[float],
        *,
        publisher: str | None,
        project: str | None,
        limit: int,
        hybrid: bool = False,
        exact: bool = False,
    ) -> list[TeamRow]:
        """The nearest rows by cosine through the HNSW index (iterative scans keep a filtered search filled); for a
        `hybrid` search's vector side, at its own ef_search; `exact`: by a scan of every row (what the benchmark
        measures agreement against)."""
        where, params = self._where(publisher, project)
        literal = "[" + ",".join(f"{x:.7g}" for x in vector) + "]"
        with self._failures():
            settings = (
                ["statement_timeout = 0", "enable_indexscan = off"]
                if exact
                else [f"statement_timeout = '{SEARCH_TIMEOUT}'"]
            )
            settings += [f"hnsw.ef_search = {ef_search(limit, hybrid=hybrid)}", "hnsw.iterative_scan = relaxed_order"]
            self.conn.execute("; ".join(f"SET LOCAL {setting}" for setting in settings))  # one round trip
            sql = (
                f"SELECT {self._shown()}, 1 - (embedding <=> %s::halfvec) FROM memlens_units"
                f" WHERE embedding IS NOT NULL{where} ORDER BY embedding <=> %s::halfvec LIMIT %s"
            )
            found = self.conn.execute(sql, (literal, *params, literal, limit)).fetchall()
            self.conn.rollback()
        rows = [TeamRow(*r) for r in found]
        rows.sort(key=lambda r: -r.score)  # relaxed order: nearly sorted
        return rows

    def exact_nearest(self, vector: Sequence[float], *, limit: int) -> list[tuple[str, str, float]]:
        """(publisher, hash, cosine) of the nearest rows over every row, no index: what recall is measured against
        (bench/team.py, the tests)."""
        rows = self.vector_candidates(vector, publisher=None, project=None, limit=limit, exact=True)
        return [(str(r.publisher), str(r.hash), float(r.score)) for r in rows]

    def sessions(
        self, *, publisher: str | None, project: str | None, limit: int, query: str | None = None
    ) -> list[TeamSessionRow]:
        where, params = self._where(publisher, project)
        if query:
            for word in query.split():
                where += " AND (coalesce(title, '') || ' ' || session_key || ' ' || project) ILIKE %s"
                params.append("%" + word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
        # a message stored in parts counts once (message_count.py): its parts, published as rows of their own
        # without their part's number, share its message id, which no other message of the session has
        sql = f"""SELECT publisher, project, session_key, max(format), max(title), min(ts), max(ts),
                         count(DISTINCT message_id) FILTER (WHERE kind = '{MESSAGE_KIND}')
                  FROM memlens_units WHERE session_key IS NOT NULL AND kind <> 'memory'{where}
                  GROUP BY publisher, project, session_key ORDER BY max(ts) DESC NULLS LAST LIMIT %s"""
        with self._failures():
            found = self.conn.execute(sql, (*params, limit)).fetchall()
            self.conn.rollback()
        return [TeamSessionRow(*r) for r in found]

    def has_rows(self, *, publisher: str | None = None, project: str | None = None) -> bool:
        """Whether any published row has this publisher and project (each when given)."""
        where, params = self._where(publisher, project)
        with self._failures():
            row = self.conn.execute(f"SELECT EXISTS (SELECT 1 FROM memlens_units WHERE true{where})", params).fetchone()
            self.conn.rollback()
        return bool(row and row[0])

    def count_units(self, publisher: str | None = None) -> int:
        where, params = self._where(publisher, None)
        with self._failures():
            row = self.conn.execute(f"SELECT count(*) FROM memlens_units WHERE true{where}", params).fetchone()
            self.conn.rollback()
        return int(row[0]) if row else 0

    def every_value(self) -> list[str]:
        """Every published row with all its columns as text (what a reader of the table could see)."""
        with self._failures():
            rows = self.conn.execute("SELECT u::text FROM memlens_units u")
            out = [str(r[0]) for r in rows]
            self.conn.rollback()
        return out

    def hashes(self, publisher: str) -> list[str]:
        with self._failures():
            rows = self.conn.execute("SELECT hash FROM memlens_units WHERE publisher = %s ORDER BY hash", (publisher,))
            out = [str(r[0]) for r in rows]
            self.conn.rollback()
        return out


def _as_halfvec(row: Sequence[object]) -> Sequence[object]:
    """The row with its vector (last, a float array or None) as pgvector's HalfVector, which the COPY's halfvec
    column takes."""
    from pgvector import HalfVector

    vector = row[-1]
    if vector is None or isinstance(vector, HalfVector):
        return row
    return (*row[:-1], HalfVector(np.asarray(vector, dtype=np.float32)))


def as_timestamp(seconds: float | None) -> datetime | None:
    return datetime.fromtimestamp(seconds, UTC) if seconds is not None else None
