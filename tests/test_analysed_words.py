"""The `text` and `context` fields are handed words already analysed (`KeywordIndex.analysed`) and tantivy only splits
them at spaces: the index must hold the terms, at the positions, that tantivy's own analysis of the raw text gave."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import tantivy

from memlens.engine.keyword import keyword_index
from memlens.engine.keyword.keyword_index import (
    ANALYZER,
    SPACED,
    KeywordDoc,
    KeywordIndex,
    _analysed_words,
    _analyzer,
    _spaced,
)

SAMPLES = [
    "Running the deployments: we RE-RAN them, Müller's Straße café naïve coöperate ﬁnance Ⅻ ⑴ ½ ²",
    "the hiking hikes hiked; recompute_and_push_sync() fooBar.baz /usr/local/bin 3.14 v2 x86_64",
    "日本語のテキスト 한국어 текст на русском ελληνικά العربية हिन्दी",
    "",
    "...",
    "a\u00a0b\u2003c\u3000d\te\nf\r\ng",
]


def _every_character() -> list[str]:
    """Every code point (surrogates left out), a thousand to a text, each alone, inside a word and doubled."""
    points = [chr(p) for p in range(0x110000) if not 0xD800 <= p < 0xE000]
    return [" ".join(f"{c} a{c}b {c}{c}" for c in points[i : i + 1000]) for i in range(0, len(points), 1000)]


def test_the_analysed_words_split_back_into_the_analysers_words_for_every_character(tmp_path: Path) -> None:
    index, split = KeywordIndex(tmp_path / "kw"), _analysed_words()
    for text in [*SAMPLES, *_every_character()]:
        assert split.analyze(index.analysed(text)) == index.tokens(text)


def test_stems_kept_between_texts_give_the_same_words_once_emptied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`analysed` stems each distinct word once and keeps it; a full store is emptied and filled again, and the
    words stay those of tantivy's own stemming analysis, text after text."""
    monkeypatch.setattr(keyword_index, "MAX_STEMS", 7)
    index = KeywordIndex(tmp_path / "kw")
    for text in [*SAMPLES, *SAMPLES, "hiking hikes hiked hiker hike hikers HIKING Hiked"]:
        assert index.analysed(text) == " ".join(index.tokens(text))
    assert 0 < len(index._stems) <= 7


def _documents(rng: np.random.Generator) -> list[KeywordDoc]:
    vocabulary = ["deploy", "deploying", "Rollback", "rolled", "queue", "QUEUES", "café", "naïve", "über", "running"]
    vocabulary += ["ﬁx", "fix", "日本語", "x86_64", "fooBar", "the", "and", "Ⅻ", "½", "hike", "hikes", "hiking"]
    docs = []
    for unit in range(1, 121):
        text = " ".join(vocabulary[i] for i in rng.integers(0, len(vocabulary), int(rng.integers(0, 12))))
        context = f"{text}\n{SAMPLES[unit % len(SAMPLES)]}" if unit % 3 else ""
        docs.append(KeywordDoc(unit, 1, "transcript", "codex", "s", "user", unit, text, context=context))
    return docs


def test_an_index_written_from_analysed_words_is_the_one_tantivy_analysis_writes(tmp_path: Path) -> None:
    """The same documents written by `KeywordIndex.write` and, as before, with tantivy's own analysis of the raw
    text: every term's document frequency and every two-word phrase's matches agree in both fields."""
    docs = _documents(np.random.default_rng(3))
    ours = KeywordIndex(tmp_path / "ours")
    ours.write(1, add=docs)
    reference = tantivy.Index(ours.schema, path=None)
    reference.register_tokenizer(ANALYZER, _analyzer())
    reference.register_tokenizer(SPACED, _spaced())
    writer = reference.writer(heap_size=50_000_000, num_threads=1)
    for doc in docs:
        writer.add_document(
            tantivy.Document(unit_id=doc.unit_id, text=doc.text, context=doc.context or doc.text, kind=doc.kind)
        )
    writer.commit()
    reference.reload()
    mine, theirs = ours.index.searcher(), reference.searcher()
    terms = sorted({word for doc in docs for word in ours.tokens(doc.context or doc.text)})
    assert len(terms) > 20
    for field in ("text", "context"):
        assert [mine.doc_freq(field, t) for t in terms] == [theirs.doc_freq(field, t) for t in terms]
        for first, second in zip(terms, terms[1:], strict=False):
            phrase: list[str | tuple[int, str]] = [first, second]
            found = []
            for searcher, schema in ((mine, ours.schema), (theirs, ours.schema)):
                hits = searcher.search(tantivy.Query.phrase_query(schema, field, phrase), 200).hits
                found.append(sorted(int(u or 0) for u in searcher.fast_field_values("unit_id", [a for _, a in hits])))
            assert found[0] == found[1]
