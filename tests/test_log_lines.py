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


def _host_script(body: str) -> str:
    """A process with its own log handler on the root logger (an application or a test runner), plain format."""
    return (
        "import logging, sys\n"
        "handler = logging.StreamHandler(sys.stderr)\n"
        "handler.setFormatter(logging.Formatter('HOST %(levelname)s %(name)s: %(message)s'))\n"
        "logging.getLogger().addHandler(handler)\n"
        "logging.getLogger().setLevel(logging.INFO)\n"
        f"token = {TOKEN!r}\n" + body
    )


def test_memlens_lines_are_masked_by_a_host_processs_own_handlers(tmp_path: Path) -> None:
    """The root logger has a handler already: `send_logs_to_stderr` keeps it, and memlens's own records, the
    traceback under one too, reach it masked; an application that only opens an Engine gets them masked alike."""
    logged = (
        "from memlens.log_lines import send_logs_to_stderr\n"
        "send_logs_to_stderr(level=logging.INFO)\n"
        "logging.getLogger('memlens.engine.indexing').warning('skipped %s', '/tmp/backup-' + token)\n"
        "try:\n"
        "    raise ValueError('bad credentials ' + token)\n"
        "except ValueError:\n"
        "    logging.getLogger('memlens').exception('sync failed')\n"
    )
    workspace = tmp_path / "project"
    workspace.mkdir()
    engine = (
        "from pathlib import Path\n"
        "from memlens.engine.engine import Engine\n"
        "from memlens.settings import Settings\n"
        "settings = Settings()\n"
        f"settings.transcripts.paths = [{str(tmp_path)!r} + '/backup-' + token]\n"
        f"Engine([Path({str(workspace)!r})], settings, index_dir=Path({str(tmp_path / 'index')!r}), "
        "embedder=False).close()\n"
    )
    for script in (logged, engine):
        ran = subprocess.run([sys.executable, "-c", _host_script(script)], capture_output=True, text=True, timeout=120)
        assert ran.returncode == 0, ran.stderr
        assert "HOST WARNING memlens." in ran.stderr and "[REDACTED:github-token]" in ran.stderr, ran.stderr
        assert TOKEN not in ran.stderr
    assert (
        "ValueError: bad credentials [REDACTED:github-token]"
        in subprocess.run(
            [sys.executable, "-c", _host_script(logged)], capture_output=True, text=True, timeout=120
        ).stderr
    )
