"""Indexes a bad-input corpus through the real `memlens` CLI into one index and checks what it promises.

Shared by tests/test_bad_corpus.py (which asserts) and bench/badcorpus.py (which prints the counts).

The CLI does the writing (index, reindex --full) and answers stats, a few searches and a few histories; the
per-marker checks (hundreds) open the same index in-process *read-only* (this process holds the writer lock),
so they see exactly what the CLI committed.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import subprocess
import sys
import time
import traceback
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .generator import Case, Corpus

SEARCH_LIMIT = 50


def memlens_bin() -> Path:
    """The `memlens` console script of the running interpreter's environment (the repository's .venv)."""
    return Path(sys.executable).parent / "memlens"


@dataclass
class Run:
    """One CLI invocation."""

    argv: list[str]
    code: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def name(self) -> str:
        return " ".join(a for a in self.argv[1:3])

    def traceback_tail(self) -> str | None:
        """The last line of a Python traceback on stderr, if one was printed."""
        if "Traceback" not in self.stderr:
            return None
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        start = max(i for i, line in enumerate(lines) if line.startswith("Traceback"))
        tail = [line for line in lines[start:] if not line.startswith((" ", "Traceback"))]
        return tail[0] if tail else lines[-1]

    def json(self) -> Any:
        return json.loads(self.stdout)


def location_flags(corpus: Corpus, index_dir: Path, embeddings: bool = False) -> list[str]:
    flags = ["--workspace", str(corpus.workspace), "--transcripts", str(corpus.transcripts)]
    flags += ["--index-dir", str(index_dir)]
    return flags if embeddings else [*flags, "--no-embeddings"]


def cli(corpus: Corpus, *args: str, timeout: float = 600) -> Run:
    """Run `memlens ARGS` with HOME pointing at the corpus's empty home (no agent folders of this machine)."""
    argv = [str(memlens_bin()), *args]
    env = {**os.environ, "HOME": str(corpus.home), "PYTHONFAULTHANDLER": "1"}
    env.pop("MEMLENS_SETTINGS", None)
    started = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout, errors="replace")
    return Run(argv, proc.returncode, proc.stdout, proc.stderr, time.perf_counter() - started)


@dataclass
class MarkerHit:
    unit_ids: list[int]
    results: list[dict[str, Any]]  # what `search --json` would print for it (empty when rendering failed)


@dataclass
class Outcome:
    """What one end-to-end run found."""

    runs: list[Run] = field(default_factory=list)
    hits: dict[str, MarkerHit] = field(default_factory=dict)  # marker -> where it was found (absent: not found)
    errors: list[str] = field(default_factory=list)  # in-process failures: "what: last traceback line"
    search_errors: dict[str, str] = field(default_factory=dict)  # marker -> why its search failed
    history_errors: dict[str, str] = field(default_factory=dict)  # session key -> why history failed
    sessions: set[str] = field(default_factory=set)
    stats: Mapping[str, Any] | None = None

    def crashed_runs(self) -> list[Run]:
        return [r for r in self.runs if r.traceback_tail() is not None]

    def failed_runs(self, allowed: dict[str, set[int]] | None = None) -> list[Run]:
        allowed = allowed or {}
        return [r for r in self.runs if r.code not in allowed.get(r.argv[1], {0})]

    def found(self, marker: str) -> bool:
        return marker in self.hits

    def lost(self, corpus: Corpus) -> dict[str, list[str]]:
        """case id -> expected markers not found."""
        lost: dict[str, list[str]] = {}
        for case in corpus.cases:
            missing = [m for m in case.expected if m not in self.hits]
            if missing:
                lost[case.id] = missing
        return lost

    def leaked(self, corpus: Corpus, unreadable_too: bool) -> dict[str, list[str]]:
        leaked: dict[str, list[str]] = {}
        for case in corpus.cases:
            markers = case.forbidden + (case.unreadable if unreadable_too else [])
            found = [m for m in markers if m in self.hits]
            if found:
                leaked[case.id] = found
        return leaked

    def duplicated(self, corpus: Corpus) -> dict[str, list[str]]:
        dupes: dict[str, list[str]] = {}
        for case in corpus.cases:
            counts = {m: len(self.hits.get(m, _NONE).unit_ids) for m in case.unique}
            found = [f"{m} x{n}" for m, n in counts.items() if n > 1]
            if found:
                dupes[case.id] = found
        return dupes

    def joined(self, corpus: Corpus) -> dict[str, list[str]]:
        """Marker pairs that must be separate messages but share one."""
        joined: dict[str, list[str]] = {}
        for case in corpus.cases:
            for a, b in case.separate:
                if a in self.hits and b in self.hits and set(self.hits[a].unit_ids) & set(self.hits[b].unit_ids):
                    joined.setdefault(case.id, []).append(f"{a}+{b}")
        return joined


_NONE = MarkerHit([], [])


def _last_line(exc: BaseException) -> str:
    return traceback.format_exception_only(type(exc), exc)[-1].strip()[:300]


