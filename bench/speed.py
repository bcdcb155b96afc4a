"""Speed benchmark on a synthetic corpus: cold indexing, search latency, append→searchable, warm start, RSS, disk.

This module runs the phases (a size from scratch, a prebuilt index, the shared real transcripts, long real messages);
speed_probes.py holds what is timed on an open index, speed_report.py the targets and the printed table."""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (its secrets.py
    # would shadow the standard library's `secrets`, which fastembed's dependencies import)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


from bench import search_memory
from bench.common import SHARED, dir_bytes, load_shared_embedder, machine_info, peak_rss_mb
from bench.corpus import EXCHANGES as EXCHANGES  # re-exported (tests read the corpus's shape here)
from bench.corpus import MEMORY_SECTIONS as MEMORY_SECTIONS
from bench.corpus import Corpus, bench_settings, make_corpus, open_engine, prebuilt_corpus, stamp
from bench.realistic_text import corpus_queries, corpus_text, make_world, write_marker
from bench.speed_probes import (
    append_latency,
    counts,
    reset_peak_rss,
    search_latency,
    warm_start,
)
from bench.speed_report import TARGETS as TARGETS  # re-exported: the targets a run is checked against
from bench.speed_report import check_targets, format_report, lscpu_model
from memlens.engine.engine import Engine
from memlens.engine.indexing.ingest import EMBED_TEXT_CHARS
from memlens.engine.model_cache import model_cache_dir
from memlens.engine.vectors.embedder import Embedder
from memlens.settings import Settings

REPO = Path(__file__).resolve().parents[1]
SHARED_TRANSCRIPTS = SHARED / "fixtures" / "transcripts"


def cold_index(corpus: Corpus, index_dir: Path, embedder: Embedder | None) -> tuple[Engine, dict[str, Any]]:
    """Open a fresh index and sync everything; returns the open engine and the figures."""
    shutil.rmtree(index_dir, ignore_errors=True)
    reset_peak_rss()
    started, cpu = time.perf_counter(), time.process_time()
    engine = open_engine(corpus, index_dir, embedder)
    report = engine.sync()
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    numbers = counts(engine)
    disk = dir_bytes(index_dir)
    result: dict[str, Any] = {
        **numbers,
        "seconds": round(seconds, 2),
        "cpuS": round(cpu, 2),
        "unitsPerS": round(numbers["units"] / seconds, 1),
        "chunksPerS": round(numbers["chunks"] / seconds, 1),
        "unitsEmbedded": report.units_embedded,
        "badLines": report.bad_lines,
        "filesFailed": report.files_failed,
        "peakRssMB": peak_rss_mb(),
        "indexBytes": disk,
        "bytesPerChunk": round(disk / max(1, numbers["chunks"])),
        "catalogBytes": sum(p.stat().st_size for p in index_dir.glob("catalog.sqlite3*")),
        "keywordBytes": dir_bytes(index_dir / "keyword"),
    }
    return engine, result


def raw_fastembed(settings: Settings) -> Any:
    """fastembed's own TextEmbedding on the same model files (the engine runs them on ONNX Runtime directly)."""
    from fastembed import TextEmbedding

    from memlens.engine.vectors.bundled_model import BUNDLED_MODEL, assemble_bundled_model, register_with_fastembed

    register_with_fastembed()
    folder = assemble_bundled_model(model_cache_dir())
    model = TextEmbedding(BUNDLED_MODEL, specific_model_path=str(folder), threads=settings.embedding.threads or None)
    model.model.tokenizer.enable_truncation(max_length=settings.embedding.max_tokens)  # type: ignore[attr-defined]
    return model


def raw_embedding(engine: Engine, embedder: Embedder, sample: int, seed: int) -> dict[str, Any]:
    """Raw fastembed throughput (TextEmbedding.embed, the configured batch size, its threads) on a sample of the
    indexed unit texts: sorted by length (the fair baseline: the engine sorts so too), and in sample order. fastembed
    computes the model as shipped (fp32); `engineModel` times the engine's own embedder on the same sample."""
    rows = engine.catalog.db.execute("SELECT text FROM plain_units ORDER BY id")
    texts = [str(r[0])[:EMBED_TEXT_CHARS] for r in rows]
    if sample and len(texts) > sample:
        texts = random.Random(seed).sample(texts, sample)
    model = raw_fastembed(engine.settings)
    batch = engine.settings.embedding.batch_size
    out: dict[str, Any] = {"texts": len(texts), "meanChars": round(sum(map(len, texts)) / max(1, len(texts)), 1)}
    for name, ordered in (("lengthSorted", sorted(texts, key=len)), ("inputOrder", texts)):
        started, cpu = time.perf_counter(), time.process_time()
        produced = sum(1 for _ in model.embed(ordered, batch_size=batch))
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        out[name] = {"seconds": round(seconds, 2), "cpuS": round(cpu, 2), "textsPerS": round(produced / seconds, 1)}
    started, cpu = time.perf_counter(), time.process_time()
    embedder.embed(texts)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    out["engineModel"] = {
        "model": embedder.name,
        "seconds": round(seconds, 2),
        "cpuS": round(cpu, 2),
        "textsPerS": round(len(texts) / seconds, 1),
    }
    out["textsPerS"] = out["lengthSorted"]["textsPerS"]
    return out


def run_size(
    root: Path, chunks: int, embedder: Embedder | None, args: argparse.Namespace, log: Callable[[str], None]
) -> dict[str, Any]:
    out: dict[str, Any] = {"targetChunks": chunks, "loadavgStart": os.getloadavg()}
    started = time.perf_counter()
    world = make_world(args.text, args.seed, scratch=root / "real-texts")
    corpus = make_corpus(root / f"corpus-{chunks}", chunks, args.seed, world=world)
    write_marker(corpus.root, text=args.text, seed=args.seed)
    out["corpus"] = {
        "memoryFiles": corpus.memory_files,
        "transcriptFiles": corpus.transcript_files,
        "bytes": dir_bytes(corpus.root),
        "generateS": round(time.perf_counter() - started, 2),
    }
    log(f"[{chunks}] corpus: {out['corpus']}")
    engine, out["coldKeyword"] = cold_index(corpus, root / f"index-kw-{chunks}", None)
    queries = corpus_queries(args.seed + 1, args.queries, text=args.text, scratch=root / "real-texts")
    if embedder is None:
        out["search"] = search_latency(engine, queries)
    engine.close()
    log(f"[{chunks}] cold keyword-only: {out['coldKeyword']}")
    if embedder is None:
        out["warmStart"] = warm_start(corpus, root / f"index-kw-{chunks}", None)
        out["loadavgEnd"] = os.getloadavg()
        return out
    index_dir = root / f"index-vec-{chunks}"
    engine, out["coldVectors"] = cold_index(corpus, index_dir, embedder)
    log(f"[{chunks}] cold with vectors: {out['coldVectors']}")
    out["rawEmbedding"] = raw_embedding(engine, embedder, args.raw_sample, args.seed)
    out["embedRatio"] = round(out["coldVectors"]["unitsPerS"] / out["rawEmbedding"]["textsPerS"], 3)
    log(f"[{chunks}] raw fastembed: {out['rawEmbedding']}; ratio {out['embedRatio']}")
    out["search"] = search_latency(engine, queries)
    log(f"[{chunks}] search: {json.dumps(out['search'])}")
    engine.close()
    del engine  # the cold engine's matrix must not count in the warm start's memory
    gc.collect()
    out.update(warm_and_appends(corpus, index_dir, embedder, appends=args.appends, log=log, tag=str(chunks)))
    return out


def warm_and_appends(
    corpus: Corpus,
    index_dir: Path,
    embedder: Embedder | None,
    *,
    appends: int,
    log: Callable[[str], None],
    tag: str,
) -> dict[str, Any]:
    """Warm start, then (with `appends`) append→searchable on a fresh engine; ends with the load average."""
    out: dict[str, Any] = {"warmStart": warm_start(corpus, index_dir, embedder)}
    log(f"[{tag}] warm start: {out['warmStart']}")
    if appends:
        engine = open_engine(corpus, index_dir, embedder)
        try:
            out["appendToSearchable"] = append_latency(engine, corpus, appends)
        finally:
            engine.close()
        log(f"[{tag}] append→searchable: {out['appendToSearchable']}")
    out["loadavgEnd"] = os.getloadavg()
    return out


def run_prebuilt(
    root: Path, embedder: Embedder | None, args: argparse.Namespace, log: Callable[[str], None]
) -> dict[str, Any]:
    """Search latency, warm start and append→searchable on an index built earlier (`root/corpus`, `root/index`):
    the 100k figures without the cold indexing (≈ 40 minutes of embedding on a quiet machine). Its vectors are
    whatever that index holds, so say how it was built beside its figures."""
    out: dict[str, Any] = {"root": str(root), "loadavgStart": os.getloadavg()}
    corpus = prebuilt_corpus(root)
    index_dir = root / "index"
    reset_peak_rss()
    started, cpu = time.perf_counter(), time.process_time()
    engine = open_engine(corpus, index_dir, embedder)  # an index from another version is brought up to date here
    out["open"] = {"seconds": round(time.perf_counter() - started, 2), "cpuS": round(time.process_time() - cpu, 2)}
    # an index whose keyword segments piled up (built by an older version) is written afresh by the first whole
    # sync, once: done here, and timed, so that neither the searches nor the warm start below carry it
    started, cpu = time.perf_counter(), time.process_time()
    segments = engine.keyword.num_segments()
    if engine.indexer.compact_keyword_index():
        out["keywordCompacted"] = {
            "segmentsBefore": segments,
            "seconds": round(time.perf_counter() - started, 2),
            "cpuS": round(time.process_time() - cpu, 2),
        }
    out["counts"] = {**counts(engine), "vectors": len(engine.vectors)}
    log(f"[prebuilt] opened: {out['open']} {out.get('keywordCompacted', '')} {out['counts']}")
    asked = corpus_queries(args.seed + 1, args.queries, text=corpus_text(corpus.root), scratch=root / "real-texts")
    out["search"] = search_latency(engine, asked)
    out["searchPeakRssMB"] = peak_rss_mb()  # this process's: it also holds whatever the phases before it left
    log(f"[prebuilt] search: {json.dumps(out['search'])}")
    if embedder is not None:  # what a process that only serves searches holds (a fresh one: search_memory.py)
        out["searchProcess"] = search_memory.measure(root, queries=args.queries)
        log(f"[prebuilt] search process: {out['searchProcess']}")
    engine.close()
    del engine
    gc.collect()
    out.update(warm_and_appends(corpus, index_dir, embedder, appends=args.appends, log=log, tag="prebuilt"))
    return out


def run_shared(root: Path, embedder: Embedder | None, queries: Sequence[str]) -> dict[str, Any]:
    """The shared real transcripts (read in place): cold indexing and search latency."""
    if not SHARED_TRANSCRIPTS.is_dir():
        return {"skipped": f"{SHARED_TRANSCRIPTS} is absent"}
    workspace = root / "shared-workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    corpus = Corpus(root, workspace, SHARED_TRANSCRIPTS, 0, 0, {})
    out: dict[str, Any] = {"path": str(SHARED_TRANSCRIPTS)}
    engine, out["coldKeyword"] = cold_index(corpus, root / "index-shared-kw", None)
    engine.close()
    if embedder is not None:
        engine, out["coldVectors"] = cold_index(corpus, root / "index-shared-vec", embedder)
        out["search"] = search_latency(engine, queries)
        engine.close()
    return out


def shared_texts(folder: Path) -> list[str]:
    """The shared real transcripts' message texts, longest first (indexed keyword-only under `folder`)."""
    workspace = folder / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    with open_engine(Corpus(folder, workspace, SHARED_TRANSCRIPTS, 0, 0, {}), folder / "index", None) as engine:
        engine.sync()
        sql = "SELECT text FROM plain_units WHERE kind = 'transcript' ORDER BY length(text) DESC"
        return [str(r[0]) for r in engine.catalog.db.execute(sql)]


def long_messages_child(folder: Path, count: int) -> None:
    """In a fresh process (see `long_messages`): write `count` long real messages as one Claude Code session and
    index them with vectors; print the figures as JSON."""
    texts = shared_texts(folder / "shared")
    texts = [t for t in texts if len(t) >= 1000] or texts
    workspace = folder / "workspace"
    transcripts = folder / "transcripts" / "claude" / "long"
    transcripts.mkdir(parents=True, exist_ok=True)
    workspace.mkdir(exist_ok=True)
    lines: list[dict[str, Any]] = []
    parent: str | None = None
    when = datetime(2026, 1, 1, tzinfo=UTC)
    session = "00000000-0000-4000-8000-000000001000"
    chosen = [f"[copy {i // len(texts)}] {texts[i % len(texts)]}" for i in range(count)]  # distinct: all embedded
    for i, text in enumerate(chosen):
        line_id = f"00000000-0000-4000-8000-{i:012d}"
        role = "user" if i % 2 == 0 else "assistant"
        content: Any = text if role == "user" else [{"type": "text", "text": text}]
        lines.append(
            {
                "parentUuid": parent,
                "isSidechain": False,
                "cwd": str(workspace),
                "sessionId": session,
                "type": role,
                "message": {"role": role, "content": content},
                "uuid": line_id,
                "timestamp": stamp(when),
            }
        )
        parent, when = line_id, when + timedelta(seconds=30)
    (transcripts / f"{session}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    embedder = load_shared_embedder(bench_settings())
    corpus = Corpus(folder, workspace, folder / "transcripts", 0, 1, {})
    started, cpu = time.perf_counter(), time.process_time()
    with open_engine(corpus, folder / "index", embedder) as engine:
        report = engine.sync()
        units = counts(engine)["units"]
    result = {
        "messages": count,
        "meanChars": round(sum(map(len, chosen)) / max(1, count)),
        "units": units,
        "unitsEmbedded": report.units_embedded,
        "seconds": round(time.perf_counter() - started, 2),
        "cpuS": round(time.process_time() - cpu, 2),
        "model": embedder.name,
        "ownPeakRssMB": peak_rss_mb(),  # this process's own high-water mark
    }
    print(json.dumps(result))


def long_messages(root: Path, count: int) -> dict[str, Any]:
    """Peak RSS of a whole process (model load included) indexing `count` long real messages with vectors: the
    shared real transcripts' messages of ≥ 1,000 characters, repeated as needed, each copy a distinct text."""
    if not SHARED_TRANSCRIPTS.is_dir():
        return {"skipped": f"{SHARED_TRANSCRIPTS} is absent"}
    folder = root / "long-messages"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    code = f"import pathlib, bench.speed as s; s.long_messages_child(pathlib.Path({str(folder)!r}), {count})"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), *sys.path])}
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, env=env, cwd=REPO)
    assert child.stdout is not None
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        return {"skipped": f"the indexing process failed (exit {child.returncode})"}
    result: dict[str, Any] = json.loads(output.decode().strip().splitlines()[-1])
    # The child's own VmHWM: wait4's ru_maxrss also counts the parent's high-water mark on Linux (a vfork()ed child
    # takes it over at exec), so a big benchmark process made this figure its own (541 MB once, for 1,000 messages).
    own = result.pop("ownPeakRssMB", None)
    result["peakRssMB"] = own if own is not None else round(usage.ru_maxrss / 1024, 1)  # Linux: kilobytes
    result["processCpuS"] = round(usage.ru_utime + usage.ru_stime, 2)
    return result


