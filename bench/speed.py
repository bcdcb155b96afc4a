"""Speed benchmark on a synthetic corpus: cold indexing, search latency, append→searchable, warm start, RSS, disk."""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import random
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import current_rss_mb, dir_bytes, load_shared_embedder, machine_info, peak_rss_mb, percentile
from memlens.engine.embedder import Embedder
from memlens.engine.engine import Engine
from memlens.engine.ingest import EMBED_TEXT_CHARS
from memlens.settings import Settings

REPO = Path(__file__).resolve().parents[1]
SHARED_TRANSCRIPTS = REPO.parent / "shared" / "fixtures" / "transcripts"
MEMORY_SECTIONS = 8  # chunks per memory file (each section 100-800 characters: one chunk)
EXCHANGES = 12  # chunks per transcript file (an exchange = a user and an assistant message, then a pause)
TARGETS = {
    "hybridP50Ms": 15.0,
    "hybridP99Ms": 60.0,
    "keywordP50Ms": 3.0,
    "embedRatio": 0.85,
    "appendP95Ms": 1000.0,
    "warmStartS": 1.0,
    "peakRssMB": 500.0,
}


def _words(text: str, sep: str | None = None) -> list[str]:
    return text.split(sep)


# A small world of projects, components and problems, so that queries mean something and hit a few percent.
COMPONENTS = _words(
    "auth billing cache checkout deploy gateway ingest invoice ledger login mailer metrics notifier onboarding "
    "payments profile queue ranking replica report scheduler search session signup storage sync telemetry "
    "tenant upload webhook worker"
)
THINGS = _words(
    "token migration index timeout retry schema endpoint config pipeline cron lock backlog quota secret "
    "certificate dashboard alert rollout flag bucket snapshot partition consumer producer trace span "
    "histogram latency throughput payload header cookie"
)
TECH = _words(
    "postgres redis kafka sqlite tantivy nginx docker kubernetes terraform grafana prometheus celery "
    "rabbitmq elasticsearch s3 fastapi django react typescript rust golang pytest playwright sentry"
)
VERBS = _words(
    "fixed added removed refactored benchmarked documented debugged reverted tuned cached profiled "
    "migrated rotated throttled sharded retried validated patched upgraded pinned"
)
PROBLEMS = _words(
    "a race condition|an off-by-one error|a memory leak|a slow query|a flaky test|a deadlock|stale reads|"
    "a missing index|duplicate events|an expired certificate|a timezone bug|an encoding error|clock skew|"
    "a thundering herd|connection exhaustion|an unbounded retry loop|a null pointer|a wrong default",
    "|",
)
PEOPLE = _words("alice bob carol dave erin frank grace heidi ivan judy mallory oscar peggy trent victor")
ASKS = _words("Can you look at|Why does|Please fix|What broke in|How should we handle|Check|Investigate|Explain", "|")


