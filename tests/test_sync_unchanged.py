"""A sync that finds nothing changed compares names and stats, not `Path`s and whole rows: discovery lists exactly
what a walk with a `Path` per file lists (odd names, symlinks, exclusions, cwd-filtered folders), whole `files` rows
are read only for the files that changed, the vocabulary is not read when no word is new, sessions' cwds only when a
folder is filtered by them, and the collector paused around the per-file loops is always restored."""

from __future__ import annotations

import fnmatch
import gc
import json
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memlens.engine.catalog import Catalog
from memlens.engine.collection_pause import collection_paused
from memlens.engine.engine import Engine
from memlens.engine.file_names import escape_name, stored_path
from memlens.engine.indexing import discovery
from memlens.engine.indexing.discovery import (
    MEMORY,
    TRANSCRIPT,
    TRANSCRIPT_SUFFIXES,
    Locations,
    SourceFile,
    classify,
    discover,
    resolve_locations,
)
from memlens.engine.keyword import vocabulary
from memlens.engine.vectors.embedder import Embedder
from memlens.settings import Settings, merge

NOTE = "# Deploys\n\nThe pgbouncer pool holds 20 connections; raise it before the launch.\n"
CLAUDE = (
    '{"type":"user","uuid":"u%d","parentUuid":null,"sessionId":"s1","timestamp":"2026-02-10T10:0%d:00Z",'
    '"message":{"role":"user","content":"where is the pgbouncer config %d?"}}\n'
)
ODD = (b"n\xff\xfe.md", b"new\nline.md", b"tab\tname.md", b"back\\slash.md", b"[a-z]*?.md", b"-rf.md", b"Z.md")


def settings(**overrides: object) -> Settings:
    warnings: list[str] = []
    result = merge(Settings(), overrides, warnings)
    assert not warnings, warnings
    return result