def main(argv: Sequence[str] | None = None, embedder: Embedder | None = None) -> dict[str, Any]:
    """Run the benchmark and print it; `embedder` lets a caller pass a model it has already loaded."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="10000", help="comma-separated chunk counts, e.g. 10000,100000")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--appends", type=int, default=30, help="append→searchable probes (0 to skip)")
    parser.add_argument("--raw-sample", type=int, default=10000, help="texts for the raw fastembed figure (0 = all)")
    parser.add_argument("--no-vectors", action="store_true", help="keyword-only")
    parser.add_argument("--no-shared", action="store_true", help="skip the shared real transcripts")
    parser.add_argument(
        "--long-messages", type=int, default=1000, help="peak RSS indexing this many long real messages (0 = skip)"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--text",
        choices=("synthetic", "realistic"),
        default="synthetic",
        help="the corpus's texts: a small vocabulary, or real lengths and words (bench/realistic_text.py)",
    )
    parser.add_argument(
        "--workdir", type=Path, default=None, help="keep corpora and indexes here (default: a temp dir)"
    )
    parser.add_argument(
        "--prebuilt",
        type=Path,
        default=None,
        help="also time search, warm start and appends on an index built earlier (ROOT/corpus and ROOT/index)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    report: dict[str, Any] = {
        "benchmark": "speed",
        "machine": machine_info(),
        "lscpu": lscpu_model(),
        "targets": TARGETS,
        "sizes": [],
    }
    if args.no_vectors:
        embedder = None
    elif embedder is None:
        started = time.perf_counter()
        embedder = load_shared_embedder(bench_settings())
        report["modelLoadS"] = round(time.perf_counter() - started, 2)
    with tempfile.TemporaryDirectory(prefix="memlens-speed-") as tmp:
        root = args.workdir or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        for chunks in sizes:
            report["sizes"].append(run_size(root, chunks, embedder, args, log))
        if args.prebuilt is not None:
            report["prebuilt"] = run_prebuilt(args.prebuilt, embedder, args, log)
        if not args.no_shared:
            report["shared"] = run_shared(root, embedder, corpus_queries(args.seed + 2, 50))
            if args.long_messages and embedder is not None:
                report["longMessages"] = long_messages(root, args.long_messages)
                log(f"long real messages: {report['longMessages']}")
    report["targets"] = check_targets(report)
    report["machineAfter"] = {"loadavg": machine_info()["loadavg"]}
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return report


if __name__ == "__main__":
    main()
