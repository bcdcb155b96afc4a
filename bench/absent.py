"""Abstention: questions about topics absent from the data should get no results; nonsense queries never crash.

Indexes examples/workspace plus ../shared/fixtures/transcripts (cached between runs), checks that each question's
distinctive words really are absent from those files and the LoCoMo data, then asks every question with default
settings in each mode and reports the share answered with nothing.

    python -m bench.absent [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import platformdirs

from bench.common import SHARED, load_shared_embedder
from bench.locomo import bench_settings
from memlens.engine.engine import Engine

REPO = Path(__file__).resolve().parents[1]
TOPICS = REPO / "bench" / "absent_topics.json"
SOURCES = (SHARED / "fixtures" / "transcripts", SHARED / "datasets" / "locomo", REPO / "examples" / "workspace")
CACHE = Path(platformdirs.user_cache_dir("memlens")) / "bench" / "absent"
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
    return [w for w in words if re.search(r"\b" + re.escape(w.lower()) + r"\b", blob)]


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    from bench.locomo import parse_overrides

    topics = json.loads(TOPICS.read_text(encoding="utf-8"))
    settings = bench_settings(parse_overrides(args.set))
    embedder = load_shared_embedder(settings)
    engine = Engine(
        [REPO / "examples" / "workspace"],
        settings,
        extra_transcripts=[SHARED / "fixtures" / "transcripts"],
        index_dir=CACHE,
        embedder=embedder,
    )
    report: dict[str, Any] = {"questions": len(topics["questions"]), "present": present_words(topics), "modes": {}}
    try:
        engine.sync()
        for mode in MODES:
            silent = 0
            loud: list[dict[str, Any]] = []
            for item in topics["questions"]:
                results = engine.search(item["q"], mode=mode)["results"]
                if results:
                    loud.append({"q": item["q"], "top": results[0]["score"], "n": len(results)})
                else:
                    silent += 1
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
    finally:
        engine.close()
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"absent topics: {report['questions']} questions; check words present in the data: {report['present']}")
        for mode, r in report["modes"].items():
            bad = [n for n in r["nonsense"] if n.get("error") or n.get("results")]
            print(f"{mode}: {r['silentPercent']}% answered with nothing; nonsense with results or errors: {bad}")
            for item in r["answered"]:
                print(f"   answered: {item['q']} (top {item['top']}, {item['n']} hits)")
    return report


if __name__ == "__main__":
    main()
