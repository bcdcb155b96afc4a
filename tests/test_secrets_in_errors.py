"""An error or a note that quotes what the user typed masks the secrets in it, as every answer does: a token pasted
as a session reference, a cursor, a date, a flag or a folder never comes back in clear, from the engine (whatever
door asked) or from the CLI's own messages."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest

from conftest import notes_engine
from memlens.engine.filters import SearchFilters
from memlens.errors import MemlensError
from planted_secrets import PLANTED, leaked

# one of each shape a user pastes: provider tokens, a JWT, a password in a URL, a header, a private key's line
KINDS = ("openai-key", "aws-access-key-id", "github-pat-classic", "jwt", "database-url-password", "x-api-key-header")
PASTED = [p for p in PLANTED if p.kind in KINDS]


def memlens(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memlens", *map(str, args)], capture_output=True, text=True, timeout=120, check=False
    )


def test_the_engines_errors_mask_a_pasted_secret(tmp_path: Path) -> None:
    assert len(PASTED) == len(KINDS)
    with notes_engine(tmp_path, {"kiln.md": "# Kiln\n\nThe kiln overshoots by ten degrees.\n"}) as engine:
        for planted in PASTED:
            text = planted.text
            asked: list[Callable[[], object]] = [
                partial(engine.history, text),
                partial(engine.sessions, cursor=text),
                partial(engine.sessions, since=text),
                partial(engine.search, "kiln", filters=SearchFilters(session=text)),
            ]
            for ask in asked:
                with pytest.raises(MemlensError) as raised:
                    ask()
                assert leaked(str(raised.value)) == [], (planted.kind, str(raised.value))
            if planted.kind in ("database-url-password", "x-api-key-header"):
                continue  # their value alone is not a secret's shape: the context around it says so
            with pytest.raises(MemlensError) as quoted:
                engine.history(planted.secret)
            assert "unknown session '[REDACTED:" in str(quoted.value)  # still says what was asked, masked


@pytest.mark.slow  # CLI processes
def test_the_clis_own_messages_mask_a_pasted_secret(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "kiln.md").write_text("# Kiln\n\nThe kiln overshoots by ten degrees.\n", encoding="utf-8")
    where: list[str | Path] = ["--workspace", workspace, "--index-dir", tmp_path / "index", "--no-embeddings"]
    token = next(p for p in PASTED if p.kind == "github-pat-classic").secret
    runs = {
        "a flag argparse does not know": memlens("search", "kiln", f"--{token}", *where),
        "a command argparse does not know": memlens(token),
        "a folder that is not there": memlens("search", "kiln", "--workspace", tmp_path / token),
        "a filter that emptied the answer": memlens("search", "kiln", "--project", token, *where),
        "a filter that emptied the sessions list": memlens("sessions", "--project", token, *where),
        "a session reference": memlens("history", token, *where),
        "an address the language server cannot listen on": memlens("serve", "--tcp", token),
        "a port the language server cannot listen on": memlens("serve", "--tcp", f"127.0.0.1:{token}"),
    }
    for what, run in runs.items():
        assert run.returncode in (1, 2) and "Traceback" not in run.stderr, what
        assert token not in run.stdout + run.stderr, what
        assert "[REDACTED:github-token]" in run.stdout + run.stderr, what


@pytest.mark.slow  # CLI processes
def test_a_folder_or_a_setting_holding_a_key_is_masked_in_every_cli_line(tmp_path: Path) -> None:
    """The workspace's own folder is named after a key, its settings quote one: `index`, `stats`, `sources`,
    `search` never print it (their own lines, the settings' warnings and the workspace line included)."""
    token = next(p for p in PASTED if p.kind == "github-pat-classic").secret
    workspace = tmp_path / f"ws-{token}"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / f"kiln-{token}.md").write_text("# Kiln\n\nThe kiln overshoots.\n", encoding="utf-8")
    (workspace / ".memlens.json").write_text(json.dumps({"memlens": {"search": {"mode": token}}}), encoding="utf-8")
    where: list[str | Path] = ["--workspace", workspace, "--index-dir", tmp_path / "index", "--no-embeddings"]
    for args in (["index"], ["stats"], ["stats", "--json"], ["sources"], ["search", "kiln"], ["-vv", "search", "kiln"]):
        run = memlens(*args, *where)
        assert run.returncode == 0 and "Traceback" not in run.stderr, (args, run.stderr)
        assert token not in run.stdout + run.stderr, (args, run.stdout, run.stderr)
    assert "[REDACTED:github-token]" in memlens("stats", *where).stdout
