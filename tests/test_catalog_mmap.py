"""A catalog that fits in the map is read through it: every connection maps it, and a reader that mapped the file
before a writer grew it (and checkpointed the WAL into it) still reads every row, the new ones included. A catalog
larger than the map is read without one."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from memlens.engine.catalog import Catalog, connection
from memlens.engine.catalog.connection import MMAP_BYTES
from memlens.engine.engine import Engine
from memlens.settings import Settings


def _mapped(catalog: Catalog) -> int:
    return int(catalog.db.execute("PRAGMA mmap_size").fetchone()[0])


def test_every_connection_maps_the_catalog(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite3")
    seen: list[int] = []
    worker = threading.Thread(target=lambda: seen.append(_mapped(catalog)))
    worker.start()
    worker.join()
    assert _mapped(catalog) > 0
    assert seen and seen[0] == _mapped(catalog)
    assert _mapped(catalog) <= MMAP_BYTES  # SQLite clamps what is asked to its build's maximum
    catalog.close()


def test_a_reader_that_mapped_the_file_sees_what_a_writer_added_after(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite3")
    reader = Catalog(tmp_path / "catalog.sqlite3")  # another connection, as a second process would hold
    with catalog.transaction() as db:
        catalog.set_meta(db, "probe", "0")
    assert reader.get_meta("probe") == "0"  # the reader has mapped the small file
    blob = "x" * 3000
    for round_ in range(1, 4):  # each round grows the file by many pages, written back into it by a checkpoint
        with catalog.transaction() as db:
            db.executemany("INSERT INTO meta VALUES (?, ?)", ((f"filler-{round_}-{i}", blob) for i in range(400)))
            catalog.set_meta(db, "probe", str(round_))
        catalog.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert reader.get_meta("probe") == str(round_)
        count = reader.db.execute("SELECT COUNT(*) FROM meta WHERE key LIKE 'filler-%'").fetchone()[0]
        assert count == 400 * round_
    assert (tmp_path / "catalog.sqlite3").stat().st_size > 3 * 400 * 3000
    reader.close()
    catalog.close()


def test_unmapped_nests_and_maps_again_after(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite3")
    mapped = _mapped(catalog)
    with catalog.unmapped():
        assert _mapped(catalog) == 0
        with catalog.unmapped():
            assert _mapped(catalog) == 0
        assert _mapped(catalog) == 0  # the inner one ended, the outer still holds
    assert _mapped(catalog) == mapped
    catalog.close()


def test_a_sync_reads_the_catalog_off_the_map_and_searches_on_it(tmp_path: Path) -> None:
    """The writer's bulk reads would otherwise leave every page they read resident in the map."""
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    for n in range(3):
        (workspace / "memory" / f"note-{n}.md").write_text(f"# Pager {n}\n\nThe pager rotation moved to day {n}.\n")
    settings = Settings()
    settings.transcripts.agent_defaults = False
    during: list[int] = []
    with Engine([workspace], settings, [], tmp_path / "index", embedder=False) as engine:
        engine.sync(progress=lambda done, total, message: during.append(_mapped(engine.catalog)))
        assert during and set(during) == {0}
        assert _mapped(engine.catalog) > 0
        assert engine.search("pager rotation", mode="keyword")["results"]


def test_closing_inside_unmapped_opens_no_connection_after(tmp_path: Path) -> None:
    """close() during a writer's bulk work (the engine shutting down) must not leave a connection reopened behind."""
    catalog = Catalog(tmp_path / "catalog.sqlite3")
    with catalog.unmapped():
        catalog.close()
    assert catalog._connections == []
    assert _mapped(catalog) > 0  # a connection opened later maps from the start
    catalog.close()


def _resident_kb(path: Path) -> int:
    """This process's resident kilobytes of mappings of `path` (from /proc/self/smaps)."""
    resident, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        fields = line.split()
        if fields and "-" in fields[0] and len(fields) >= 5 and ":" in fields[3]:  # a mapping's header line
            inside = len(fields) >= 6 and fields[5] == str(path)
        elif inside and fields[0] == "Rss:":
            resident += int(fields[1])
    return resident


def test_reading_a_catalog_bigger_than_the_map_keeps_only_the_map_resident(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows past the map are read, not mapped: reading every row of a big catalog leaves no more of it resident
    than the map's size (a 980,000-message catalog, mapped whole, made a searching process 1.7 GB)."""
    if not Path("/proc/self/smaps").is_file():
        pytest.skip("no /proc/self/smaps on this platform")
    monkeypatch.setattr(connection, "MMAP_BYTES", 256 << 10)
    path = tmp_path / "catalog.sqlite3"
    catalog = Catalog(path)
    with catalog.transaction() as db:  # about 4 MB of rows: sixteen times the map
        db.executemany("INSERT INTO meta VALUES (?, ?)", ((f"row-{i}", f"{i:06d}" * 500) for i in range(1300)))
    catalog.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert path.stat().st_size > 16 * (256 << 10)
    rows = catalog.db.execute("SELECT key, value FROM meta WHERE key LIKE 'row-%'").fetchall()
    assert len(rows) == 1300 and rows[-1][1] == "001299" * 500  # every row read, past the map too
    assert 0 < _resident_kb(path) <= 256  # the map is used, and nothing past it is resident
    catalog.close()


def test_a_catalog_bigger_than_the_map_is_not_mapped_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Mapped in part, a big catalog's map serves a small share of a search's reads and still fills with them (207 MB
    of a 980,000-message catalog's first 256 MB): a connection opened on a catalog past the map maps none of it, and
    one that ends `unmapped()` on it does not map it again."""
    if not Path("/proc/self/smaps").is_file():
        pytest.skip("no /proc/self/smaps on this platform")
    monkeypatch.setattr(connection, "MMAP_BYTES", 256 << 10)
    path = tmp_path / "catalog.sqlite3"
    writer = Catalog(path)
    assert _mapped(writer) > 0  # small: mapped whole
    with writer.transaction() as db:
        db.executemany("INSERT INTO meta VALUES (?, ?)", ((f"row-{i}", f"{i:06d}" * 500) for i in range(1300)))
    writer.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert path.stat().st_size > 16 * (256 << 10)
    with writer.unmapped():
        pass
    assert _mapped(writer) == 0  # the map is decided again once the bulk work ends: now past it
    writer.close()
    reader = Catalog(path)
    assert _mapped(reader) == 0
    rows = reader.db.execute("SELECT key, value FROM meta WHERE key LIKE 'row-%'").fetchall()
    assert len(rows) == 1300 and rows[-1][1] == "001299" * 500
    assert _resident_kb(path) == 0
    reader.close()
