"""Everything the CLI lays out, measured in terminal cells: wide CJK text, emoji (sequences joined by ZWJ, skin tones,
flags, VS16), combining marks (no cell) and tabs (to the next stop of 8). Folded lines fill the terminal without
passing its edge, table columns line up, cut text never splits a grapheme; the real CLI on a pseudo-terminal too."""

from __future__ import annotations

import argparse
import json
import re
import unicodedata
from datetime import UTC
from pathlib import Path
from typing import Any, cast

import pytest

from claude_lines import claude_line
from conftest import notes_engine
from memlens.cli.arguments import ProseAndExamplesFormatter
from memlens.cli.fixes_output import print_fixes
from memlens.cli.hits import hit_lines
from memlens.cli.output import PROGRESS_COLUMNS, print_history, print_sessions, print_stats, progress_line
from memlens.cli.terminal import Style, cells, clip, column, cut, expanded, folded
from memlens.wire import FixesResponse, HistoryResponse, SearchResult, SessionsResponse, SessionSummary

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one glyph of two cells
THUMB = "\U0001f44d\U0001f3fd"  # a thumbs-up with a skin tone: one glyph of two cells
CAFE = unicodedata.normalize("NFD", "café")  # the é as e and a combining accent: 4 cells
CJK = "デッドレターキューのバックアップが溜まっていたので、失敗したメッセージを再送して原因の設定を直しました。"
MIXED = f"the DLQ backlog {FAMILY} is gone {THUMB}; {CAFE} notes: {CJK} and the {CAFE} replay ran fine {FAMILY}"


def test_cells_are_counted_as_terminals_draw_them() -> None:
    assert cells("日本語") == 6 and cells(CAFE) == 4 and cells(FAMILY) == 2 and cells(THUMB) == 2
    assert cells("\u2764\ufe0f") == 2 and cells("\U0001f1ef\U0001f1f5") == 2  # a VS16 heart, a flag
    assert cells("a\tb") == 9 and expanded("日本\tx") == "日本    x"  # a tab runs to the stop after the wide text


@pytest.mark.parametrize("columns", [20, 33, 40, 61])
def test_folding_fills_each_line_to_the_edge_and_never_past_it(columns: int) -> None:
    text = " ".join([f"{CAFE} {FAMILY} backlog {THUMB} 日本語の説明 replay"] * 12)
    lines = folded(text, columns, indent="  ").splitlines()
    assert len(lines) > 1 and all(cells(line) <= columns for line in lines), lines
    for line, following in zip(lines, lines[1:], strict=False):  # folded no earlier than it had to be
        assert cells(line) + 1 + cells(following.split()[0]) > columns, (line, following)
    assert " ".join(lines).split() == text.split()  # every word kept, in order
    assert all(line.startswith("  ") for line in lines[1:])


def test_cjk_prose_without_spaces_breaks_between_characters_but_a_path_stays_whole() -> None:
    for columns in range(12, 61):
        lines = folded(f"note: {CJK * 3}", columns).splitlines()
        assert all(cells(line) <= columns for line in lines) and "".join(map(str.strip, lines)) == f"note: {CJK * 3}"
        assert not any(line.strip()[0] in "、。ーュッャ" for line in lines[1:]), lines  # no line starts so (JIS X 4051)
    path = "/home/yuki/プロジェクト管理/デッドレターキュー/メモ.md"
    assert path in folded(f"see {path} for the notes", 20).splitlines()[1]  # to be copied whole


def test_paths_and_urls_are_never_folded_at_their_slashes() -> None:
    """Lines break at spaces: a path or URL split after a slash (as UAX #14 allows) could not be copied."""
    names = ["/home/yuki/projects/dead-letter-queue/notes.md", "https://example.com/a/b/c?x=1", "src/app/main.py"]
    text = f"see {names[0]} and {names[1]} for the notes, then open {names[2]} again"
    for columns in range(12, 61):
        lines = [line.strip() for line in folded(text, columns).splitlines()]
        assert all(any(name in line for line in lines) for name in names), (columns, lines)


def test_a_tab_is_folded_where_the_terminal_puts_it() -> None:
    line = "\t".join(["列", "value", "日本語", "x"] * 6)
    lines = folded(line, 30).splitlines()
    assert all(cells(line) <= 30 for line in lines) and "\t" not in "".join(lines)


def test_cutting_keeps_graphemes_whole_and_columns_exact() -> None:
    text = f"ab{FAMILY}{CAFE}日本"
    assert cut(text, 3) == "ab" and cut(text, 4) == f"ab{FAMILY}" and cut(text, 7) == f"ab{FAMILY}caf"
    assert cut(text, 8) == f"ab{FAMILY}{CAFE}"  # the accent stays with its e
    assert clip(text, 8) == f"ab{FAMILY}caf…" and clip(text, 12) == text
    assert all(cells(column(text, room)) == room for room in range(0, 12))
    assert column("日本語", 5) == "日本 " and column("42", 5, right=True) == "   42"


