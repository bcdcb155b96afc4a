"""Which words a paraphrase question shares with the messages it targets: the check a "forgot the words" question
must pass.

bench/transcripts.py lets a paraphrase keep its target's common words and forbids only the rare ones, so most tune
paraphrases still share a word or two with their answer and BM25 finds them: such a set cannot show when the
vectors should be trusted. A user who forgot the words describes what happened or what was decided in others; a
question written that way shares no content word with its target, stop words aside and words compared as the keyword
analyser stems them (so "specs" meets "specification" only if the stemmer makes them one word, and "commands" always
meets "command"). This prints, for each paraphrase of a question set, the share of its content words found in its
targets and the words themselves; questions marked with a `source` (`--strict SOURCE`) must share none, and the run
fails naming those that do, to be dropped or rewritten.

    python -m bench.paraphrase_overlap [--questions tune|bags|PATH] [--strict SOURCE] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import load_shared_embedder
from bench.locomo import bench_settings
from bench.transcripts import (
    QUESTION_SETS,
    TRANSCRIPTS,
    Corpus,
    cached_index,
    load_questions,
    open_corpus,
    shared_words,
)


@dataclass
class Overlap:
    """One paraphrase against its targets: its content words (stemmed) and those its targets hold too."""

    id: str
    question: str
    source: str
    words: list[str]
    shared: list[str]

    @property
    def share(self) -> float:
        return len(self.shared) / max(1, len(self.words))


def overlaps(questions: Sequence[dict[str, Any]], corpus: Corpus) -> list[Overlap]:
    """Each paraphrase's content words found in its targets' text (tool output left out, as the set's own check
    reads a message), in the order the question uses them."""
    out: list[Overlap] = []
    for item in questions:
        if item["kind"] != "paraphrase":
            continue
        words, shared = shared_words(item, corpus)
        out.append(Overlap(item["id"], item["question"], str(item.get("source", "")), words, shared))
    return out


def format_overlaps(rows: Sequence[Overlap], *, strict: str | None) -> str:
    lines = [f"{'id':<6} {'shared':>8}  words shared with the targets | question"]
    for row in rows:
        mark = "*" if strict and row.source == strict else " "
        shared = ", ".join(row.shared) or "-"
        lines.append(f"{row.id:<6}{mark}{len(row.shared):>3} / {len(row.words):<3} {shared} | {row.question}")
    clean = sum(not row.shared for row in rows)
    lines.append(f"{len(rows)} paraphrases; {clean} share no content word with their targets")
    if strict:
        marked = [row for row in rows if row.source == strict]
        lines.append(f"{len(marked)} marked {strict!r} (*); sharing a word: {[r.id for r in marked if r.shared]}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> list[Overlap]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", default="tune", help="tune, bags, or a question file's path")
    parser.add_argument("--strict", metavar="SOURCE", help="questions with this `source` must share no word")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    if args.questions == "eval":
        parser.error("the evaluation set is only run by bench/transcripts.py, never read one question at a time")
    if not TRANSCRIPTS.is_dir():
        raise SystemExit(f"the shared transcripts are not at {TRANSCRIPTS}")
    questions = load_questions(QUESTION_SETS.get(args.questions, Path(args.questions)))
    settings = bench_settings({})
    corpus = open_corpus(
        root=TRANSCRIPTS, index_dir=cached_index(settings), embedder=load_shared_embedder(settings), overrides={}
    )
    try:
        unknown = [t for q in questions for t in q["targets"] if t not in corpus.text_of]
        if unknown:
            raise SystemExit(f"targets not among the indexed messages: {unknown}")
        rows = overlaps(questions, corpus)
    finally:
        corpus.engine.close()
    if args.json:
        print(json.dumps([asdict(row) | {"share": round(row.share, 3)} for row in rows], indent=2))
    else:
        print(format_overlaps(rows, strict=args.strict))
    if args.strict and any(row.shared for row in rows if row.source == args.strict):
        raise SystemExit(1)
    return rows


if __name__ == "__main__":
    main()
