"""Where a hybrid team search's wall time goes, on a team index kept by `bench/team.py --pgdata DIR`: each statement
the catalog sends (timed at the connection, so the round trips show), the keyword steps run and the ones whose rows
were then thrown away, the vector statement, the fusion and excerpts, and the query's embedding by the bundled
model (not cached); with `--explain`, EXPLAIN (ANALYZE, BUFFERS) of both sides' statements for one query.

    python bench/team_profile.py --pgdata /work/m1team --queries 60
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from bench.common import load_shared_embedder, percentile
from bench.corpus import COMPONENTS, THINGS, bench_settings
from bench.team import vector_source
from memlens.engine.team.team_catalog import TeamCatalog
from memlens.engine.team.team_search import TeamQuery, team_results
from memlens.settings import SearchSettings


class TimedConnection:
    """A psycopg connection whose every `execute` (sent, run, its rows received) is timed under a short label."""

    def __init__(self, conn: Any, spent: dict[str, list[float]]) -> None:
        self._conn = conn
        self._spent = spent

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    def execute(self, sql: Any, *args: Any, **kwargs: Any) -> Any:
        text = sql.decode() if isinstance(sql, bytes) else str(sql)
        started = time.perf_counter()
        cursor = self._conn.execute(sql, *args, **kwargs)
        self._spent[label(text)].append((time.perf_counter() - started) * 1000)
        return cursor

    def rollback(self) -> None:
        started = time.perf_counter()
        self._conn.rollback()
        self._spent["ROLLBACK"].append((time.perf_counter() - started) * 1000)


def label(sql: str) -> str:
    if "memlens_word_pairs(tsv) &&" in sql:
        return "keyword step 1 (word pairs)"
    if "replace(websearch_to_tsquery" in sql:
        return "keyword step 3 (any word)"
    if "ts_rank_cd" in sql:
        return "keyword step 2 (every word)"
    if "<=>" in sql:
        return "vector statement"
    return " ".join(sql.split())[:60]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pgdata", type=Path, required=True, help="the folder bench/team.py --pgdata kept")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--explain", action="store_true")
    args = parser.parse_args(argv)

    from pgserver.postgres_server import get_server

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        url = str(get_server(args.pgdata, cleanup_mode=None).get_uri())
    settings = SearchSettings()
    make = vector_source("mixed")
    rng = np.random.default_rng(7)
    queries = [
        (f"{COMPONENTS[q % len(COMPONENTS)]} {THINGS[(q * 7) % len(THINGS)]}", make(rng, 1)[0])
        for q in range(args.queries)
    ]
    report: dict[str, object] = {}
    connects = []
    for _ in range(10):
        started = time.perf_counter()
        TeamCatalog.open(url).close()
        connects.append((time.perf_counter() - started) * 1000)
    report["connectP50Ms"] = round(percentile(connects, 50), 2)

    with TeamCatalog.open(url) as team:
        spent: dict[str, list[float]] = defaultdict(list)
        team.conn = TimedConnection(team.conn, spent)  # type: ignore[assignment]  # the same calls, timed
        for query, vector in queries[:5]:  # warm
            team_results(
                team, query, terms=query.split(), vector=vector, where=TeamQuery(url), settings=settings,
                mode="hybrid", limit=10,
            )  # fmt: skip
        spent.clear()
        walls, steps_run = [], []
        for query, vector in queries:
            before = len(spent["keyword step 1 (word pairs)"]) + len(spent["keyword step 2 (every word)"])
            started = time.perf_counter()
            team_results(
                team, query, terms=query.split(), vector=vector, where=TeamQuery(url), settings=settings,
                mode="hybrid", limit=10,
            )  # fmt: skip
            walls.append((time.perf_counter() - started) * 1000)
            steps_run.append(
                len(spent["keyword step 1 (word pairs)"]) + len(spent["keyword step 2 (every word)"]) - before
            )
        statements = {
            name: {
                "count": len(times),
                "p50Ms": round(percentile(times, 50), 3),
                "meanMsPerSearch": round(sum(times) / len(queries), 3),
            }
            for name, times in spent.items()
        }
        report["hybridWallP50Ms"] = round(percentile(walls, 50), 2)
        report["statementsPerSearch"] = round(sum(len(t) for t in spent.values()) / len(queries), 1)
        report["statements"] = statements
        report["queriesRunningTwoKeywordSteps"] = sum(1 for n in steps_run if n > 1)
        total = sum(sum(t) for t in spent.values()) / len(queries)
        report["meanOutsideStatementsMs"] = round(float(np.mean(walls)) - total, 2)
        if args.explain:
            query, vector = queries[0]
            plans = {}
            raw = team.conn._conn  # type: ignore[attr-defined]
            for name, sql in explained(query, vector).items():
                raw.execute("SET hnsw.ef_search = 100")
                raw.execute("SET hnsw.iterative_scan = relaxed_order")
                plans[name] = "\n".join(r[0] for r in raw.execute(sql, prepare=False).fetchall())
                raw.rollback()
            report["explain"] = plans

    embedder = load_shared_embedder(bench_settings())
    embedder.embed_query("warm up")
    embeds = []
    for q, (query, _) in enumerate(queries):
        started = time.perf_counter()
        embedder.embed_query(f"{query} {q}")  # never cached
        embeds.append((time.perf_counter() - started) * 1000)
    report["queryEmbeddingP50Ms"] = round(percentile(embeds, 50), 2)
    explain = report.pop("explain", None)
    print(json.dumps(report, indent=2))
    if isinstance(explain, dict):
        for name, plan in explain.items():
            print(f"\n== {name}\n{plan}")


def explained(query: str, vector: np.ndarray) -> dict[str, str]:
    """The two sides' statements of one query under EXPLAIN (ANALYZE, BUFFERS), as the catalog sends them."""
    literal = "[" + ",".join(f"{x:.7g}" for x in vector) + "]"
    shown = "publisher, project, kind, text, hash"
    words = query.replace("'", "''")
    every = f"websearch_to_tsquery('english', '{words}')"
    pairs = f"memlens_word_pairs(to_tsvector('english', '{words}'))"
    return {
        "keyword step 1": f"EXPLAIN (ANALYZE, BUFFERS) SELECT {shown}, ts_rank_cd(tsv, q, 32) FROM memlens_units,"
        f" {every} q, {pairs} pairs WHERE tsv @@ q AND memlens_word_pairs(tsv) && pairs ORDER BY 6 DESC LIMIT 100",
        "keyword step 2": f"EXPLAIN (ANALYZE, BUFFERS) SELECT {shown}, ts_rank_cd(tsv, q, 32) FROM memlens_units,"
        f" {every} q WHERE tsv @@ q ORDER BY 6 DESC LIMIT 100",
        "vector": f"EXPLAIN (ANALYZE, BUFFERS) SELECT {shown}, 1 - (embedding <=> '{literal}'::halfvec) FROM"
        f" memlens_units WHERE embedding IS NOT NULL ORDER BY embedding <=> '{literal}'::halfvec LIMIT 100",
    }


if __name__ == "__main__":
    main()