def _session(title: str, project: str, agent: str = "claude-code", count: int = 7) -> SessionSummary:
    return {
        "sessionKey": f"{agent}:{title}",
        "sessionId": "5b0e7d3c-2f41-4a8e-9c6b-81d4f0a7e2c9",
        "reference": "5b0e7d3c",
        "format": agent,  # type: ignore[typeddict-item]  # an agent name as a table column holds it
        "title": title,
        "cwd": f"/home/u/{project}",
        "project": project,
        "path": "x.jsonl",
        "firstTime": "2026-02-10T08:00:00Z",
        "lastTime": "2026-02-10T08:57:00Z",
        "messageCount": count,
        "filesTouched": [],
        "filesTouchedTotal": 0,
        "toolsUsed": [],
        "parentSessionKey": None,
        "resumeCommand": None,
    }


def test_the_session_table_lines_up_in_cells(capsys: pytest.CaptureFixture[str]) -> None:
    sessions = [
        _session(f"デッドレターキュー {FAMILY} backlog", "プロジェクト管理システム"),
        _session(f"{CAFE} offsite\tplan {THUMB}", "café-ops", agent="codex", count=1234),
        _session("plain title", "ledgerline"),
    ]
    page: SessionsResponse = {"sessions": sessions, "totalSessions": 3, "nextCursor": None, "indexing": False}
    print_sessions(page, columns=96, zone=UTC)
    lines = capsys.readouterr().out.splitlines()
    assert all(cells(line) <= 96 for line in lines), lines
    title_at = cells(lines[0][: lines[0].index("TITLE")])
    for row, session in zip(lines[1:4], sessions, strict=True):
        start = next(n for n in range(len(row)) if row[n:].startswith(session["title"].split()[0][:4]))
        assert cells(row[:start]) == title_at, row  # every title under TITLE
    msgs_end = cells(lines[0][: lines[0].index("MSGS") + 4])
    for row, session in zip(lines[1:4], sessions, strict=True):  # each count right-aligned under MSGS
        assert cut(row, msgs_end).endswith(f" {session['messageCount']}") and cut(row, msgs_end + 1)[-1] == " "


@pytest.mark.parametrize(
    ("shown", "total", "said"), [(1, 1, "1 session;"), (2, 2, "2 sessions;"), (2, 1234, "2 of 1,234")]
)
def test_the_sessions_footer_counts_as_a_person_would(
    capsys: pytest.CaptureFixture[str], shown: int, total: int, said: str
) -> None:
    """A whole list said "1 of 1 sessions"; a page of a longer one says how much of it is shown."""
    sessions = [_session(f"title {n}", "ledgerline") for n in range(shown)]
    page: SessionsResponse = {"sessions": sessions, "totalSessions": total, "nextCursor": None, "indexing": False}
    print_sessions(page, columns=0, zone=UTC)
    assert capsys.readouterr().out.splitlines()[-1].startswith(said)


@pytest.mark.parametrize("columns", [0, 40, 60, 96])
def test_a_coloured_sessions_table_is_the_plain_one_in_a_searchs_colours(
    capsys: pytest.CaptureFixture[str], columns: int
) -> None:
    """The table was the one answer printed without colour: its reference (what `memlens history` opens) is in a
    search hit's reference colour and its time dim, and its cells, widths and cuts are the plain table's."""
    sessions = [_session(f"the orders DLQ {FAMILY} is backing up {CJK}", "ledgerline"), _session("plain", "billing")]
    page: SessionsResponse = {"sessions": sessions, "totalSessions": 2, "nextCursor": None, "indexing": False}
    print_sessions(page, columns=columns, zone=UTC)
    plain = capsys.readouterr().out
    print_sessions(page, columns=columns, zone=UTC, style=Style(color=True))
    coloured = capsys.readouterr().out
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == plain
    for row, session in zip(coloured.splitlines()[1:3], sessions, strict=True):
        assert f"\x1b[35m{session['reference']}\x1b[0m" in row, row
        assert row.startswith("\x1b[2m") and "\x1b[1m" not in row, row
    assert coloured.startswith("\x1b[1m")  # the header bold


