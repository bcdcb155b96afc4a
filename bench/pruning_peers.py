"""Whether a keyword engine that prunes (top-k) would meet issue 34's keyword target where tantivy-py does not: the
same realistic messages and queries given to plain tantivy-py and to engines whose matchers skip documents that
cannot reach the top k (measured, not adopted: nothing here is product code).

tantivy-py 0.27 collects through a `MultiCollector`, so tantivy's block-max WAND never runs and every document
holding a query word is scored (bench/keyword_pruning.py). The peers:

- tantivy: the venv's tantivy-py, a flat OR of term queries (as memlens asks it), the baseline;
- xapian: the `xapian-bindings-binary` wheel, `BM25Weight`, `OP_OR` (its matcher skips by each term's max weight);
- lance: `pylance`'s INVERTED index and `full_text_query` (block-max WAND), through `Dataset.to_table`;
- pisa: `pyterrier-pisa`'s PISA index, block-max WAND, called through its `_pisathon.retrieve` (the pandas frame
  `PisaRetrieve` wraps around it costs more than the search); pisa-maxscore: the same index, block-max MaxScore;
- bm25s: scores precomputed into a sparse matrix, summed for the query's words, then the top k (no pruning).

Every engine gets the same analysed words: a message's alphanumeric runs lowercased and stemmed by the English
Snowball stemmer (tantivy's `en_stem` chain: words over 40 characters dropped), joined by spaces, so each engine's
own tokenizer only splits on the spaces; a query is the same analysis of two or three consecutive words of a real
message (bench/realistic_text.py), its distinct words OR-ed. The "context" field of a message is its words with
those of its ±2 neighbours in its session (as memlens indexes it). BM25 with k1 = 1.2, b = 0.75 where the engine
takes them.

Three steps; the first needs memlens (the real texts are read with its parsers), the others the peers' packages,
installed into a scratch venv (never the project's):

    python bench/pruning_peers.py generate DIR [--messages 1000000]      # the messages and queries (memlens venv)
    PEERS=/tmp/pruning-venv/bin/python
    $PEERS bench/pruning_peers.py build DIR --engine tantivy             # one process an engine: CPU, peak RSS, size
    $PEERS bench/pruning_peers.py search DIR [--engines tantivy,xapian,lance,pisa,bm25s]

`search` runs every engine's query in turn, query by query, for the top 10 and the top 100 of each field: a round
that reads the indexes' pages, then `--repeat` rounds, each search's process CPU (`time.process_time`, every thread)
and wall time the best of them; a query's two fields together (the sum of its two searches, the figure issue 34's
p99 ≤ 6 ms is about), and how many of each engine's top 10 are tantivy's.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SESSION = 24  # messages per session: 12 exchanges, as bench/corpus.py writes a transcript file
WINDOW = 2  # the context field: a message and its neighbours this far either side in its session
FIELDS = ("text", "context")
DEPTHS = (10, 100)
ENGINES = ("tantivy", "xapian", "lance", "pisa", "bm25s")
_RUN = re.compile(r"[^\W_]+")
Search = Callable[[list[str], int], list[int]]


def _percentile(values: list[float], q: float) -> float:
    """As bench/common.percentile (not imported: it needs memlens, which the peers' venv lacks)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _dir_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def generate(folder: Path, *, messages: int, queries: int, seed: int) -> None:
    """`messages` realistic texts (one JSON string a line, sessions of SESSION in order) and the queries."""
    import tempfile

    from bench.common import SHARED
    from bench.realistic_text import RealisticWorld, read_real_texts

    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="pruning-real-") as scratch:
        real = read_real_texts(SHARED / "fixtures" / "transcripts", Path(scratch))
    world, asking = RealisticWorld(seed, real), RealisticWorld(43, real)  # 43: bench/keyword_pruning.py's queries
    with (folder / "messages.jsonl").open("w", encoding="utf-8") as out:
        for n in range(messages):
            out.write(json.dumps(world.ask() if n % 2 == 0 else world.answer()) + "\n")
    asked = [asking.query() for _ in range(queries)]
    (folder / "queries.json").write_text(json.dumps(asked))
    (folder / "meta.json").write_text(json.dumps({"messages": messages, "session": SESSION, "seed": seed}))


def analyse(folder: Path) -> None:
    """Each message's analysed words, one line each (analysed.txt), and each query's (queries-analysed.json)."""
    import Stemmer

    stem = Stemmer.Stemmer("english")

    def words(text: str) -> list[str]:
        return [str(w) for w in stem.stemWords([w for w in _RUN.findall(text.lower()) if len(w) <= 40])]

    with (folder / "messages.jsonl").open(encoding="utf-8") as lines, (folder / "analysed.txt").open("w") as out:
        for line in lines:
            out.write(" ".join(words(json.loads(line))) + "\n")
    asked = json.loads((folder / "queries.json").read_text())
    analysed = [list(dict.fromkeys(words(q))) for q in asked]
    (folder / "queries-analysed.json").write_text(json.dumps(analysed))


