"""The bad-input corpus (tests/badcorpus) indexed through the real CLI into one index: the counts the README shows.

    python bench/badcorpus.py                 # files, cases per format, messages expected/found/lost, crashes
    python bench/badcorpus.py --per-case      # also index every case alone, to name the case behind each failure
    python bench/badcorpus.py --json          # the same, machine-readable

Runs `memlens` from this interpreter's environment with HOME pointing at an empty folder (the machine's agent
folders stay out). A crash is a Python traceback printed by the CLI, or an exception raised by a read-only engine
(search, history, stats) over the index the CLI wrote.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `tests.badcorpus` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.badcorpus.check import (
    Outcome,
    check_in_process,
    index_and_check,
    index_with_rewrites,
    location_flags,
    remove_case_files,
)
from tests.badcorpus.generator import FORMATS, Corpus, write_corpus


def crash_lines(outcome: Outcome) -> list[str]:
    """One line per crash: the CLI's traceback tails, then the read-only engine's exceptions."""
    lines = [f"{run.name}: {run.traceback_tail()}" for run in outcome.crashed_runs()]
    lines += outcome.errors
    lines += [f"search {marker}: {why}" for marker, why in outcome.search_errors.items()]
    lines += [f"history {key}: {why}" for key, why in outcome.history_errors.items()]
    return lines


def summary(corpus: Corpus, outcome: Outcome, seconds: float) -> dict[str, Any]:
    expected = sum(len(c.expected) for c in corpus.cases)
    lost = outcome.lost(corpus)
    stats = outcome.stats or {}
    index_runs = [r for r in outcome.runs if r.argv[1] == "index"]
    return {
        "files": len(corpus.files()),
        "bytes": sum(p.stat().st_size for p in corpus.files() if p.is_file() and not p.is_symlink()),
        "cases": len(corpus.cases),
        "casesPerFormat": {f: len(cases) for f, cases in corpus.by_format().items()},
        "goodMessagesExpected": expected,
        "found": expected - sum(len(m) for m in lost.values()),
        "lost": sum(len(m) for m in lost.values()),
        "lostByCase": lost,
        "forbiddenFound": outcome.leaked(corpus, unreadable_too=False),
        "duplicated": outcome.duplicated(corpus),
        "joined": outcome.joined(corpus),
        "badLinesCounted": stats.get("badLines"),
        "badLinesAtLeast": corpus.min_bad_lines(),
        "replacedCounted": stats.get("replaced"),
        "replacedAtLeast": corpus.min_replaced(),
        "filesWithErrors": len(stats.get("fileErrors") or [])
        if "fileErrors" in stats
        else stats.get("filesWithErrors"),
        "crashes": len(crash_lines(outcome)),
        "crashLines": crash_lines(outcome),
        "exitCodes": {" ".join(r.argv[1:3]): r.code for r in outcome.runs if r.code != 0},
        "indexSeconds": round(index_runs[0].seconds, 2) if index_runs else None,
        "totalSeconds": round(seconds, 2),
    }


def per_case(work: Path) -> list[dict[str, Any]]:
    """Each case indexed alone (fresh corpus, every other case's files deleted): which ones crash or lose."""
    rows = []
    for n, case_id in enumerate(c.id for c in write_corpus(work / "list").cases):
        corpus = write_corpus(work / f"case{n}")
        remove_case_files(corpus, {case_id})
        index_dir = corpus.root / "index"
        outcome = Outcome()
        outcome.runs += index_with_rewrites(corpus, location_flags(corpus, index_dir))
        check_in_process(corpus, index_dir, outcome)
        lost = outcome.lost(corpus).get(case_id, [])
        leaked = outcome.leaked(corpus, unreadable_too=False).get(case_id, [])
        problems = crash_lines(outcome) + [line for line in outcome.runs[0].stderr.splitlines() if "skipped" in line]
        problems += [f"duplicated {m}" for m in outcome.duplicated(corpus).get(case_id, [])]
        problems += [f"one message: {m}" for m in outcome.joined(corpus).get(case_id, [])]
        rows.append({"case": case_id, "lost": lost, "leaked": leaked, "problems": problems[:3]})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="index the bad-input corpus and print its counts")
    parser.add_argument("--per-case", action="store_true", help="also index every case alone")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--keep", type=Path, help="write the corpus here (kept) instead of a temporary folder")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="memlens-badcorpus-") as tmp:
        root = args.keep or Path(tmp) / "corpus"
        started = time.perf_counter()
        corpus = write_corpus(root)
        outcome = index_and_check(corpus, root / "index")
        result = summary(corpus, outcome, time.perf_counter() - started)
        if args.per_case:
            result["perCase"] = [row for row in per_case(Path(tmp)) if row["lost"] or row["leaked"] or row["problems"]]
        for path in (corpus.workspace / "memory" / "private",):  # let the temporary folder be removed
            if path.exists():
                path.chmod(0o755)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0
    print(f"files {result['files']} ({result['bytes'] / 1e6:.1f} MB), cases {result['cases']}: " + ", ".join(
        f"{fmt} {result['casesPerFormat'][fmt]}" for fmt in FORMATS
    ))  # fmt: skip
    print(f"good messages expected {result['goodMessagesExpected']}, found {result['found']}, lost {result['lost']}")
    print(f"bad lines counted {result['badLinesCounted']} (at least {result['badLinesAtLeast']} expected)")
    print(f"invalid bytes read as U+FFFD {result['replacedCounted']} (at least {result['replacedAtLeast']} expected)")
    print(f"files with errors {result['filesWithErrors']}, crashes {result['crashes']}")
    print(f"forbidden found {sum(len(v) for v in result['forbiddenFound'].values())}, "
          f"duplicated {len(result['duplicated'])}, sidechains joined {len(result['joined'])}")  # fmt: skip
    print(f"index {result['indexSeconds']} s, whole check {result['totalSeconds']} s")
    for case_id, markers in result["lostByCase"].items():
        print(f"  lost  {case_id}: {', '.join(markers)}")
    for line in result["crashLines"][:20]:
        print(f"  crash {line}")
    for row in result.get("perCase", []):
        print(
            f"  alone {row['case']}: lost {len(row['lost'])}, leaked {len(row['leaked'])};",
            " | ".join(row["problems"]),
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