class World:
    """Seeded text generator: every text is unique (it carries a ticket number) and made of the shared vocabulary."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.ticket = 1000

    def pick(self, words: Sequence[str]) -> str:
        return self.rng.choice(words)

    def next_ticket(self) -> str:
        self.ticket += 1
        return f"MEM-{self.ticket}"

    def sentence(self) -> str:
        r = self.rng
        return (
            f"{r.choice(PEOPLE).title()} {r.choice(VERBS)} the {r.choice(COMPONENTS)} {r.choice(THINGS)} "
            f"in {r.choice(TECH)} after {r.choice(PROBLEMS)} in the {r.choice(COMPONENTS)} {r.choice(THINGS)}."
        )

    def ask(self) -> str:
        r = self.rng
        return (
            f"{r.choice(ASKS)} the {r.choice(COMPONENTS)} {r.choice(THINGS)} with {r.choice(TECH)}? "
            f"It shows {r.choice(PROBLEMS)} ({self.next_ticket()})."
        )

    def answer(self) -> str:
        return f"{self.sentence()} {self.sentence()} Tracked as {self.next_ticket()}."

    def section(self) -> str:
        r = self.rng
        title = f"{r.choice(COMPONENTS).title()} {r.choice(THINGS)} ({self.next_ticket()})"
        body = " ".join(self.sentence() for _ in range(r.randint(1, 2)))
        return f"## {title}\n\n{body}\n"

    def query(self) -> str:
        r = self.rng
        shapes: list[Callable[[], str]] = [
            lambda: f"{r.choice(COMPONENTS)} {r.choice(THINGS)}",
            lambda: f"{r.choice(COMPONENTS)} {r.choice(THINGS)} {r.choice(TECH)}",
            lambda: f"{r.choice(PROBLEMS)} in {r.choice(COMPONENTS)}",
            lambda: f"who {r.choice(VERBS)} the {r.choice(COMPONENTS)} {r.choice(THINGS)}",
        ]
        return r.choice(shapes)()


def _stamp(when: datetime) -> str:
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _jsonl(lines: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)


def claude_code_file(world: World, start: datetime, cwd: str) -> str:
    session = str(uuid.UUID(int=world.rng.getrandbits(128)))
    lines: list[dict[str, Any]] = []
    parent: str | None = None
    when = start
    for _ in range(EXCHANGES):
        for role in ("user", "assistant"):
            line_uuid = str(uuid.UUID(int=world.rng.getrandbits(128)))
            if role == "user":
                message: dict[str, Any] = {"role": "user", "content": world.ask()}
            else:
                content = [{"type": "text", "text": world.answer()}]
                message = {"id": f"msg_{line_uuid[:12]}", "type": "message", "role": "assistant", "content": content}
            lines.append(
                {
                    "parentUuid": parent,
                    "isSidechain": False,
                    "cwd": cwd,
                    "sessionId": session,
                    "version": "2.1.38",
                    "type": role,
                    "message": message,
                    "uuid": line_uuid,
                    "timestamp": _stamp(when),
                }
            )
            parent = line_uuid
            when += timedelta(seconds=20)
        when += timedelta(minutes=world.rng.randint(6, 40))  # a pause: the next exchange is a new chunk
    return _jsonl(lines)


def codex_file(world: World, start: datetime, cwd: str) -> str:
    session = str(uuid.UUID(int=world.rng.getrandbits(128)))
    meta = {
        "id": session,
        "timestamp": _stamp(start),
        "cwd": cwd,
        "originator": "codex_cli_rs",
        "cli_version": "0.125.0",
    }
    lines: list[dict[str, Any]] = [{"timestamp": _stamp(start), "type": "session_meta", "payload": meta}]
    when = start
    for _ in range(EXCHANGES):
        for role, block, text in (("user", "input_text", world.ask()), ("assistant", "output_text", world.answer())):
            payload = {"type": "message", "role": role, "content": [{"type": block, "text": text}]}
            lines.append({"timestamp": _stamp(when), "type": "response_item", "payload": payload})
            when += timedelta(seconds=20)
        when += timedelta(minutes=world.rng.randint(6, 40))
    return _jsonl(lines)


def openclaw_file(world: World, start: datetime, cwd: str) -> str:
    session = str(uuid.UUID(int=world.rng.getrandbits(128)))
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": session, "timestamp": _stamp(start), "cwd": cwd}
    ]
    parent: str | None = None
    when = start
    for _ in range(EXCHANGES):
        for role, text in (("user", world.ask()), ("assistant", world.answer())):
            entry_id = f"{world.rng.getrandbits(32):08x}"
            message = {"role": role, "content": [{"type": "text", "text": text}]}
            lines.append(
                {"type": "message", "id": entry_id, "parentId": parent, "timestamp": _stamp(when), "message": message}
            )
            parent = entry_id
            when += timedelta(seconds=20)
        when += timedelta(minutes=world.rng.randint(6, 40))
    return _jsonl(lines)


@dataclass
class Corpus:
    root: Path
    workspace: Path
    transcripts: Path
    memory_files: int
    transcript_files: int
    by_format: dict[str, list[Path]]


def make_corpus(root: Path, chunks: int, seed: int = 7) -> Corpus:
    """About `chunks` chunks: half memory sections (8 per note), half transcript exchanges (12 per session),
    the sessions spread evenly over Claude Code, Codex and OpenClaw JSONL."""
    world = World(seed)
    workspace, transcripts = root / "workspace", root / "transcripts"
    memory_files = max(1, round(chunks / 2 / MEMORY_SECTIONS))
    transcript_files = max(3, round(chunks / 2 / EXCHANGES))
    for i in range(memory_files):
        folder = workspace / "memory" / world.pick(COMPONENTS)
        folder.mkdir(parents=True, exist_ok=True)
        title = f"# {world.pick(COMPONENTS).title()} notes {i}\n\n"
        (folder / f"note-{i:06d}.md").write_text(title + "\n".join(world.section() for _ in range(MEMORY_SECTIONS)))
    writers: dict[str, tuple[Callable[[World, datetime, str], str], Callable[[int, datetime, str], Path]]] = {
        "claude-code": (claude_code_file, lambda i, d, s: transcripts / "claude" / f"project-{i % 20}" / f"{s}.jsonl"),
        "codex": (
            codex_file,
            lambda i, d, s: transcripts / "codex" / d.strftime("%Y/%m/%d") / f"rollout-{d:%Y-%m-%dT%H-%M-%S}-{s}.jsonl",
        ),
        "openclaw": (openclaw_file, lambda i, d, s: transcripts / "openclaw" / f"agent-{i % 5}" / f"{s}.jsonl"),
    }
    by_format: dict[str, list[Path]] = {name: [] for name in writers}
    epoch = datetime(2026, 1, 1, tzinfo=UTC)
    cwd = str(workspace.resolve())
    for i in range(transcript_files):
        name = list(writers)[i % len(writers)]
        write, place = writers[name]
        start = epoch + timedelta(hours=7 * i)
        path = place(i, start, f"{i:06d}-{world.rng.getrandbits(32):08x}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(write(world, start, cwd))
        by_format[name].append(path)
    return Corpus(root, workspace, transcripts, memory_files, transcript_files, by_format)


def reset_peak_rss() -> None:
    """Reset VmHWM to the current RSS (Linux: writing 5 to clear_refs), so each phase reports its own peak."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def bench_settings() -> Settings:
    settings = Settings()
    settings.transcripts.agent_defaults = False
    return settings