def field_texts(folder: Path, field: str) -> Iterator[str]:
    """The analysed texts of `field` in message order: a message's words, or them with its neighbours'."""
    texts = (folder / "analysed.txt").read_text().splitlines()
    if field == "text":
        yield from texts
        return
    for n in range(len(texts)):
        first = n - n % SESSION
        last = min(first + SESSION, len(texts))
        yield " ".join(texts[max(first, n - WINDOW) : min(last, n + WINDOW + 1)])


# ---- the engines: build(folder, texts) writes an index of one field; open_search(folder) answers a query ----


def tantivy_build(index_dir: Path, texts: Iterator[str]) -> None:
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field("id", stored=False, indexed=False, fast=True)
    builder.add_text_field("body", stored=False, tokenizer_name="default", index_option="position")
    index = tantivy.Index(builder.build(), path=str(index_dir))
    writer = index.writer(heap_size=512_000_000, num_threads=1)
    for n, text in enumerate(texts):
        doc = tantivy.Document()
        doc.add_unsigned("id", n)
        doc.add_text("body", text)
        writer.add_document(doc)
    writer.commit()
    writer.wait_merging_threads()


def tantivy_open(index_dir: Path) -> Search:
    import tantivy

    index = tantivy.Index.open(str(index_dir))
    index.reload()
    searcher, schema = index.searcher(), index.schema
    should = tantivy.Occur.Should

    def search(words: list[str], k: int) -> list[int]:
        clauses = [(should, tantivy.Query.term_query(schema, "body", w, index_option="freq")) for w in words]
        hits = searcher.search(tantivy.Query.boolean_query(clauses), k, count=False).hits
        return [int(v or 0) for v in searcher.fast_field_values("id", [a for _, a in hits])]

    return search


def xapian_build(index_dir: Path, texts: Iterator[str], *, positions: bool) -> None:
    """Without positions when asked: an OR query reads none, and Xapian's build with them costs about three times
    the CPU (20,000 context texts: 32.6 s with, 11.5 s without)."""
    import xapian

    db = xapian.WritableDatabase(str(index_dir), xapian.DB_CREATE_OR_OVERWRITE | xapian.DB_NO_SYNC)
    generator = xapian.TermGenerator()  # no stemmer: the words come analysed
    for text in texts:
        doc = xapian.Document()
        generator.set_document(doc)
        if positions:
            generator.index_text(text)
        else:
            generator.index_text_without_positions(text)
        db.add_document(doc)  # document ids 1, 2, … in message order
    db.commit()
    db.close()


def xapian_open(index_dir: Path) -> Search:
    import xapian

    enquire = xapian.Enquire(xapian.Database(str(index_dir)))
    enquire.set_weighting_scheme(xapian.BM25Weight(1.2, 0, 1, 0.75, 0.5))

    def search(words: list[str], k: int) -> list[int]:
        enquire.set_query(xapian.Query(xapian.Query.OP_OR, words))
        return [m.docid - 1 for m in enquire.get_mset(0, k)]

    return search


def lance_build(index_dir: Path, texts: Iterator[str]) -> None:
    import lance
    import pyarrow as pa

    schema = pa.schema([("id", pa.int64()), ("body", pa.large_string())])

    def batches() -> Iterator[pa.RecordBatch]:
        ids: list[int] = []
        bodies: list[str] = []
        for n, text in enumerate(texts):
            ids.append(n)
            bodies.append(text)
            if len(ids) == 50_000:
                yield pa.RecordBatch.from_arrays([pa.array(ids), pa.array(bodies, pa.large_string())], schema=schema)
                ids, bodies = [], []
        if ids:
            yield pa.RecordBatch.from_arrays([pa.array(ids), pa.array(bodies, pa.large_string())], schema=schema)

    reader = pa.RecordBatchReader.from_batches(schema, batches())
    dataset = lance.write_dataset(reader, str(index_dir), mode="overwrite")
    dataset.create_scalar_index(
        "body",
        "INVERTED",
        base_tokenizer="whitespace",
        lower_case=False,
        stem=False,
        remove_stop_words=False,
        ascii_folding=False,
        with_position=True,
        num_workers=1,
        memory_limit=2048,
    )


