"""Keyword search: the tantivy BM25 index over search units (its documents, how a query's text becomes its queries),
the word analysis it shares with the re-scoring pass (identifiers, CJK bigrams, acronyms, stop words), and query
expansion by meaning (the writer's word lists in vocabulary.py, looked up by term_expansion.py)."""