def open_engine(corpus: Corpus, index_dir: Path, embedder: Embedder | None) -> Engine:
    return Engine(
        [corpus.workspace],
        bench_settings(),
        extra_transcripts=[corpus.transcripts],
        index_dir=index_dir,
        embedder=embedder if embedder is not None else False,
    )


def counts(engine: Engine) -> dict[str, int]:
    db = engine.catalog.db
    return {
        "files": int(db.execute("SELECT COUNT(*) FROM files").fetchone()[0]),
        "chunks": int(db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]),
        "units": int(db.execute("SELECT COUNT(*) FROM units").fetchone()[0]),
        "memoryChunks": int(db.execute("SELECT COUNT(*) FROM chunks WHERE kind = 'memory'").fetchone()[0]),
    }


def cold_index(corpus: Corpus, index_dir: Path, embedder: Embedder | None) -> tuple[Engine, dict[str, Any]]:
    """Open a fresh index and sync everything; returns the open engine and the figures."""
    shutil.rmtree(index_dir, ignore_errors=True)
    reset_peak_rss()
    started = time.perf_counter()
    engine = open_engine(corpus, index_dir, embedder)
    report = engine.sync()
    seconds = time.perf_counter() - started
    numbers = counts(engine)
    disk = dir_bytes(index_dir)
    result: dict[str, Any] = {
        **numbers,
        "seconds": round(seconds, 2),
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


def raw_embedding(engine: Engine, embedder: Embedder, sample: int, seed: int) -> dict[str, Any]:
    """Raw fastembed throughput (TextEmbedding.embed, the configured batch size) on a sample of the indexed unit
    texts: in sample order, and sorted by length (less padding; the engine's wrapper sorts each batch so)."""
    texts = [str(r[0])[:EMBED_TEXT_CHARS] for r in engine.catalog.db.execute("SELECT text FROM units ORDER BY id")]
    if sample and len(texts) > sample:
        texts = random.Random(seed).sample(texts, sample)
    model = embedder._model  # the fastembed TextEmbedding behind the engine's wrapper
    batch = engine.settings.embedding.batch_size
    out: dict[str, Any] = {"texts": len(texts), "meanChars": round(sum(map(len, texts)) / max(1, len(texts)), 1)}
    for name, ordered in (("inputOrder", texts), ("lengthSorted", sorted(texts, key=len))):
        started = time.perf_counter()
        produced = sum(1 for _ in model.embed(ordered, batch_size=batch))
        seconds = time.perf_counter() - started
        out[name] = {"seconds": round(seconds, 2), "textsPerS": round(produced / seconds, 1)}
    out["textsPerS"] = max(out["inputOrder"]["textsPerS"], out["lengthSorted"]["textsPerS"])
    return out


def latencies(call: Callable[[str], object], queries: Sequence[str], warmup: int = 10) -> dict[str, float]:
    for query in queries[:warmup]:
        call(query)
    times: list[float] = []
    for query in queries:
        started = time.perf_counter()
        call(query)
        times.append(1000 * (time.perf_counter() - started))
    return {
        "queries": len(times),
        "p50Ms": round(percentile(times, 50), 2),
        "p95Ms": round(percentile(times, 95), 2),
        "p99Ms": round(percentile(times, 99), 2),
        "meanMs": round(sum(times) / max(1, len(times)), 2),
    }


def search_latency(engine: Engine, queries: Sequence[str]) -> dict[str, Any]:
    """End-to-end `engine.search` (ranking + result building), limit 10; hybrid includes the query embedding."""
    out: dict[str, Any] = {
        "keyword": latencies(lambda q: engine.search(q, mode="keyword", limit=10), queries),
        "keywordRankOnly": latencies(lambda q: engine.rank(q, mode="keyword", limit=10), queries),
    }
    if engine.embedder is not None:
        embedder = engine.embedder
        out["queryEmbedding"] = latencies(embedder.embed_query, queries)
        out["vector"] = latencies(lambda q: engine.search(q, mode="vector", limit=10), queries)
        out["hybrid"] = latencies(lambda q: engine.search(q, mode="hybrid", limit=10), queries)
        out["hybridRankOnly"] = latencies(lambda q: engine.rank(q, mode="hybrid", limit=10), queries)
    hits = [engine.search(q, mode="keyword", limit=10)["totalResults"] for q in queries[:50]]
    out["meanResultsKeyword"] = round(sum(hits) / max(1, len(hits)), 1)
    return out


def warm_start(corpus: Corpus, index_dir: Path, embedder: Embedder | None) -> dict[str, Any]:
    """Open an existing, up-to-date index and reconcile with the disk (nothing changed); the model is preloaded."""
    reset_peak_rss()
    started = time.perf_counter()
    engine = open_engine(corpus, index_dir, embedder)
    opened = time.perf_counter()
    report = engine.sync()
    done = time.perf_counter()
    result = {
        "files": report.files_seen,
        "filesUnchanged": report.files_unchanged,
        "openS": round(opened - started, 3),
        "reconcileS": round(done - opened, 3),
        "totalS": round(done - started, 3),
        "vectorsLoaded": len(engine.vectors),
        "rssMB": current_rss_mb(),
        "peakRssMB": peak_rss_mb(),
    }
    engine.close()
    return result


def _append_line(path: Path, fmt: str, word: str) -> None:
    """Append one user message holding `word` to a transcript, continuing its last entry as the parent."""
    last = json.loads(path.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1])
    now = _stamp(datetime.now(UTC))
    text = f"Append probe {word}: please check the deploy rollout."
    line: dict[str, Any]
    if fmt == "claude-code":
        line = {
            "parentUuid": last.get("uuid"),
            "isSidechain": False,
            "sessionId": last.get("sessionId"),
            "type": "user",
            "message": {"role": "user", "content": text},
            "uuid": str(uuid.uuid4()),
            "timestamp": now,
        }
    elif fmt == "codex":
        payload = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
        line = {"timestamp": now, "type": "response_item", "payload": payload}
    else:
        message = {"role": "user", "content": [{"type": "text", "text": text}]}
        line = {
            "type": "message",
            "id": uuid.uuid4().hex[:8],
            "parentId": last.get("id"),
            "timestamp": now,
            "message": message,
        }
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")


