"""What the date readers make of the LoCoMo tune conversations, to compare two trees' readings after a change to
ranking/dates.py or answers/period.py: each question's period (`read_period`, asked a day after the talk as
bench/locomo.py asks it) and ranking windows (`query_windows`), and each turn's `message_windows`, as JSON.

    PYTHONPATH=<tree>/server python -m bench.date_reads > reads.json   # once per tree, then cmp the two files
"""

from __future__ import annotations

import json
import sys
from datetime import UTC
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.locomo import DEFAULT_DATA, TUNE_CONVERSATIONS
from bench.locomo_data import TURN_SPACING, load_conversation
from memlens.engine.answers.period import PeriodQuestion, read_period
from memlens.engine.ranking.dates import message_windows, query_windows

DAY = 86400.0


def readings(names: tuple[str, ...] = TUNE_CONVERSATIONS) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        conversation = load_conversation(DEFAULT_DATA / f"{name}.json", None, None)
        last = 0.0
        for session in conversation.sessions:
            for i, turn in enumerate(session.turns):
                ts = (session.start + i * TURN_SPACING).timestamp()
                last = max(last, ts)
                out[f"{name}/turn/{turn.dia_id}"] = message_windows(f"{turn.speaker}: {turn.text}", ts)
        now = last + DAY
        for k, question in enumerate(conversation.questions):
            period = read_period(question.text, now=now, zone=UTC)
            out[f"{name}/q{k}"] = {
                "q": question.text,
                "period": None if period is None else [period.since, period.until, period.rest, *_parts(period)],
                "windows": query_windows(question.text, now),
            }
    return out


def _parts(period: PeriodQuestion) -> list[list[list[float]]]:
    """A list of days' runs (`PeriodQuestion.parts`), only when it has them: a tree without lists reads the same."""
    return [[list(part) for part in period.parts]] if period.parts else []


if __name__ == "__main__":
    json.dump(readings(), sys.stdout, indent=0, sort_keys=True)
