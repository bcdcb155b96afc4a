"""How a query's text becomes tantivy queries for the keyword index (keyword_index.py): its words OR-ed, quoted
phrases required, identifiers whole and by parts, CJK runs as bigram phrases, acronyms or their spelled-out runs,
the query expansion's words, and search filters as required terms and ranges.

Apart from the index because it is a concern of its own: the index opens, writes and searches; this decides what
is asked of it (the analysis of words stays with the index, which the writer and the re-scoring pass share)."""

from __future__ import annotations

from collections.abc import Sequence

import tantivy

from memlens.engine.filters import SearchFilters
from memlens.engine.keyword.identifiers import cjk_bigrams, cjk_runs, identifier_parts
from memlens.engine.keyword.parsed_query import Analysis, ParsedQuery

IDENTIFIER_BOOST = 3.0  # a whole identifier outweighs its parts


class QueryBuilder:
    """Builds the tantivy queries of one keyword index."""

    def __init__(self, index: Analysis) -> None:
        self.index = index

    def build(
        self, query: ParsedQuery, field: str = "text", *, expansions: Sequence[tuple[str, float]] = ()
    ) -> tantivy.Query | None:
        """Words are OR-ed (BM25 ranks by how many and how rare); each quoted phrase must match in order.

        With `field="text"`, identifiers in the query also match the `ident` field whole (boosted) and by their
        parts, and CJK runs match the `cjk` field as phrases of bigrams (substrings). `field="context"` searches
        the words of each message with its neighbours. A question asking what a command printed matches the `call`
        field too, in either (the call a tool output's header names, which `text` and `context` leave out).
        `expansions`: (analysed word, boost) pairs that match as optional words at that boost (term_expansion.py)."""
        clauses: list[tuple[tantivy.Occur, tantivy.Query]] = []
        for words in query.phrases:
            if len(words) == 1:
                clauses.append((tantivy.Occur.Must, self._word(field, words[0])))
            elif words:
                clauses.append(
                    (
                        tantivy.Occur.Must,
                        tantivy.Query.phrase_query(self.index.schema, field, list[str | tuple[int, str]](words)),
                    )
                )
        should = self.word_queries(query, field)
        if should:  # expansions widen the words asked, they never match alone
            should += [tantivy.Query.boost_query(self._term(field, word), boost) for word, boost in expansions]
        filtered = self._filters(query.filters)
        left_out = query.filters.without_kind if query.filters is not None else None
        if should and not clauses and not filtered:
            # words alone: the flat disjunction (same matches and scores as wrapping it in a required clause, and
            # tantivy scores a flat union faster: the two searches of a query take 18% less CPU), the kind a plain
            # query leaves out excluded beside it, not around it. Either way every document holding a query word is
            # scored: tantivy-py collects through a MultiCollector, so tantivy's top-k pruning (block-max WAND)
            # never runs; a top 20 costs what a top 80 does
            flat = [(tantivy.Occur.Should, q) for q in should]
            if left_out:
                flat.append((tantivy.Occur.MustNot, self._term("kind", left_out)))
            return tantivy.Query.boolean_query(flat)
        if should:
            occur = tantivy.Occur.Should if clauses else tantivy.Occur.Must
            clauses.append((occur, tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in should])))
        if not clauses:
            return None
        clauses.extend((tantivy.Occur.Must, q) for q in filtered)
        if left_out:
            clauses.append((tantivy.Occur.MustNot, self._term("kind", left_out)))
        return tantivy.Query.boolean_query(clauses)

    def _term(self, field: str, word: str) -> tantivy.Query:
        # freqs, not positions (tantivy-py's default): BM25 needs no positions, and a term query that asks for them
        # opens each matching term's positions too, which left 135 MB of the position files resident in a process
        # searching 980,000 messages (phrases still read them)
        return tantivy.Query.term_query(self.index.schema, field, word, index_option="freq")

    def _word(self, field: str, word: str) -> tantivy.Query:
        runs = cjk_runs(word) if field == "text" else []
        if runs and runs[0] == word and len(word) > 1:  # a CJK run: any substring of the text matches
            grams = cjk_bigrams(word)
            if len(grams) == 1:
                return self._term("cjk", grams[0])
            return tantivy.Query.phrase_query(self.index.schema, "cjk", list[str | tuple[int, str]](grams))
        return self._term(field, word)

    def word_queries(self, query: ParsedQuery, field: str) -> list[tantivy.Query]:
        """The optional (OR-ed) queries of the query's words outside quoted phrases, as `build` sends them."""
        words = query.loose_terms
        found = [a for a in query.loose_acronyms if a.term not in words]
        spelled = {w for a in found for w in a.words}
        queries = [self._word(field, w) for w in words if w not in spelled]
        for a in found:  # a run's words or its acronym, whichever scores more: a hit holding both counts once
            run = tantivy.Query.boolean_query([(tantivy.Occur.Should, self._word(field, w)) for w in a.words])
            queries.append(tantivy.Query.disjunction_max_query([run, self._word(field, a.term)]))
        if query.asks_output:  # "what did git status print": the call a tool output's header names is asked too
            queries += [self._term("call", w) for w in words]
        if field != "text":
            return queries
        # plain words also match the parts of camelCase identifiers (which the word field keeps whole), unstemmed
        surface = query.loose_surface
        queries += [tantivy.Query.boost_query(self._term("ident", w), 0.5) for w in surface]
        for name in query.identifiers:
            whole = self._term("ident", name)
            queries.append(tantivy.Query.boost_query(whole, IDENTIFIER_BOOST))
            parts = [p for p in dict.fromkeys(identifier_parts(name)) if p not in surface]
            queries += [self._term("ident", p) for p in parts]
        return queries

    def _filters(self, filters: SearchFilters | None) -> list[tantivy.Query]:
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
                queries.append(self._term(field, value))
        if filters.sessions is not None:  # a project's sessions (none: nothing matches)
            queries.append(tantivy.Query.term_set_query(self.index.schema, "session_key", sorted(filters.sessions)))
        if filters.since is not None or filters.until is not None:
            queries.append(
                tantivy.Query.range_query(
                    self.index.schema,
                    "ts",
                    tantivy.FieldType.Integer,
                    int(filters.since) if filters.since is not None else 0,
                    int(filters.until) if filters.until is not None else None,
                )
            )
        return queries
