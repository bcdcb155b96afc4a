"""An index's answers must not depend on its history: an index whose files changed or whose folder left answers as
a fresh build of what it holds. tantivy counts a deleted document in every word's document frequency until a merge
that may never come, and the query vocabulary kept the words of deleted units in other words' nearest lists; both
are put right when the keyword index is written afresh (KeywordIndex.needs_compaction, Indexer.forget_root)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from conftest import EXAMPLE_WORKSPACE, REPO, example_settings, notes_engine
from memlens.engine.engine import Engine
from memlens.engine.vectors.embedder import Embedder

EXTRA = REPO / "tests" / "fixtures" / "transcripts" / "codex"
QUESTIONS = [
    "How did we fix the TestFlight build upload rejection?",
    "memory leak in the parser",
    "deploy the release pipeline",
    "why was the login flaky",
    "how do we rotate the api keys",
]
NOTES = {
    "deploy.md": "# Deploy\n\nWe deploy the release pipeline with blue green switching.\n",
    "login.md": "# Login\n\nThe login test was flaky because the session cookie expired early.\n",
}
LEAVING = {
    "parser.md": "# Parser\n\nA memory leak in the parser held every session token; the release notes say so.\n\n"
    "## Deploy\n\nThe deploy session of the parser release leaked the login cookie.\n",
}
WORDS = ["deploy", "releas", "session", "login", "parser", "leak", "cooki"]


def _answers(engine: Engine) -> dict[str, list[tuple[str, float]]]:
    """Each question's keyword answers (file name, score), which its words' nearest words in meaning widen, and its
    raw BM25 scores, which the answers' scaled ones can hide."""
    found = {}
    for question in QUESTIONS:
        results = engine.search(question, mode="keyword")["results"]
        found[question] = [(Path(str(r.get("path"))).name, float(r["score"])) for r in results]
        raw = engine.keyword.search(engine.keyword.parse(question), 10)
        found["bm25 " + question] = [("", round(score, 4)) for _, score in raw]
    return found


def test_a_deleted_file_leaves_no_trace_in_the_keyword_statistics(tmp_path: Path) -> None:
    fresh = notes_engine(tmp_path / "fresh", NOTES)
    synced = notes_engine(tmp_path / "synced", {**NOTES, **LEAVING})
    try:
        (tmp_path / "synced" / "ws" / "memory" / "parser.md").unlink()
        synced.sync()
        assert synced.keyword.deleted_docs() == 0
        assert synced.keyword.document_frequencies(WORDS) == fresh.keyword.document_frequencies(WORDS)
        assert _answers(synced) == _answers(fresh)
    finally:
        fresh.close()
        synced.close()


def _words(index_dir: Path) -> dict[str, tuple[str, list[str]]]:
    with sqlite3.connect(index_dir / "catalog.sqlite3") as db:
        rows = db.execute("SELECT stem, surface, near FROM words").fetchall()
    return {stem: (surface, [n for n, _ in json.loads(near or "[]")]) for stem, surface, near in rows}


def test_a_removed_folder_leaves_answers_as_a_fresh_build_of_what_remains(tmp_path: Path, embedder: Embedder) -> None:
    workspace, extra = tmp_path / "workspace", tmp_path / "extra"
    shutil.copytree(EXAMPLE_WORKSPACE, workspace)
    shutil.copytree(EXTRA, extra)
    settings = example_settings()
    with Engine([workspace], settings, index_dir=tmp_path / "fresh", embedder=embedder) as fresh:
        fresh.sync()
        expected = _answers(fresh)
        expected_freqs = fresh.keyword.document_frequencies(WORDS)
    with Engine([workspace], settings, extra_transcripts=[extra], index_dir=tmp_path / "b", embedder=embedder) as b:
        b.sync()
        leaving = set(_words(tmp_path / "b")) - set(_words(tmp_path / "fresh"))
    assert leaving  # the folder brought words of its own
    with Engine([workspace], settings, index_dir=tmp_path / "b", embedder=embedder) as b:
        b.remove_source_folder(extra)
        assert b.keyword.deleted_docs() == 0
        assert b.keyword.document_frequencies(WORDS) == expected_freqs
        assert _answers(b) == expected
        b.sync()
        assert _answers(b) == expected
    kept, built = _words(tmp_path / "b"), _words(tmp_path / "fresh")
    # here every word of the folder leaves (a word whose stem a document left holds in a form the vocabulary does not
    # record, two letters or quoted, would stay), and none stays in a list of nearest words
    assert set(kept) == set(built)
    for stem, (_, near) in kept.items():
        assert not set(near) & leaving, stem
        assert len(set(near)) == len(near), stem  # a word linked again is not listed twice
    # each word in the form a fresh build embeds (not the first read, which may have been the folder's), and its
    # nearest words in the same order (words at the same cosine too)
    assert kept == built
