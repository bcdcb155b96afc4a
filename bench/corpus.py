"""The synthetic corpus of the speed benchmarks, in the real formats: memory notes (Markdown) and Claude Code, Codex
and OpenClaw JSONL sessions, generated from a seed. bench/speed.py, bench/hover.py and bench/reconcile.py build on it.

Every text is unique (it carries a ticket number) and made of one small shared vocabulary, so queries mean something
and hit a few percent of the corpus.
"""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memlens.engine.engine import Engine
from memlens.engine.vectors.embedder import Embedder
from memlens.settings import Settings

MEMORY_SECTIONS = 8  # chunks per memory file (each section 100-800 characters: one chunk)
EXCHANGES = 12  # chunks per transcript file (an exchange = a user and an assistant message, then a pause)


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


def stamp(when: datetime) -> str:
    """A transcript timestamp: ISO 8601 UTC with milliseconds and a Z."""
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
                    "timestamp": stamp(when),
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
        "timestamp": stamp(start),
        "cwd": cwd,
        "originator": "codex_cli_rs",
        "cli_version": "0.125.0",
    }
    lines: list[dict[str, Any]] = [{"timestamp": stamp(start), "type": "session_meta", "payload": meta}]
    when = start
    for _ in range(EXCHANGES):
        for role, block, text in (("user", "input_text", world.ask()), ("assistant", "output_text", world.answer())):
            payload = {"type": "message", "role": role, "content": [{"type": block, "text": text}]}
            lines.append({"timestamp": stamp(when), "type": "response_item", "payload": payload})
            when += timedelta(seconds=20)
        when += timedelta(minutes=world.rng.randint(6, 40))
    return _jsonl(lines)


def openclaw_file(world: World, start: datetime, cwd: str) -> str:
    session = str(uuid.UUID(int=world.rng.getrandbits(128)))
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": session, "timestamp": stamp(start), "cwd": cwd}
    ]
    parent: str | None = None
    when = start
    for _ in range(EXCHANGES):
        for role, text in (("user", world.ask()), ("assistant", world.answer())):
            entry_id = f"{world.rng.getrandbits(32):08x}"
            message = {"role": role, "content": [{"type": "text", "text": text}]}
            lines.append(
                {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp(when), "message": message}
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


FORMAT_FOLDERS = {"claude-code": "claude", "codex": "codex", "openclaw": "openclaw"}  # format: its folder


def make_corpus(root: Path, chunks: int, seed: int = 7, *, world: World | None = None) -> Corpus:
    """About `chunks` chunks: half memory sections (8 per note), half transcript exchanges (12 per session),
    the sessions spread evenly over Claude Code, Codex and OpenClaw JSONL; `world` writes the texts (this module's
    own small vocabulary unless given: bench/realistic_text.py has real lengths and words)."""
    world = world if world is not None else World(seed)
    workspace, transcripts = root / "workspace", root / "transcripts"
    memory_files = max(1, round(chunks / 2 / MEMORY_SECTIONS))
    transcript_files = max(3, round(chunks / 2 / EXCHANGES))
    for i in range(memory_files):
        folder = workspace / "memory" / world.pick(COMPONENTS)
        folder.mkdir(parents=True, exist_ok=True)
        title = f"# {world.pick(COMPONENTS).title()} notes {i}\n\n"
        (folder / f"note-{i:06d}.md").write_text(title + "\n".join(world.section() for _ in range(MEMORY_SECTIONS)))
    writers: dict[str, tuple[Callable[[World, datetime, str], str], Callable[[int, datetime, str], Path]]] = {
        "claude-code": (
            claude_code_file,
            lambda i, d, s: transcripts / FORMAT_FOLDERS["claude-code"] / f"project-{i % 20}" / f"{s}.jsonl",
        ),
        "codex": (
            codex_file,
            lambda i, d, s: (
                transcripts
                / FORMAT_FOLDERS["codex"]
                / d.strftime("%Y/%m/%d")
                / f"rollout-{d:%Y-%m-%dT%H-%M-%S}-{s}.jsonl"
            ),
        ),
        "openclaw": (
            openclaw_file,
            lambda i, d, s: transcripts / FORMAT_FOLDERS["openclaw"] / f"agent-{i % 5}" / f"{s}.jsonl",
        ),
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


def prebuilt_corpus(root: Path) -> Corpus:
    """The corpus an earlier run left in `root/corpus` (its transcripts found by folder, for the append probes)."""
    corpus_root = root / "corpus"
    by_format = {
        fmt: sorted((corpus_root / "transcripts" / folder).rglob("*.jsonl")) for fmt, folder in FORMAT_FOLDERS.items()
    }
    memory = sum(1 for _ in (corpus_root / "workspace").rglob("*.md"))
    transcripts = sum(len(paths) for paths in by_format.values())
    return Corpus(corpus_root, corpus_root / "workspace", corpus_root / "transcripts", memory, transcripts, by_format)
