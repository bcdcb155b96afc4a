"""`memlens fixes` counts a note or a message that quotes the error and says how it was fixed as a fix, beside the
tool results that printed it: a MEMORY.md bullet with the error in a code span, a fenced block with the paragraph
after it naming the fix, an assistant's "Fixed `TypeError: …` by …" in a session whose tool output never held it.
A note that only quotes the error (no fix said), or says a fix of another error, is none.

The pieces (quoted_fixes.py) on their own, then the real CLI in a process of its own over a workspace and a Claude
Code folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claude_lines import claude_line
from memlens.cli.fixes_output import print_fixes
from memlens.engine.answers.fixes import verbatim_lines
from memlens.engine.answers.quoted_fixes import pieces, quoted_fix
from memlens.wire import ErrorFix
from memlens_runs import memlens_with_own_home
from transcript_fixtures import jsonl

TYPE_ERROR = "TypeError: handler.onSubmit is not a function"
UNDEFINED_TABLE = 'psycopg.errors.UndefinedTable: relation "ledger_entries" does not exist'
IMPORT_ERROR = "ImportError: cannot import name 'soft_unicode' from 'markupsafe'"
SESSION = "4c2b1a09-8f7e-4d6c-9b5a-3e2d1c0b9a87"

MEMORY = f"""# Project notes

## Frontend

- `{TYPE_ERROR}` in the checkout form: fixed by binding `onSubmit` in the constructor.
- The staging deploy needs `NODE_ENV=staging`.
- We saw `ZeroDivisionError: division by zero` in the report job again.

## Database

The migration failed with:

```
{UNDEFINED_TABLE}
```

The fix was to run `alembic upgrade head` before the seed script.
"""


def _never_covers(_: str) -> float:
    return 0.0


def test_a_piece_that_quotes_the_error_and_says_its_fix_is_one() -> None:
    def found(text: str, error: str = TYPE_ERROR) -> str | None:
        return quoted_fix(text, lines=verbatim_lines(error), covers=_never_covers, share=0.5, pasted=True)

    assert found(f"Fixed `{TYPE_ERROR}` by binding the handler.") == f"Fixed `{TYPE_ERROR}` by binding the handler."
    assert found(f"- {TYPE_ERROR} -> bind the handler") is not None  # a bullet that holds it as written
    fenced = f"The build failed:\n\n```\n{TYPE_ERROR}\n    at Form.render\n```\n\nThe cause was an unbound method."
    assert found(fenced) is not None and "unbound method" in (found(fenced) or "")
    assert found(f"We saw `{TYPE_ERROR}` again today.") is None  # quoted, no fix said
    assert found(f"Fixed `{IMPORT_ERROR}` by pinning markupsafe.") is None  # another error's fix
    assert found("- `TypeError: handler.onSubmit is` fixed") is None  # too little of the line to be the error
    # a fenced block goes with the paragraphs around it (which stay pieces of their own too)
    shown = ["a\nb", "- one", "- two", "- two\n```\nx\n```\nafter", "after"]
    assert pieces("a\nb\n\n- one\n- two\n\n```\nx\n```\nafter") == shown


def _workspace(tmp_path: Path) -> list[str]:
    """A workspace whose MEMORY.md says two fixes; a Claude Code session whose assistant says a third (no tool
    output holds it); the flags that read both, keyword-only."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "MEMORY.md").write_text(MEMORY)
    folder = tmp_path / "claude"
    folder.mkdir()
    said = f"Fixed `{IMPORT_ERROR}` by pinning markupsafe to 2.0.1 in requirements.txt."
    lines = [
        claude_line("user", "u1", None, "the docs build fails", session=SESSION, timestamp="2026-05-11T10:00:00Z"),
        claude_line("assistant", "a1", "u1", said, session=SESSION, timestamp="2026-05-11T10:01:00Z"),
        claude_line("user", "u2", "a1", "thanks, it builds", session=SESSION, timestamp="2026-05-11T10:02:00Z"),
    ]
    (folder / f"{SESSION}.jsonl").write_bytes(jsonl(*lines))
    return ["--workspace", str(workspace), "--transcripts", str(folder), "--index-dir", str(tmp_path / "index")]


