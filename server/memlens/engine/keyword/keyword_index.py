"""BM25 keyword index over search units, in tantivy: Unicode words, lowercase, diacritics folded, English stems
("hiking" finds "hikes"; stop words are dropped from a query before stemming), phrases.

Fields beside the words (`text`): `ident` (identifiers whole and by parts, see identifiers.py), `cjk` (bigrams of
Chinese/Japanese/Korean runs, so substrings match) and `context` (the words of a transcript message and its
neighbours, ±2 in its session: an answer often lacks the words its question used)."""

from __future__ import annotations

import json
import logging
import re
import shutil
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import tantivy

from memlens.engine.filters import SearchFilters
from memlens.engine.keyword import acronyms, compounds, name_forms
from memlens.engine.keyword.identifiers import cjk_field, identifier_terms
from memlens.engine.keyword.keyword_query import QueryBuilder
from memlens.engine.keyword.linked_view import LinkedView
from memlens.engine.keyword.parsed_query import PHRASE, ParsedQuery, parse_words
from memlens.engine.keyword.stop_words import STOP_WORDS
from memlens.errors import IndexNotReady, IndexUnavailable, environmental_cause, what_to_do

log = logging.getLogger(__name__)

ANALYZER = "memlens_words"
SPACED = "memlens_spaced"
GENERATION_FILE = "memlens-generation"
SCHEMA_FILE = "memlens-schema"
COMPACTED_FILE = "memlens-compacted"  # how many documents the index held when it was last written afresh
SCHEMA_VERSION = 4  # bump on any field or tokenizer change (3: English stems; 4: `call`): older indexes are rebuilt
CONTEXT_WINDOW = 2
WRITER_HEAP = 64_000_000  # bytes: what one writer may buffer before it flushes a segment
# A write afresh (a compaction or a rebuild) buffers up to this much, so an index of up to about 300k units comes out
# as one segment (150k units: peak RSS 168 MB against 117, the same CPU; with WRITER_HEAP they came out as two, and the
# message field's search cost 0.43 ms instead of 0.39). tantivy takes its buffer as it fills it: a small index costs
# no more.
REWRITE_HEAP = 256_000_000
# Compaction (see `needs_compaction`): tantivy-py cannot merge segments on request, and tantivy's own merge policy
# leaves up to seven segments of similar size alone, so an index built by many small commits (a first sync) keeps five
# or six large segments for good: each search visits every one. Written afresh it has one (REWRITE_HEAP).
COMPACT_MIN_DOCS = 50_000  # below this the segments are small and a search over them is cheap
COMPACT_MIN_SEGMENTS = 4
COMPACT_GROWTH = 1.5  # written afresh again only once the index has grown by half: its cost stays linear overall
# A deleted document stays in every word's document frequency (and in BM25's document count) until tantivy merges
# its segment away, which it may never do: an index whose files changed or left would score, and tell absent words,
# unlike a fresh build of what it holds. Written afresh once deleted documents are this share of the live ones: a
# rewrite of N documents every DELETED_SHARE × N deletions costs each deletion 1 / DELETED_SHARE documents written
# (5 here, as a merge policy's deletes allowance of a fifth does), where 2 % cost 50 and put a whole rewrite (minutes of
# CPU at a million messages) in a sync every few days of SpecStory exports rewritten whole
DELETED_SHARE = 0.2
MAX_STEMS = 200_000  # distinct words whose stems `analysed` keeps (_Stems)
CANCEL_EVERY = 1_000  # documents between checks of the cancel event while writing


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
    context: str = ""  # the text of this message and its neighbours (transcripts only)
    # the text's and the context's words as `KeywordIndex.analysed` gives them, when the caller has them (the
    # writer's documents, keyword_docs.py: each neighbour's text is analysed once, not once per window it is in)
    words: str | None = None
    context_words: str | None = None
    call: str = ""  # the call a tool output's header names (sources/tool_output.split_call), kept out of `text`


