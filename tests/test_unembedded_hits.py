"""A search while the writer still embeds a backlog (a first index of a long history takes minutes) rates an exact
match by its words, not as a unit far from the query: a unit with no vector yet has no closeness to fuse, and read as
a cosine of 0 a rare word's one match was outranked by the vectors' nearest messages and marked weak or hidden. Real
CLI processes; the backlog is held still by syncing the last note with `--no-embeddings`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memlens_runs import memlens_with_own_home


def search(query: str, *, workspace: Path, index: Path) -> dict[str, Any]:
    run = memlens_with_own_home(
        "search", query, "--no-sync", "--json", "--explain", "--index-dir", str(index), cwd=workspace
    )
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)  # type: ignore[no-any-return]


@pytest.mark.slow  # CLI processes with the model
def test_a_note_not_yet_embedded_is_found_by_its_rare_word_as_a_complete_index_finds_it(tmp_path: Path) -> None:
    workspace, index = tmp_path / "workspace", tmp_path / "index"
    (workspace / "memory").mkdir(parents=True)
    for n in range(1, 7):
        (workspace / "memory" / f"billing-{n}.md").write_text(
            f"# billing {n}\nThe billing service retries the payment webhook {n} times before paging on-call.\n"
        )
    first = memlens_with_own_home("index", "--index-dir", str(index), cwd=workspace)
    assert first.returncode == 0, first.stderr
    (workspace / "memory" / "export.md").write_text("# export\nThe quokkazebra flag turns the nightly export off.\n")
    held = memlens_with_own_home("index", "--index-dir", str(index), "--no-embeddings", cwd=workspace)
    assert held.returncode == 0, held.stderr
    stats = json.loads(memlens_with_own_home("stats", "--json", "--index-dir", str(index), cwd=workspace).stdout)
    assert stats["chunksNeedingEmbeddings"] == 1, stats  # the new note waits for its vector; the others have theirs

    answer = search("quokkazebra", workspace=workspace, index=index)
    assert answer["mode"] == "hybrid"
    top = answer["results"][0]
    assert top["relPath"] == "memory/export.md"
    assert top["explain"]["vector"] is None  # its own cosine is not there to show
    assert top["confidence"] != "weak", top

    complete = memlens_with_own_home("index", "--index-dir", str(index), cwd=workspace)
    assert complete.returncode == 0, complete.stderr
    embedded = search("quokkazebra", workspace=workspace, index=index)["results"][0]
    assert embedded["relPath"] == "memory/export.md" and embedded["explain"]["vector"] is not None
    assert embedded["confidence"] != "weak"