@contextlib.contextmanager
def _hold_writer_lock(index_dir: Path) -> Iterator[None]:
    """Take the index's writer lock (an flock, as memlens takes it) so an Engine opened here is a reader."""
    index_dir.mkdir(parents=True, exist_ok=True)
    with (index_dir / "writer.lock").open("a+") as handle:
        with contextlib.suppress(OSError):  # another process writes: an Engine opened here is a reader anyway
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def check_in_process(corpus: Corpus, index_dir: Path, outcome: Outcome) -> None:
    """Look every marker up (keyword) and open the history of every session found, in one read-only Engine."""
    from memlens.engine.answers.history import session_history
    from memlens.engine.engine import Engine
    from memlens.settings import Settings

    settings = Settings()
    settings.embedding.enabled = False
    with _hold_writer_lock(index_dir):
        try:
            engine = Engine([corpus.workspace], settings, [corpus.transcripts], index_dir, embedder=False)
        except Exception as exc:
            outcome.errors.append(f"open read-only: {_last_line(exc)}")
            return
        try:
            markers = [m for c in corpus.cases for m in (*c.expected, *c.optional, *c.forbidden, *c.unreadable)]
            for marker in markers:
                _look_up(engine, marker, outcome)
            for key in sorted(outcome.sessions):
                try:
                    session_history(engine.catalog, key, None, 500, engine.visibility())
                except Exception as exc:
                    outcome.history_errors[key] = _last_line(exc)
            try:
                outcome.stats = outcome.stats or engine.stats()
            except Exception as exc:
                outcome.errors.append(f"stats (in-process): {_last_line(exc)}")
        finally:
            engine.close()


def _look_up(engine: Any, marker: str, outcome: Outcome) -> None:
    try:
        ranking = engine.rank(marker, mode="keyword", limit=SEARCH_LIMIT)
    except Exception as exc:
        outcome.search_errors[marker] = f"rank: {_last_line(exc)}"
        return
    # only units whose own text holds the marker: a neighbour also matches through BM25's ±2-message context field
    units = engine.catalog.units_by_id([int(h.unit_id) for h in ranking.hits])
    unit_ids = [uid for uid, row in units.items() if marker.lower() in str(row["text"]).lower()]
    if not unit_ids:
        return
    results: list[dict[str, Any]] = []
    try:
        results = engine.search(marker, limit=SEARCH_LIMIT, mode="keyword", min_score=0.0)["results"]
        json.dumps(results, ensure_ascii=False).encode("utf-8")  # what `--json` prints must be printable
    except Exception as exc:
        outcome.search_errors[marker] = f"search: {_last_line(exc)}"
    outcome.hits[marker] = MarkerHit(unit_ids, results)
    outcome.sessions.update(r["sessionKey"] for r in results if r.get("sessionKey"))


def cli_sample_markers(corpus: Corpus) -> list[str]:
    """A few expected markers searched through the real CLI: the timestamp cases of each JSONL format."""
    wanted = ("ts-year-9999", "ts-1e17", "ts-1e400", "surrogate-text", "utf16")
    picks: list[str] = []
    for case in corpus.cases:
        if case.slug in wanted and case.expected:
            picks.append(case.expected[2] if len(case.expected) > 2 else case.expected[0])
    return picks


def index_with_rewrites(corpus: Corpus, flags: list[str]) -> list[Run]:
    """`memlens index`; then, when cases rewrite files in place (same size, mtime put back), those rewrites and
    `memlens reindex`, which must see them."""
    runs = [cli(corpus, "index", *flags)]
    rewrites = [case.rewrite for case in corpus.cases if case.rewrite is not None]
    if rewrites:
        for rewrite in rewrites:
            rewrite()
        runs.append(cli(corpus, "reindex", *flags))
    return runs


def index_and_check(corpus: Corpus, index_dir: Path, embeddings: bool = False, cli_history: int = 6) -> Outcome:
    """`memlens index` (and `reindex` after the rewrites), `stats --json`, a few `search --json --no-sync` and
    `history --json`, then every marker."""
    outcome = Outcome()
    flags = location_flags(corpus, index_dir, embeddings)
    outcome.runs += index_with_rewrites(corpus, flags)
    stats = cli(corpus, "stats", "--json", *flags)
    outcome.runs.append(stats)
    with contextlib.suppress(ValueError):
        outcome.stats = stats.json() if stats.code == 0 else None
    sample_keys: list[str] = []
    for marker in cli_sample_markers(corpus):
        run = cli(corpus, "search", marker, "--json", "--mode", "keyword", "--no-sync", *flags)
        outcome.runs.append(run)
        with contextlib.suppress(ValueError, KeyError, TypeError):
            sample_keys += [r["sessionKey"] for r in run.json()["results"] if r.get("sessionKey")]
    check_in_process(corpus, index_dir, outcome)
    for key in list(dict.fromkeys(sample_keys))[:cli_history]:
        outcome.runs.append(cli(corpus, "history", key, "--json", *flags))
    return outcome


def remove_case_files(corpus: Corpus, keep: set[str]) -> list[Case]:
    """Delete the files of every case whose id is not in `keep` (restoring modes first); returns those cases."""
    for folder in (corpus.workspace / "memory" / "private",):
        with contextlib.suppress(OSError):
            folder.chmod(0o755)
    removed = []
    for case in corpus.cases:
        if case.id in keep:
            continue
        removed.append(case)
        for path in case.files:
            with contextlib.suppress(OSError):
                if not path.is_symlink():
                    path.chmod(0o755 if path.is_dir() else 0o644)
                    path.parent.chmod(0o755)
            with contextlib.suppress(OSError):
                if path.is_dir() and not path.is_symlink():
                    for child in path.iterdir():
                        child.unlink()
                    path.rmdir()
                else:
                    path.unlink()
    corpus.cases = [c for c in corpus.cases if c.id in keep]
    return removed