def _analyzer(*, stem: bool = True) -> tantivy.TextAnalyzer:
    builder = (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
    )
    if stem:  # +3.2 R@5 on the LoCoMo tune split
        builder = builder.filter(_stemmer())
    return builder.build()


def _stemmer() -> tantivy.Filter:
    return tantivy.Filter.stemmer("english")


def _analysed_words() -> tantivy.TextAnalyzer:
    """What tantivy splits the `text`, `context` and `call` fields with: words `_analyzer()` already gave, one space
    between each two. No such word holds a space or is empty (tests/test_analysed_words.py tries every character), so
    the split gives back those words at their positions: the terms and positions `_analyzer()` gives the raw text."""
    return tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build()


class _Stems(dict[str, str]):
    """A lowercased, folded word → its English stem, worked out once per distinct word: a text's words repeat
    across texts, and stemming each occurrence again was a large share of analysing it (bench/RESULTS.md, cold
    indexing). The stemmer looks at one word at a time, so the words are those `_analyzer()` gives. Emptied when it
    holds MAX_STEMS words (a few tens of MB)."""

    def __init__(self) -> None:
        super().__init__()
        self._stemmer = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.raw()).filter(_stemmer()).build()

    def __missing__(self, word: str) -> str:
        if len(self) >= MAX_STEMS:
            self.clear()
        stem = self[word] = "".join(self._stemmer.analyze(word))
        return stem


def _spaced() -> tantivy.TextAnalyzer:
    return tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).filter(tantivy.Filter.lowercase()).build()


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_integer_field("unit_id", stored=True, indexed=True, fast=True)
    builder.add_integer_field("file_id", stored=False, indexed=True)
    for raw in ("kind", "format", "session_key", "role"):
        builder.add_text_field(raw, stored=False, tokenizer_name="raw")
    builder.add_integer_field("ts", stored=False, indexed=True, fast=True)
    builder.add_text_field("text", stored=False, tokenizer_name=ANALYZER, index_option="position")
    builder.add_text_field("ident", stored=False, tokenizer_name=SPACED, index_option="freq")
    builder.add_text_field("cjk", stored=False, tokenizer_name=SPACED, index_option="position")
    builder.add_text_field("context", stored=False, tokenizer_name=ANALYZER, index_option="position")
    builder.add_text_field("call", stored=False, tokenizer_name=ANALYZER, index_option="freq")
    return builder.build()


