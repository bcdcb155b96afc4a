"""`Catalog.time_span` reads the ends of the two indexes of the units' times: the same span as a scan of every unit."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlens.engine.catalog import Catalog
from memlens.engine.engine import Engine
from memlens.settings import Settings

SCAN = "SELECT MIN(ts), MAX(ts), COUNT(*) - COUNT(ts) FROM units"


def _scanned(catalog: Catalog) -> tuple[float | None, float | None, bool]:
    first, last, untimed = catalog.db.execute(SCAN).fetchone()
    return first, last, bool(untimed)


@pytest.mark.slow  # two syncs of the real transcripts
def test_the_time_span_is_the_scan_of_every_unit(tmp_path: Path, transcript_folder: Path) -> None:
    """Transcripts (messages, tool output, summaries), a dated note and an undated one: the first and last time of
    every unit, and whether one has none; then without the undated note, whose units were the untimed ones."""
    memory = tmp_path / "ws" / "memory"
    memory.mkdir(parents=True)
    (memory / "2019-03-04.md").write_text("# Standup\n\nThe release moved to Friday.\n")  # earlier than any message
    (memory / "ideas.md").write_text("# Ideas\n\nA dashboard for the deploy queue.\n")  # no date: no time
    engine = Engine(
        [tmp_path / "ws"], Settings(), extra_transcripts=[transcript_folder], index_dir=tmp_path / "i", embedder=False
    )
    assert tuple(engine.catalog.time_span()) == (None, None, False)  # nothing indexed yet
    engine.sync(embed=False)
    kinds = {str(r[0]) for r in engine.catalog.db.execute("SELECT DISTINCT kind FROM units")}
    assert {"memory", "transcript", "tool"} <= kinds
    span = engine.catalog.time_span()
    assert tuple(span) == _scanned(engine.catalog) and span.untimed
    note = engine.catalog.db.execute("SELECT MIN(ts) FROM units WHERE kind = 'memory'").fetchone()[0]
    assert span.first == note  # the dated note's, outside the transcripts' own span
    (memory / "ideas.md").unlink()
    engine.sync(embed=False)
    assert tuple(engine.catalog.time_span()) == _scanned(engine.catalog)
    engine.close()


def test_an_index_whose_every_unit_has_a_time_has_none_untimed(tmp_path: Path) -> None:
    memory = tmp_path / "ws" / "memory"
    memory.mkdir(parents=True)
    (memory / "2019-03-04.md").write_text("# Standup\n\nThe release moved to Friday.\n")
    (memory / "2021-07-08.md").write_text("# Retro\n\nThe flaky test was the clock.\n")
    engine = Engine([tmp_path / "ws"], Settings(), index_dir=tmp_path / "i", embedder=False)
    engine.sync(embed=False)
    span = engine.catalog.time_span()
    assert tuple(span) == _scanned(engine.catalog) and span.first is not None and span.last is not None
    assert span.last > span.first and not span.untimed
    engine.close()


def test_the_time_span_reads_no_unit_but_the_ends_of_indexes(tmp_path: Path) -> None:
    """Each statement time_span runs is answered from an index (a search of it, not a scan of every unit): its cost
    stays that of a few lookups however many units the index holds."""
    memory = tmp_path / "ws" / "memory"
    memory.mkdir(parents=True)
    (memory / "2019-03-04.md").write_text("# Standup\n\nThe release moved to Friday.\n")
    engine = Engine([tmp_path / "ws"], Settings(), index_dir=tmp_path / "i", embedder=False)
    engine.sync(embed=False)
    statements: list[str] = []
    engine.catalog.db.set_trace_callback(statements.append)
    engine.catalog.time_span()
    engine.catalog.db.set_trace_callback(None)
    assert statements
    for sql in statements:
        plan = [str(row[3]) for row in engine.catalog.db.execute("EXPLAIN QUERY PLAN " + sql)]
        assert any(step.startswith("SEARCH units USING") for step in plan), (sql, plan)
        assert not any(step.startswith("SCAN units") for step in plan), (sql, plan)
    engine.close()
