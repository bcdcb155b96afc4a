"""Keyword-only cold indexing: CPU seconds per 1,000 messages, what it indexed (a checksum for A/B checks), and
optionally where the time goes (cProfile, on CPU time).

    python bench/cold_index.py [--corpus synthetic|fixtures] [--chunks 10000] [--copies 4] [--profile N] [--phases]
    python bench/cold_index.py --ab /tmp/base/server --runs 4   # fresh processes alternated, each tree first in turn
    python bench/cold_index.py --corpus-dir ROOT/corpus --root SCRATCH --no-checksum   # a prebuilt corpus (speed.py's)

`synthetic`: the corpus of bench/corpus.py (short messages); `fixtures`: the real transcripts of
../shared/fixtures/transcripts copied `--copies` times (mostly long messages). The checksum covers every unit's
text, kind, role and session, its derived facts, the chunks' kinds, the vocabulary, the tantivy document count, how
many documents hold each of a sample of terms in each tantivy field and which hold a sample of phrases (positions):
a change that makes indexing cheaper must leave it as it was on the same corpus.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import hashlib
import importlib
import io
import json
import os
import pstats
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tantivy

from bench.common import SHARED, compile_trees, peak_rss_mb
from bench.corpus import bench_settings, make_corpus
from memlens.engine.engine import Engine

FIXTURES = SHARED / "fixtures" / "transcripts"
MESSAGE_KINDS = ("transcript", "tool", "summary")
_SAMPLE_TERM = re.compile(r"[A-Za-z0-9_$]+(?:[./:-][A-Za-z0-9_$]+)*|[\u3040-\u9fff]{2}")


def fixture_corpus(root: Path, copies: int) -> tuple[list[Path], list[Path]]:
    """The real transcripts copied `copies` times (each copy a folder of its own); (workspaces, transcript roots)."""
    target = root / f"fixtures-{copies}"
    if not target.exists():
        for i in range(copies):
            shutil.copytree(FIXTURES, target / f"copy-{i}")
    (root / "empty-workspace").mkdir(parents=True, exist_ok=True)
    return [root / "empty-workspace"], [target]


def index_checksum(engine: Engine) -> dict[str, Any]:
    """What an index holds, independent of how fast it was made: units (text, kind, role, session, message, derived
    facts), chunks (kind, session, lines), the vocabulary and tantivy's document count."""
    db = engine.catalog.db
    # the texts as written, read through the view that decodes them (an A/B's older tree stores them plain)
    table = "plain_units" if hasattr(engine.catalog, "texts") else "units"
    digest = hashlib.sha256()
    rows = db.execute(
        "SELECT f.path, u.seq, u.position, u.kind, u.role, u.session_key, u.message_id, u.ts, u.text, u.embed_text_hash"
        f" FROM {table} u JOIN files f ON f.id = u.file_id ORDER BY f.path, u.session_key, u.seq, u.position, u.text"
    )
    units = messages = 0
    for row in rows:
        digest.update(repr(tuple(row)).encode("utf-8", "surrogatepass"))
        units += 1
        messages += row[3] in MESSAGE_KINDS
    chunks = db.execute(
        "SELECT f.path, c.kind, c.session_key, c.line_start, c.line_end, c.heading, c.message_count"
        " FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY 1, 4, 5, 2"
    ).fetchall()
    digest.update(repr([tuple(r) for r in chunks]).encode("utf-8", "surrogatepass"))
    # the units' derived facts and the vocabulary (written with the units or after them, depending on the tree)
    facts = db.execute(
        f"SELECT f.path, u.seq, u.position, u.text, u.words, u.tool, u.dup_key, u.question"
        f" FROM {table} u JOIN files f ON f.id = u.file_id ORDER BY f.path, u.session_key, u.seq, u.position, u.text"
    )
    for row in facts:
        digest.update(repr(tuple(row)).encode("utf-8", "surrogatepass"))
    vocabulary = [tuple(r) for r in db.execute("SELECT stem, surface FROM words ORDER BY stem")]
    digest.update(repr(vocabulary).encode("utf-8", "surrogatepass"))
    # tantivy's side: how many documents hold each of a sample of terms in each field (the terms picked from the
    # texts by a rule of this file alone, so both trees of an A/B ask the same)
    texts = [str(r[0]) for r in db.execute(f"SELECT text FROM {table} ORDER BY id")][::7]
    terms = sorted({t.lower() for text in texts for t in _SAMPLE_TERM.findall(text)})
    searcher = engine.indexer.keyword.index.searcher()
    for field in ("text", "context", "ident", "cjk"):
        digest.update(repr([searcher.doc_freq(field, term) for term in terms]).encode())
    # and where they stand: the units holding the first three analysed words of a sample of texts as a phrase
    keyword = engine.indexer.keyword
    for text in texts[::50]:
        words: list[str | tuple[int, str]] = list(keyword.tokens(text)[:3])
        for field in ("text", "context") if len(words) == 3 else ():
            hits = searcher.search(tantivy.Query.phrase_query(keyword.schema, field, words), 100).hits
            found = searcher.fast_field_values("unit_id", [address for _, address in hits])
            digest.update(repr(sorted(int(u or 0) for u in found)).encode())
    return {
        "units": units,
        "messages": messages,
        "chunks": len(chunks),
        "tantivyDocs": engine.indexer.keyword.num_docs(),
        "checksum": digest.hexdigest()[:16],
    }