class KeywordIndex:
    """A tantivy index in `folder`. One process writes through `write()`; any number read. Only the writer
    (`writable`) creates, wipes or rebuilds the folder: a reader that finds it missing, half-made, unreadable or of
    another schema raises `IndexNotReady` and changes nothing."""

    def __init__(
        self, folder: Path, *, writable: bool = True, read_only_folder: bool = False, stand_in: bool = False
    ) -> None:
        """`read_only_folder` (a reader's): the index folder cannot be written, and tantivy cannot open an index
        without writing its lock file: it is opened through links in a folder of this user's (linked_view.py), and
        where that fails it is an empty one in memory, and `unopened` says why. `stand_in` (a reader's): one the
        writer is still making or rebuilding is an empty one in memory too, and `unready` says what was found (for
        `stats`, which answers from the catalog), where it would raise."""
        self.folder = folder
        self.writable = writable
        self.read_only_folder = read_only_folder and not writable
        self.stand_in = stand_in and not writable
        self.unopened: str | None = None
        self._view: LinkedView | None = None  # how a folder that cannot be written was opened
        self.unready: str | None = None
        self._analyzer = _analyzer()
        self._unstemmed = _analyzer(stem=False)  # to find stop words before stemming ("does" is not "doe")
        self._stems = _Stems()
        # the last text's content words, unstemmed and stemmed (None until asked: the writer's vocabulary asks only for
        # the unstemmed): reading a query asks for both of the same text; swapped whole, so a thread never sees half
        # of another's
        self._content: tuple[str, tuple[str, ...], tuple[str, ...] | None] = ("", (), None)
        self.queries = QueryBuilder(self)  # how a query's text becomes tantivy queries (keyword_query.py)
        self._open()

    def _open(self) -> None:
        try:
            self._open_or_recreate()
        except OSError as exc:
            cause = environmental_cause(exc)
            if cause is None:
                raise
            raise IndexUnavailable(f"cannot open the index at {self.folder}: {cause}; {what_to_do(cause)}") from exc

    def _open_or_recreate(self) -> None:
        self.schema = _schema()
        if not self.writable:
            try:
                self._open_as_reader()
            except IndexNotReady as exc:
                if not self.stand_in:
                    raise
                self.index, self.unready = tantivy.Index(self.schema), exc.part
                self._register_tokenizers()
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        if self._schema_version() != SCHEMA_VERSION:  # older fields: start afresh, the catalog rebuilds it
            if any(p.name != SCHEMA_FILE for p in self.folder.iterdir()):
                log.info("keyword index at %s has another schema; rebuilding it", self.folder)
            self._wipe()
            (self.folder / SCHEMA_FILE).write_text(str(SCHEMA_VERSION))
        try:
            self.index = tantivy.Index(self.schema, path=str(self.folder), reuse=True)
        except Exception as exc:  # damaged or from an older schema: start afresh, the catalog rebuilds it
            cause = environmental_cause(exc)
            if cause is not None:  # a disk or a permission problem damaged nothing: never wipe for it
                raise IndexUnavailable(f"cannot open the index at {self.folder}: {cause}; {what_to_do(cause)}") from exc
            log.warning("keyword index at %s is unreadable (%s); recreating it", self.folder, exc)
            self._wipe()
            self.index = tantivy.Index(self.schema, path=str(self.folder), reuse=False)
        self._register_tokenizers()

    def _open_as_reader(self) -> None:
        """Open the index the writer made, as it is (tantivy's `open` makes no index where there is none)."""
        try:  # a folder this user may not read is said as such (`_open`), not as one being made
            version = (self.folder / SCHEMA_FILE).read_text().strip()
        except FileNotFoundError:
            raise IndexNotReady("its keyword index is being created") from None
        if version != str(SCHEMA_VERSION):
            raise IndexNotReady(f"its keyword index is being rebuilt (schema {version or 'unwritten'})")
        try:
            self.index = tantivy.Index.open(str(self.folder))
        except Exception as exc:
            cause = environmental_cause(exc)
            if cause is None:
                raise IndexNotReady(f"its keyword index is half-made or unreadable ({exc})") from exc
            if not self.read_only_folder:
                raise IndexUnavailable(f"cannot open the index at {self.folder}: {cause}; {what_to_do(cause)}") from exc
            self.index = self._open_through_links(cause)
        self._register_tokenizers()

    def _open_through_links(self, cause: str) -> tantivy.Index:
        """tantivy writes its lock file to open an index, which a folder that cannot be written refuses: open it
        through a folder of links (linked_view.py), else hold nothing (the catalog and the vectors still answer)."""
        try:
            self._view = LinkedView(self.folder)
            return self._view.open()
        except Exception as exc:
            log.warning(
                "cannot open the keyword index at %s through links (%s); searching by meaning only", self.folder, exc
            )
            self.unopened = cause
            return tantivy.Index(self.schema)

    def close(self) -> None:
        """Remove the folder of links a folder that cannot be written was opened through (the index's files stay
        mapped while anything still reads them)."""
        if self._view is not None:
            self._view.close()

    def _register_tokenizers(self) -> None:
        # tokenizers are not stored with the index: register on every open. The `text` and `context` fields are
        # handed their words analysed (`write`), so tantivy only splits them at spaces: a message's words are
        # analysed once, where tantivy would analyse them again in each of the five context windows they are in.
        # No search asks this tokenizer (queries are made of terms analysed in Python, `tokens`), and an index
        # written with `_analyzer()` by an older version holds the same terms at the same positions.
        self.index.register_tokenizer(ANALYZER, _analysed_words())
        self.index.register_tokenizer(SPACED, _spaced())

    def _schema_version(self) -> int:
        return self._read_number(SCHEMA_FILE, -1)

    def _wipe(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True, exist_ok=True)

    # -- generation bookkeeping: which catalog generation the last commit reflects ------------------------

    def generation(self) -> int:
        return self._read_number(GENERATION_FILE, -1)

    def _set_generation(self, generation: int) -> None:
        self._write_number(GENERATION_FILE, generation)

    def _read_number(self, name: str, missing: int) -> int:
        """A number this class keeps beside the index; `missing` when the file is absent or unreadable."""
        try:
            return int((self.folder / name).read_text().strip())
        except (OSError, ValueError):
            return missing

    def _write_number(self, name: str, value: int) -> None:
        tmp = self.folder / (name + ".tmp")
        tmp.write_text(str(value))
        tmp.replace(self.folder / name)

    # -- compaction ---------------------------------------------------------------------------------------

    def needs_compaction(self) -> bool:
        """Whether writing the index afresh (`write(..., clear=True)`, one commit) is due: its deleted documents are
        DELETED_SHARE of the live ones or more (in an index of under 5 documents, any one), or it is worth its cost:
        it holds COMPACT_MIN_DOCS documents or more in COMPACT_MIN_SEGMENTS segments or more, and has grown by
        COMPACT_GROWTH since it was last written afresh (so appends, which add small segments, never make it rewrite
        again and again). Measured at 150k units: twelve segments (five large) cost a keyword search about 0.45 ms of
        CPU more than two; rewriting them costs about 17 s of CPU, once."""
        if self.deleted_docs() >= max(1.0, DELETED_SHARE * self.num_docs()):
            return True
        return self.num_segments() >= COMPACT_MIN_SEGMENTS and self.rewrite_due(self.num_docs())

    def deleted_docs(self) -> int:
        """Deleted documents tantivy still counts in its statistics (until a merge drops them), from the segment
        list of its last commit (0 when it cannot be read)."""
        try:
            meta = json.loads((self.folder / "meta.json").read_text(encoding="utf-8"))
            return sum(int((segment.get("deletes") or {}).get("num_deleted_docs", 0)) for segment in meta["segments"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return 0

    def rewrite_due(self, docs: int) -> bool:
        """Whether an index of `docs` documents is large enough, and grown enough since it was last written afresh,
        for compaction to write it afresh once its segments have piled up."""
        return docs >= max(COMPACT_MIN_DOCS, COMPACT_GROWTH * self._read_number(COMPACTED_FILE, 0))

    # -- writing ------------------------------------------------------------------------------------------

    def write(
        self,
        generation: int,
        add: Iterable[KeywordDoc] = (),
        delete_units: Iterable[int] = (),
        clear: bool = False,
        cancel: threading.Event | None = None,
    ) -> bool:
        """Apply deletions and additions in one commit, then record the catalog generation it reflects. With
        `cancel` set while adding, nothing is written (the index stays as it was) and False is returned."""
        writer = self.index.writer(heap_size=REWRITE_HEAP if clear else WRITER_HEAP, num_threads=1)
        try:
            if clear:
                writer.delete_all_documents()
            for unit_id in delete_units:
                writer.delete_documents_by_term("unit_id", unit_id)
            for count, doc in enumerate(add, 1):
                if cancel is not None and count % CANCEL_EVERY == 0 and cancel.is_set():
                    writer.rollback()
                    return False
                words = self.analysed(doc.text) if doc.words is None else doc.words
                if doc.context_words is not None:
                    context = doc.context_words or words
                else:
                    context = self.analysed(doc.context) if doc.context else words
                writer.add_document(
                    tantivy.Document(
                        unit_id=doc.unit_id,
                        file_id=doc.file_id,
                        kind=doc.kind,
                        format=doc.format,
                        session_key=doc.session_key,
                        role=doc.role,
                        ts=doc.ts,
                        text=words,
                        ident=" ".join(identifier_terms(doc.text)),
                        cjk=cjk_field(doc.text),
                        context=context,
                        call=self.analysed(doc.call) if doc.call else "",
                    )
                )
            writer.commit()
            writer.wait_merging_threads()
        except BaseException:
            writer.rollback()
            raise
        self.index.reload()
        self._set_generation(generation)
        if clear:
            self._write_number(COMPACTED_FILE, self.num_docs())
        return True

    def reset(self) -> None:
        """Drop everything (used before a rebuild from the catalog)."""
        self._wipe()
        self._open()

    # -- reading ------------------------------------------------------------------------------------------

    def tokens(self, text: str) -> list[str]:
        words: list[str] = self._analyzer.analyze(text)  # a new list on every call
        return words

    def analysed(self, text: str) -> str:
        """The text's words as the `text` and `context` fields are handed them (`_analysed_words`): the words of
        `_analyzer()`, split unstemmed and stemmed once per distinct word (`_Stems`)."""
        return " ".join(map(self._stems.__getitem__, self._unstemmed.analyze(text)))

    def unstemmed_words(self, text: str) -> list[str]:
        """The text's words lowercased and folded, not stemmed, stop words kept."""
        words: list[str] = self._unstemmed.analyze(text)
        return words

    def content_words(self, text: str) -> list[str]:
        """The query's distinct words without stop words (all of them when only stop words are left), stemmed."""
        unstemmed, stemmed = self._content_words(text)
        if stemmed is None:
            stemmed = tuple(dict.fromkeys(s for w in unstemmed for s in self._analyzer.analyze(w)))
            self._content = (text, unstemmed, stemmed)
        return list(stemmed)

    def surface_words(self, text: str) -> list[str]:
        """A text's distinct words without stop words (all of them when only stop words are left), unstemmed: what
        query expansion and the writer's vocabulary embed (a stem such as "queu" embeds to noise)."""
        return list(self._content_words(text)[0])

    def _content_words(self, text: str) -> tuple[tuple[str, ...], tuple[str, ...] | None]:
        """(unstemmed, stemmed or None when not worked out yet) content words of `text`; the last text's are kept."""
        memo = self._content
        if memo[0] == text:
            return memo[1], memo[2]
        words = list(dict.fromkeys(self._unstemmed.analyze(PHRASE.sub(" ", text))))
        unstemmed = tuple(w for w in words if w not in STOP_WORDS) or tuple(words)
        self._content = (text, unstemmed, None)
        return unstemmed, None

    def acronyms(self, text: str) -> tuple[acronyms.Acronym, ...]:
        """The acronyms in this index that runs of the query's words stand for (see acronyms.py), then the words it
        writes joined that pairs of them do (compounds.py)."""
        doc_freq, phrase_freq = self._counts()
        split, stem = self._unstemmed.analyze, self._analyzer.analyze
        found = acronyms.find(text, split=split, stem=stem, doc_freq=doc_freq)
        taken = {w for a in found for w in a.words}
        joined = compounds.find(text, split=split, stem=stem, doc_freq=doc_freq, phrase_freq=phrase_freq, taken=taken)
        return found + joined

    def spelled_apart(self, text: str) -> str:
        """`text` with each word no document holds written as the two words this index holds in a row instead
        ("deadletter" → "dead letter": compounds.spelled_apart), and each camelCase name no document holds in the
        form this index holds its parts in a row (`reviewHeartbeat` → `review_heartbeat`: name_forms.written_apart)."""
        doc_freq, phrase_freq = self._counts()
        stem = self._analyzer.analyze
        text = compounds.spelled_apart(text, stem=stem, doc_freq=doc_freq, phrase_freq=phrase_freq)
        return name_forms.written_apart(
            text,
            stem=stem,
            doc_freq=doc_freq,
            phrase_freq=phrase_freq,
            part_freq=lambda part: self.part_frequencies([part])[0],
            holds_longer=self.holds_longer,
        )

    def _counts(self) -> tuple[Callable[[str], int], Callable[[list[str]], int]]:
        """(documents holding an analysed term, documents holding analysed words in a row) in the `text` field, over
        the last commit."""
        searcher = self.index.searcher()

        def doc_freq(term: str) -> int:
            return int(searcher.doc_freq("text", term))

        def phrase_freq(words: list[str]) -> int:
            phrase = tantivy.Query.phrase_query(self.schema, "text", list[str | tuple[int, str]](words))
            found = searcher.search(phrase, 1, count=True)
            return int(getattr(found, "count", 0) or 0)  # tantivy-py's type stubs leave `count` out

        return doc_freq, phrase_freq

    def parse(self, text: str, filters: SearchFilters | None = None) -> ParsedQuery:
        """The query's words as this index analyses them (no dates: ranking/query_reading.py adds those)."""
        return parse_words(text, self, filters=filters)

    def search(
        self,
        query: ParsedQuery,
        limit: int,
        field: str = "text",
        *,
        expansions: Sequence[tuple[str, float]] = (),
        within: Sequence[int] | None = None,
    ) -> list[tuple[int, float]]:
        """(unit_id, bm25) pairs, best first. Readers see the last commit; they never wait for the writer.

        `within`: only these units are scored (BM25's statistics stay the whole index's, so each one's score is the
        one it has in an unrestricted search). tantivy intersects from the shortest list, the units', so a search
        costs what they hold rather than every document holding a query word."""
        built = self.queries.build(query, field, expansions=expansions)
        if built is None or limit <= 0 or (within is not None and not within):
            return []
        if within is not None:
            # scored 0: a term set scores its matches 1, which would lift every score
            units = tantivy.Query.const_score_query(
                tantivy.Query.term_set_query(self.schema, "unit_id", sorted(within)), 0.0
            )
            built = tantivy.Query.boolean_query([(tantivy.Occur.Must, built), (tantivy.Occur.Must, units)])
        searcher = self.index.searcher()
        result = searcher.search(built, limit, count=False)
        # unit ids from the fast field (a column read), not by loading each hit's stored document
        unit_ids = searcher.fast_field_values("unit_id", [address for _, address in result.hits])
        pairs = zip(result.hits, unit_ids, strict=True)
        return [(int(unit_id), float(score)) for (score, _), unit_id in pairs if unit_id is not None]

    def document_frequencies(self, words: list[str]) -> tuple[int, list[int]]:
        """(documents, how many contain each word) in the `text` field: for idf-weighted query coverage."""
        searcher = self.index.searcher()
        return int(searcher.num_docs), [int(searcher.doc_freq("text", w)) for w in words]

    def part_frequencies(self, words: list[str]) -> list[int]:
        """How many documents hold each word (unstemmed) in the `ident` field: as a name's part (`heartbeat` of
        `reviewHeartbeatInterval`, which the `text` field keeps whole), a name's segment or a name whole."""
        searcher = self.index.searcher()
        return [int(searcher.doc_freq("ident", w)) for w in words]

    def holds_longer(self, stem: str) -> bool:
        """Whether a longer word of the `text` field starts with `stem` (an analysed word): the joined name
        `reviewheartbeatinterv` for `reviewheartbeat`. A prefix: the term dictionary is walked from it, not read
        through (a word held inside another, as `heartbeatinterv` is, would be: 215 ms CPU over a million terms)."""
        pattern = re.escape(stem) + "[a-z0-9]+"
        found = self.index.searcher().search(tantivy.Query.regex_query(self.schema, "text", pattern), 1)
        return bool(found.hits)

    def num_docs(self) -> int:
        return int(self.index.searcher().num_docs)

    def num_segments(self) -> int:
        """Segments a search visits: each costs a term lookup per query word (benchmarks report it)."""
        return int(self.index.searcher().num_segments)