def at(folder: Path, name: bytes, text: str = NOTE) -> Path:
    """Write `text` to the file named by these bytes in `folder` (made if missing)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = Path(os.fsdecode(bytes(folder) + b"/" + name))
    path.write_text(text)
    return path


def rollout(cwd: Path | str) -> str:
    return json.dumps({"type": "session_meta", "payload": {"cwd": str(cwd)}}) + "\n"


def reference_discover(
    locations: Locations, config: Settings, known_cwd: Callable[[Path], str | None] | None = None
) -> list[tuple[Path, str, Path]]:
    """Discovery written with a `Path` per file: found by Path, sorted by `os.fspath`, excluded by
    `Path.relative_to`, the cwd filter by `Path.suffix` (the walk itself is the one discovery uses)."""

    def excluded(path: Path, roots: list[Path], patterns: list[str]) -> bool:
        candidates = [str(path)]
        for root in roots:
            try:
                candidates.append(str(path.relative_to(root)))
            except ValueError:
                continue
        return any(fnmatch.fnmatch(c, p) for c in candidates for p in patterns)

    def transcripts(folder: Path) -> list[Path]:
        root = discovery._Root(folder, config.follow_external_symlinks)
        walked = (Path(p) for p, _ in discovery._walk(root, folder, lambda p: p.endswith(TRANSCRIPT_SUFFIXES)))
        return sorted(walked, key=os.fspath)

    found: dict[Path, tuple[Path, str, Path]] = {}
    for workspace in locations.workspaces:
        root = discovery._Root(workspace, config.follow_external_symlinks)
        for pattern in [*config.memory.include, *config.memory.extra_include]:
            for path in sorted((Path(p) for p, _ in discovery._memory_files(root, pattern)), key=os.fspath):
                if not excluded(path, [workspace], config.memory.exclude):
                    found.setdefault(path, (path, MEMORY, workspace))
    for folder in locations.transcript_dirs:
        if folder.is_dir():
            for path in transcripts(folder):
                if path not in found and not excluded(
                    path, [folder, *locations.workspaces], config.transcripts.exclude
                ):
                    found[path] = (path, TRANSCRIPT, folder)
    for folder in locations.cwd_filtered_dirs:
        if not folder.is_dir():
            continue
        for path in transcripts(folder):
            if path in found or path.suffix != ".jsonl" or excluded(path, [folder], config.transcripts.exclude):
                continue
            if not locations.scope_all:
                cwd = (known_cwd(path) if known_cwd else None) or discovery.read_session_cwd(path)
                if cwd is None or not any(Path(cwd) == w or w in Path(cwd).parents for w in locations.workspaces):
                    continue
            found[path] = (path, TRANSCRIPT, folder)
    return list(found.values())


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A workspace, a transcript folder and a home with agent folders, holding odd names, symlinks inside and out,
    a symlink loop, pruned folders, names an exclusion catches, and a file two folders reach."""
    ws = tmp_path / "my ws"
    at(ws, b"MEMORY.md")
    for name in ODD:
        at(ws / "memory", name)
        at(ws / "memory" / "deep", name)
    at(ws / "memory", b"a b.md")
    at(ws / "memory", b"top-secret.md")
    at(ws / "memory" / "node_modules", b"kept.md")  # memory globs prune nothing
    (ws / "memory" / "inside.md").symlink_to(ws / "memory" / "Z.md")
    (ws / "memory" / "loop").symlink_to(ws / "memory", target_is_directory=True)
    at(tmp_path / "outside", b"passwd.md")
    (ws / "memory" / "leak.md").symlink_to(tmp_path / "outside" / "passwd.md")
    (ws / "bank").symlink_to(tmp_path / "outside", target_is_directory=True)
    at(ws / ".specstory" / "history", b"2026-02-10_export.md")  # a memory glob reaches it too (extraInclude)
    logs = tmp_path / "logs"
    for name in (b"s.jsonl", b"x\xff\n.jsonl", b".jsonl", b"skip-me.jsonl", b"note.md", b"plain.txt"):
        at(logs / "p", name, CLAUDE % (1, 1, 1))
    at(logs / "node_modules", b"pruned.jsonl", CLAUDE % (1, 1, 1))
    at(logs / ".git", b"pruned.jsonl", CLAUDE % (1, 1, 1))
    (logs / "alias.jsonl").symlink_to(logs / "p" / "s.jsonl")
    (logs / "away").symlink_to(tmp_path / "outside", target_is_directory=True)
    at(tmp_path / "outside", b"far.jsonl", CLAUDE % (1, 1, 1))
    codex = tmp_path / "home" / ".codex" / "sessions" / "2026" / "02"
    at(codex, b"rollout-mine.jsonl", rollout(ws / "src"))
    at(codex, b"rollout-\xffodd.jsonl", rollout(ws))
    at(codex, b"rollout-theirs.jsonl", rollout(tmp_path / "elsewhere"))
    at(codex, b"rollout-unknown.jsonl", '{"type": "session_meta", "payload": {}}\n')
    at(codex, b".jsonl", rollout(ws))  # no suffix, as Path reads it: never a rollout
    at(codex, b"rollout-notes.md", rollout(ws))
    return tmp_path


CONFIGS: dict[str, dict[str, object]] = {
    "defaults": {"memory": {"extraInclude": [".specstory/**/*.md"]}},
    "excluded": {
        "memory": {"extraInclude": [".specstory/**/*.md"], "exclude": ["*secret*", "memory/deep/*", "*/n\udcff*"]},
        "transcripts": {"exclude": ["*/skip-*", "p/x*", "2026/*/rollout-mine.jsonl"]},
    },
    "external": {"followExternalSymlinks": True, "memory": {"extraInclude": ["bank/**/*.jsonl"]}},
    "all": {"scope": "all"},
}


