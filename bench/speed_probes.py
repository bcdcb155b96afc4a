"""What bench/speed.py times on an open index: search latency per mode, a warm start, append → searchable, and the
peak-RSS and row counts beside them. Process CPU time is taken beside wall time for every latency."""

from __future__ import annotations

import contextlib
import json
import random
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.common import current_rss_mb, peak_rss_mb, percentile
from bench.corpus import Corpus, open_engine, stamp
from memlens.engine.engine import Engine
from memlens.engine.vectors.embedder import Embedder


def reset_peak_rss() -> None:
    """Reset VmHWM to the current RSS (Linux: writing 5 to clear_refs), so each phase reports its own peak."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def counts(engine: Engine) -> dict[str, int]:
    db = engine.catalog.db
    return {
        "files": int(db.execute("SELECT COUNT(*) FROM files").fetchone()[0]),
        "chunks": int(db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]),
        "units": int(db.execute("SELECT COUNT(*) FROM units").fetchone()[0]),
        "memoryChunks": int(db.execute("SELECT COUNT(*) FROM chunks WHERE kind = 'memory'").fetchone()[0]),
        "keywordSegments": engine.keyword.num_segments(),
    }


def latencies(
    call: Callable[[str], object], queries: Sequence[str], warmup: int = 10, before: Callable[[], None] | None = None
) -> dict[str, float]:
    """Wall time (`p50Ms`, …) and this process's CPU time (`cpuP50Ms`, …) per call. On a shared machine the CPU time
    is the steadier figure: waiting for a core shows in the wall time only. `before` runs untimed before each call
    (it empties the query-vector cache, so every query is embedded)."""
    for query in queries[:warmup]:
        call(query)
    times: list[float] = []
    cpu: list[float] = []
    for query in queries:
        if before is not None:
            before()
        started, used = time.perf_counter(), time.process_time()
        call(query)
        cpu.append(1000 * (time.process_time() - used))
        times.append(1000 * (time.perf_counter() - started))
    return {
        "queries": len(times),
        "p50Ms": round(percentile(times, 50), 2),
        "p95Ms": round(percentile(times, 95), 2),
        "p99Ms": round(percentile(times, 99), 2),
        "meanMs": round(sum(times) / max(1, len(times)), 2),
        "cpuP50Ms": round(percentile(cpu, 50), 2),
        "cpuP95Ms": round(percentile(cpu, 95), 2),
        "cpuP99Ms": round(percentile(cpu, 99), 2),
    }


def search_latency(engine: Engine, queries: Sequence[str]) -> dict[str, Any]:
    """End-to-end `engine.search` (ranking + result building), limit 10; hybrid includes the query embedding."""
    out: dict[str, Any] = {
        "keyword": latencies(lambda q: engine.search(q, mode="keyword", limit=10), queries),
        "keywordRankOnly": latencies(lambda q: engine.rank(q, mode="keyword", limit=10), queries),
    }
    if engine.embedder is not None:
        embedder = engine.embedder
        fresh = embedder.forget_queries  # every timed query is embedded: the query-vector cache is emptied first
        out["queryEmbedding"] = latencies(embedder.embed_query, queries, before=fresh)
        out["vector"] = latencies(lambda q: engine.search(q, mode="vector", limit=10), queries, before=fresh)
        out["hybrid"] = latencies(lambda q: engine.search(q, mode="hybrid", limit=10), queries, before=fresh)
        out["hybridRankOnly"] = latencies(lambda q: engine.rank(q, mode="hybrid", limit=10), queries, before=fresh)
        out["hybridCachedQuery"] = latencies(lambda q: engine.search(q, mode="hybrid", limit=10), queries)
    hits = [engine.search(q, mode="keyword", limit=10)["totalResults"] for q in queries[:50]]
    out["meanResultsKeyword"] = round(sum(hits) / max(1, len(hits)), 1)
    return out


def warm_start(corpus: Corpus, index_dir: Path, embedder: Embedder | None) -> dict[str, Any]:
    """Open an existing, up-to-date index and reconcile with the disk (nothing changed); the model is preloaded."""
    reset_peak_rss()
    started, cpu = time.perf_counter(), time.process_time()
    engine = open_engine(corpus, index_dir, embedder)
    vectors = len(engine.vectors)  # the matrix loads at its first use: count it in the open
    opened, cpu_opened = time.perf_counter(), time.process_time()
    report = engine.sync()
    done, cpu_done = time.perf_counter(), time.process_time()
    result = {
        "files": report.files_seen,
        "filesUnchanged": report.files_unchanged,
        "openS": round(opened - started, 3),
        "reconcileS": round(done - opened, 3),
        "totalS": round(done - started, 3),
        "openCpuS": round(cpu_opened - cpu, 3),
        "reconcileCpuS": round(cpu_done - cpu_opened, 3),
        "totalCpuS": round(cpu_done - cpu, 3),
        "vectorsLoaded": vectors,
        "rssMB": current_rss_mb(),
        "peakRssMB": peak_rss_mb(),
    }
    engine.close()
    return result


def _append_line(path: Path, fmt: str, word: str) -> None:
    """Append one user message holding `word` to a transcript, continuing its last entry as the parent."""
    last = json.loads(path.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1])
    now = stamp(datetime.now(UTC))
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
        phase_cpu, phase_wall = time.process_time(), time.perf_counter()
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
            # the whole phase (watcher, sync, searches polling every 5 ms, pauses): CPU used per second of it
            "phaseCpuShare": round((time.process_time() - phase_cpu) / (time.perf_counter() - phase_wall), 3),
        }
    finally:
        live.stop()
