"""Every log line memlens writes is redacted where it is written: a path, a setting or an error quoting a token
shows the token masked on a terminal, in VS Code's Output panel and in an MCP client's log alike."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from planted_secrets import PLANTED

TOKEN = next(p.secret for p in PLANTED if p.kind == "github-pat-classic")


def test_a_warning_naming_a_folder_named_after_a_token_masks_it(tmp_path: Path) -> None:
    """The engine warns that a `transcripts.paths` folder does not exist, naming it: the name holds a token."""
    missing = tmp_path / f"backup-{TOKEN}"
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"transcripts": {"paths": [str(missing)]}}))
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "MEMORY.md").write_text("# Notes\n\nThe deploy runs on Fridays.\n")
    found = subprocess.run(
        [sys.executable, "-m", "memlens", "search", "deploy", "--no-embeddings", "--workspace", str(workspace)]
        + ["--settings", str(settings), "--index-dir", str(tmp_path / "index")],
        capture_output=True,
        text=True,
        timeout=300,
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert found.returncode == 0, found.stderr
    assert "is not a folder" in found.stderr  # the warning is still said
    assert "[REDACTED:github-token]" in found.stderr
    assert TOKEN not in found.stderr + found.stdout


def test_any_log_line_and_its_traceback_are_masked() -> None:
    """A line of any logger, ours or a library's, and the traceback under it, as the CLI and the language server
    set logging up (`send_logs_to_stderr`)."""
    script = (
        "import logging\n"
        "from memlens.log_lines import send_logs_to_stderr\n"
        "send_logs_to_stderr(level=logging.INFO, line_format='%(levelname)s %(name)s: %(message)s')\n"
        f"token = {TOKEN!r}\n"
        "logging.getLogger('some.library').info('connected with %s', token)\n"
        "try:\n"
        "    raise ValueError('bad credentials ' + token)\n"
        "except ValueError:\n"
        "    logging.getLogger('memlens.engine').exception('sync failed')\n"
    )
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert "INFO some.library: connected with [REDACTED:github-token]" in ran.stderr
    assert "ValueError: bad credentials [REDACTED:github-token]" in ran.stderr  # the traceback's last line
    assert TOKEN not in ran.stderr
