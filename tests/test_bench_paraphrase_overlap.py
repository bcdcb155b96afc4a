"""bench/paraphrase_overlap.py: each paraphrase's words its targets hold, and the rule that a "forgot the words"
question shares none. On the committed synthetic transcripts (keyword-only), so it runs without ../shared."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench import paraphrase_overlap, transcripts  # noqa: E402

SYNTHETIC = REPO / "tests" / "fixtures" / "transcripts"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[transcripts.Corpus]:
    built = transcripts.open_corpus(root=SYNTHETIC, index_dir=tmp_path_factory.mktemp("po"), embedder=None)
    yield built
    built.engine.close()


def test_only_paraphrases_are_read_and_the_shared_words_are_named(corpus: transcripts.Corpus) -> None:
    key = next(k for k, text in sorted(corpus.text_of.items()) if len(text.split()) >= 8)
    own = " ".join(corpus.text_of[key].split()[:12])
    questions = [
        {"id": "own", "kind": "paraphrase", "question": own, "targets": [key], "source": "forgot-words"},
        {"id": "far", "kind": "paraphrase", "question": "zyxwvut qqqplorf", "targets": [key], "source": "forgot-words"},
        {"id": "verb", "kind": "original", "question": own, "targets": [key]},
    ]
    rows = paraphrase_overlap.overlaps(questions, corpus)
    assert [row.id for row in rows] == ["own", "far"]
    assert rows[0].shared == rows[0].words and rows[0].share == 1.0
    assert rows[1].shared == [] and rows[1].share == 0.0
    report = paraphrase_overlap.format_overlaps(rows, strict="forgot-words")
    assert "2 paraphrases; 1 share no content word" in report
    assert "sharing a word: ['own']" in report


def test_the_evaluation_set_is_refused() -> None:
    with pytest.raises(SystemExit) as raised:
        paraphrase_overlap.main(["--questions", "eval"])
    assert raised.value.code == 2  # argparse's usage error: nothing was read
