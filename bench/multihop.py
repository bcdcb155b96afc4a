"""Where multi-hop and open-domain answers are missed: what a session-aware second pass could still find, and where
the missed evidence sits in each raw list.

For every LoCoMo TUNE question (26, 30, 41) with evidence, each evidence turn not in the default search's top 10 is
placed: is its session one of the three the ranking hits first (what a second pass pulling more turns from the hit
sessions reaches), and how deep in the full ranking is it (the head the learned ranker re-orders holds 40)? Then, in
the raw lists fusion starts from: its place in the BM25 list (with the query's expansions, as the search asks it), in
the cosine list of the whole conversation as the question is asked, and in the cosine list of the question with the
two speakers' names left out; whether it holds any of the question's words besides those names, and whether the
person the question names said it. The cosine lists of every evidence turn, found or not, are counted too: a name
every other turn holds weighs on the query's vector. Counted per category. The figures decide what a first pass
would need to find these turns; held-out conversations are never read here.

    python -m bench.multihop [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import load_shared_embedder, machine_info
from bench.locomo import CATEGORIES, TUNE_CONVERSATIONS, BuiltIndex, bench_settings, tune_index
from bench.locomo_data import Conversation, Question
from memlens.engine.keyword.stop_words import STOP_WORDS
from memlens.engine.vectors.embedder import Embedder
from memlens.settings import Settings

DEPTH = 300  # hits ranked per question: how deep a missed turn is looked for
TOP_SESSIONS = 3
BUCKETS = ((40, "in the head (≤ 40)"), (100, "41–100"), (DEPTH, f"101–{DEPTH}"))
KEYWORD_DEPTH = 5000  # the raw BM25 list, as deep as a conversation is long
RAW_BUCKETS = ((10, "1–10"), (40, "11–40"), (100, "41–100"), (200, "101–200"), (400, "201–400"))
WORD = re.compile(r"[a-z]+")
COLUMNS = (
    "keyword",
    "vector",
    "vector, names left out",
    "holds a word of the question besides the names",
    "said by the person the question names",
)
BAND_ORDER = [label for _, label in RAW_BUCKETS] + [f"past {RAW_BUCKETS[-1][0]}", "not in it", "yes", "no"]


def place(rank: int | None) -> str:
    if rank is None:
        return f"not in the top {DEPTH}"
    return next(label for bound, label in BUCKETS if rank < bound)


def raw_place(rank: int | None) -> str:
    """A 0-based place in a raw list as a band ("1–10" …, "past 400", "not in it")."""
    if rank is None:
        return "not in it"
    return next((label for bound, label in RAW_BUCKETS if rank < bound), f"past {RAW_BUCKETS[-1][0]}")


def without_names(text: str, names: Sequence[str]) -> str:
    """`text` with each of `names` (and its possessive) replaced by a pronoun: "What do Melanie's kids like?" →
    "What do their kids like?"."""
    for name in names:
        text = re.sub(rf"\b{re.escape(name)}'s\b", "their", text, flags=re.IGNORECASE)
        text = re.sub(rf"\b{re.escape(name)}\b", "they", text, flags=re.IGNORECASE)
    return text


def content_words(text: str, names: Sequence[str] = ()) -> set[str]:
    """The lower-cased words of `text` that are no stop word, no name of `names` and longer than two letters, a
    plural's "s" cut ("kids" and "kid" are one word)."""
    left_out = {n.lower() for n in names}
    words = (w for w in WORD.findall(text.lower()) if w not in STOP_WORDS and w not in left_out and len(w) > 2)
    return {w.removesuffix("s") for w in words}


def raw_lists(
    question: Question, index: BuiltIndex, settings: Settings, embedder: Embedder, names: Sequence[str]
) -> dict[str, list[str]]:
    """The turns of each raw list, best first: BM25 with the query's expansions, cosine as asked, cosine with the
    speakers' names left out."""
    retriever = index.engine.retriever
    parsed = retriever.read(question.text, settings.search)
    expansions = retriever._expansions(parsed, settings.search)
    keyword = retriever.keyword.search(parsed, KEYWORD_DEPTH, expansions=expansions)
    lists = {"keyword": [index.turn_of.get(u, "") for u, _ in keyword]}
    for label, text in (("vector", question.text), ("vector, names left out", without_names(question.text, names))):
        nearest = retriever.vectors.search(embedder.embed_query(text), index.units)
        lists[label] = [index.turn_of.get(u, "") for u, _ in nearest]
    return lists


