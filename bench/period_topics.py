"""Questions about a period that say more than the period: does the answer keep the topic, and fall silent when the
topic was never written about then?

Over the shared transcripts (bench.transcripts' cached index, hybrid by default), in UTC, asked after every session:
- present: each keyword bag of bench/data/transcript_questions_bags.json (about the transcript tune set's targets),
  cut to its first MAX_WORDS words, asked as "what did we discuss about <words> on <the target's day>" and "... in
  <its month>": found is the share whose answer shows a target's session; silent the share with no hit;
- paraphrase: each paraphrase of bench/data/transcript_questions_tune.json (words other than its targets'), cut to its
  first MAX_WORDS words that neither ask nor name a date, asked the same way: the vectors must carry these;
- absent: each check word of bench/data/absent_questions.json's tune half (words written nowhere in the data) asked
  the same way of each present question's day and month, and of two seasons (SEASONS): silent is the share answered
  with nothing (want 100 %);
- absent in its words: each of those questions' own first MAX_WORDS other words ("shard meilisearch indexes"), asked
  the same way: the check word is written nowhere, the others often are, as in a real question about a topic the
  data never held (silent, want 100 %; the vectors find near neighbours for these).
`--split heldout` asks the held-out halves instead, once a change is decided: the paraphrases of
bench/data/transcript_questions.json and the absent questions' held-out half, of the paraphrases' days and months (the
keyword bags are about the tune targets only).

    python -m bench.period_topics [--json] [--modes hybrid,keyword,vector] [--split tune|heldout]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.common import SHARED, load_shared_embedder
from bench.locomo import bench_settings
from bench.transcripts import Corpus, cached_index, open_corpus
from memlens.engine.answers.period import other_words

REPO = Path(__file__).resolve().parents[1]
TRANSCRIPTS = SHARED / "fixtures" / "transcripts"
BAGS = REPO / "bench" / "data" / "transcript_questions_bags.json"
PARAPHRASES = {
    "tune": REPO / "bench" / "data" / "transcript_questions_tune.json",
    "heldout": REPO / "bench" / "data" / "transcript_questions.json",
}
ABSENT = REPO / "bench" / "data" / "absent_questions.json"
SEASONS = ("over the winter", "last spring")  # seen from NOW: December 2025 to February 2026, March to May 2026
PERIODS = 6  # days an absent word is asked about (each month too)
MAX_WORDS = 3  # answers/period.py: a question with more other words is a plain search
NOW = datetime(2026, 6, 1, 12, tzinfo=UTC).timestamp()  # after every session


def _when(corpus: Corpus, targets: Sequence[str]) -> tuple[datetime, set[str]] | None:
    """The first target's time and the sessions the targets were written in."""
    found: list[tuple[float, str]] = []
    for session in corpus.engine.catalog.all_sessions():
        for unit in corpus.engine.catalog.session_units(session["key"], after=-1, count=1 << 30, copies=True):
            if corpus.key_of_unit.get(int(unit["id"])) in targets and unit["ts"] is not None:
                found.append((float(unit["ts"]), str(session["key"])))
    if not found:
        return None
    return datetime.fromtimestamp(min(found)[0], UTC), {key for _, key in found}


def _asked(words: str, when: datetime) -> list[str]:
    day = f"{when:%B} {when.day}, {when.year}"
    return [f"what did we discuss about {words} on {day}", f"what did we discuss about {words} in {when:%B %Y}"]


def _missing(words: Sequence[str], days: Sequence[str], months: Sequence[str]) -> list[str]:
    """Each of `words` asked of each day and month, and of each season."""
    asked = [
        f"what did we discuss about {w} {p}{d}" for w in words for p, ds in (("on ", days), ("in ", months)) for d in ds
    ]
    return asked + [f"what did we discuss about {w} {season}" for w in words for season in SEASONS]