def lance_open(index_dir: Path) -> Search:
    import lance
    from lance.query import MatchQuery

    dataset = lance.dataset(str(index_dir))

    def search(words: list[str], k: int) -> list[int]:
        query = MatchQuery(" ".join(words), "body")
        table = dataset.to_table(columns=["id"], full_text_query=query, limit=k, disable_scoring_autoprojection=True)
        return [int(v) for v in table.column("id").to_pylist()]

    return search


def pisa_build(index_dir: Path, texts: Iterator[str]) -> None:
    from pyterrier_pisa import PisaIndex

    index = PisaIndex(str(index_dir), text_field="text", stemmer="none", stops="none", threads=1, overwrite=True)
    index.index({"docno": str(n), "text": text} for n, text in enumerate(texts))
    pisa_open(index_dir)  # its first open writes the BM25 block-max bounds beside the index: part of the build


def pisa_open(index_dir: Path, *, algorithm: str = "block_max_wand") -> Search:
    import numpy as np
    from pyterrier_pisa import PisaIndex, _pisathon

    context = PisaIndex(str(index_dir), stops="none", threads=1).bm25(k1=1.2, b=0.75, threads=1)._ctxt

    def search(words: list[str], k: int) -> list[int]:
        qidxs, docnos = np.empty(k, dtype=np.int32), np.empty(k, dtype=object)
        ranks, scores = np.empty(k, dtype=np.int32), np.empty(k, dtype=np.float32)
        size = _pisathon.retrieve(
            context,
            algorithm,
            [(0, " ".join(words))],
            k=k,
            threads=1,
            query_weighted=0,
            pretokenised=False,
            result_qidxs=qidxs,
            result_docnos=docnos,
            result_ranks=ranks,
            result_scores=scores,
        )
        return [int(d) for d in docnos[:size]]

    return search


def bm25s_build(index_dir: Path, texts: Iterator[str]) -> None:
    import bm25s

    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(w, len(vocab)) for w in text.split()] for text in texts]
    retriever = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    retriever.index((ids, vocab), show_progress=False)
    del ids
    retriever.save(str(index_dir))


def bm25s_open(index_dir: Path) -> Search:
    import bm25s
    import numpy as np

    retriever = bm25s.BM25.load(str(index_dir), mmap=True)
    vocab: dict[str, int] = retriever.vocab_dict

    def search(words: list[str], k: int) -> list[int]:
        known = [vocab[w] for w in words if w in vocab]
        if not known:
            return []
        scores = retriever.get_scores_from_ids(known)
        top = np.argpartition(-scores, k)[:k]
        top = top[scores[top] > 0]
        return [int(d) for d in top[np.argsort(-scores[top], kind="stable")]]

    return search


BUILDERS: dict[str, Callable[[Path, Iterator[str]], None]] = {  # xapian's takes one more argument (build)
    "tantivy": tantivy_build,
    "lance": lance_build,
    "pisa": pisa_build,
    "bm25s": bm25s_build,
}
OPENERS: dict[str, Callable[[Path], Search]] = {
    "tantivy": tantivy_open,
    "xapian": xapian_open,
    "lance": lance_open,
    "pisa": pisa_open,
    "pisa-maxscore": lambda index_dir: pisa_open(index_dir, algorithm="block_max_maxscore"),
    "bm25s": bm25s_open,
}
INDEX_OF = {"pisa-maxscore": "pisa"}  # an engine that searches another's index another way


def build(folder: Path, engine: str, fields: list[str], *, xapian_positions: str) -> dict[str, Any]:
    """Build `engine`'s index of each of `fields` under folder/ENGINE-FIELD; its CPU, wall time and size."""
    figures: dict[str, Any] = {}
    for field in fields:
        index_dir = folder / f"{engine}-{field}"
        index_dir.mkdir(parents=True, exist_ok=True)
        cpu = time.process_time()
        for _ in field_texts(folder, field):
            pass
        reading = time.process_time() - cpu  # the texts' read and the context's joins, in every engine's figure
        cpu, wall = time.process_time(), time.perf_counter()
        texts = field_texts(folder, field)
        if engine == "xapian":
            xapian_build(index_dir, texts, positions=field in xapian_positions.split(","))
        else:
            BUILDERS[engine](index_dir, texts)
        figures[field] = {
            "cpuS": round(time.process_time() - cpu, 1),
            "wallS": round(time.perf_counter() - wall, 1),
            "readingCpuS": round(reading, 1),
            "bytes": _dir_bytes(index_dir),
        }
    figures["peakRssMB"] = _peak_rss_mb()
    (folder / f"build-{engine}.json").write_text(json.dumps(figures))
    return figures


