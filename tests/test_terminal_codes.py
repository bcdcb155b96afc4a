"""Terminal control codes in what agents captured (colours, titles, hyperlinks, progress bars, a clipboard write) are
left out of what memlens stores, so their words are found and no answer carries them to a terminal; the CLI shows any
control character it is still handed as a visible picture."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from claude_lines import claude_line
from memlens.cli.terminal import for_terminal, printable
from memlens.engine.engine import Engine
from memlens.engine.terminal_codes import without_terminal_codes
from memlens.settings import Settings
from transcript_fixtures import jsonl

SESSION = "4c2e8a10-7b3d-4e5f-9a1c-2d3e4f5a6b7c"
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07"  # OSC 52: a terminal that shows it puts "rm -rf ~" on the clipboard


@pytest.mark.parametrize(
    ("captured", "shown"),
    [
        ("Kept model as \x1b[1mDefault (recommended)\x1b[22m", "Kept model as Default (recommended)"),
        ("\x1b[1;31mFAILED\x1b[0m test_a", "FAILED test_a"),
        ("\x1b[38;2;255;0;0mred\x1b[m", "red"),  # 24-bit colour, an empty reset
        ("\x1b[?25l\x1b[2K\x1b[1Adone\x1b[?25h", "done"),  # private parameters: cursor hidden, line cleared, moved
        ("\x1b]0;build: ok\x07title set", "title set"),  # OSC ended by BEL
        ("see \x1b]8;;https://example.com/docs\x1b\\the docs\x1b]8;;\x1b\\ now", "see the docs now"),  # ST
        (f"copy {CLIPBOARD}this", "copy this"),
        ("\x1b]0;never ended\nnext line", "\nnext line"),  # an open string stops at its line's end
        ("\x1bP1$r0m\x1b\\kept", "kept"),  # DCS
        ("\x1b(Bplain \x1b7saved\x1b8", "plain saved"),  # a charset, the cursor saved and restored
        ("\x9b31mC1 csi\x9b0m", "C1 csi"),
        ("N\x08NA\x08AM\x08ME\x08E and _\x08u_\x08l", "NAME and ul"),  # a man page's bold and underline
        ("  10%\r  50%\r 100%\n", "  10%\n  50%\n 100%\n"),  # each state a redrawn bar drew
        ("line one\r\nline two", "line one\nline two"),
        ("bell\x07 and \x0bvertical\x0cfeed\x7f", "bell and  vertical feed"),
        ("\x1b[31", "31"),  # cut short: the escape goes, what follows stays
        ("tabs\tand\nlines, ünïcödé, 日本語 🚀", "tabs\tand\nlines, ünïcödé, 日本語 🚀"),
    ],
)
def test_control_codes_are_left_out_and_the_text_kept(captured: str, shown: str) -> None:
    assert without_terminal_codes(captured) == shown
    assert without_terminal_codes(shown) == shown


def test_plain_text_is_returned_as_it_is() -> None:
    text = "nothing to take out\n\tat all"
    assert without_terminal_codes(text) is text


def _write_workspace(root: Path) -> tuple[Path, Path]:
    transcripts = root / "transcripts" / "claude-code" / "-w"
    transcripts.mkdir(parents=True)
    output = "\r\n".join(
        ["\x1b[1m============ test session starts ============\x1b[0m"]
        + [f"tests/test_ledger.py::test_case_{i} \x1b[32mPASSED\x1b[0m" for i in range(300)]
        + ["\x1b[31m\x1b[1mFAILED\x1b[0m tests/test_ledger.py::test_carryover - KeyError: 'opening_balance'"]
    )

    def line(kind: str, uuid: str, parent: str | None, content: object, second: int) -> dict[str, Any]:
        return claude_line(kind, uuid, parent, content, session=SESSION, timestamp=f"2026-05-11T10:00:{second:02}Z")

    call = {"type": "tool_use", "id": "c1", "name": "Bash", "input": {"command": "pytest"}}
    result = {"type": "tool_result", "tool_use_id": "c1", "is_error": True, "content": output}
    rows = [
        line("user", "u1", None, "\x1b]0;pwned\x07run the ledger tests", 0),
        line("assistant", "a1", "u1", [call], 1),
        line("user", "r1", "a1", [result], 2),
        line("assistant", "a2", "r1", [{"type": "text", "text": f"The carryover lost its key {CLIPBOARD}again."}], 3),
    ]
    (transcripts / f"{SESSION}.jsonl").write_bytes(jsonl(*rows))
    workspace = root / "ws"
    (workspace / "memory").mkdir(parents=True)
    note = f"# Ledger\n\nThe \x1b[1mcarryover\x1b[0m job runs nightly.\r\n{CLIPBOARD}\n"
    (workspace / "memory" / "ledger.md").write_text(note, encoding="utf-8")
    return workspace, root / "transcripts"


@pytest.fixture()
def engine(tmp_path: Path) -> Any:
    workspace, transcripts = _write_workspace(tmp_path)
    with Engine([workspace], Settings(), [transcripts], index_dir=tmp_path / "index", embedder=False) as opened:
        opened.sync()
        yield opened


def test_words_wrapped_in_colour_codes_are_found(engine: Engine) -> None:
    top = engine.search("FAILED test_carryover", mode="keyword")["results"][0]
    assert (top["kind"], top["messageId"]) == ("tool", "r1")
    assert "FAILED tests/test_ledger.py::test_carryover" in top["excerpt"]  # the colour code had made it "1mfailed"
    noted = engine.search("carryover nightly", mode="keyword")["results"]
    assert noted and noted[0]["kind"] == "memory"


def test_nothing_stored_or_answered_holds_a_control_code(engine: Engine) -> None:
    stored = [row[0] for row in engine.catalog.db.execute("SELECT text FROM plain_units").fetchall()]
    assert len(stored) >= 4 and not any(CONTROLS.search(text) for text in stored)
    titles = [row[0] for row in engine.catalog.db.execute("SELECT title FROM sessions").fetchall() if row[0]]
    assert not any(CONTROLS.search(title) for title in titles)
    answers = [
        engine.search("ledger carryover key", mode="keyword", min_score=0.0),
        engine.history(f"claude-code:{SESSION}"),
        engine.fixes("KeyError: 'opening_balance'"),
        engine.sessions(),
    ]
    texts = list(strings(answers))
    assert any("carryover" in text for text in texts)
    assert not [text for text in texts if CONTROLS.search(text)]


def strings(value: object) -> Any:
    """Every string in an answer, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings(key)
            yield from strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item)


def test_the_cli_shows_only_its_own_colours(engine: Engine) -> None:
    engine.close()  # the CLI process writes
    where = ["--workspace", str(engine.workspaces[0]), "--index-dir", str(engine.index_dir)]
    for args in (["search", "carryover key", "--color", "always"], ["history", SESSION[:8], "--no-pager"]):
        out = subprocess.run(
            [sys.executable, "-m", "memlens", *args, *where],
            capture_output=True,
            text=True,
            timeout=600,
            check=True,
        ).stdout
        assert "carryover" in out
        assert not CONTROLS.search(re.sub(r"\x1b\[[0-9;]*m", "", out))  # colours are the CLI's SGR, nothing else


def test_the_cli_makes_control_characters_it_is_handed_visible() -> None:
    assert printable("tab\tand\nline") == "tab\tand\nline"
    assert printable(f"a{CLIPBOARD}b\rc\x9bd\x7f") == "a␛]52;c;cm0gLXJmIH4=␇b␍c\ufffdd␡"
    answer = {"results": [{"text": "\x1b[2J", "score": 0.5, "spans": [(1, 2)]}], "note": None}
    assert for_terminal(answer) == {"results": [{"text": "␛[2J", "score": 0.5, "spans": [(1, 2)]}], "note": None}
