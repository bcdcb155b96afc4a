"""Whether a keyword query rewritten for MaxScore-style pruning costs tantivy less than the flat disjunction the
index sends (measured, not built: keyword_query.py says why tantivy's own block-max WAND never runs).

A query's optional clauses split into "common" ones, whose summed score bound stays under the k-th best score, and
the rest. A document holding none of the rest scores under that sum, so it cannot be in the top k, and two rewrites
give the flat query's top k exactly:

- required: `Must(const_score(OR of the rest, 0)) + Should(every clause)`: only documents holding one of the rest
  are collected, each scored by every clause (tantivy moves the common clauses' postings to each of them);
- candidates: the rest alone, top 2k by their partial score, then every clause's score for those documents only
  (`Must(const_score(unit_id in them, 0)) + Should(every clause)`); exact when the k-th full score passes the
  2k-th partial score plus the common clauses' bound.

This is the best case for both. The split is the oracle's (the flat query's true k-th score, common clauses chosen
by matched documents per unit of bound), and each clause's bound is its own best score in the index (a search of the
clause alone, not timed): tighter than idf × (k1 + 1) and what an implementation would have to keep per index
state. Each query's flat search and its rewrites run alternately in one process (CPU of `Searcher.search`, best of
`--repeat`); the report says how often each rewrite was exact (same units, scores within 1e-5) and certified.
Beside them, what the flat query costs with every score constant (collecting without BM25) and for a top 10.

    python bench/keyword_pruning.py ROOT [--queries 300]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tantivy

from bench.common import percentile

SHOULD, MUST = tantivy.Occur.Should, tantivy.Occur.Must


def _any_of(queries: list[tantivy.Query]) -> tantivy.Query:
    return tantivy.Query.boolean_query([(SHOULD, q) for q in queries])


def _required(rest: tantivy.Query, clauses: list[tantivy.Query]) -> tantivy.Query:
    return tantivy.Query.boolean_query(
        [(MUST, tantivy.Query.const_score_query(rest, 0.0)), *[(SHOULD, q) for q in clauses]]
    )


def measure(root: Path, *, queries: int, repeat: int, depths: tuple[int, int] | None = None) -> dict[str, Any]:
    """The figures; `depths`: the top k of the message field and of the context field (default: as a search asks)."""
    from bench.corpus import bench_settings, open_engine, prebuilt_corpus
    from bench.realistic_text import corpus_queries, corpus_text

    asked = corpus_queries(43, queries, text=corpus_text(root / "corpus"), scratch=root / "real-texts")
    settings = bench_settings().search
    with open_engine(prebuilt_corpus(root), root / "index", None) as engine:
        keyword, retriever = engine.retriever.keyword, engine.retriever
        searcher = keyword.index.searcher()
        schema = keyword.schema

        def search(query: tantivy.Query, limit: int) -> tuple[list[tuple[float, Any]], float]:
            best, hits = float("inf"), []
            for _ in range(repeat):
                used = time.process_time()
                hits = searcher.search(query, limit, count=False).hits
                best = min(best, 1000 * (time.process_time() - used))
            return hits, best

        def same(hits: list[tuple[float, Any]], flat: list[tuple[float, Any]]) -> bool:
            ids = [(a.segment_ord, a.doc) for _, a in hits]
            return ids == [(a.segment_ord, a.doc) for _, a in flat] and all(
                abs(s - f) <= 1e-5 * abs(f) for (s, _), (f, _) in zip(hits, flat, strict=True)
            )

        spent: dict[str, dict[str, list[float]]] = {}
        counts: dict[str, dict[str, int]] = {}
        for text in asked:
            parsed = retriever.read(text, settings)
            if any(parsed.phrases):
                continue  # not a flat disjunction
            expansions = retriever._expansions(parsed, settings)
            text_depth, context_depth = depths or (settings.candidates, settings.context_candidates)
            for field, limit in (("text", text_depth), ("context", context_depth)):
                clauses = keyword.queries.word_queries(parsed, field)
                if not clauses:
                    continue
                clauses += [
                    tantivy.Query.boost_query(tantivy.Query.term_query(schema, field, word, index_option="freq"), boost)
                    for word, boost in expansions
                ]
                ways = ("flat", "constant", "top10", "required", "candidates")
                times = spent.setdefault(field, {way: [] for way in ways})
                tally = counts.setdefault(field, {"queries": 0, "split": 0, "requiredExact": 0, "candidatesExact": 0})
                tally["queries"] += 1
                flat, flat_ms = search(_any_of(clauses), limit)
                times["flat"].append(flat_ms)
                times["constant"].append(search(tantivy.Query.const_score_query(_any_of(clauses), 1.0), limit)[1])
                times["top10"].append(search(_any_of(clauses), 10)[1])
                kth = flat[-1][0] if len(flat) == limit else 0.0
                best = [h[0][0] if h else 0.0 for h in (searcher.search(q, 1, count=False).hits for q in clauses)]
                # tantivy-py's stubs leave out the count it returns
                matched = [searcher.search(q, 1, count=True).count for q in clauses]  # type: ignore[attr-defined]
                order = sorted(range(len(clauses)), key=lambda i: -matched[i] / max(best[i], 1e-9))
                common: set[int] = set()
                bound = 0.0
                for i in order:
                    if matched[i] and bound + best[i] * 1.0001 < kth and len(common) < len(clauses) - 1:
                        common.add(i)
                        bound += best[i] * 1.0001
                if not common:
                    times["required"].append(flat_ms)
                    times["candidates"].append(flat_ms)
                    continue
                tally["split"] += 1
                rest = _any_of([q for i, q in enumerate(clauses) if i not in common])
                hits, ms = search(_required(rest, clauses), limit)
                times["required"].append(ms)
                certified = len(hits) == limit and hits[-1][0] > bound
                tally["requiredExact"] += int(certified and same(hits, flat))
                partial, first_ms = search(rest, 2 * limit)
                floor = partial[-1][0] if len(partial) == 2 * limit else 0.0
                ids = searcher.fast_field_values("unit_id", [a for _, a in partial])
                chosen = tantivy.Query.term_set_query(schema, "unit_id", [int(u) for u in ids if u is not None])
                hits, second_ms = search(_required(chosen, clauses), limit)
                times["candidates"].append(first_ms + second_ms)
                certified = len(hits) == limit and hits[-1][0] > floor + bound
                tally["candidatesExact"] += int(certified and same(hits, flat))
    return {
        "queries": len(asked),
        "cpuMs": {
            field: {way: {f"p{q}": round(percentile(v, q), 2) for q in (50, 95, 99)} for way, v in ways.items()}
            for field, ways in spent.items()
        },
        "counts": counts,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path, help="a folder holding corpus/ and index/ (bench/speed.py --prebuilt)")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=2, help="each search's CPU is the best of this many")
    args = parser.parse_args(argv)
    load = os.getloadavg()
    figures = measure(args.root, queries=args.queries, repeat=args.repeat)
    print(json.dumps({"loadavgStart": load, **figures, "loadavgEnd": os.getloadavg()}, indent=2))


if __name__ == "__main__":
    main()
