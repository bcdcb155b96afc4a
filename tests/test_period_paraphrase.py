"""A question about a period that says its topic in other words ("socket reconnection" for a session about a
websocket reconnect loop) is answered from that period when the vectors place one of its messages far nearer than
the query's typical one and the data knows the words; a topic written nowhere stays silent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from memlens.engine.answers.period_nearness import SIGMAS, said_otherwise
from memlens.engine.engine import Engine
from memlens.engine.ranking.calibration import FEATURES
from memlens.engine.ranking.hits import UnitHit
from memlens.engine.vectors.embedder import Embedder
from memlens.settings import Settings

PARAPHRASED = "what did we discuss about socket reconnection on March 3 2025"
ABSENT = "what did we discuss about the saxophone on March 3 2025"

# other days' sessions about other things: the index's typical messages, against which the day's nearest one stands out
OTHER_DAYS = (
    "Bump the lodash version in the frontend package",
    "Rename the columns of the invoices table",
    "Translate the settings page into German",
    "Draw the onboarding illustrations for the signup flow",
    "Add a dark theme to the admin dashboard",
    "Write a haiku generator for the team chat bot",
    "Sort the CSV export by customer name",
    "Compress the product photos before upload",
    "Count the words in each markdown chapter",
    "Add a print stylesheet for the recipes",
    "Convert the temperature units in the weather widget",
    "Make the calendar start on Monday",
    "Center the logo in the email footer",
    "Spell check the README",
    "List the holidays in the HR spreadsheet",
    "Round prices to two decimals in the cart",
    "Resize the avatar thumbnails",
    "Add keyboard shortcuts to the editor toolbar",
    "Paginate the blog archive",
    "Add alt text to the gallery images",
    "Change the font of the invoices to serif",
    "Show the weekday in the booking confirmation",
    "Add a favicon",
    "Add a footer link to the privacy policy",
    "Lowercase the tags in the note list",
    "Add emoji reactions to comments",
    "Let users reorder the playlist by dragging",
    "Add a search box to the FAQ",
    "Show a progress bar while the video renders",
    "Group the expenses by month in the report",
)
MARCH_3 = (
    (
        "s-mar3a",
        "2025-03-03T09:00:00",
        "Why does the websocket reconnect loop spin forever when the server is down?",
        "Fixed it: the client now waits longer after each failed attempt, doubling the delay up to a minute.",
    ),
    ("s-mar3b", "2025-03-03T14:00:00", "Add retries to the S3 upload in the exporter", "Retries added with jitter."),
)


def _line(session: str, uuid: str, parent: str | None, when: str, role: str, text: str) -> str:
    message = {"role": role, "content": text}
    record = {"type": role, "sessionId": session, "uuid": uuid, "parentUuid": parent, "timestamp": when + ".000Z"}
    return json.dumps(record | {"message": message})


@pytest.fixture
def engine(tmp_path: Path, embedder: Embedder) -> Iterator[Engine]:
    """Two sessions on March 3 2025 and thirty about other things in January, indexed with the real model."""
    (tmp_path / "ws").mkdir()
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    sessions = list(MARCH_3)
    sessions += [
        (f"s-jan{i}", f"2025-01-{i % 28 + 1:02d}T10:00:00", asked, f"Done: {asked.lower()}.")
        for i, asked in enumerate(OTHER_DAYS)
    ]
    for session, when, asked, answered in sessions:
        lines = [
            _line(session, f"{session}-u", None, when, "user", asked),
            _line(session, f"{session}-a", f"{session}-u", when[:-2] + "30", "assistant", answered),
        ]
        (transcripts / f"{session}.jsonl").write_text("\n".join(lines) + "\n")
    settings = Settings()
    settings.transcripts.agent_defaults = False
    settings.display.time_zone = "UTC"
    with Engine([tmp_path / "ws"], settings, [transcripts], tmp_path / "index", embedder=embedder) as opened:
        opened.sync()
        yield opened


def test_a_period_topic_said_in_other_words_is_answered_from_that_period(engine: Engine) -> None:
    """Its words match the session too weakly for the calibrated floor; its vector places the session first."""
    response = engine.search(PARAPHRASED)
    assert response["results"] and response["results"][0]["sessionId"] == "s-mar3a"
    assert "note" not in response and "sessionsWritten" not in response["period"]


def test_the_vectors_never_answer_a_topic_written_nowhere_or_a_stricter_floor(engine: Engine) -> None:
    absent = engine.search(ABSENT)
    assert absent["results"] == []
    assert absent["note"] == "nothing about 'saxophone' on 2025-03-03; 2 sessions were written then"
    strict = engine.search(PARAPHRASED, min_score=0.2)  # the request asks more than the default floor
    assert strict["results"] == [] and strict["period"]["sessionsWritten"] == 2


def test_the_typical_nearness_is_the_querys_own_scale(engine: Engine) -> None:
    typical = engine.retriever.typical_nearness("socket reconnection")
    assert typical is not None
    mean, spread = typical
    assert -1.0 < mean < 0.5 and spread > 0


def _hit(cosine: float, *, coverage: float, unwritten: float) -> UnitHit:
    features = [0.0] * len(FEATURES)
    features[FEATURES.index("coverage")] = coverage
    features[FEATURES.index("absent_share")] = unwritten
    return UnitHit(1, vector=cosine, features=tuple(features))


def test_said_otherwise_needs_a_near_message_and_words_the_data_knows() -> None:
    typical = (0.1, 0.05)
    near = 0.1 + (SIGMAS + 0.5) * 0.05
    assert said_otherwise([_hit(near, coverage=0.0, unwritten=0.0)], typical)
    assert said_otherwise([_hit(near, coverage=0.5, unwritten=0.6)], typical)  # the period holds half its words
    assert not said_otherwise([_hit(near, coverage=0.0, unwritten=1.0)], typical)  # "saxophone": written nowhere
    assert not said_otherwise([_hit(0.1 + (SIGMAS - 0.5) * 0.05, coverage=1.0, unwritten=0.0)], typical)
    assert not said_otherwise([_hit(near, coverage=1.0, unwritten=0.0)], None)  # no vectors
    assert not said_otherwise([], typical)
