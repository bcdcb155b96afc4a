"""Each session's message count and first and last time, which `memlens sessions` and the sidebar list, are kept in
its row by the writer (a list of every session counted them from every unit). What must hold: after any write the
kept figures are what the units say, and a catalog from before them still lists right, then fills them in."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from memlens.engine.engine import Engine
from memlens.settings import Settings, merge

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "workspace"
LINE = (
    '{"type":"user","uuid":"x%d","parentUuid":null,"sessionId":"%s","timestamp":"2026-03-0%dT10:00:00Z",'
    '"message":{"role":"user","content":"the appended osprey question %d"}}'
)


def _settings() -> Settings:
    warnings: list[str] = []
    result = merge(Settings(), {"transcripts": {"agentDefaults": False}}, warnings)
    assert not warnings
    return result


def _engine(tmp_path: Path, workspace: Path) -> Engine:
    return Engine([workspace], _settings(), [workspace / "transcripts"], index_dir=tmp_path / "index", embedder=None)


def _counted(engine: Engine) -> dict[str, tuple[int, float | None, float | None]]:
    """What the units say, counted as the list counted it before the figures were kept."""
    rows = engine.catalog.db.execute(
        """SELECT s.key, COALESCE(SUM(u.kind = 'transcript'), 0), MIN(u.ts), MAX(u.ts) FROM sessions s
           LEFT JOIN units u ON u.session_key = s.key AND u.kind != 'memory' GROUP BY s.key"""
    )
    return {str(r[0]): (int(r[1]), r[2], r[3]) for r in rows}


def _kept(engine: Engine) -> dict[str, tuple[int | None, float | None, float | None]]:
    rows = engine.catalog.db.execute("SELECT key, messages, first_ts, last_ts FROM sessions")
    return {str(r[0]): (r[1], r[2], r[3]) for r in rows}


def _listed(engine: Engine) -> dict[str, tuple[int, str | None, str | None]]:
    return {
        s["sessionKey"]: (s["messageCount"], s["firstTime"], s["lastTime"])
        for s in engine.sessions(limit=500)["sessions"]
    }


def test_the_kept_figures_follow_every_write(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    shutil.copytree(EXAMPLE, workspace)
    claude = next((workspace / "transcripts" / "claude-code").glob("c84f*.jsonl"))
    session_id = claude.stem
    with _engine(tmp_path, workspace) as engine:
        engine.sync()
        assert len(_kept(engine)) >= 5 and _kept(engine) == _counted(engine)
        key = f"claude-code:{session_id}"
        before = _counted(engine)[key]

        with claude.open("a") as handle:  # an append: new messages, later times
            handle.write("".join(LINE % (n, session_id, 8, n) + "\n" for n in range(3)))
        assert engine.sync().files_appended == 1
        assert _kept(engine) == _counted(engine)
        assert _counted(engine)[key][0] == before[0] + 3 and _counted(engine)[key][2] != before[2]

        lines = claude.read_text().splitlines(keepends=True)  # rewritten shorter: re-read whole
        claude.write_text("".join(lines[: len(lines) // 2]))
        engine.sync()
        assert _kept(engine) == _counted(engine)
        assert _counted(engine)[key][0] < before[0]

        openclaw = next((workspace / "transcripts" / "openclaw").glob("*.jsonl"))
        openclaw.unlink()  # a session gone with its file
        engine.sync()
        assert _kept(engine) == _counted(engine)
        assert {k: n for k, (n, _, _) in _listed(engine).items()} == {
            k: _counted(engine)[k][0] for k in _listed(engine)
        }


def test_a_catalog_from_before_them_lists_right_and_its_next_sync_fills_them(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    shutil.copytree(EXAMPLE, workspace)
    with _engine(tmp_path, workspace) as engine:
        engine.sync()
        listed = _listed(engine)
        counted = _counted(engine)
        with engine.catalog.transaction() as db:  # as a catalog written before the columns existed has them
            db.execute("UPDATE sessions SET messages = NULL, first_ts = NULL, last_ts = NULL")
        assert set(_kept(engine).values()) == {(None, None, None)}
        assert _listed(engine) == listed  # counted from the units meanwhile
        engine.sync()
        assert _kept(engine) == counted
        assert json.dumps(_listed(engine), sort_keys=True) == json.dumps(listed, sort_keys=True)
