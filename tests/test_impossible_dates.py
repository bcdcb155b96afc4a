"""Dates no calendar has, through the real CLI: as a `--since`/`--until` flag one error line naming the date and why
(exit 2, as any bad flag); inside a query a note beside the results naming it, its words still searched when they are
all the query names (a message may hold those very words). A February 29 without a year is the last one there was."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memlens.engine.ranking.dates import unread_dates
from memlens.requests import why_no_such_day

REPO = Path(__file__).resolve().parents[1]
CRON = "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b"
LEAP = "6f7a8b9c-0d1e-4f2a-9b3c-4d5e6f7a8b9c"


def _cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(REPO / "server"), "PATH": "/usr/bin:/bin", "HOME": str(Path.home()), "COLUMNS": "80"}
    return subprocess.run(
        [sys.executable, "-m", "memlens", *map(str, args)], capture_output=True, text=True, timeout=300, env=env
    )


def _session(folder: Path, session: str, when: str, ask: str, answer: str) -> None:
    def row(kind: str, uuid: str, parent: str | None, text: str) -> dict[str, Any]:
        content: object = text if kind == "user" else [{"type": "text", "text": text}]
        message: dict[str, Any] = {"role": kind, "content": content}
        if kind == "assistant":
            message["id"] = f"msg-{uuid}"
        return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": session, "cwd": "/w", "timestamp": when,
                "message": message}  # fmt: skip

    rows = [
        row("user", f"{session[:4]}-u", None, ask),
        row("assistant", f"{session[:4]}-a", f"{session[:4]}-u", answer),
    ]
    (folder / f"{session}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.fixture(scope="module")
def where(tmp_path_factory: pytest.TempPathFactory) -> list[str | Path]:
    root = tmp_path_factory.mktemp("dates")
    folder = root / "transcripts" / "claude-code" / "-w"
    folder.mkdir(parents=True)
    _session(
        folder,
        CRON,
        "2026-03-02T09:00:00Z",
        "why did the billing cron fire on February 30 in the staging calendar?",
        "The staging calendar library accepted February 30 as a day; pinning it to 4.2 rejects it again.",
    )
    _session(
        folder,
        LEAP,
        "2024-02-29T14:00:00Z",
        "the leap-day invoice totals are off by one day, can you look?",
        "Fixed the leap-day proration: invoices dated on the 29th now count 29 days for February.",
    )
    (root / "ws").mkdir()
    flags: list[str | Path] = ["--workspace", root / "ws", "--transcripts", root / "transcripts"]
    flags += ["--index-dir", root / "index", "--no-embeddings"]
    assert _cli("index", *flags).returncode == 0
    return [*flags, "--no-sync"]


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["search", "billing", "--since", "2026-02-30"], "--since must be a day that exists, got '2026-02-30' "
         "(February 2026 has 28 days)"),
        (["search", "billing", "--until", "2025-04-31"], "--until must be a day that exists, got '2025-04-31' "
         "(April 2025 has 30 days)"),
        (["search", "billing", "--since", "2026-13-01"], "(there is no month 13)"),
        (["sessions", "--since", "2025-02-29"], "--since must be a day that exists, got '2025-02-29' "
         "(February 2025 has 28 days)"),
    ],
)  # fmt: skip
def test_a_flag_of_a_day_that_cannot_exist_is_one_error_line(
    where: list[str | Path], argv: list[str], said: str
) -> None:
    shown = _cli(*argv, *where)
    assert shown.returncode == 2 and shown.stdout == ""
    assert shown.stderr.count("\n") == 1 and shown.stderr.startswith("memlens: error: ") and said in shown.stderr


def test_a_leap_day_flag_of_a_leap_year_is_a_day(where: list[str | Path]) -> None:
    shown = _cli("search", "leap-day invoice", "--since", "2024-02-29", "--until", "2024-02-29", *where, "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["results"][0]["sessionKey"] == f"claude-code:{LEAP}"


def test_a_query_naming_a_day_that_cannot_exist_says_so_and_searches_its_words(where: list[str | Path]) -> None:
    answer = json.loads(_cli("search", "what did we do on February 30", *where, "--json").stdout)
    assert answer["unreadDates"] == [
        {"text": "February 30", "reason": "February has 29 days at most", "wordsSearched": True}  # all it names
    ]
    assert "period" not in answer  # no day was read from it...
    assert answer["results"][0]["sessionKey"] == f"claude-code:{CRON}"  # ...but its words were searched
    shown = _cli("search", "what did we do on February 30", *where)
    assert shown.returncode == 0, shown.stderr
    said = " ".join(shown.stdout.split())
    assert '"February 30" is not a date (February has 29 days at most): searched as words' in said
    assert all(len(line) <= 80 for line in shown.stdout.splitlines())
    plain = json.loads(_cli("search", "what did we do on March 2", *where, "--json").stdout)
    assert "unreadDates" not in plain and "period" in plain


def test_a_numeric_date_of_two_readings_names_both_and_searches_its_words(where: list[str | Path]) -> None:
    answer = json.loads(_cli("search", "what did we do on 02/03/2026", *where, "--json").stdout)
    assert answer["ambiguousDates"] == [{"text": "02/03/2026", "readings": ["2026-02-03", "2026-03-02"]}]
    assert "period" not in answer and "unreadDates" not in answer  # neither day was read, and it is no impossible day
    shown = _cli("search", "the billing cron on 02/03/2026", *where, "--min-score", "0")
    assert shown.returncode == 0, shown.stderr  # the rest of the query found its session
    said = " ".join(shown.stdout.split())
    assert '"02/03/2026" could be 3 February or 2 March 2026: searched as words, no day read from it' in said
    assert "write 2026-02-03 or 2026-03-02 for a day" in said and "is not a date" not in said
    short = json.loads(_cli("search", "what did we do on 2/3/2026", *where, "--json").stdout)
    assert short["ambiguousDates"] == [{"text": "2/3/2026", "readings": ["2026-02-03", "2026-03-02"]}]
    for read in ("what did we do on 30/03/2026", "what did we do on 02.03.2026"):  # one order alone makes a date
        plain = json.loads(_cli("search", read, *where, "--json").stdout)
        assert "ambiguousDates" not in plain and "period" in plain, read


def test_a_february_29_without_a_year_is_the_last_one(where: list[str | Path]) -> None:
    answer = json.loads(_cli("search", "what did we do on February 29", *where, "--json").stdout)
    assert "unreadDates" not in answer and answer["period"]["since"].startswith("2024-02-29")
    assert {hit["sessionKey"] for hit in answer["results"]} == {f"claude-code:{LEAP}"}


def test_which_written_dates_name_no_day() -> None:
    assert [u["text"] for u in unread_dates("on 31 April, or the 30th of February, or 2026-13-01")] == [
        "2026-13-01",
        "31 April",
        "30th of February",
    ]
    assert unread_dates("Feb 29, 2026 and April 31st, 2025") == [
        {"text": "Feb 29, 2026", "reason": "February 2026 has 28 days"},
        {"text": "April 31st, 2025", "reason": "April 2025 has 30 days"},
    ]
    for fine in ("Feb 29 2024", "on February 29", "may 32 people", "June 45 items", "2026-02-28", "March 3rd"):
        assert unread_dates(fine) == [], fine
    assert why_no_such_day(2, 29) is None and why_no_such_day(2, 29, 2100) == "February 2100 has 28 days"
    assert why_no_such_day(0, 1) == "there is no month 0" and why_no_such_day(6, 0) == "there is no day 0"
