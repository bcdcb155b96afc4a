"""The query sets a latency benchmark can ask besides the realistic two- or three-word queries: pasted errors and
long pastes, and questions about the days around an event. Steps of a search run only for such queries (the pasted
text's verbatim pass, the event's dating); their cost shows only when they are asked.

- `realistic`: `realistic_text.corpus_queries` (what `speed.py` asks).
- `pastes`: the pasted errors of bench/data/error_questions.json (its tune half and its absent errors: they name
  nothing of a synthetic corpus, but are read, searched and ranked as any paste is), then long pastes cut from the
  index's own messages (200-1,500 characters, so the verbatim pass finds the texts that hold them), alternated.
- `events`: questions about the days around an event ("what did we do the week before the offsite"), a third of
  them with other words, and half naming a word the corpus holds as the event (dated by its mentions), half one it
  never names (said unnamed).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memlens.engine.engine import Engine

SETS = ("realistic", "pastes", "events")
ERROR_QUESTIONS = Path(__file__).resolve().parent / "data" / "error_questions.json"
PASTE_CHARS = (200, 1_500)
OFFSETS = (
    "the week before the",
    "the week after the",
    "the day after the",
    "two days before the",
    "the weekend after the",
    "three days after the",
)
ASKING = ("what did we do", "what was I doing", "what happened", "what did we decide about the schema")
UNNAMED_EVENTS = ("offsite", "hackathon", "retreat", "conference", "launch party")


def pasted_errors() -> list[str]:
    """The tune half's pasted errors, then the absent ones."""
    data = json.loads(ERROR_QUESTIONS.read_text())
    tune = [q["question"] for q in data["questions"] if q["split"] == "tune" and q["kind"] == "pasted"]
    return tune + [q["question"] for q in data["absent"]]


def long_pastes(engine: Engine, n: int, seed: int) -> list[str]:
    """`n` slices of the index's own longer messages (random units, seeded), as a user pastes part of one."""
    rng = random.Random(seed)
    top = engine.catalog.unit_count()
    pastes: list[str] = []
    while len(pastes) < n:
        texts = engine.catalog.unit_texts(sorted(rng.sample(range(1, top + 1), min(top, 200))))
        for unit_id in sorted(texts):
            text = texts[unit_id]
            if len(text) >= PASTE_CHARS[0] and len(pastes) < n:
                size = rng.randint(PASTE_CHARS[0], min(len(text), PASTE_CHARS[1]))
                start = rng.randrange(len(text) - size + 1)
                pastes.append(text[start : start + size])
    return pastes


def pastes(engine: Engine, n: int, seed: int) -> list[str]:
    """`n` pastes: the pasted errors and long pastes alternated."""
    errors = pasted_errors()
    long = long_pastes(engine, n, seed)
    mixed = [paste for pair in zip(errors * (n // len(errors) + 1), long, strict=False) for paste in pair]
    return mixed[:n]


def events(n: int, seed: int, held: list[str]) -> list[str]:
    """`n` questions about the days around an event: `held` words (the corpus's) and never-named ones alternated."""
    rng = random.Random(seed)
    asked = []
    for i in range(n):
        event = rng.choice(held) if i % 2 == 0 else rng.choice(UNNAMED_EVENTS)
        asking = ASKING[i % 3] if i % 3 else rng.choice(ASKING[:3])
        asked.append(f"{asking} {rng.choice(OFFSETS)} {event}")
    return asked


def query_set(name: str, engine: Engine, *, realistic: list[str], seed: int) -> list[str]:
    """The set `name` of as many queries as `realistic` holds (its first words name the events the corpus holds)."""
    if name == "realistic":
        return realistic
    if name == "pastes":
        return pastes(engine, len(realistic), seed)
    if name == "events":
        held = sorted({word for query in realistic for word in query.split() if word.isalpha() and len(word) > 4})
        return events(len(realistic), seed, held or ["release"])
    raise SystemExit(f"unknown query set {name!r} ({', '.join(SETS)})")
