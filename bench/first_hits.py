"""What comes first when a hybrid search of the transcript TUNE set puts a wrong message first.

bench/ranker_misses.py places each question's first target (and says whether any ranker could lift it); this lists,
for every tune question whose first hit is no target message, what came first instead: its message, whether it is a
user's or an assistant's message or a tool's output, its place in the BM25 and the cosine lists, and its text, beside
the first target's place and text, and at the end the messages that come first for more than one question. That is
what the miss classes in bench/RESULTS.md are read from (an overview or summary winning on common words, a status
line, the keyword share burying a vector find, a neighbour of the answer).

    python -m bench.first_hits [--json] [--chars N]

Tune questions only: the held-out set is never looked at question by question.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import load_shared_embedder, machine_info
from bench.locomo import bench_settings
from bench.transcripts import DEPTH, QUESTION_SETS, TRANSCRIPTS, Corpus, cached_index, load_questions, open_corpus

CHARS = 240  # of each text shown: enough to see what a message is (a summary, a tool call, a status line)


@dataclass(frozen=True)
class Shown:
    """One ranked message as the listing shows it: its key, who wrote it, its places in each list, its text."""

    key: str
    place: int  # among the ranked messages (1 = first); a message's later parts do not count
    speaker: str  # "user", "assistant" or "tool" (a tool's output)
    keyword_rank: int | None  # 1-based place in the BM25 list, None when BM25 did not find it
    vector_rank: int | None  # 1-based place in the cosine list
    text: str


@dataclass(frozen=True)
class FirstMiss:
    """A question whose first hit is no target: what came first and where the first target is (None: not within
    the ranking's depth)."""

    id: str
    kind: str
    question: str
    first: Shown
    target: Shown | None
    target_text: str  # the first target's text, from the corpus when the ranking does not hold it


@dataclass(frozen=True)
class RankedUnit:
    """What the listing reads of one ranked hit."""

    key: str | None  # its message (None: a unit of no transcript message)
    speaker: str
    keyword_rank: int | None  # 0-based, as the engine gives it
    vector_rank: int | None
    text: str


def first_miss(units: Sequence[RankedUnit], targets: set[str], *, chars: int = CHARS) -> tuple[Shown, Shown | None]:
    """The first ranked message and the first target among `units` (best first), a message's later parts not counted.
    Raises ValueError when no unit belongs to a message."""
    places: dict[str, Shown] = {}
    for unit in units:
        if unit.key is None or unit.key in places:
            continue
        places[unit.key] = Shown(
            key=unit.key,
            place=len(places) + 1,
            speaker=unit.speaker,
            keyword_rank=None if unit.keyword_rank is None else unit.keyword_rank + 1,
            vector_rank=None if unit.vector_rank is None else unit.vector_rank + 1,
            text=" ".join(unit.text.split())[:chars],
        )
    if not places:
        raise ValueError("the ranking holds no message")
    shown = list(places.values())
    return shown[0], next((s for s in shown if s.key in targets), None)


def ranked_units(corpus: Corpus, question: str, rows: Mapping[int, Mapping[str, Any]]) -> list[RankedUnit]:
    """The hybrid ranking of `question` as the listing reads it; `rows`: the catalog's units by id."""
    ranking = corpus.engine.rank(question, mode="hybrid", limit=DEPTH)
    out = []
    for hit in ranking.hits:
        row = rows[hit.unit_id]
        speaker = "tool" if row["kind"] == "tool" else str(row["role"])
        key = corpus.key_of_unit.get(hit.unit_id)
        out.append(RankedUnit(key, speaker, hit.keyword_rank, hit.vector_rank, str(row["text"])))
    return out


def list_misses(corpus: Corpus, *, chars: int = CHARS) -> tuple[int, list[FirstMiss]]:
    """How many tune questions were asked, and each one whose first hit is no target."""
    rows = {
        int(unit["id"]): dict(unit)
        for session in corpus.engine.catalog.all_sessions()
        for unit in corpus.engine.catalog.session_units(session["key"], after=-1, count=1 << 30, copies=True)
    }
    questions = load_questions(QUESTION_SETS["tune"])
    misses = []
    for item in questions:
        targets = set(item["targets"])
        first, target = first_miss(ranked_units(corpus, item["question"], rows), targets, chars=chars)
        if first.key in targets:
            continue
        text = target.text if target else " ".join(corpus.text_of.get(item["targets"][0], "").split())[:chars]
        misses.append(FirstMiss(item["id"], item["kind"], item["question"], first, target, text))
    return len(questions), misses


def repeated_firsts(misses: Sequence[FirstMiss]) -> list[tuple[str, list[str]]]:
    """The messages that come first, wrongly, for more than one question, each with those questions' ids, most first
    (ties: the message's key). One such message is a class of its own: demoting it alone lets the next wrong message
    take its place (bench/RESULTS.md, "The misses at place 1, counted by what came first")."""
    questions: dict[str, list[str]] = defaultdict(list)
    for miss in misses:
        questions[miss.first.key].append(miss.id)
    repeated = [(key, ids) for key, ids in questions.items() if len(ids) > 1]
    return sorted(repeated, key=lambda pair: (-len(pair[1]), pair[0]))


def format_report(asked: int, misses: Sequence[FirstMiss]) -> str:
    def rank(value: int | None) -> str:
        return "-" if value is None else str(value)

    lines = [f"{len(misses)} of {asked} tune questions put a wrong message first (hybrid)"]
    for miss in misses:
        place = miss.target.place if miss.target else None
        lines += [
            "",
            f"{miss.id} ({miss.kind}) first target at {rank(place)}: {miss.question}",
            f"  first: {miss.first.key} ({miss.first.speaker}; BM25 {rank(miss.first.keyword_rank)}, "
            f"cosine {rank(miss.first.vector_rank)})",
            f"    {miss.first.text}",
        ]
        if miss.target:
            lines.append(
                f"  target: {miss.target.key} ({miss.target.speaker}; BM25 {rank(miss.target.keyword_rank)}, "
                f"cosine {rank(miss.target.vector_rank)})"
            )
        lines.append(f"    {miss.target_text}")
    repeated = repeated_firsts(misses)
    if repeated:
        taken = sum(len(ids) for _, ids in repeated)
        lines += ["", f"first for more than one question ({len(repeated)} messages, {taken} of the misses):"]
        lines += [f"  {len(ids)}  {key}: {', '.join(ids)}" for key, ids in repeated]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--chars", type=int, default=CHARS, help="characters of each text shown")
    args = parser.parse_args(argv)
    settings = bench_settings()
    corpus = open_corpus(root=TRANSCRIPTS, index_dir=cached_index(settings), embedder=load_shared_embedder(settings))
    try:
        asked, misses = list_misses(corpus, chars=args.chars)
    finally:
        corpus.engine.close()
    report: dict[str, Any] = {
        "machine": machine_info(),
        "asked": asked,
        "misses": [asdict(m) for m in misses],
        "repeatedFirsts": dict(repeated_firsts(misses)),
    }
    print(json.dumps(report, indent=2) if args.json else format_report(asked, misses))
    return report


if __name__ == "__main__":
    main()