@pytest.mark.parametrize("name", CONFIGS)
def test_discover_lists_what_a_path_per_file_lists(tree: Path, name: str) -> None:
    config = settings(**CONFIGS[name])
    config.transcripts.paths = [str(tree / "logs")]
    locations = resolve_locations([tree / "my ws"], config, home=tree / "home")
    known = {str(tree / "home" / ".codex" / "sessions" / "2026" / "02" / "rollout-unknown.jsonl"): str(tree / "my ws")}

    def known_cwd(path: str | Path) -> str | None:  # asked with a name now, with a Path before
        return known.get(os.fspath(path))

    for asked in (None, known_cwd):
        listed = discover(locations, config, asked)
        assert [(s.path, s.kind, s.root) for s in listed] == reference_discover(locations, config, asked)
        assert all(s.name == str(s.path) and s == SourceFile(s.path, s.kind, s.root) for s in listed)
    listed = discover(locations, config, known_cwd)
    names = {os.fsencode(s.path.relative_to(tree)) for s in listed}
    assert b"home/.codex/sessions/2026/02/rollout-unknown.jsonl" in names  # the catalog's cwd decided
    assert b"logs/node_modules/pruned.jsonl" not in names and b"logs/p/plain.txt" not in names
    assert (name == "excluded") is (b"my ws/memory/top-secret.md" not in names)
    assert (name == "external") is (b"my ws/bank/far.jsonl" in names)
    # a watcher's single path is judged by the same rules
    assert all(classify(source.path, locations, config, known_cwd) == source for source in listed)


def test_a_source_made_from_a_name_or_a_path_is_the_same(tmp_path: Path) -> None:
    odd = os.fsdecode(bytes(tmp_path) + b"/x\xff\n.jsonl")
    made = [SourceFile(odd, TRANSCRIPT, tmp_path), SourceFile(Path(odd), TRANSCRIPT, tmp_path)]
    assert made[0] == made[1] and hash(made[0]) == hash(made[1])
    assert made[0].name == made[1].name == odd and made[0].path == Path(odd)
    assert SourceFile(f"{tmp_path}//a/./b.jsonl", TRANSCRIPT, tmp_path).name == f"{tmp_path}/a/b.jsonl"
    assert made[0] != SourceFile(odd, MEMORY, tmp_path)


@given(st.text(max_size=40) | st.binary(max_size=40).map(os.fsdecode))
def test_a_stored_path_is_the_escaped_name(name: str) -> None:
    assert stored_path(name) == escape_name(name)


# -- the sync ------------------------------------------------------------------------------------------------


def spy(monkeypatch: pytest.MonkeyPatch, catalog: Catalog, method: str) -> list[Any]:
    """Record the arguments of every call of `catalog.method`."""
    calls: list[Any] = []
    real = getattr(catalog, method)

    def recorded(*args: Any) -> Any:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(catalog, method, recorded)
    return calls


def test_whole_rows_are_read_only_for_the_files_that_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws, logs = tmp_path / "ws", tmp_path / "logs"
    notes = [at(ws / "memory", f"n{i}.md".encode(), NOTE + f"\nmarker{i}\n") for i in range(5)]
    session = at(logs, b"s.jsonl", CLAUDE % (1, 1, 1))
    config = settings(transcripts={"agentDefaults": False})
    with Engine([ws], config, [logs], index_dir=tmp_path / "index", embedder=None) as engine:
        assert engine.sync().files_parsed == 6
        rows = spy(monkeypatch, engine.catalog, "files")
        unchanged = engine.sync()
        assert (unchanged.files_unchanged, unchanged.files_parsed, unchanged.files_deleted) == (6, 0, 0)
        assert rows == []  # nothing changed: no whole row read
        with session.open("a") as handle:
            handle.write(CLAUDE % (2, 2, 2))
        notes[2].write_text(NOTE + "\nrewritten with pgbouncer-replicas\n")
        notes[4].unlink()
        at(ws / "memory", b"new.md", NOTE + "\nbrand new\n")
        report = engine.sync()
        assert (report.files_appended, report.files_parsed, report.files_deleted, report.files_unchanged) == (
            1,
            2,
            1,
            3,
        )
        assert {path for call in rows for path in call[0]} == {stored_path(p) for p in (session, notes[2], notes[4])}
        assert engine.search("replicas", mode="keyword")["results"]
        assert engine.search("config 2", mode="keyword")["results"]
        assert engine.search("marker3", mode="keyword")["results"]
        assert not engine.search("marker4", mode="keyword")["results"]