@pytest.mark.parametrize("columns", [40, 60])
def test_a_narrow_terminal_keeps_each_sessions_reference_whole_and_some_title(
    capsys: pytest.CaptureFixture[str], columns: int
) -> None:
    """At 40 columns the table once cut every row inside its session reference (`5b…`): nothing left to open."""
    sessions = [_session("the orders DLQ is backing up", "ledgerline"), _session("plain title", "billing", count=12)]
    page: SessionsResponse = {"sessions": sessions, "totalSessions": 2, "nextCursor": None, "indexing": False}
    print_sessions(page, columns=columns, zone=UTC)
    lines = capsys.readouterr().out.splitlines()
    assert all(cells(line) <= columns for line in lines), lines
    assert "SESSION" in lines[0] and "TITLE" in lines[0], lines[0]
    for row, session in zip(lines[1:3], sessions, strict=True):
        assert f" {session['reference']} " in row, row
        assert session["title"][:6] in row, row  # a title's first words beside it


@pytest.mark.parametrize("width", [30, 40, 44])
def test_a_narrow_hit_header_keeps_its_reference_and_how_sure_it_is(width: int) -> None:
    """At 40 columns the header once ended `5b0e7d3c:b93217ff · 2026-02-10 08:57 ·…`: no word said how sure."""
    header = hit_lines(_hit("the orders DLQ is backing up", "x"), "DLQ", width=width, style=Style(True))[0]
    plain = re.sub("\x1b\\[[0-9;]*m", "", header)
    assert cells(plain) <= width, plain
    assert plain.startswith("5b0e7d3c:b93217ff ") and plain.endswith(" · strong"), plain


@pytest.mark.parametrize("width", [20, 33, 80])
def test_a_hit_header_cut_keeps_each_pieces_colour(width: int) -> None:
    """Cut in the middle of a wide character's reference, the header is its plain text cut, still in colour."""
    hit = {**_hit("the orders DLQ", "x"), "kind": "memory", "reference": f"memory/{CJK}.md", "heading": "DLQ"}
    header = hit_lines(cast(SearchResult, hit), "DLQ", width=width, style=Style(True))[0]
    plain = re.sub("\x1b\\[[0-9;]*m", "", header)
    assert plain == clip(f"memory/{CJK}.md · memory · strong", width), plain
    assert header.startswith("\x1b[35mmemory/") and header.endswith("…\x1b[0m"), repr(header)


def _hit(title: str, excerpt: str) -> SearchResult:
    hit: dict[str, Any] = {
        "kind": "transcript", "reference": "5b0e7d3c:b93217ff", "title": title, "excerpt": excerpt, "score": 0.9,
        "confidence": "strong", "timestamp": "2026-02-10T08:57:00Z", "role": "assistant", "relPath": "x.jsonl",
    }  # fmt: skip
    return hit  # type: ignore[return-value]  # the fields hit_lines reads


@pytest.mark.parametrize("width", [40, 57, 80])
def test_a_hit_fits_its_width_in_cells(width: int) -> None:
    lines = hit_lines(
        _hit(f"デッドレターキュー {FAMILY} {CAFE}", MIXED * 3), "DLQ backlog", width=width, style=Style(False)
    )
    assert len(lines) == 3 and all(cells(line) <= width for line in lines), lines
    assert cells(lines[1]) >= width - 4  # the first excerpt line fills its room, not a character count of it
    assert FAMILY in "".join(lines) or "…" in lines[-1]


def test_history_fixes_stats_and_help_fold_in_cells(capsys: pytest.CaptureFixture[str]) -> None:
    history = {  # the fields print_history reads
        "sessionKey": "claude-code:x", "sessionId": "x", "format": "claude-code", "path": "/home/u/案件/x.jsonl",
        "title": f"デッドレターキュー {CJK}", "anchor": None, "hasMoreBefore": False, "hasMoreAfter": False,
        "messages": [{"messageId": "m1", "role": "assistant", "kind": "message", "timestamp": None,
                      "text": f"{MIXED}\n\tcode\tline\t{CJK}\n{CAFE} " * 2}],
    }  # fmt: skip
    print_history(cast(HistoryResponse, history), UTC, columns=44)
    fixes = {  # the fields print_fixes reads
        "error": "接続プールが枯渇しました",
        "fixes": [{"sessionKey": "claude-code:x", "title": CJK, "timestamp": None, "messageId": "r1",
                   "text": f"エラー: {CJK}\n\t{CJK}", "after": [{"role": "assistant", "text": MIXED}]}],
    }  # fmt: skip
    print_fixes(cast(FixesResponse, fixes), UTC, columns=44)
    lines = capsys.readouterr().out.splitlines()
    assert all(cells(line) <= 44 or " " not in line.strip() for line in lines), [x for x in lines if cells(x) > 44]
    parser = argparse.ArgumentParser(prog="m", formatter_class=lambda prog: ProseAndExamplesFormatter(prog, width=44))
    parser.add_argument("--x", help=f"{CJK} {CAFE} {FAMILY} " * 2)
    assert all(cells(line) <= 44 for line in parser.format_help().splitlines())