def message_count(engine: Engine) -> dict[str, Any]:
    """The counts of index_checksum without the checksum (which at a million messages takes minutes)."""
    db = engine.catalog.db
    kinds = ",".join(f"'{kind}'" for kind in MESSAGE_KINDS)
    return {
        "units": int(db.execute("SELECT COUNT(*) FROM units").fetchone()[0]),
        "messages": int(db.execute(f"SELECT COUNT(*) FROM units WHERE kind IN ({kinds})").fetchone()[0]),
        "tantivyDocs": engine.indexer.keyword.num_docs(),
    }


# the sync's parts whose CPU --phases adds up (module, attribute, label): wrapped where the indexer calls them (one
# that a tree lacks is left out: an A/B runs this file against an older tree too)
PHASES = (
    ("memlens.engine.indexing.indexer", "Indexer._read", "read: parse + redact"),
    ("memlens.engine.indexing.indexer", "redact_content", "  of which redact"),
    ("memlens.engine.indexing.catalog_writer", "CatalogWriter.write", "catalog rows"),
    ("memlens.engine.catalog", "Catalog.insert_units", "  units' INSERT"),
    ("memlens.engine.catalog", "Catalog.set_unit_facts", "  facts' UPDATE (in unit facts)"),
    ("memlens.engine.catalog", "Catalog.count_word_forms", "  words' counts (in vocabulary)"),
    ("memlens.engine.indexing.indexer", "Indexer._mirror", "mirror: tantivy, facts, words"),
    ("memlens.engine.keyword.keyword_index", "KeywordIndex.write", "  tantivy docs + commit"),
    ("memlens.engine.catalog", "Catalog.units_by_id", "  units read back (in mirror)"),
    ("memlens.engine.indexing.indexer", "fill_unit_facts", "  unit facts"),
    ("memlens.engine.indexing.indexer", "facts_rows", "  unit facts"),  # (their words from tantivy's analysis)
    ("memlens.engine.indexing.indexer", "collect_words", "  vocabulary"),
    ("memlens.engine.indexing.indexer", "write_afresh", "keyword written afresh at the end"),
    ("memlens.engine.indexing.indexer", "fill_facts_from_analysed", "  of which unit facts (in the rewrite)"),
)


def time_phases() -> dict[str, float]:
    """Wrap PHASES so each adds its CPU seconds to the returned dict (for one run in this process)."""
    spent: dict[str, float] = {}
    for module_name, attribute, label in PHASES:
        owner: Any = importlib.import_module(module_name)
        *path, name = attribute.split(".")
        for part in path:
            owner = getattr(owner, part, None)
        if owner is not None and hasattr(owner, name):
            setattr(owner, name, _timed(getattr(owner, name), label, spent))
    return spent


class _CurveMark:
    """Where the last point of time_curve was taken: units inserted, process CPU, the phases' CPU."""

    def __init__(self, spent: dict[str, float]) -> None:
        self.units = self.marked = 0
        self.cpu = time.process_time()
        self.spent = dict(spent)


def time_curve(spent: dict[str, float], every: int) -> list[dict[str, Any]]:
    """Per `every` units added, the CPU per 1,000 units of the whole batch step and of each phase in `spent` (which
    time_phases fills): where the cost per message grows with the index's size. Filled in as the sync runs."""
    from memlens.engine.catalog import Catalog
    from memlens.engine.indexing.indexer import Indexer

    curve: list[dict[str, Any]] = []
    mark = _CurveMark(spent)
    insert_units, apply_batch = Catalog.insert_units, Indexer._apply_batch

    def counting(self: Any, db: Any, rows: Any) -> list[int]:
        mark.units += len(rows)
        return insert_units(self, db, rows)

    def batch(self: Indexer, *args: Any, **kwargs: Any) -> None:
        apply_batch(self, *args, **kwargs)
        if mark.units - mark.marked >= every:
            added, now = mark.units - mark.marked, time.process_time()
            point: dict[str, Any] = {"units": mark.units, "cpuPer1000": round(1000 * (now - mark.cpu) / added, 3)}
            for label, seconds in spent.items():
                point[label.strip()] = round(1000 * (seconds - mark.spent.get(label, 0.0)) / added, 3)
            curve.append(point)
            print(json.dumps(point), file=sys.stderr, flush=True)
            mark.marked, mark.cpu, mark.spent = mark.units, now, dict(spent)

    Catalog.insert_units = counting  # type: ignore[method-assign]
    Indexer._apply_batch = batch  # type: ignore[method-assign]
    return curve


def _timed(function: Any, label: str, spent: dict[str, float]) -> Any:
    @functools.wraps(function)
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[label] = spent.get(label, 0.0) + time.process_time() - started

    return timed


