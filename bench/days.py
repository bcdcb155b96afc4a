"""Questions about days on real transcripts: "what did we do on <a day>", "in <a month>", "yesterday", "last week".

Indexes ../shared/fixtures/transcripts (keyword only: a period's answer reads the catalog, and its other words are
few), asks every question of bench/data/day_questions.json at its own "now" in UTC (a period of days, or of a part
of one, "this afternoon", as instants), and reports per split:
- inPeriod: the share of shown hits written within the period the question means (target ≥ 95 %);
- sessionsFound: the share of the sessions written in that period that the answer shows;
- answered: the share of questions with any hit.
The same numbers for the plain search (the period answer turned off) are reported beside them as `search`.
`--synthetic` asks bench/data/day_questions_synthetic.json over the committed synthetic transcripts
(tests/fixtures/transcripts, and tests/fixtures/event_days: events stated relative to the day written) instead: what
a clone without ../shared can run.

    python -m bench.days [--json] [--split tune|heldout|all] [--synthetic]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from unittest import mock

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import SHARED
from memlens.engine.engine import Engine
from memlens.settings import Settings

REPO = Path(__file__).resolve().parents[1]
TRANSCRIPTS = SHARED / "fixtures" / "transcripts"
QUESTIONS = REPO / "bench" / "data" / "day_questions.json"
# the committed synthetic transcripts, and days whose events are stated relative to the day written ("launch
# tomorrow!") or between two events (tests/transcript_fixtures.EVENT_DAYS)
SYNTHETIC_TRANSCRIPTS = (REPO / "tests" / "fixtures" / "transcripts", REPO / "tests" / "fixtures" / "event_days")
SYNTHETIC_QUESTIONS = REPO / "bench" / "data" / "day_questions_synthetic.json"
DEFAULT_NOW = "2026-06-01T12:00:00Z"  # after every session: absolute dates read as written


def _instant(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _bounds(period: Sequence[str]) -> tuple[float, float]:
    """A label's [first day, last day] as [its first instant, the instant after it]; a label of a part of a day
    ("this afternoon") names its instants, [first, end)."""
    if all("T" in d for d in period):
        return _instant(period[0]), _instant(period[1])
    first, last = (date.fromisoformat(d) for d in period)
    start = datetime(first.year, first.month, first.day, tzinfo=UTC).timestamp()
    end = datetime(last.year, last.month, last.day, tzinfo=UTC).timestamp() + 86400
    return start, end


def _parts(period: Sequence[Any]) -> list[tuple[float, float]]:
    """A label's days: [first, last], or for a list of days ("on Feb 10 and 12") a [first, last] for each run."""
    return [_bounds(part) for part in period] if isinstance(period[0], list) else [_bounds(period)]


def sessions_in(engine: Engine, since: float, until: float) -> set[str]:
    """The visible sessions with a message written in [since, until)."""
    return {u.session_key for u in engine.catalog.units_between(since, until - 0.001)}


def ask(engine: Engine, question: dict[str, Any], *, periods: bool) -> dict[str, Any]:
    engine.retriever.now = _instant(question.get("now", DEFAULT_NOW))
    if periods:
        response = engine.search(question["q"], mode="keyword")
    else:
        with (
            mock.patch("memlens.engine.answers.search_answer.period_question", return_value=None),
            mock.patch("memlens.engine.answers.search_answer.event_question", return_value=None),
        ):
            response = engine.search(question["q"], mode="keyword")
    parts = _parts(question["period"])
    stamps = [_instant(stamp) for r in response["results"] if (stamp := r.get("timestamp"))]
    inside = sum(any(since <= ts < until for since, until in parts) for ts in stamps)
    wanted = set().union(*(sessions_in(engine, since, until) for since, until in parts))
    found = {r.get("sessionKey") for r in response["results"]} & wanted
    return {
        "q": question["q"],
        "shown": len(response["results"]),
        "inPeriod": inside,
        "sessions": len(wanted),
        "sessionsFound": len(found),
    }


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    shown = sum(r["shown"] for r in rows)
    sessions = sum(r["sessions"] for r in rows)
    return {
        "questions": len(rows),
        "inPeriod": round(100 * sum(r["inPeriod"] for r in rows) / shown, 1) if shown else None,
        "sessionsFound": round(100 * sum(r["sessionsFound"] for r in rows) / sessions, 1) if sessions else None,
        "answered": round(100 * sum(r["shown"] > 0 for r in rows) / len(rows), 1) if rows else None,
    }


def evaluate(
    splits: Sequence[str], transcripts: Path | Sequence[Path] = TRANSCRIPTS, questions_file: Path = QUESTIONS
) -> dict[str, Any]:
    questions = json.loads(questions_file.read_text(encoding="utf-8"))
    settings = Settings()
    settings.transcripts.agent_defaults = False
    settings.scope = "all"
    settings.display.time_zone = "UTC"
    report: dict[str, Any] = {"benchmark": "days", "splits": {}}
    with tempfile.TemporaryDirectory(prefix="memlens-days-") as tmp:
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        folders = [transcripts] if isinstance(transcripts, Path) else list(transcripts)
        engine = Engine([workspace], settings, folders, Path(tmp) / "index", embedder=False)
        try:
            engine.sync()
            for split in splits:
                period = [ask(engine, q, periods=True) for q in questions[split]]
                plain = [ask(engine, q, periods=False) for q in questions[split]]
                report["splits"][split] = {
                    "period": summarise(period),
                    "search": summarise(plain),
                    "questions": period,
                }
        finally:
            engine.close()
    return report


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--split", choices=("tune", "heldout", "all"), default="all")
    parser.add_argument("--synthetic", action="store_true", help="the synthetic twin: no ../shared needed")
    args = parser.parse_args(argv)
    splits = ("tune", "heldout") if args.split == "all" else (args.split,)
    report = evaluate(splits, SYNTHETIC_TRANSCRIPTS, SYNTHETIC_QUESTIONS) if args.synthetic else evaluate(splits)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for split, result in report["splits"].items():
            print(f"{split}: period answer {result['period']}; plain search {result['search']}")
    return report


if __name__ == "__main__":
    main()