def speakers(conversation: Conversation) -> dict[str, str]:
    """Turn id → who said it."""
    return {turn.dia_id: turn.speaker for session in conversation.sessions for turn in session.turns}


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    settings = bench_settings({})
    embedder = load_shared_embedder(settings)
    counts: Counter[tuple[str, str, str]] = Counter()
    found: Counter[str] = Counter()
    raw: Counter[tuple[str, str, str]] = Counter()  # (category, column, band or yes/no) of the missed turns
    vector_top: Counter[tuple[str, str]] = Counter()  # (category, list) → evidence turns, found or not, in its top 10
    evidence_turns: Counter[str] = Counter()
    for name in TUNE_CONVERSATIONS:
        with tune_index(name, settings, embedder) as (conversation, index):
            said_by = speakers(conversation)
            texts = {t.dia_id: t.text for s in conversation.sessions for t in s.turns}
            names = (conversation.speaker_a, conversation.speaker_b)
            for question in conversation.questions:
                if not question.evidence:
                    continue
                category = CATEGORIES[question.category]
                hits = index.engine.rank(question.text, mode="hybrid", limit=DEPTH).hits
                turns = [index.turn_of.get(h.unit_id) for h in hits[:DEPTH]]
                sessions = list(dict.fromkeys(t.partition(":")[0] for t in turns if t))[:TOP_SESSIONS]
                lists = raw_lists(question, index, settings, embedder, names)
                named = [n for n in names if re.search(rf"\b{re.escape(n)}\b", question.text, re.IGNORECASE)]
                asked = content_words(question.text, names)
                for turn in question.evidence:
                    evidence_turns[category] += 1
                    for label in ("vector", "vector, names left out"):
                        vector_top[(category, label)] += turn in lists[label][:10]
                    if turn in turns[:10]:
                        found[category] += 1
                        continue
                    rank = turns.index(turn) if turn in turns else None
                    where = "a top session" if turn.partition(":")[0] in sessions else "another session"
                    counts[(category, where, place(rank))] += 1
                    for label, ranked in lists.items():
                        raw[(category, label, raw_place(ranked.index(turn) if turn in ranked else None))] += 1
                    shares = bool(asked & content_words(texts.get(turn, ""), names))
                    raw[(category, "holds a word of the question besides the names", "yes" if shares else "no")] += 1
                    by_named = said_by.get(turn) in named
                    raw[(category, "said by the person the question names", "yes" if by_named else "no")] += 1
    report: dict[str, Any] = {"machine": machine_info(), "categories": {}}
    for category in CATEGORIES.values():
        missed = {f"{w} / {p}": n for (c, w, p), n in sorted(counts.items()) if c == category}
        columns: dict[str, dict[str, int]] = {}
        ordered = sorted(raw.items(), key=lambda item: (COLUMNS.index(item[0][1]), BAND_ORDER.index(item[0][2])))
        for (c, column, band), n in ordered:
            if c == category:
                columns.setdefault(column, {})[band] = n
        report["categories"][category] = {
            "found in the top 10": found[category],
            "missed": missed,
            "missed, in the raw lists": columns,
            "evidence turns": evidence_turns[category],
            "evidence turns in the top 10 of": {
                label: vector_top[(category, label)] for label in ("vector", "vector, names left out")
            },
        }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for category, row in report["categories"].items():
            total = row["found in the top 10"] + sum(row["missed"].values())
            print(f"{category}: {row['found in the top 10']} of {total} evidence turns in the top 10")
            for key, n in row["missed"].items():
                print(f"   missed, {key}: {n}")
            for column, bands in row["missed, in the raw lists"].items():
                print(f"   missed, {column}: " + ", ".join(f"{band} {n}" for band, n in bands.items()))
            tops = row["evidence turns in the top 10 of"]
            print(
                f"   all {row['evidence turns']} evidence turns, in the top 10 of: "
                + ", ".join(f"{k} {n}" for k, n in tops.items())
            )
    return report


if __name__ == "__main__":
    main()
