"""bench/pruning_peers.py compares engines on the text memlens indexes: its context field must hold a message's
session neighbours and no other session's, and its tantivy baseline must answer with message numbers (the other
engines live in a scratch venv, not here)."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench import pruning_peers  # noqa: E402


def _write_messages(folder: Path, count: int) -> list[str]:
    texts = [f"word{n} shared" for n in range(count)]
    (folder / "analysed.txt").write_text("".join(t + "\n" for t in texts))
    return texts


def test_the_context_field_holds_the_neighbours_within_the_session(tmp_path: Path) -> None:
    texts = _write_messages(tmp_path, 2 * pruning_peers.SESSION)
    context = list(pruning_peers.field_texts(tmp_path, "context"))
    assert context[0] == " ".join(texts[0:3])
    assert context[5] == " ".join(texts[3:8])
    last = pruning_peers.SESSION - 1  # the session's last message: nothing from the next session
    assert context[last] == " ".join(texts[last - 2 : last + 1])
    assert context[last + 1] == " ".join(texts[last + 1 : last + 4])
    assert list(pruning_peers.field_texts(tmp_path, "text")) == texts


def test_the_tantivy_baseline_answers_with_message_numbers(tmp_path: Path) -> None:
    _write_messages(tmp_path, 60)
    index_dir = tmp_path / "tantivy-text"
    index_dir.mkdir()
    pruning_peers.tantivy_build(index_dir, pruning_peers.field_texts(tmp_path, "text"))
    search = pruning_peers.tantivy_open(index_dir)
    assert search(["word41", "absent"], 10) == [41]
    assert len(search(["shared"], 10)) == 10