def test_known_cwds_are_read_only_for_a_cwd_filtered_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    at(ws, b"MEMORY.md")
    monkeypatch.setenv("HOME", str(home))
    with Engine([ws], settings(transcripts={"agentDefaults": False}), index_dir=tmp_path / "i1", embedder=None) as e:
        cwds = spy(monkeypatch, e.catalog, "session_cwds")
        e.sync()
        assert cwds == []  # no folder filtered by cwd: no session's cwd read
    at(home / ".codex" / "sessions", b"rollout-mine.jsonl", rollout(ws.resolve()))
    at(home / ".codex" / "sessions", b"rollout-theirs.jsonl", rollout(tmp_path / "elsewhere"))
    with Engine([ws], settings(), index_dir=tmp_path / "i2", embedder=None) as e:
        cwds = spy(monkeypatch, e.catalog, "session_cwds")
        e.sync()
        assert len(cwds) == 1  # read once for the folder's files, not once per file
        names = {Path(s.name).name for s in e.sources()}
        assert names == {"MEMORY.md", "rollout-mine.jsonl"}
        assert len(cwds) == 2


def test_the_vocabulary_is_not_read_when_no_word_is_new(
    tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    at(ws / "memory", b"a.md", "# Walks\n\nhiking hikes in the mountains near the river valley\n")
    with Engine(
        [ws], settings(transcripts={"agentDefaults": False}), index_dir=tmp_path / "index", embedder=embedder
    ) as e:
        e.sync()
        assert not e.catalog.words_to_link() and e.pending_words() == 0
        reads = spy(monkeypatch, e.catalog, "embedded_words")
        assert vocabulary.link_words(e.catalog) == 0
        e.sync()
        assert reads == []  # every word linked: the vectors are not read
        at(ws / "memory", b"b.md", "# Sea\n\nsailing boats across the harbour at dawn\n")
        e.sync()
        assert len(reads) == 1 and not e.catalog.words_to_link() and e.pending_words() == 0
        with e.catalog.transaction() as db:  # one word's list dropped: it is linked again, the vectors read
            db.execute("UPDATE words SET near = NULL, near_floor = NULL WHERE rowid = (SELECT MIN(rowid) FROM words)")
        assert e.catalog.words_to_link()
        assert vocabulary.link_words(e.catalog) == 1 and len(reads) == 2


# -- the collector's pause -----------------------------------------------------------------------------------


@pytest.fixture
def collector() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    (gc.enable if enabled else gc.disable)()


def test_the_collector_is_restored_after_a_pause(collector: None) -> None:
    gc.enable()
    with collection_paused():
        assert not gc.isenabled()
        with collection_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer pause still holds
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collection_paused():
        raise RuntimeError("a sync that fails")
    assert gc.isenabled()
    gc.disable()  # disabled by someone else: stays so
    with collection_paused():
        pass
    assert not gc.isenabled()


def test_pauses_in_two_threads_restore_the_collector_once_both_end(collector: None) -> None:
    gc.enable()
    entered, release = threading.Event(), threading.Event()

    def other() -> None:
        with collection_paused():
            entered.set()
            release.wait(10)

    worker = threading.Thread(target=other)
    worker.start()
    assert entered.wait(10)
    with collection_paused():
        pass
    assert not gc.isenabled()  # the other thread's pause still holds
    release.set()
    worker.join(10)
    assert gc.isenabled()


def test_a_sync_leaves_the_collector_as_it_found_it(tmp_path: Path, collector: None) -> None:
    ws = tmp_path / "ws"
    at(ws, b"MEMORY.md")
    with Engine([ws], settings(transcripts={"agentDefaults": False}), index_dir=tmp_path / "index", embedder=None) as e:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            e.sync()
            assert gc.isenabled() is enabled
