"""`memlens history` as a person reads it: on an 80-column terminal every line of a session's long messages fits,
folded at word boundaries (a word longer than the room, a path, alone on its line) with nothing lost (the same words
as the whole lines a pipe gets), a code line's continuations under its indentation, whether or not the pager takes
the output; in a pipe each line stays whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from claude_lines import claude_line
from memlens.cli.terminal import cells
from test_cli_terminal import ANSI, memlens, on_terminal

pytestmark = pytest.mark.slow  # CLI processes

SESSION = "9d2c4b6a-1e3f-4a5b-8c7d-6e5f4a3b2c1d"
PROSE = (
    "The nightly export failed because the warehouse connection pool was exhausted by the backfill job that started "
    "at the same minute; I moved the backfill to half past and capped its pool at four connections, so the export "
    "now has the remaining six to itself and finishes in about eleven minutes instead of timing out after thirty."
)
CODE = "        pool = create_pool(dsn=settings.warehouse_dsn, min_size=1, max_size=4, timeout=30, name='backfill')"


def _write_session(root: Path) -> Path:
    folder = root / "claude-code" / "-w"
    folder.mkdir(parents=True)

    def line(kind: str, uuid: str, parent: str | None, text: str, minute: int) -> dict[str, Any]:
        content: object = text if kind == "user" else [{"type": "text", "text": text}]
        return claude_line(kind, uuid, parent, content, session=SESSION, timestamp=f"2026-05-12T09:{minute:02d}:00Z")

    ask = "why did the nightly warehouse export time out again last night, and can you make it stop happening?"
    rows = [line("user", "u1", None, ask, 0), line("assistant", "a1", "u1", f"{PROSE}\n\n{CODE}\n", 1)]
    (folder / f"{SESSION}.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    return root


def test_history_folds_to_80_columns_and_keeps_every_word(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    where = ["--workspace", str(tmp_path / "ws"), "--transcripts", str(_write_session(tmp_path / "transcripts"))]
    where += ["--index-dir", str(tmp_path / "index"), "--no-embeddings"]
    assert memlens("index", *where).returncode == 0
    args = ["history", SESSION[:8], "--no-sync", *where]
    env = {"HOME": str(tmp_path)}
    shown = ANSI.sub("", on_terminal(*args, "--no-pager", env=env, columns=80))
    lines = [line for line in shown.splitlines() if line.strip()]
    # a word longer than the room (the transcript's path here) is kept whole on its own line, to be copied
    over = [line for line in lines if cells(line) > 80]
    assert lines and all(len(line.split()) == 1 for line in over), over
    piped = memlens(*args, env={"COLUMNS": "80"})
    assert piped.returncode == 0, piped.stderr
    assert any(PROSE in line for line in piped.stdout.splitlines())  # a pipe gets each line whole
    assert shown.split() == piped.stdout.split()  # nothing lost, nothing added: the same words in the same order
    code = next(n for n, line in enumerate(lines) if line.startswith("            pool = create_pool("))
    assert lines[code + 1].startswith("            ") and not lines[code + 1].startswith("             ")
    paged_to = tmp_path / "paged.txt"  # the pager gets it folded to the terminal it shows on
    on_terminal(*args, env={**env, "PAGER": f"sh -c 'cat > {paged_to}'", "LINES": "5"}, columns=80)
    paged = ANSI.sub("", paged_to.read_text())  # coloured for the terminal, as a search is (less -R shows it)
    assert paged.split() == piped.stdout.split()
    assert all(cells(line) <= 80 or len(line.split()) == 1 for line in paged.splitlines())
