"""Abstention: questions about topics absent from the data should get no results; nonsense queries never crash.

Indexes examples/workspace plus ../shared/fixtures/transcripts (cached between runs), checks that each question's
distinctive words really are absent from those files and the LoCoMo data, then asks every question with default
settings in each mode and reports the share answered with nothing: for the first set (absent_topics.json) and for
each half of the second (data/absent_questions.json: "tune" may be fitted on, "heldout" is only reported).

    python -m bench.absent [--json] [--set KEY=VALUE …]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import platformdirs

from bench.common import SHARED, load_shared_embedder, named_only
from bench.locomo import bench_settings
from memlens.engine.engine import Engine
from memlens.engine.vectors.embedder import Embedder
from memlens.settings import Settings

REPO = Path(__file__).resolve().parents[1]
TOPICS = REPO / "bench" / "absent_topics.json"
# written apart from TOPICS, in two halves: "tune" may fit the answerable model (bench/calibrate.py), "heldout" is
# only reported here
NEW_TOPICS = REPO / "bench" / "data" / "absent_questions.json"
SOURCES = (SHARED / "fixtures" / "transcripts", SHARED / "datasets" / "locomo", REPO / "examples" / "workspace")
# one index per clone: the example workspace is indexed by its absolute path, so clones sharing one cache would each
# add their own copy of it (the others kept "as last read") and every answer would be read over duplicates
CACHE = Path(platformdirs.user_cache_dir("memlens")) / "bench" / "absent" / hashlib.sha1(bytes(REPO)).hexdigest()[:12]
MODES = ("hybrid", "keyword", "vector")


def present_words(topics: dict[str, Any]) -> list[str]:
    """Check words of the set that do occur somewhere in the data (should be none)."""
    texts: list[str] = []
    for root in SOURCES:
        for folder, _, files in os.walk(root):
            for name in files:
                try:
                    texts.append((Path(folder) / name).read_text(errors="ignore").lower())
                except OSError:
                    continue
    blob = "\n".join(texts)
    words = [w for q in topics["questions"] for w in q["check"]]
    words += [w for q in json.loads(NEW_TOPICS.read_text(encoding="utf-8"))["questions"] for w in q["check"]]
    return [w for w in words if re.search(r"\b" + re.escape(w.lower()) + r"\b", blob)]


def absent_engine(settings: Settings, embedder: Embedder) -> Engine:
    """The index the absent-topic questions are asked of: the example workspace and the shared transcripts alone.
    Without the transcripts (a clone whose ../shared is elsewhere: MEMLENS_SHARED) every mode read 100 % silent over
    the example alone, a figure unlike the 87.5 % of keyword mode over both: refused."""
    transcripts = SHARED / "fixtures" / "transcripts"
    if not transcripts.is_dir():
        raise SystemExit(f"the shared transcripts are not at {transcripts}: set MEMLENS_SHARED")
    return named_only(
        lambda: Engine(
            [REPO / "examples" / "workspace"],
            settings,
            extra_transcripts=[SHARED / "fixtures" / "transcripts"],
            index_dir=CACHE,
            embedder=embedder,
        ),
        CACHE,
    )


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated search modes to ask in")
    parser.add_argument(
        "--lower", action="store_true", help="ask every question in lower case (users type names that way too)"
    )
    args = parser.parse_args(argv)
    asked: Callable[[str], str] = str.lower if args.lower else str
    from bench.locomo import parse_overrides

    topics = json.loads(TOPICS.read_text(encoding="utf-8"))
    settings = bench_settings(parse_overrides(args.set))
    embedder = load_shared_embedder(settings)
    engine = absent_engine(settings, embedder)
    report: dict[str, Any] = {"questions": len(topics["questions"]), "present": present_words(topics), "modes": {}}
    try:
        engine.sync()
        new_questions = json.loads(NEW_TOPICS.read_text(encoding="utf-8"))["questions"]
        for mode in [m.strip() for m in args.modes.split(",") if m.strip()]:
            silent, loud = _ask(engine, [asked(item["q"]) for item in topics["questions"]], mode)
            nonsense = []
            for query in topics["nonsense"]:
                try:
                    n = len(engine.search(query, mode=mode)["results"])
                except Exception as exc:  # a crash is what this checks for
                    nonsense.append({"q": query, "error": f"{type(exc).__name__}: {exc}"})
                    continue
                nonsense.append({"q": query, "results": n})
            report["modes"][mode] = {
                "silentPercent": round(100 * silent / len(topics["questions"]), 1),
                "answered": loud,
                "nonsense": nonsense,
            }
            for split in ("tune", "heldout"):
                chosen = [asked(item["q"]) for item in new_questions if item["split"] == split]
                silent, loud = _ask(engine, chosen, mode)
                report["modes"][mode][f"new {split}"] = {
                    "questions": len(chosen),
                    "silentPercent": round(100 * silent / len(chosen), 1),
                    "answered": loud,
                }
    finally:
        engine.close()
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"absent topics: {report['questions']} questions; check words present in the data: {report['present']}")
        for mode, r in report["modes"].items():
            bad = [n for n in r["nonsense"] if n.get("error") or n.get("results")]
            print(f"{mode}: {r['silentPercent']}% answered with nothing; nonsense with results or errors: {bad}")
            for split in ("tune", "heldout"):
                new = r[f"new {split}"]
                print(f"   new set, {split}: {new['silentPercent']}% of {new['questions']} answered with nothing")
                if split == "tune":  # the held-out half is only counted: its questions are not read to tune on
                    for item in new["answered"]:
                        top = f"top {item['top']}, chance {item['chance']}"
                        print(f"      answered: {item['q']} ({top}, {item['n']} hits)")
            for item in r["answered"]:
                print(f"   answered: {item['q']} (top {item['top']}, {item['n']} hits)")
    return report


def _ask(engine: Engine, questions: list[str], mode: str) -> tuple[int, list[dict[str, Any]]]:
    """How many of `questions` get no result, and the ones that do (with their top score and hit count)."""
    silent = 0
    loud: list[dict[str, Any]] = []
    for question in questions:
        results = engine.search(question, mode=mode, explain=True)["results"]
        if results:
            chance = results[0].get("explain", {}).get("probability")
            loud.append({"q": question, "top": results[0]["score"], "chance": chance, "n": len(results)})
        else:
            silent += 1
    return silent, loud


if __name__ == "__main__":
    main()