def append_latency(engine: Engine, corpus: Corpus, appends: int, timeout: float = 10.0) -> dict[str, Any]:
    """Append a message with a new word to a watched transcript; time until a keyword search finds it."""
    try:
        from memlens.engine.watcher import LiveIndexer
    except ImportError as exc:
        return {"skipped": f"watcher unavailable: {exc}"}
    live = LiveIndexer(engine, debounce_ms=50)
    live.start()
    try:
        if not live.ready.wait(120):
            return {"skipped": "the watcher's start-up reconcile did not finish within 120 s"}
        time.sleep(0.5)  # let the file watcher settle
        rng = random.Random(11)
        times: list[float] = []
        per_format: dict[str, list[float]] = {}
        missed = 0
        formats = [f for f, paths in corpus.by_format.items() if paths]
        for i in range(appends):
            fmt = formats[i % len(formats)]
            path = rng.choice(corpus.by_format[fmt])
            word = f"zqprobe{i}x{rng.randrange(10**6)}"
            started = time.perf_counter()
            _append_line(path, fmt, word)
            found = False
            while time.perf_counter() - started < timeout:
                if engine.search(word, mode="keyword", limit=1)["totalResults"]:
                    found = True
                    break
                time.sleep(0.005)
            elapsed = 1000 * (time.perf_counter() - started)
            if not found:
                missed += 1
                continue
            times.append(elapsed)
            per_format.setdefault(fmt, []).append(elapsed)
            time.sleep(0.3)
        return {
            "appends": appends,
            "missed": missed,
            "p50Ms": round(percentile(times, 50), 1),
            "p95Ms": round(percentile(times, 95), 1),
            "maxMs": round(max(times), 1) if times else 0.0,
            "p50MsByFormat": {f: round(percentile(v, 50), 1) for f, v in per_format.items()},
        }
    finally:
        live.stop()