def search_all(folder: Path, engines: list[str], *, limit: int, repeat: int) -> dict[str, Any]:
    """Each query through every engine in turn (query by query), both fields and both depths: a first round that
    reads every index's pages, then `repeat` rounds, each search's CPU and wall time the best of them (other jobs
    share the machine)."""
    asked: list[list[str]] = json.loads((folder / "queries-analysed.json").read_text())[:limit]
    asked = [words for words in asked if words]
    opened, open_cpu = {}, {}
    for engine in engines:
        for field in FIELDS:
            index_dir = folder / f"{INDEX_OF.get(engine, engine)}-{field}"
            if index_dir.is_dir():
                cpu = time.process_time()
                opened[(engine, field)] = OPENERS[engine](index_dir)
                open_cpu[f"{engine}/{field}"] = round(time.process_time() - cpu, 2)
    best_cpu: dict[tuple[int, str], float] = {}  # (query, engine/field/topK): the best of the rounds
    best_wall: dict[tuple[int, str], float] = {}
    overlap: dict[str, list[int]] = {}
    for round_ in range(1 + repeat):
        for n, words in enumerate(asked):
            for k in DEPTHS:
                reference: dict[str, set[int]] = {}
                for (engine, field), search in opened.items():
                    cpu, wall = time.process_time(), time.perf_counter()
                    found = search(words, k)
                    cpu_used, wall_used = 1000 * (time.process_time() - cpu), 1000 * (time.perf_counter() - wall)
                    if round_ == 0:
                        continue
                    slot = (n, f"{engine}/{field}/top{k}")
                    best_cpu[slot] = min(best_cpu.get(slot, cpu_used), cpu_used)
                    best_wall[slot] = min(best_wall.get(slot, wall_used), wall_used)
                    if k == 10 and round_ == 1:
                        if engine == "tantivy":
                            reference[field] = set(found)
                        elif field in reference:
                            overlap.setdefault(f"{engine}/{field}", []).append(len(reference[field] & set(found)))
    cpu_ms: dict[str, list[float]] = {}
    wall_ms: dict[str, list[float]] = {}
    by_query: dict[tuple[int, str], float] = {}  # a query's two fields together, per engine and depth
    for (n, key), value in best_cpu.items():
        cpu_ms.setdefault(key, []).append(value)
        wall_ms.setdefault(key, []).append(best_wall[(n, key)])
        engine, _, depth = key.split("/")
        by_query[(n, f"{engine}/{depth}")] = by_query.get((n, f"{engine}/{depth}"), 0.0) + value
    both_ms: dict[str, list[float]] = {}
    for (_, key), value in by_query.items():
        both_ms.setdefault(key, []).append(value)

    def summary(values: list[float]) -> dict[str, float]:
        return {f"p{q}": round(_percentile(values, q), 2) for q in (50, 95, 99)}

    return {
        "queries": len(asked),
        "openCpuS": open_cpu,
        "cpuMs": {key: summary(v) for key, v in cpu_ms.items()},
        "wallMs": {key: summary(v) for key, v in wall_ms.items()},
        "bothFieldsCpuMs": {key: summary(v) for key, v in both_ms.items()},
        "top10Overlap": {
            key: {"mean": round(sum(v) / len(v) / 10, 3), "all10": sum(1 for x in v if x == 10), "of": len(v)}
            for key, v in overlap.items()
        },
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=("generate", "analyse", "build", "search"))
    parser.add_argument("folder", type=Path)
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--engine", choices=ENGINES, help="build: the engine")
    parser.add_argument("--fields", default=",".join(FIELDS), help="build: the fields, comma-separated")
    parser.add_argument(
        "--xapian-positions", default="text", help="build: the fields xapian keeps positions of (comma-separated)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="search: measured rounds, each search the best")
    parser.add_argument("--engines", default=",".join(ENGINES), help="search: the engines, comma-separated")
    args = parser.parse_args(argv)
    load = os.getloadavg()
    if args.step == "generate":
        generate(args.folder, messages=args.messages, queries=args.queries, seed=args.seed)
    elif args.step == "analyse":
        analyse(args.folder)
    if args.step in ("generate", "analyse"):
        figures: dict[str, Any] = {"done": args.step, "cpuS": round(time.process_time(), 1)}
    elif args.step == "build":
        if args.engine is None:
            raise SystemExit("build needs --engine")
        figures = {
            "engine": args.engine,
            **build(args.folder, args.engine, args.fields.split(","), xapian_positions=args.xapian_positions),
        }
    else:
        figures = search_all(args.folder, args.engines.split(","), limit=args.queries, repeat=args.repeat)
        (args.folder / "search.json").write_text(json.dumps({"loadavgStart": load, **figures}))
    print(json.dumps({"loadavgStart": load, **figures, "loadavgEnd": os.getloadavg()}, indent=2))


if __name__ == "__main__":
    main()
