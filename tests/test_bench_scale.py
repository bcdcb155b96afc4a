"""The scale benchmarks' own parts: realistic texts drawn from the shared real transcripts, the peers run and the
whole-process CLI figures, each on a tiny corpus."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES

needs_shared = pytest.mark.skipif(not FIXTURES.is_dir(), reason=f"{FIXTURES} is absent (the shared real transcripts)")


@needs_shared
def test_realistic_world_draws_lengths_and_words_from_real_messages(tmp_path: Path) -> None:
    from bench.realistic_text import RealisticWorld, read_real_texts

    real = read_real_texts(FIXTURES, tmp_path / "scratch")
    world = RealisticWorld(3, real)
    asks = [world.ask() for _ in range(300)]
    answers = [world.answer() for _ in range(300)]
    assert len(set(asks + answers)) == 600  # every text unique
    for text, lengths in ((asks, real.user_lengths), (answers, real.assistant_lengths)):
        # each text's length is one a real message has (a ticket-only text at least 12 characters)
        assert all(len(t) in lengths or len(t) == 12 for t in text)
    vocabulary = set(real.tokens)
    words = [w for t in answers for w in t.split()[1:-1]]  # inner words: the ends may be cut
    assert sum(w in vocabulary for w in words) / len(words) > 0.99
    real_words = {w.lower() for phrase in real.phrases for w in phrase}
    for query in (world.query() for _ in range(50)):
        assert 2 <= len(query.split()) <= 3 and set(query.split()) <= real_words


@needs_shared
@pytest.mark.slow  # indexes a corpus and runs the CLI as whole processes
def test_peers_and_cli_benchmarks_on_a_tiny_realistic_corpus(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if shutil.which("rg") is None:
        pytest.skip("ripgrep (rg), one of the peers, is not installed: bash scripts/test-all.sh installs it")
    from bench import cli_search, peers, synthetic_vectors
    from bench.corpus import make_corpus, open_engine
    from bench.realistic_text import corpus_text, make_world, write_marker

    world = make_world("realistic", 5, scratch=tmp_path / "real-texts")
    corpus = make_corpus(tmp_path / "corpus", 60, world=world)
    write_marker(corpus.root, text="realistic", seed=5)
    assert corpus_text(corpus.root) == "realistic"
    with open_engine(corpus, tmp_path / "index-kw", None) as engine:
        engine.sync()
        units = engine.catalog.count("units")
    synthetic_vectors.main([str(corpus.root), str(tmp_path / "index-kw"), str(tmp_path / "prebuilt")])
    report = peers.main([str(tmp_path / "prebuilt"), "--queries", "12", "--grep-queries", "2"])
    assert report["units"] == units > 60
    for name in ("keyword", "hybrid", "tantivy", "fts5", "numpyExact", "ripgrep"):
        assert report[name]["p99"] >= report[name]["p50"] >= 0, name
    assert report["tantivyBuild"]["s"] > 0 and report["fts5Build"]["s"] > 0
    assert set(report["ratios"]) == {"fts5/keyword", "tantivy/keyword", "ripgrep/keyword", "numpyExact/hybrid"}
    assert json.loads(capsys.readouterr().out)["units"] == units

    figures = cli_search.main([str(tmp_path / "prebuilt"), "--queries", "2"])["this"]
    for name in ("search", "search --no-sync", "index (nothing changed)"):
        assert figures[name]["cpuS p50"] > 0 and figures[name]["peakRssMB max"] > 0
    assert figures["search"]["runs"] == 2 and figures["index (nothing changed)"]["runs"] == 1


def test_queries_of_the_synthetic_world_are_unchanged() -> None:
    """Older figures were measured with these queries: `text` defaults to the synthetic world."""
    from bench.corpus import World
    from bench.realistic_text import corpus_queries

    world = World(43)
    assert corpus_queries(43, 5) == [world.query() for _ in range(5)]
    assert all(re.fullmatch(r"[a-z0-9 -]+", q) for q in corpus_queries(43, 20))