def run_once(args: argparse.Namespace) -> dict[str, Any]:
    root: Path = args.root
    if args.corpus_dir is not None:
        workspaces, transcripts = [args.corpus_dir / "workspace"], [args.corpus_dir / "transcripts"]
    elif args.corpus == "synthetic":
        corpus = make_corpus(root / f"corpus-{args.chunks}", args.chunks, 7)
        workspaces, transcripts = [corpus.workspace], [corpus.transcripts]
    else:
        workspaces, transcripts = fixture_corpus(root, args.copies)
    with tempfile.TemporaryDirectory(dir=root) as index_dir:
        engine = Engine(
            workspaces, bench_settings(), extra_transcripts=transcripts, index_dir=Path(index_dir), embedder=False
        )
        spent = time_phases() if args.phases or args.curve else None
        curve = time_curve(spent, args.curve) if spent is not None and args.curve else None
        # on CPU time (tantivy's threads included): on a shared machine the wall clock counts the other jobs too
        profiler = cProfile.Profile(time.process_time) if args.profile else None
        started = (time.perf_counter(), time.process_time())
        if profiler is not None:
            profiler.enable()
        engine.sync(embed=False)
        if profiler is not None:
            profiler.disable()
        wall, cpu = time.perf_counter() - started[0], time.process_time() - started[1]
        load = os.getloadavg()
        peak = peak_rss_mb()
        out = index_checksum(engine) if args.checksum else message_count(engine)
        engine.close()
    out |= {"cpuS": round(cpu, 3), "wallS": round(wall, 3), "peakRssMB": peak, "loadAvg": [round(x, 2) for x in load]}
    out["cpuSPer1000Messages"] = round(1000 * cpu / max(1, out["messages"]), 3)
    out["messagesPerCpuS"] = round(out["messages"] / cpu)
    out["unitsPerCpuS"] = round(out["units"] / cpu)
    if spent is not None:
        out["phasesCpuS"] = {label: round(seconds, 3) for label, seconds in spent.items()}
    if curve is not None:
        out["curve"] = curve
    if profiler is not None:
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats(os.environ.get("SORT", "tottime")).print_stats(args.profile)
        out["profile"] = text.getvalue()
    return out


def alternate(args: argparse.Namespace) -> None:
    """Fresh processes, this tree's server and `--ab`'s alternated, each tree first in every other round (the second
    process of a pair ran faster, whichever tree it was: bench/RESULTS.md); the median CPU of each."""
    trees = {"this": str(Path(__file__).resolve().parents[1] / "server"), "base": str(args.ab)}
    compile_trees(*trees.values())
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    own = [a for a in sys.argv[1:] if not a.startswith("--ab") and a != str(args.ab)]
    own = [a for i, a in enumerate(own) if not (a == "--runs" or (i and own[i - 1] == "--runs"))]
    for run in range(args.runs):
        for name, tree in list(trees.items())[:: -1 if run % 2 else 1]:
            env = os.environ | {"PYTHONPATH": tree}
            out = subprocess.run(
                [sys.executable, __file__, *own], env=env, capture_output=True, text=True, check=True
            ).stdout
            results[name].append(json.loads(out))
            print(name, json.dumps(results[name][-1]), file=sys.stderr, flush=True)
    for name, runs in results.items():
        cpu = sorted(r["cpuS"] for r in runs)[len(runs) // 2]
        first = runs[0]
        print(
            f"{name}: median {cpu:.2f} s CPU, {1000 * cpu / first['messages']:.3f} s per 1,000 messages, "
            f"{first['messages'] / cpu:,.0f} messages/CPU-s, {first['units'] / cpu:,.0f} units/CPU-s; "
            f"checksum {first.get('checksum', '-')} units {first['units']} docs {first['tantivyDocs']}"
        )
    if args.checksum and {r["checksum"] for runs in results.values() for r in runs} != {results["this"][0]["checksum"]}:
        print("CHECKSUMS DIFFER: the two trees indexed different things")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", choices=("synthetic", "fixtures"), default="synthetic")
    parser.add_argument("--chunks", type=int, default=10000)
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--corpus-dir", type=Path, help="a prebuilt corpus (its workspace/ and transcripts/)")
    parser.add_argument("--no-checksum", dest="checksum", action="store_false", help="counts only")
    parser.add_argument("--root", type=Path, default=Path(tempfile.gettempdir()) / "memlens-cold-index")
    parser.add_argument("--profile", type=int, default=0, help="print this many top entries of a cProfile run")
    parser.add_argument("--phases", action="store_true", help="CPU seconds of each part of the sync")
    parser.add_argument("--curve", type=int, default=0, help="the phases' CPU per 1,000 units, every this many units")
    parser.add_argument("--ab", type=Path, help="another tree's server/ folder to alternate with this one")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    args.root.mkdir(parents=True, exist_ok=True)
    if args.ab is not None:
        alternate(args)
        return
    out = run_once(args)
    profile = out.pop("profile", None)
    print(json.dumps(out))
    if profile:
        print(profile, file=sys.stderr)


if __name__ == "__main__":
    main()
