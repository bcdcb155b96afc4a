"""A query as the ranking passes read it, without an index to parse it: its text, the words a test gives it, and the
flags the pass under test reads (verbatim.py's copies and codes, the learned ranker's query features)."""

from __future__ import annotations

from memlens.engine.keyword.parsed_query import ParsedQuery


def bare_query(
    text: str, *, words: tuple[str, ...] = (), technical: bool = False, error_like: bool = False
) -> ParsedQuery:
    """`text` as a query whose terms, surface words and tokens are `words`."""
    return ParsedQuery(
        text=text,
        phrases=(),
        loose_terms=words,
        loose_surface=words,
        loose_acronyms=(),
        identifiers=(),
        terms=words,
        acronyms=(),
        tokens=words,
        technical=technical,
        names_a_topic=True,
        literal=False,
        error_like=error_like,
    )
