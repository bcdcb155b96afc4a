"""A search whose `since`/`until` window holds no message at all says so, naming the window and the nearest messages
before and after it (and a since later than now), through the CLI; a window that holds messages of which none match
is the usual no results. A question about days that names no topic reports the mode it ran in."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memlens.engine.engine import Engine
from memlens.engine.filters import filters_from_dict
from memlens.engine.team.team_search import with_team
from memlens.settings import Settings

# (session id, when its question was asked, in UTC; the answer follows 30 seconds later)
SESSIONS = (
    ("s-mar2", "2025-03-02T15:00:00", "Please migrate the billing cron to systemd timers"),
    ("s-mar3", "2025-03-03T14:00:00", "Add retries to the S3 upload in the exporter"),
    ("s-mar5", "2025-03-05T10:00:00", "Write the release notes for the billing change"),
)


def _line(session: str, uuid: str, parent: str | None, when: str, role: str, text: str) -> str:
    message = {"role": role, "content": text}
    return json.dumps(
        {"type": role, "sessionId": session, "uuid": uuid, "parentUuid": parent, "timestamp": f"{when}.000Z"}
        | {"message": message}
    )


def write_days(root: Path) -> Path:
    """A workspace without memory notes (every unit has a time) and one short session on each of three days."""
    (root / "ws").mkdir(parents=True)
    transcripts = root / "transcripts"
    transcripts.mkdir()
    for session, when, asked in SESSIONS:
        lines = [
            _line(session, f"{session}-u", None, when, "user", asked),
            _line(session, f"{session}-a", f"{session}-u", when[:-2] + "30", "assistant", "Done, as asked."),
        ]
        (transcripts / f"{session}.jsonl").write_text("\n".join(lines) + "\n")
    return root


@pytest.fixture
def days(tmp_path: Path) -> Path:
    return write_days(tmp_path)


def memlens(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (root / "ws" / ".memlens.json").write_text(json.dumps({"display": {"timeZone": "UTC"}}))
    command = [sys.executable, "-m", "memlens", "search", *args, "--no-server", "--no-pager"]
    command += ["--workspace", str(root / "ws"), "--transcripts", str(root / "transcripts")]
    command += ["--index-dir", str(root / "index"), "--no-embeddings"]
    return subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)


def search_json(root: Path, *args: str) -> dict[str, Any]:
    said = memlens(root, *args, "--json")
    assert said.returncode == 1, said.stderr  # nothing found
    return json.loads(said.stdout)  # type: ignore[no-any-return]


@pytest.mark.slow  # CLI processes
def test_a_since_in_the_future_says_so_and_names_the_last_message(days: Path) -> None:
    said = memlens(days, "billing", "--since", "2099-01-01")
    assert said.returncode == 1 and not said.stdout, said.stdout
    told = " ".join(said.stderr.split())  # folded to the terminal's width
    assert (
        "--since 2099-01-01 is after today; nothing was written since 2099-01-01 (UTC); the last message before it"
        " is from 2025-03-05 10:00" in told
    ), told
    response = search_json(days, "billing", "--since", "2099-01-01")
    assert response["emptyWindow"] == {
        "since": "2099-01-01T00:00:00+00:00",
        "timeZone": "UTC",
        "sinceInFuture": True,
        "nearestBefore": "2025-03-05T10:00:30+00:00",
    }
    assert response["note"].startswith("since 2099-01-01 is after today; nothing was written since 2099-01-01")


@pytest.mark.slow  # CLI processes
def test_a_window_before_the_first_session_or_between_two_names_the_nearest_ones(days: Path) -> None:
    before = search_json(days, "billing", "--until", "2025-03-01")
    assert before["emptyWindow"] == {
        "until": "2025-03-01T23:59:59+00:00",
        "timeZone": "UTC",
        "nearestAfter": "2025-03-02T15:00:00+00:00",
    }
    assert before["note"] == ("nothing was written until 2025-03-01 (UTC); the first after it is from 2025-03-02 15:00")
    between = memlens(days, "billing", "--since", "2025-03-04", "--until", "2025-03-04")
    told = " ".join(between.stderr.split())
    assert between.returncode == 1 and "after today" not in told, told
    assert (
        "nothing was written on 2025-03-04 (UTC); the last message before it is from 2025-03-03 14:00 and the first"
        " after it is from 2025-03-05 10:00" in told
    ), told


@pytest.mark.slow  # CLI processes
def test_a_window_that_holds_messages_none_matching_is_the_usual_no_results(days: Path) -> None:
    response = search_json(days, "zqxjkvw", "--since", "2025-03-03", "--until", "2025-03-03")
    assert "emptyWindow" not in response and "note" not in response, response
    said = memlens(days, "zqxjkvw", "--since", "2025-03-03", "--until", "2025-03-03")
    assert "nothing was written" not in said.stderr and "no results for 'zqxjkvw'" in said.stderr, said.stderr


def _engine(root: Path) -> Engine:
    settings = Settings()
    settings.transcripts.agent_defaults = False
    settings.display.time_zone = "UTC"
    engine = Engine([root / "ws"], settings, [root / "transcripts"], root / "index", embedder=False)
    engine.sync()
    return engine


def test_an_empty_window_names_only_messages_the_search_may_show(days: Path) -> None:
    """An excluded session is never named, not even by its time: the nearest before the window is then the one
    before it."""
    engine = _engine(days)
    try:
        engine.settings.exclude_sessions = ["s-mar5"]
        window = engine.search("billing", filters=filters_from_dict({"since": "2099-01-01"}))["emptyWindow"]
        assert window["nearestBefore"] == "2025-03-03T14:00:30+00:00"
    finally:
        engine.close()


def test_a_period_question_without_a_topic_reports_the_mode_it_ran_in(days: Path) -> None:
    """Without an embedding model a hybrid search is keyword search, and says so; a question naming only days ran
    no search at all, yet reported the mode asked ("hybrid")."""
    engine = _engine(days)
    try:
        assert engine.settings.search.mode == "hybrid"
        answer = engine.search("what did we do on 2025-03-03")
        assert answer["results"] and "period" in answer
        assert answer["mode"] == "keyword"
        assert engine.search("billing cron")["mode"] == "keyword"  # as a plain search in the same engine says
    finally:
        engine.close()


def test_a_team_hit_in_the_window_takes_back_the_local_empty_window(days: Path) -> None:
    """The local index held nothing in the window, but a teammate's hit written in it shows the window was not empty:
    the merged answer drops `emptyWindow` and its note; with no team hit, both stay."""
    engine = _engine(days)
    try:
        local = engine.search("billing", filters=filters_from_dict({"since": "2099-01-01"}))
        hit = {**engine.search("billing")["results"][0], "publisher": "ana", "timestamp": "2099-02-01T10:00:00Z"}
    finally:
        engine.close()
    assert "emptyWindow" in local and "note" in local
    merged = with_team(local, [hit], limit=10, rrf_k=60)  # type: ignore[list-item]
    assert merged["results"] == [hit] and "emptyWindow" not in merged and "note" not in merged, merged
    alone = with_team(local, [], limit=10, rrf_k=60)
    assert alone["emptyWindow"] == local["emptyWindow"] and alone["note"] == local["note"]
