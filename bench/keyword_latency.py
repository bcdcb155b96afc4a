"""Search CPU per query on a prebuilt index, in a fresh process: `engine.search` (mode keyword unless `--mode` says
hybrid or vector, limit 10) p50 / p95 / p99, the steps inside it (`PARTS`: the two tantivy searches, the message
field and the ±2-message context field, the query's embedding and the vector search, the re-scoring, the results, the
session titles, the last redaction...), and a digest of every answer (ids and scores), so an A/B can say its trees
answered the same. Each query is embedded afresh (the query-vector cache emptied before each search).

The child opens an index built earlier (`ROOT/corpus`, `ROOT/index`, as `bench/speed.py --prebuilt` takes it) with
the bundled model loaded, as `speed.py --prebuilt` searches it (a transcript's place in its session then comes from
the vectors in memory), and asks the realistic queries `speed.py` asks (seed 43), or with `--set` pasted errors and
long pastes, or questions about the days around an event (bench/query_sets.py). `--ab OTHER/server` runs this
tree's server and another's in fresh processes, alternated, `--rounds` times; give the other tree its own copy of
the index with `--ab-root ROOT2` when either may migrate what it opens.

    python bench/keyword_latency.py ROOT [--mode hybrid] [--set realistic|pastes|events] [--queries 300]
        [--ab BASE/server [--ab-root ROOT2] --rounds 3]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import ab_arguments, load_shared_embedder, percentile, print_figures, run_in_child
from bench.query_sets import SETS, query_set

WARMUP = 10  # queries asked before the timed pass (not timed): the first searches page in the index
# Where a keyword search's CPU goes: part → (module, attribute) timed there, each call's CPU added to the part. The
# steps of a search in order; `text` and `context` are the two tantivy searches (KeywordIndex.search by its field,
# the unit ids' fast-field read included), `near` the units the context field's search is restricted to (with
# search.contextNearBest), `titleTexts` the titles' reads of first user messages (inside `titles`).
# `excerptRedaction` is the redaction of each shown text whole before its excerpt is cut (inside `results`),
# `features` the learned ranker's feature rows (inside `rescore`), `references` the hits' references. `embed`
# is the query's embedding, `vectors` the vector search (`VectorIndex.search`), `cosines` the exact cosines of the
# keyword-only candidates (hybrid), `fusion` the fused scores, `period` the reading of whether the query asks about
# a period (days, seasons). `other` is what the search spent outside the steps. A tree without one of them
# leaves it out.
PARTS: dict[str, tuple[str, str]] = {
    "pastedNoise": ("memlens.engine.answers.search_answer", "without_pasted_noise"),
    "stackFrames": ("memlens.engine.answers.search_answer", "without_stack_frames"),
    "sourceExcerpts": ("memlens.engine.answers.search_answer", "without_source_excerpts"),
    "period": ("memlens.engine.answers.search_answer", "period_question"),
    "event": ("memlens.engine.answers.search_answer", "event_question"),
    "read": ("memlens.engine.ranking.search", "Retriever.read"),
    "keyword": ("memlens.engine.keyword.keyword_index", "KeywordIndex.search"),
    "near": ("memlens.engine.ranking.search", "Retriever._near"),
    "embed": ("memlens.engine.vectors.embedder", "Embedder.embed_query"),
    "vectors": ("memlens.engine.vectors.vector_index", "VectorIndex.search"),
    "cosines": ("memlens.engine.vectors.vector_index", "VectorIndex.cosines"),
    "fusion": ("memlens.engine.ranking.search", "Retriever._set_fused_scores"),
    "neighbours": ("memlens.engine.ranking.search", "Retriever._add_neighbors"),
    "replies": ("memlens.engine.ranking.search", "Retriever._add_replies"),
    "rescore": ("memlens.engine.ranking.search", "rescore"),
    "results": ("memlens.engine.answers.results", "ResultBuilder.answer"),
    "excerptRedaction": ("memlens.engine.answers.excerpt", "redact"),
    "titles": ("memlens.engine.answers.search_answer", "label_results"),
    "titleTexts": ("memlens.engine.catalog.sessions", "SessionReads.early_user_texts"),
    "redaction": ("memlens.engine.engine", "Engine._outbound"),
    "features": ("memlens.engine.ranking.rescoring", "write_features"),
    "references": ("memlens.engine.answers.search_answer", "add_references"),
    "verbatim": ("memlens.engine.ranking.rescoring", "put_verbatim_first"),
    "periodSearch": ("memlens.engine.answers.search_answer", "period_search"),
    "emptyWindow": ("memlens.engine.answers.search_answer", "_say_empty_window"),
    "queryNotes": ("memlens.engine.answers.search_answer", "_said_of_the_query"),
}
STEPS = (
    "pastedNoise",
    "stackFrames",
    "sourceExcerpts",
    "period",
    "event",
    "read",
    "text",
    "near",
    "context",
    "embed",
    "vectors",
    "cosines",
    "fusion",
    "neighbours",
    "replies",
    "rescore",
    "results",
    "titles",
    "emptyWindow",
    "queryNotes",
    "redaction",
)
MODES = ("keyword", "hybrid", "vector")


def _time_parts(parts: dict[str, float]) -> list[str]:
    """Wraps each of PARTS to add its CPU to `parts`; the names of those found."""
    import importlib

    found = []
    for part, (module_name, attribute) in PARTS.items():
        owner: Any = importlib.import_module(module_name)
        *path, name = attribute.split(".")
        for step in path:
            owner = getattr(owner, step, None)
        original = getattr(owner, name, None)
        if original is None:
            continue
        found.append(part)

        def timed(*args: Any, _original: Any = original, _part: str = part, **kwargs: Any) -> Any:
            used = time.process_time()
            try:
                return _original(*args, **kwargs)
            finally:
                key = _part
                if _part == "keyword":  # by the field searched (the message field unless told)
                    key = kwargs.get("field", args[3] if len(args) > 3 else "text")
                parts[key] = parts.get(key, 0.0) + 1000 * (time.process_time() - used)

        setattr(owner, name, timed)
    return found


def child(root: Path, queries: int, seed: int, mode: str = "keyword", asking: str = "realistic") -> dict[str, Any]:
    """In the fresh process: open, search, report."""
    from bench.corpus import bench_settings, open_engine, prebuilt_corpus
    from bench.realistic_text import corpus_queries, corpus_text

    asked = corpus_queries(seed, queries, text=corpus_text(root / "corpus"), scratch=root / "real-texts")
    embedder = load_shared_embedder(bench_settings())
    parts: dict[str, float] = {}
    timed = _time_parts(parts)
    with open_engine(prebuilt_corpus(root), root / "index", embedder) as engine:
        asked = query_set(asking, engine, realistic=asked, seed=seed)
        for query in asked[:WARMUP]:
            engine.search(query, mode=mode, limit=10)
        answers = hashlib.sha256()
        inner = ("titleTexts", "excerptRedaction", "features", "references", "verbatim", "periodSearch")
        names = [n for n in (*STEPS, *inner) if n in timed or (n in ("text", "context") and "keyword" in timed)]
        spent: dict[str, list[float]] = {name: [] for name in ("search", *names, "other")}
        wall: list[float] = []
        for query in asked:
            parts.clear()
            embedder.forget_queries()  # every query embedded, as in the latency probes
            started, used = time.perf_counter(), time.process_time()
            found = engine.search(query, mode=mode, limit=10)
            spent["search"].append(1000 * (time.process_time() - used))
            wall.append(1000 * (time.perf_counter() - started))
            for name in names:
                spent[name].append(parts.get(name, 0.0))
            spent["other"].append(spent["search"][-1] - sum(parts.get(name, 0.0) for name in STEPS))
            ranked = [(hit["id"], hit.get("messageId"), hit["score"]) for hit in found["results"]]
            # a keyword search's digest as it always was, so older runs compare
            said = [query, ranked] if mode == "keyword" else [mode, query, ranked]
            answers.update(json.dumps(said if asking == "realistic" else [asking, *said]).encode())
        units = engine.catalog.count("units")
    import memlens

    return {
        "server": str(Path(memlens.__file__).parents[1]),  # which tree's memlens ran (an A/B's)
        "mode": mode,
        "set": asking,
        "units": units,
        "queries": len(asked),
        "resultsSha256": answers.hexdigest()[:16],
        "cpuMs": {name: _spread(values) for name, values in spent.items()},
        "wallMs": _spread(wall),
    }


def _spread(values: list[float]) -> dict[str, float]:
    spread = {f"p{q}": round(percentile(values, q), 2) for q in (50, 95, 99)}
    return {**spread, "mean": round(sum(values) / max(1, len(values)), 2)}


def measure(
    root: Path,
    *,
    queries: int = 300,
    seed: int = 43,
    mode: str = "keyword",
    asking: str = "realistic",
    server: Path | None = None,
) -> dict[str, Any]:
    """Run `child` in a new interpreter (with `server`: that tree's memlens) and return its figures (or why it
    could not run)."""
    if not (root / "index").is_dir() or not (root / "corpus").is_dir():
        return {"skipped": f"{root} holds no corpus/ and index/ (bench/speed.py --prebuilt)"}
    call = f"child(pathlib.Path({str(root)!r}), {queries}, {seed}, {mode!r}, {asking!r})"
    return run_in_child("keyword_latency", call, server=server)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path, help="a folder holding corpus/ and index/ (bench/speed.py --prebuilt)")
    parser.add_argument("--queries", type=int, default=300, help="queries, timed once each")
    parser.add_argument("--mode", choices=MODES, default="keyword", help="the searches' mode")
    parser.add_argument("--set", choices=SETS, default="realistic", help="the queries asked (bench/query_sets.py)")
    ab_arguments(parser, rounds=3)
    args = parser.parse_args(argv)
    print_figures(
        args,
        lambda where, server: measure(where, queries=args.queries, mode=args.mode, asking=args.set, server=server),
    )


if __name__ == "__main__":
    main()
