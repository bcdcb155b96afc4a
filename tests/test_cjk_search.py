"""A search in Chinese, Japanese or Korean finds the note that holds its words, as a search in English does: by
default (hybrid, the least score shown), not only in keyword mode with `--min-score 0`. The analyser keeps a CJK run
whole, so a query's shorter run matches only the keyword index's bigrams: the re-scoring counts it found where the
hit's text holds it, and the context field, which holds runs whole and matches nothing, does not halve its score.
Real CLI processes over notes the test writes, with the bundled model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memlens_runs import memlens_with_own_home

NOTES = {
    "zh.md": "# 决定\n\n我们决定使用死信队列重新投递消息。\n",
    "ja.md": "# 決定\n\nデッドレターキューでメッセージを再配信することにしました。\n",
    "ko.md": "# 결정\n\n데이터베이스를 매일 백업하기로 했습니다.\n",
    "en.md": "# Notes\n\nThe billing service retries the payment webhook before paging on-call.\n",
}


@pytest.mark.slow  # CLI processes with the model
def test_a_cjk_query_finds_the_note_holding_it_with_the_default_search(tmp_path: Path) -> None:
    workspace, index = tmp_path / "workspace", tmp_path / "index"
    (workspace / "memory").mkdir(parents=True)
    for name, text in NOTES.items():
        (workspace / "memory" / name).write_text(text, encoding="utf-8")
    built = memlens_with_own_home("index", "--index-dir", str(index), cwd=workspace)
    assert built.returncode == 0, built.stderr

    def search(query: str) -> tuple[int, dict[str, Any]]:
        run = memlens_with_own_home(
            "search", query, "--no-sync", "--json", "--explain", "--index-dir", str(index), cwd=workspace
        )
        assert run.returncode in (0, 1), run.stderr
        return run.returncode, json.loads(run.stdout)

    for query, note in (("死信队列", "zh.md"), ("再配信", "ja.md"), ("데이터베이스", "ko.md"), ("백업", "ko.md")):
        status, answer = search(query)
        assert status == 0 and answer["results"], (query, answer)
        assert answer["results"][0]["relPath"] == f"memory/{note}", (query, answer["results"])
    status, answer = search("队死")  # its characters in the Chinese note, but not as a substring
    assert all(r["explain"]["bm25"] == 0 for r in answer["results"]), answer["results"]
