"""Texts with the lengths and words of real transcripts, for the scale benchmarks.

bench/corpus.py's own world writes ~167-character sentences over a vocabulary of a few hundred words: fine for
timing, but its posting lists and message lengths are not a heavy user's. `RealisticWorld` draws every message's
length from the shared real transcripts' messages (user and assistant lengths apart) and fills it with runs of
consecutive tokens cut from the real messages and tool output, so the vocabulary, the identifiers and paths, and
the Zipf shape of the postings are real; a ticket number keeps every text unique. Queries are two or three
consecutive words of a real message.

The real texts are read with memlens's own parsers (keyword-only, into a scratch folder) and never written
anywhere but the generated corpus.
"""

from __future__ import annotations

import json
import re
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench.corpus import World

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]{2,}")
MARKER = "world.json"  # in a corpus root: which world wrote it (so prebuilt runs ask matching queries)


@dataclass(frozen=True)
class RealTexts:
    user_lengths: list[int]
    assistant_lengths: list[int]
    tokens: list[str]  # the real token stream: messages then tool output, whitespace-split
    phrases: list[list[str]]  # each real message's words, for queries


def read_real_texts(transcripts: Path, scratch: Path) -> RealTexts:
    """Index `transcripts` keyword-only under `scratch` and read its messages' texts back."""
    from bench.corpus import Corpus, open_engine

    workspace = scratch / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    with open_engine(Corpus(scratch, workspace, transcripts, 0, 0, {}), scratch / "index", None) as engine:
        engine.sync()
        db: sqlite3.Connection = engine.catalog.db
        table = "plain_units" if hasattr(engine.catalog, "texts") else "units"  # an A/B's older tree: texts plain
        rows = [(str(k), r, str(t)) for k, r, t in db.execute(f"SELECT kind, role, text FROM {table} ORDER BY id")]
    messages = [(role, text) for kind, role, text in rows if kind == "transcript" and text.strip()]
    tools = [text for kind, _, text in rows if kind == "tool" and text.strip()]
    if not messages:
        raise SystemExit(f"no transcript messages under {transcripts}")
    user = [len(t) for r, t in messages if r == "user"] or [len(t) for _, t in messages]
    assistant = [len(t) for r, t in messages if r != "user"] or user
    tokens = [tok for text in [t for _, t in messages] + tools for tok in text.split()]
    phrases = [words for _, t in messages if len(words := _WORD.findall(t)) >= 3]
    return RealTexts(user, assistant, tokens, phrases)


class RealisticWorld(World):
    """`World` with real lengths and real words (see the module's docstring)."""

    def __init__(self, seed: int, real: RealTexts) -> None:
        super().__init__(seed)
        self.real = real

    def _fill(self, length: int) -> str:
        parts, size = [self.next_ticket()], 0
        tokens = self.real.tokens
        while size < length:
            start = self.rng.randrange(len(tokens))
            run = tokens[start : start + self.rng.randint(4, 16)]
            parts.extend(run)
            size += sum(len(t) + 1 for t in run)
        return " ".join(parts)[: max(length, 12)]

    def ask(self) -> str:
        return self._fill(self.rng.choice(self.real.user_lengths))

    def answer(self) -> str:
        return self._fill(self.rng.choice(self.real.assistant_lengths))

    def sentence(self) -> str:
        return self._fill(self.rng.choice(self.real.assistant_lengths))

    def section(self) -> str:
        words = self.rng.choice(self.real.phrases)
        title = " ".join(words[: self.rng.randint(2, 4)]).title()
        return f"## {title} ({self.next_ticket()})\n\n{self.sentence()}\n"

    def query(self) -> str:
        words = self.rng.choice(self.real.phrases)
        size = self.rng.randint(2, 3)
        start = self.rng.randrange(len(words) - size + 1)
        return " ".join(words[start : start + size]).lower()


def write_marker(root: Path, *, text: str, seed: int) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / MARKER).write_text(json.dumps({"text": text, "seed": seed}))


def corpus_text(root: Path) -> str:
    """Which world wrote the corpus at `root` ("synthetic" when it says nothing)."""
    marker = root / MARKER
    return str(json.loads(marker.read_text()).get("text", "synthetic")) if marker.is_file() else "synthetic"


def make_world(text: str, seed: int, *, scratch: Path) -> World:
    if text == "synthetic":
        return World(seed)
    if text != "realistic":
        raise SystemExit(f"unknown text kind {text!r} (synthetic or realistic)")
    from bench.common import SHARED

    return RealisticWorld(seed, read_real_texts(SHARED / "fixtures" / "transcripts", scratch))


def corpus_queries(seed: int, n: int, *, text: str = "synthetic", scratch: Path | None = None) -> list[str]:
    """`n` queries of the world that wrote a corpus of `text` (synthetic or realistic: `corpus_text` reads which);
    the real texts a realistic world draws on are read into `scratch` (a temporary folder when None)."""
    if scratch is None:
        with tempfile.TemporaryDirectory(prefix="memlens-real-") as tmp:
            return corpus_queries(seed, n, text=text, scratch=Path(tmp))
    world = make_world(text, seed, scratch=scratch)
    return [world.query() for _ in range(n)]