def test_memlens_fixes_answers_with_notes_and_messages_that_say_the_fix(tmp_path: Path) -> None:
    flags = [*_workspace(tmp_path), "--no-embeddings"]
    bullet = memlens_with_own_home("fixes", TYPE_ERROR, *flags, cwd=tmp_path)
    assert bullet.returncode == 0, bullet.stderr
    assert bullet.stdout.startswith("1. MEMORY.md:5 · Project notes"), bullet.stdout
    assert "note that says how it was fixed" in bullet.stdout and "binding `onSubmit`" in bullet.stdout
    fenced = json.loads(memlens_with_own_home("fixes", UNDEFINED_TABLE, *flags, "--json", cwd=tmp_path).stdout)
    [note] = fenced["fixes"]
    assert (note["source"], note["relPath"], note["lineStart"], note["after"]) == ("note", "MEMORY.md", 11, [])
    assert "alembic upgrade head" in note["text"] and "seed script" in note["text"]
    asked = json.loads(
        memlens_with_own_home(
            "fixes", "how did we fix the seed failing on ledger_entries", *flags, "--json", cwd=tmp_path
        ).stdout
    )
    assert [(fix.get("source"), fix.get("lineStart")) for fix in asked["fixes"]] == [("note", 11)], asked  # its topic
    message = json.loads(memlens_with_own_home("fixes", IMPORT_ERROR, *flags, "--json", cwd=tmp_path).stdout)
    [told] = message["fixes"]
    assert (told["source"], told["sessionKey"], told["messageId"]) == ("message", f"claude-code:{SESSION}", "a1")
    assert [m["messageId"] for m in told["after"]] == ["u2"]
    unsaid = memlens_with_own_home("fixes", "ZeroDivisionError: division by zero", *flags, cwd=tmp_path)
    assert unsaid.returncode == 1 and unsaid.stdout == "", unsaid.stdout  # quoted, but no fix said: none (as rg)


TRACEBACK_NOTE = """## Checkout worker crash
```
Traceback (most recent call last):
  File "/srv/shop/worker/checkout.py", line 88, in process
    total = compute_total(cart)
  File "/srv/shop/worker/pricing.py", line 41, in compute_total
    return sum(item.price * item.qty for item in cart.items)
TypeError: unsupported operand type(s) for *: 'Decimal' and 'float'
```
Fixed by storing qty as Decimal in the cart model instead of float."""


def test_the_cli_shows_the_fix_a_note_says_after_the_error_it_quotes(capsys: pytest.CaptureFixture[str]) -> None:
    """A note's fenced traceback took the eight lines shown, and the line after it, the fix, was never printed:
    `fixes` showed the error back and not how it was fixed."""
    pasted = TRACEBACK_NOTE.split("```")[1].replace("line 88", "line 91").replace("/srv/shop", "/home/dev/shop")
    note: ErrorFix = {
        "sessionKey": "", "sessionId": "", "format": "markdown", "path": "/w/memory/python-errors.md",
        "title": "Python errors we hit", "messageId": "", "timestamp": None, "error": False, "score": 0.8,
        "text": TRACEBACK_NOTE, "after": [], "source": "note", "relPath": "memory/python-errors.md", "lineStart": 3,
    }  # fmt: skip
    print_fixes({"error": pasted, "fixes": [note]})
    shown = capsys.readouterr().out
    assert "   | Fixed by storing qty as Decimal in the cart model instead of float." in shown, shown
    assert "   | TypeError: unsupported operand type(s) for *: 'Decimal' and 'float'" in shown
    long_block = TRACEBACK_NOTE.replace("```\nFixed", "\n".join(f"  frame {n}" for n in range(30)) + "\n```\nFixed")
    print_fixes({"error": pasted, "fixes": [{**note, "text": long_block}]})
    cut = capsys.readouterr().out
    assert "frame 29" not in cut and "Fixed by storing qty" in cut  # the quoted block is cut, the fix is not
