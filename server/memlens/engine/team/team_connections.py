"""Where a team search's connections come from: a hybrid search asks for two, one for each side, so the keyword and
the vector statements run at once on the server's cores (team_search.team_results).

`TeamConnections` opens the ones a search needs at the same time, on threads, and closes them after it: a one-shot
search (the CLI) pays one connect's latency, not two. `PooledTeamConnections`, for a long-lived server (the
language server, the MCP server), keeps them in a pool (psycopg_pool) for the team URL in use; a pooled connection is
checked (one empty statement) before a search takes it, and when the pool has none ready, or one is found dead (the
team server restarted or stopped), the search opens its own at once instead of waiting for the pool: a stopped
server is then said to be unreachable, with the reason its connect gave, in the time a connect takes to fail.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, Any

from memlens.engine.team.team_catalog import CONNECT_SECONDS, TeamCatalog

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

log = logging.getLogger(__name__)

POOL_SIZE = 2
"""Connections kept per team URL: the two sides of one hybrid search."""
POOL_CLOSE_SECONDS = 5.0
"""How long closing the pool waits for its threads (one may be in the middle of a connect)."""


def open_catalogs(url: str, count: int) -> list[TeamCatalog]:
    """`count` connections to the team index at `url`, opened at the same time; none left open when one fails."""
    if count <= 1:
        return [TeamCatalog.open(url)]
    with ThreadPoolExecutor(max_workers=count - 1, thread_name_prefix="memlens-team-connect") as threads:
        others = [threads.submit(TeamCatalog.open, url) for _ in range(count - 1)]
        opened: list[TeamCatalog] = []
        failure: BaseException | None = None
        try:
            opened.append(TeamCatalog.open(url))
        except BaseException as exc:  # the others are waited for and closed before it is raised
            failure = exc
        for future in others:
            try:
                opened.append(future.result())
            except BaseException as exc:
                failure = failure or exc
    if failure is not None:
        for team in opened:
            team.close()
        raise failure
    return opened


class TeamConnections:
    """A search's connections opened for it and closed after it."""

    @contextmanager
    def catalogs(self, url: str, count: int) -> Iterator[list[TeamCatalog]]:
        """`count` connections to the team index at `url` (TeamUnavailable, TeamRefused as TeamCatalog.open)."""
        teams = open_catalogs(url, count)
        try:
            yield teams
        finally:
            for team in teams:
                team.close()

    def close(self) -> None:
        """Nothing is kept between searches."""


class PooledTeamConnections(TeamConnections):
    """A search's connections taken from a pool kept for the team URL last asked (see the module's docstring)."""

    def __init__(self, size: int = POOL_SIZE) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._pool: ConnectionPool[psycopg.Connection[Any]] | None = None
        self._closed = False

    @contextmanager
    def catalogs(self, url: str, count: int) -> Iterator[list[TeamCatalog]]:
        pool = self._pool_for(url)
        pooled = self._ready(pool, count) if pool is not None else []
        try:
            with ExitStack() as opened:
                teams = [TeamCatalog(conn, url) for conn in pooled]
                if len(teams) < count:
                    for team in open_catalogs(url, count - len(teams)):
                        opened.callback(team.close)
                        teams.append(team)
                    if pool is None:
                        self._start_pool(url)  # the URL answered: keep connections to it from now on
                yield teams
        finally:
            if pool is not None:
                for conn in pooled:
                    pool.putconn(conn)  # a broken one is discarded and replaced by the pool

    def _pool_for(self, url: str) -> ConnectionPool[psycopg.Connection[Any]] | None:
        """The pool of `url`; a pool of another URL (the setting changed) is closed."""
        with self._lock:
            pool = self._pool
            if pool is None or pool.conninfo == url:
                return pool
            self._pool = None
        pool.close(timeout=POOL_CLOSE_SECONDS)
        return None

    def _start_pool(self, url: str) -> None:
        with self._lock:
            if self._pool is not None or self._closed:
                return
        try:
            from psycopg_pool import ConnectionPool
        except ImportError:  # a `team` extra installed before it named the pool: connections are opened per search
            log.warning("psycopg_pool is not installed (pip install 'memlens[team]'): team connections are not kept")
            with self._lock:
                self._closed = True
            return
        with self._lock:
            if self._pool is not None or self._closed:
                return
            # filled on the pool's own threads: this search does not wait for it
            self._pool = ConnectionPool(
                url,
                min_size=self.size,
                max_size=self.size,
                kwargs={"connect_timeout": CONNECT_SECONDS, "application_name": "memlens"},
                timeout=CONNECT_SECONDS,
                name="memlens-team",
                open=True,
            )

    @staticmethod
    def _ready(pool: ConnectionPool[psycopg.Connection[Any]], count: int) -> list[psycopg.Connection[Any]]:
        """Up to `count` live connections the pool holds ready now; never waits for one to be made."""
        from psycopg_pool import ConnectionPool, PoolTimeout

        taken: list[psycopg.Connection[Any]] = []
        while len(taken) < count and pool.get_stats().get("pool_available", 0) > 0:
            try:
                conn = pool.getconn(timeout=0.001)  # another search may take the last one first
            except PoolTimeout:
                break
            try:
                ConnectionPool.check_connection(conn)
            except Exception as exc:  # the server restarted or stopped: the pool replaces it
                log.info("a pooled team connection was dead: %s", exc)
                pool.putconn(conn)
                pool.check()  # the others it held then are likely dead too: all replaced now, not one a search
                continue
            taken.append(conn)
        return taken

    def close(self) -> None:
        with self._lock:
            pool, self._pool, self._closed = self._pool, None, True
        if pool is not None:
            pool.close(timeout=POOL_CLOSE_SECONDS)