def run_size(
    root: Path, chunks: int, embedder: Embedder | None, args: argparse.Namespace, log: Callable[[str], None]
) -> dict[str, Any]:
    out: dict[str, Any] = {"targetChunks": chunks}
    started = time.perf_counter()
    corpus = make_corpus(root / f"corpus-{chunks}", chunks, args.seed)
    out["corpus"] = {
        "memoryFiles": corpus.memory_files,
        "transcriptFiles": corpus.transcript_files,
        "bytes": dir_bytes(corpus.root),
        "generateS": round(time.perf_counter() - started, 2),
    }
    log(f"[{chunks}] corpus: {out['corpus']}")
    engine, out["coldKeyword"] = cold_index(corpus, root / f"index-kw-{chunks}", None)
    queries = _queries(args.seed + 1, args.queries)
    if embedder is None:
        out["search"] = search_latency(engine, queries)
    engine.close()
    log(f"[{chunks}] cold keyword-only: {out['coldKeyword']}")
    if embedder is None:
        out["warmStart"] = warm_start(corpus, root / f"index-kw-{chunks}", None)
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
    out["warmStart"] = warm_start(corpus, index_dir, embedder)
    log(f"[{chunks}] warm start: {out['warmStart']}")
    if args.appends:
        engine = open_engine(corpus, index_dir, embedder)
        try:
            out["appendToSearchable"] = append_latency(engine, corpus, args.appends)
        finally:
            engine.close()
        log(f"[{chunks}] append→searchable: {out['appendToSearchable']}")
    return out


def _queries(seed: int, n: int) -> list[str]:
    world = World(seed)
    return [world.query() for _ in range(n)]


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