def _answered(corpus: Corpus, questions: Sequence[str], mode: str) -> list[dict[str, Any]]:
    """The questions answered with something, and how many hits each."""
    loud: list[dict[str, Any]] = []
    for question in questions:
        answer = corpus.engine.search(question, mode=mode)
        if answer["results"]:
            loud.append({"q": question, "shown": len(answer["results"])})
    return loud


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--modes", default="hybrid")
    parser.add_argument("--split", choices=("tune", "heldout"), default="tune")
    args = parser.parse_args(argv)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    settings = bench_settings({})
    embedder = load_shared_embedder(settings) if modes != ["keyword"] else None
    bags = json.loads(BAGS.read_text(encoding="utf-8"))["questions"] if args.split == "tune" else []
    bags = [{**bag, "words": " ".join(bag["question"].split()[:MAX_WORDS]), "set": "present"} for bag in bags]
    paraphrases = [
        q
        for q in json.loads(PARAPHRASES[args.split].read_text(encoding="utf-8"))["questions"]
        if q["kind"] == "paraphrase"
    ]
    bags += [{**q, "words": " ".join(other_words(q["question"])[:MAX_WORDS]), "set": "paraphrase"} for q in paraphrases]
    absent_questions = [
        q for q in json.loads(ABSENT.read_text(encoding="utf-8"))["questions"] if q["split"] == args.split
    ]
    absent = [w for q in absent_questions for w in q["check"]]
    absent_phrases = [" ".join(other_words(q["q"])[:MAX_WORDS]) for q in absent_questions]
    report: dict[str, Any] = {"modes": {}}
    with contextlib.ExitStack() as stack:
        corpus = open_corpus(root=TRANSCRIPTS, index_dir=cached_index(settings), embedder=embedder)
        stack.callback(corpus.engine.close)
        corpus.engine.settings.display.time_zone = "UTC"
        corpus.engine.retriever.now = NOW
        present: list[tuple[str, set[str], str]] = []
        for bag in bags:
            seen = _when(corpus, bag["targets"])
            if seen is None:
                continue
            when, sessions = seen
            present += [(q, sessions, bag["set"]) for q in _asked(bag["words"], when)]
        dated = "present" if args.split == "tune" else "paraphrase"  # the days the absent words are asked of
        days = sorted({q.split(" on ")[-1] for q, _, kind in present if kind == dated and " on " in q})
        days = days[:: max(1, len(days) // PERIODS)][:PERIODS]
        months = sorted({q.split(" in ")[-1] for q, _, kind in present if kind == dated and " in " in q})
        missing = _missing(absent, days, months)
        phrased = _missing(absent_phrases, days, months)
        for mode in modes:
            wall, cpu = time.perf_counter(), time.process_time()
            rows: list[dict[str, Any]] = []
            for question, sessions, kind in present:
                answer = corpus.engine.search(question, mode=mode)
                shown = {r.get("sessionKey") for r in answer["results"]}
                rows.append(
                    {
                        "q": question,
                        "period": "period" in answer,
                        "found": bool(shown & sessions),
                        "shown": len(answer["results"]),
                        "set": kind,
                    }
                )
            loud = _answered(corpus, missing, mode)
            loud_phrased = _answered(corpus, phrased, mode)
            report["modes"][mode] = {}
            for kind in ("present", "paraphrase"):
                periods = [r for r in rows if r["period"] and r["set"] == kind]
                report["modes"][mode][kind] = {
                    "asked": sum(r["set"] == kind for r in rows),
                    "readAsPeriod": len(periods),
                    "foundPercent": round(100 * sum(r["found"] for r in periods) / max(1, len(periods)), 1),
                    "silentPercent": round(100 * sum(not r["shown"] for r in periods) / max(1, len(periods)), 1),
                    "notFound": [r["q"] for r in periods if not r["found"]],
                }
            report["modes"][mode] |= {
                "absent": len(missing),
                "absentSilentPercent": round(100 * (len(missing) - len(loud)) / max(1, len(missing)), 1),
                "absentAnswered": loud,
                "absentInWords": len(phrased),
                "absentInWordsSilentPercent": round(100 * (len(phrased) - len(loud_phrased)) / max(1, len(phrased)), 1),
                "absentInWordsAnswered": loud_phrased,
                "wallSeconds": round(time.perf_counter() - wall, 1),
                "cpuSeconds": round(time.process_time() - cpu, 1),
            }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for mode, r in report["modes"].items():
            print(
                f"{mode}: absent {r['absent']}, silent {r['absentSilentPercent']} % ({r['wallSeconds']} s wall, "
                f"{r['cpuSeconds']} s CPU for all)"
            )
            for item in r["absentAnswered"][:20]:
                print(f"   absent answered: {item['q']} ({item['shown']} hits)")
            print(f"   absent in its words: {r['absentInWords']}, silent {r['absentInWordsSilentPercent']} %")
            for item in r["absentInWordsAnswered"]:
                print(f"      answered: {item['q']} ({item['shown']} hits)")
            for kind in ("present", "paraphrase"):
                k = r[kind]
                print(
                    f"   {kind}: {k['readAsPeriod']} of {k['asked']} read as periods, target session shown "
                    f"{k['foundPercent']} %, silent {k['silentPercent']} %"
                )
                for q in k["notFound"]:
                    print(f"      target not shown: {q}")
    return report


if __name__ == "__main__":
    main()
