"""The keyword index's documents for catalog units: each unit's fields, and for a transcript message the text of its
neighbours (±CONTEXT_WINDOW messages in its session) as the `context` field, so an answer that lacks the question's
words is still found through the messages around it; and the whole index written afresh from the catalog (a rebuild,
or a compaction of piled-up segments)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator

from memlens.engine.catalog import Catalog
from memlens.engine.keyword.keyword_index import CONTEXT_WINDOW, KeywordDoc, KeywordIndex
from memlens.engine.progress import Progress
from memlens.engine.sources.tool_output import split_call

_KEYWORD_TS_LIMIT = 2.0**62  # tantivy keeps times as i64; a stored value past that (an old index) counts as unknown
# what hears each batch of a rewrite: its units' rows and their texts' analysed words (text → words)
AnalysedBatch = Callable[[list[sqlite3.Row], Callable[[str], str]], None]


def neighbours_of(catalog: Catalog, rows: Iterable[sqlite3.Row], skip: set[int]) -> list[sqlite3.Row]:
    """Existing transcript units within the context window of `rows` (not in `skip`)."""
    found: list[sqlite3.Row] = []
    for key, (low, high) in _windows(rows).items():
        window = catalog.session_messages_between(key, low, high)
        found += [r for r in window if int(r["id"]) not in skip]
    return found


def _windows(rows: Iterable[sqlite3.Row]) -> dict[str, tuple[int, int]]:
    """Per session, the sequence numbers from the first of its transcript messages among `rows` less the context
    window to the last plus the window."""
    spans: dict[str, tuple[int, int]] = {}
    for row in rows:
        if row["kind"] == "transcript" and row["session_key"]:
            low, high = spans.get(row["session_key"], (row["seq"], row["seq"]))
            spans[row["session_key"]] = (min(low, row["seq"]), max(high, row["seq"]))
    return {key: (low - CONTEXT_WINDOW, high + CONTEXT_WINDOW) for key, (low, high) in spans.items()}


def _neighbour_texts(catalog: Catalog, rows: list[sqlite3.Row]) -> dict[tuple[str, int], str]:
    """(session key, seq) → text of the transcript units within the context window of `rows`, the later id winning
    a place two hold, as `neighbours_of` reads them. Only the places are read for all of them: a text is read, and
    decompressed, only for a unit not among `rows` (most of a batch's neighbours are in the batch)."""
    in_hand = {int(row["id"]): row["text"] for row in rows}
    places = [
        (unit_id, key, seq)
        for key, (low, high) in _windows(rows).items()
        for unit_id, seq in catalog.session_message_places_between(key, low, high)
    ]
    read = catalog.unit_texts([unit_id for unit_id, _, _ in places if unit_id not in in_hand])
    return {(key, seq): in_hand[i] if i in in_hand else read[i] for i, key, seq in places}


def keyword_docs(
    catalog: Catalog, keyword: KeywordIndex, rows: Iterable[sqlite3.Row], analysed: AnalysedBatch | None = None
) -> Iterator[KeywordDoc]:
    """Keyword documents with their words analysed (`KeywordIndex.analysed`); a transcript message's context words
    are its text's and its neighbours' (±CONTEXT_WINDOW). `analysed` hears each batch's rows and their words."""
    batch: list[sqlite3.Row] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= 2000:
            yield from _keyword_batch(catalog, keyword, batch, analysed)
            batch = []
    yield from _keyword_batch(catalog, keyword, batch, analysed)


PROGRESS_EVERY = 5_000  # documents between progress reports while the index is written afresh


def write_afresh(
    catalog: Catalog,
    keyword: KeywordIndex,
    cancel: threading.Event | None = None,
    progress: Progress | None = None,
    analysed: AnalysedBatch | None = None,
) -> bool:
    """Write the keyword index anew from every unit of the catalog, in one commit (the writer's lock held by the
    caller); False, with the index left as it was, when `cancel` was set meanwhile. `progress(done, total,
    message)` hears every PROGRESS_EVERY documents; `analysed` each batch of units with their analysed words."""
    docs = keyword_docs(catalog, keyword, catalog.all_units(), analysed)
    if progress is not None:
        docs = _reporting(docs, catalog.unit_count(), progress)
    return keyword.write(catalog.generation(), add=docs, clear=True, cancel=cancel)


def _reporting(docs: Iterable[KeywordDoc], total: int, progress: Progress) -> Iterator[KeywordDoc]:
    def say(done: int) -> None:
        progress(done, max(total, done), f"keyword index written afresh: {done}/{max(total, done)}")

    done = 0
    for done, doc in enumerate(docs, 1):
        if done % PROGRESS_EVERY == 0:
            say(done)
        yield doc
    say(done)


def _keyword_batch(
    catalog: Catalog, keyword: KeywordIndex, rows: list[sqlite3.Row], analysed_batch: AnalysedBatch | None = None
) -> list[KeywordDoc]:
    texts = _neighbour_texts(catalog, rows)
    analysed: dict[str, str] = {}  # text → its words: each text of the batch and its neighbours analysed once

    def words_of(text: str) -> str:
        words = analysed.get(text)
        if words is None:
            words = analysed[text] = keyword.analysed(text)
        return words

    docs = []
    for row in rows:
        text, call = split_call(row["text"], row["kind"])
        words = words_of(text)
        context = None  # the text's words alone (the index's fallback), for a unit that is not a message
        if row["kind"] == "transcript" and row["session_key"]:
            key, seq = row["session_key"], int(row["seq"])
            near = (texts.get((key, seq + d)) for d in range(-CONTEXT_WINDOW, CONTEXT_WINDOW + 1))
            context = " ".join([w for w in (words_of(t) for t in near if t) if w])
        docs.append(_keyword_doc(row, text, words, context, call))
    if analysed_batch is not None and rows:
        analysed_batch(rows, words_of)
    return docs


def _keyword_doc(row: sqlite3.Row, text: str, words: str, context: str | None, call: str) -> KeywordDoc:
    return KeywordDoc(
        unit_id=int(row["id"]),
        file_id=int(row["file_id"]),
        kind=row["kind"],
        format=row["format"] or "",
        session_key=row["session_key"] or "",
        role=row["role"] or "",
        ts=int(row["ts"]) if row["ts"] is not None and abs(row["ts"]) < _KEYWORD_TS_LIMIT else -1,
        text=text,
        words=words,
        context_words=context,
        call=call,
    )
