"""BM25 keyword index over search units, in tantivy: Unicode words, lowercase, diacritics folded, phrases."""

from __future__ import annotations

import logging
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import tantivy

from memlens.engine.filters import SearchFilters
from memlens.engine.stop_words import STOP_WORDS

log = logging.getLogger(__name__)

ANALYZER = "memlens_words"
GENERATION_FILE = "memlens-generation"
_PHRASE = re.compile(r'"([^"]+)"')


@dataclass(frozen=True, slots=True)
class KeywordDoc:
    """The fields of one search unit that tantivy indexes."""

    unit_id: int
    file_id: int
    kind: str
    format: str
    session_key: str
    role: str
    ts: int  # epoch seconds, -1 when unknown (never matches a time filter)
    text: str


def _analyzer() -> tantivy.TextAnalyzer:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .build()
    )


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_integer_field("unit_id", stored=True, indexed=True, fast=True)
    builder.add_integer_field("file_id", stored=False, indexed=True)
    for raw in ("kind", "format", "session_key", "role"):
        builder.add_text_field(raw, stored=False, tokenizer_name="raw")
    builder.add_integer_field("ts", stored=False, indexed=True, fast=True)
    builder.add_text_field("text", stored=False, tokenizer_name=ANALYZER, index_option="position")
    return builder.build()


class KeywordIndex:
    """A tantivy index in `folder`. One process writes through `write()`; any number read."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._analyzer = _analyzer()
        self._open()

    def _open(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.schema = _schema()
        try:
            self.index = tantivy.Index(self.schema, path=str(self.folder), reuse=True)
        except Exception as exc:  # damaged or from an older schema: start afresh, the catalog rebuilds it
            log.warning("keyword index at %s is unreadable (%s); recreating it", self.folder, exc)
            self._wipe()
            self.index = tantivy.Index(self.schema, path=str(self.folder), reuse=False)
        # tokenizers are not stored with the index: register on every open
        self.index.register_tokenizer(ANALYZER, self._analyzer)

    def _wipe(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True, exist_ok=True)

    # -- generation bookkeeping: which catalog generation the last commit reflects ------------------------

    def generation(self) -> int:
        try:
            return int((self.folder / GENERATION_FILE).read_text().strip())
        except (OSError, ValueError):
            return -1

    def _set_generation(self, generation: int) -> None:
        tmp = self.folder / (GENERATION_FILE + ".tmp")
        tmp.write_text(str(generation))
        tmp.replace(self.folder / GENERATION_FILE)

    # -- writing ------------------------------------------------------------------------------------------

    def write(
        self,
        generation: int,
        add: Iterable[KeywordDoc] = (),
        delete_units: Iterable[int] = (),
        clear: bool = False,
    ) -> None:
        """Apply deletions and additions in one commit, then record the catalog generation it reflects."""
        writer = self.index.writer(heap_size=64_000_000, num_threads=1)
        try:
            if clear:
                writer.delete_all_documents()
            for unit_id in delete_units:
                writer.delete_documents_by_term("unit_id", unit_id)
            for doc in add:
                writer.add_document(
                    tantivy.Document(
                        unit_id=doc.unit_id,
                        file_id=doc.file_id,
                        kind=doc.kind,
                        format=doc.format,
                        session_key=doc.session_key,
                        role=doc.role,
                        ts=doc.ts,
                        text=doc.text,
                    )
                )
            writer.commit()
            writer.wait_merging_threads()
        except BaseException:
            writer.rollback()
            raise
        self.index.reload()
        self._set_generation(generation)

    def reset(self) -> None:
        """Drop everything (used before a rebuild from the catalog)."""
        self._wipe()
        self._open()

    # -- reading ------------------------------------------------------------------------------------------

    def tokens(self, text: str) -> list[str]:
        return list(self._analyzer.analyze(text))

    def build_query(self, text: str, filters: SearchFilters | None = None) -> tantivy.Query | None:
        """Words are OR-ed (BM25 ranks by how many and how rare); each quoted phrase must match in order."""
        clauses: list[tuple[tantivy.Occur, tantivy.Query]] = []
        for phrase in _PHRASE.findall(text):
            words = self.tokens(phrase)
            if len(words) == 1:
                clauses.append((tantivy.Occur.Must, tantivy.Query.term_query(self.schema, "text", words[0])))
            elif words:
                clauses.append(
                    (
                        tantivy.Occur.Must,
                        tantivy.Query.phrase_query(self.schema, "text", list[str | tuple[int, str]](words)),
                    )
                )
        loose = _PHRASE.sub(" ", text)
        words = list(dict.fromkeys(self.tokens(loose)))
        content = [w for w in words if w not in STOP_WORDS]
        words = content or words  # a query of stop words alone still searches them
        if words:
            terms = [tantivy.Query.term_query(self.schema, "text", w) for w in words]
            should = tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in terms])
            occur = tantivy.Occur.Should if clauses else tantivy.Occur.Must
            clauses.append((occur, should))
        if not clauses:
            return None
        clauses.extend((tantivy.Occur.Must, q) for q in self._filter_queries(filters))
        return tantivy.Query.boolean_query(clauses)

    def _filter_queries(self, filters: SearchFilters | None) -> list[tantivy.Query]:
        if filters is None:
            return []
        queries = []
        for field, value in (
            ("kind", filters.kind),
            ("format", filters.format),
            ("session_key", filters.session),
            ("role", filters.role),
        ):
            if value:
                queries.append(tantivy.Query.term_query(self.schema, field, value))
        if filters.since is not None or filters.until is not None:
            queries.append(
                tantivy.Query.range_query(
                    self.schema,
                    "ts",
                    tantivy.FieldType.Integer,
                    int(filters.since) if filters.since is not None else 0,
                    int(filters.until) if filters.until is not None else None,
                )
            )
        return queries

    def search(self, text: str, limit: int, filters: SearchFilters | None = None) -> list[tuple[int, float]]:
        """(unit_id, bm25) pairs, best first. Readers see the last commit; they never wait for the writer."""
        query = self.build_query(text, filters)
        if query is None or limit <= 0:
            return []
        searcher = self.index.searcher()
        result = searcher.search(query, limit, count=False)
        hits: list[tuple[int, float]] = []
        for score, address in result.hits:
            unit_id = searcher.doc(address)["unit_id"][0]
            hits.append((int(unit_id), float(score)))
        return hits

    def num_docs(self) -> int:
        return int(self.index.searcher().num_docs)