def test_stats_and_the_progress_line_in_cells(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cells(progress_line(3, 10, f"embedding {CJK}")) == PROGRESS_COLUMNS
    with notes_engine(tmp_path, {"a.md": f"# {CJK}\n{MIXED}\n"}) as engine:
        stats = engine.stats()
    stats["indexDir"] = f"/home/yuki/インデックス {CJK}"
    stats["fileErrors"] = [{"path": "/home/yuki/ログ.jsonl", "badLines": 2, "replaced": 0, "reasons": [CJK * 2]}]
    stats["filesWithErrors"] = 1
    print_stats(stats, columns=70)
    lines = capsys.readouterr().out.splitlines()
    assert all(cells(line) <= 70 or " " not in line.strip() for line in lines), [x for x in lines if cells(x) > 70]
    folder = lines.index(next(line for line in lines if line.startswith("  index folder")))
    value_at = cells(lines[folder][: lines[folder].index("/home")])
    assert cells(lines[folder + 1]) - cells(lines[folder + 1].lstrip()) == value_at  # under its value


SESSION = "3c9a7e51-0b2d-4e6f-8a1c-5d4e3f2a1b0c"


def _write_session(root: Path) -> Path:
    folder = root / "claude-code" / "-home-yuki"
    folder.mkdir(parents=True)

    def line(kind: str, uuid: str, parent: str | None, content: object, minute: int) -> dict[str, Any]:
        row = claude_line(kind, uuid, parent, content, session=SESSION, timestamp=f"2026-05-12T09:{minute:02d}:00Z")
        return {**row, "cwd": "/home/yuki/プロジェクト管理システム"}

    ask = f"DLQ backlog: デッドレターキューが溜まっています {FAMILY} {CAFE} 直してください {THUMB}"
    answer = [{"type": "text", "text": f"{MIXED}\n\n\tcolumn\tvalue\t{CJK}\n"}]
    call = [{"type": "tool_use", "id": "c1", "name": "Bash", "input": {"command": "replay --dlq"}}]
    failed = f"ConnectionPoolExhausted: 接続プールが枯渇しました {CJK}\n\tat replay.py:12 {CJK}"
    result = [{"type": "tool_result", "tool_use_id": "c1", "is_error": True, "content": failed}]
    rows = [line("user", "u1", None, ask, 0), line("assistant", "a1", "u1", answer, 1),
            line("assistant", "a2", "a1", call, 2), line("user", "r1", "a2", result, 3),
            line("assistant", "a3", "r1", [{"type": "text", "text": f"{CJK} fixed {FAMILY}"}], 4)]  # fmt: skip
    (folder / f"{SESSION}.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    return root


@pytest.mark.slow  # CLI processes
def test_the_cli_on_a_narrow_terminal_keeps_every_line_within_it(tmp_path: Path) -> None:
    from test_cli_terminal import ANSI, memlens, on_terminal

    (tmp_path / "ws").mkdir()
    where = ["--workspace", str(tmp_path / "ws"), "--transcripts", str(_write_session(tmp_path / "transcripts"))]
    where += ["--index-dir", str(tmp_path / "index"), "--no-embeddings"]
    assert memlens("index", *where).returncode == 0
    env = {"HOME": str(tmp_path)}
    for command in (
        ["search", "DLQ backlog"],
        ["search", "DLQ backlog", "--long"],
        ["history", SESSION[:8]],
        ["fixes", "ConnectionPoolExhausted"],
        ["stats"],
        ["sources"],
    ):
        shown = ANSI.sub("", on_terminal(*command, "--no-pager", *where, env=env, columns=50))  # stats pages too
        lines = [line for line in shown.splitlines() if line.strip()]
        assert lines, command
        # a word longer than the terminal (a path) is kept whole on a line of its own, to be copied, as is the
        # command that resumes the session
        over = [line for line in lines if cells(line) > 50 and len(line.split()) > 1]
        over = [line for line in over if not line.startswith("  resume: ")]
        assert not over, (command, over)
    for columns in (50, 100):  # the table is cut at 50 columns, and shows its titles under TITLE at 100
        shown = ANSI.sub("", on_terminal("sessions", "--no-pager", *where, env=env, columns=columns))
        lines = [line for line in shown.splitlines() if line.strip()]
        assert lines and all(cells(line) <= columns for line in lines), lines
    title_at = cells(lines[0][: lines[0].index("TITLE")])
    row = next(line for line in lines if line.startswith("2026-"))
    assert cells(row[: row.index("DLQ")]) == title_at and "プロジェクト管理" in row, row
