"""Counts the writer keeps so that no reader scans every unit (0.4-0.8 s at a million messages): `memlens stats`
counts messages by format from the counts the session rows keep, and each vector stamp counts the units from a table
of units by format and kind. What must hold: after any write the kept counts are what a scan of the units says, and
a catalog of the version before that table, or one that version wrote to (it rebuilds a catalog of this version),
gets it counted at its next open."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from memlens.engine.catalog import Catalog
from memlens.engine.catalog.schema import MESSAGE_UNITS
from memlens.engine.engine import Engine
from memlens.settings import Settings, merge

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "workspace"
LINE = (
    '{"type":"user","uuid":"x%d","parentUuid":null,"sessionId":"%s","timestamp":"2026-03-08T10:00:00Z",'
    '"message":{"role":"user","content":"the appended osprey question %d"}}'
)


def _engine(tmp_path: Path, workspace: Path) -> Engine:
    warnings: list[str] = []
    settings = merge(Settings(), {"transcripts": {"agentDefaults": False}}, warnings)
    assert not warnings
    return Engine([workspace], settings, [workspace / "transcripts"], index_dir=tmp_path / "index", embedder=None)


def _scanned(db: sqlite3.Connection) -> dict[str, int]:
    """Messages by format (message_count.py) as a scan of every unit counts them."""
    sql = f"SELECT format, COUNT(*) FROM units WHERE {MESSAGE_UNITS} GROUP BY format"
    return {str(k): int(v) for k, v in db.execute(sql)}


def _all_kinds(catalog: Catalog) -> dict[tuple[str, str], int]:
    """The kept counts, checked against a scan of the units, kind by kind and in all (what each vector stamp reads)."""
    db = catalog.db
    kept = db.execute("SELECT format, kind, units FROM unit_counts WHERE units != 0")
    scanned = db.execute("SELECT format, kind, COUNT(*) FROM units GROUP BY format, kind")
    assert {(str(f), str(k)): int(n) for f, k, n in kept} == {(str(f), str(k)): int(n) for f, k, n in scanned}
    assert catalog.unit_count() == int(db.execute("SELECT COUNT(*) FROM units").fetchone()[0])
    return {(str(f), str(k)): int(n) for f, k, n in db.execute("SELECT format, kind, units FROM unit_counts")}


def test_the_counts_follow_every_write(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    shutil.copytree(EXAMPLE, workspace)
    claude = next((workspace / "transcripts" / "claude-code").glob("c84f*.jsonl"))
    with _engine(tmp_path, workspace) as engine:
        engine.sync()
        db = engine.catalog.db
        first = engine.catalog.messages_by_format()
        assert len(first) >= 3 and first == _scanned(db)
        _all_kinds(engine.catalog)

        with claude.open("a") as handle:  # an append
            handle.write("".join(LINE % (n, claude.stem, n) + "\n" for n in range(3)))
        assert engine.sync().files_appended == 1
        assert engine.catalog.messages_by_format() == _scanned(db)
        assert engine.catalog.messages_by_format()["claude-code"] == first["claude-code"] + 3

        lines = claude.read_text().splitlines(keepends=True)  # rewritten shorter: re-read whole
        claude.write_text("".join(lines[: len(lines) // 2]))
        engine.sync()
        assert engine.catalog.messages_by_format() == _scanned(db)
        _all_kinds(engine.catalog)

        for openclaw in (workspace / "transcripts" / "openclaw").glob("*.jsonl"):
            openclaw.unlink()  # a format gone with its files: not listed with 0
        engine.sync()
        assert "openclaw" not in engine.catalog.messages_by_format()
        assert engine.catalog.messages_by_format() == _scanned(db)

        engine.reindex(full=True)
        assert engine.catalog.messages_by_format() == _scanned(db)
        _all_kinds(engine.catalog)


def test_a_catalog_of_the_version_before_is_counted_at_open(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    shutil.copytree(EXAMPLE, workspace)
    with _engine(tmp_path, workspace) as engine:
        engine.sync()
        expected = _scanned(engine.catalog.db)
    catalog = tmp_path / "index" / "catalog.sqlite3"
    db = sqlite3.connect(catalog)
    # as the version before leaves a catalog: no counts at all
    db.executescript("DROP TABLE unit_counts; UPDATE meta SET value = '3' WHERE key = 'schema_version';")
    db.close()
    with _engine(tmp_path, workspace) as engine:
        assert engine.catalog.messages_by_format() == expected
        _all_kinds(engine.catalog)

    db = sqlite3.connect(catalog)
    # as that version leaves a catalog of this one it rebuilt and wrote to: the counts are of other units now
    db.executescript(
        "UPDATE unit_counts SET units = units + 7; UPDATE meta SET value = '3' WHERE key = 'schema_version';"
    )
    db.close()
    with _engine(tmp_path, workspace) as engine:
        assert engine.catalog.messages_by_format() == expected
        _all_kinds(engine.catalog)