def check_targets(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Each target beside the measured value at the largest size (pass/miss)."""
    sizes = report["sizes"]
    if not sizes:
        return []
    big = sizes[-1]
    rows: list[tuple[str, float | None, float, bool]] = []
    search = big.get("search", {})
    hybrid = search.get("hybrid")
    if hybrid:
        rows.append(("hybrid p50 ms", hybrid["p50Ms"], TARGETS["hybridP50Ms"], True))
        rows.append(("hybrid p99 ms", hybrid["p99Ms"], TARGETS["hybridP99Ms"], True))
    rows.append(("keyword p50 ms", search.get("keyword", {}).get("p50Ms"), TARGETS["keywordP50Ms"], True))
    if "embedRatio" in big:
        rows.append(("indexing / raw embedding", big["embedRatio"], TARGETS["embedRatio"], False))
    append = big.get("appendToSearchable", {})
    if "p95Ms" in append:
        rows.append(("append→searchable p95 ms", append["p95Ms"], TARGETS["appendP95Ms"], True))
    warm = min(sizes, key=lambda s: abs(s["coldKeyword"]["files"] - 10_000))["warmStart"]
    rows.append(("warm start s (≈10k files)", warm["totalS"], TARGETS["warmStartS"], True))
    peak = max(
        s.get(phase, {}).get("peakRssMB", 0) for s in sizes for phase in ("coldKeyword", "coldVectors", "warmStart")
    )
    rows.append(("peak RSS MB", peak, TARGETS["peakRssMB"], True))
    return [
        {
            "what": what,
            "measured": value,
            "target": target,
            "ok": value is not None and (value <= target if at_most else value >= target),
        }
        for what, value, target, at_most in rows
    ]


def _raw_cell(raw: dict[str, Any]) -> str:
    if "lengthSorted" in raw:
        return f"{raw['lengthSorted']['textsPerS']} / {raw['inputOrder']['textsPerS']}"
    return str(raw["textsPerS"])


def format_report(report: dict[str, Any]) -> str:
    m = report["machine"]
    lines = [f"machine: {m['cpu']}, {m['cores']} cores, {m['ramGB']} GB RAM, load {m['loadavg']}", ""]
    header = (
        "| chunks | files | units | keyword-only s (units/s) | with vectors s (units/s) "
        "| raw fastembed texts/s (sorted / as given) | ratio | bytes/chunk |"
    )
    lines += [header, "|---|---|---|---|---|---|---|---|"]
    for s in report["sizes"]:
        kw, vec, raw = s["coldKeyword"], s.get("coldVectors"), s.get("rawEmbedding")
        lines.append(
            f"| {kw['chunks']} | {kw['files']} | {kw['units']} | {kw['seconds']} ({kw['unitsPerS']}) | "
            + (
                f"{vec['seconds']} ({vec['unitsPerS']}) | {_raw_cell(raw)} | {s['embedRatio']} | "
                f"{vec['bytesPerChunk']} |"
                if vec and raw
                else f"- | - | - | {kw['bytesPerChunk']} |"
            )
        )
    lines += ["", "| chunks | search | p50 ms | p95 ms | p99 ms |", "|---|---|---|---|---|"]
    for s in report["sizes"]:
        for name in ("keyword", "keywordRankOnly", "queryEmbedding", "vector", "hybrid", "hybridRankOnly"):
            if name in s["search"]:
                q = s["search"][name]
                lines.append(f"| {s['coldKeyword']['chunks']} | {name} | {q['p50Ms']} | {q['p95Ms']} | {q['p99Ms']} |")
    lines += [
        "",
        "| chunks | warm start open s | reconcile s | total s | vectors | peak RSS MB (index / warm) "
        "| append p50 / p95 ms |",
    ]
    lines.append("|---|---|---|---|---|---|---|")
    for s in report["sizes"]:
        w, a = s["warmStart"], s.get("appendToSearchable", {})
        peak = s.get("coldVectors", s["coldKeyword"])["peakRssMB"]
        append = f"{a['p50Ms']} / {a['p95Ms']}" if "p95Ms" in a else a.get("skipped", "-")
        lines.append(
            f"| {s['coldKeyword']['chunks']} | {w['openS']} | {w['reconcileS']} | {w['totalS']} | "
            f"{w['vectorsLoaded']} | {peak} / {w['peakRssMB']} | {append} |"
        )
    shared = report.get("shared")
    if shared and "coldKeyword" in shared:
        kw = shared["coldKeyword"]
        vec = shared.get("coldVectors", {})
        lines += [
            "",
            f"shared real transcripts: {kw['files']} files, {kw['units']} units, {kw['chunks']} chunks; "
            f"keyword-only {kw['seconds']} s, with vectors {vec.get('seconds', '-')} s "
            f"({vec.get('unitsPerS', '-')} units/s)",
        ]
    lines += ["", "| target | measured | goal | ok |", "|---|---|---|---|"]
    for t in report["targets"]:
        lines.append(f"| {t['what']} | {t['measured']} | {t['target']} | {'yes' if t['ok'] else 'NO'} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None, embedder: Embedder | None = None) -> dict[str, Any]:
    """Run the benchmark and print it; `embedder` lets a caller pass a model it has already loaded."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="10000", help="comma-separated chunk counts, e.g. 10000,100000")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--appends", type=int, default=30, help="append→searchable probes (0 to skip)")
    parser.add_argument("--raw-sample", type=int, default=10000, help="texts for the raw fastembed figure (0 = all)")
    parser.add_argument("--no-vectors", action="store_true", help="keyword-only")
    parser.add_argument("--no-shared", action="store_true", help="skip the shared real transcripts")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--workdir", type=Path, default=None, help="keep corpora and indexes here (default: a temp dir)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    report: dict[str, Any] = {"benchmark": "speed", "machine": machine_info(), "targets": TARGETS, "sizes": []}
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
        if not args.no_shared:
            report["shared"] = run_shared(root, embedder, _queries(args.seed + 2, 50))
    report["targets"] = check_targets(report)
    report["machineAfter"] = {"loadavg": machine_info()["loadavg"]}
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return report


if __name__ == "__main__":
    main()
