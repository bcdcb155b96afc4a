"""The index's vocabulary: each distinct content word (by its stem) with one surface form and, once the writer has
embedded it, that form's vector. What query expansion reads (term_expansion.py); filled by vocabulary.py."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence

from memlens.engine.catalog.connection import CatalogConnection

TOKEN_KEY = "vocabulary_token"  # changes whenever stored word vectors are dropped: readers start over
MODEL_KEY = "vocabulary_model"  # the model the stored word vectors came from


class WordTables(CatalogConnection):
    """Words to embed, their vectors, and what a reader needs to follow them."""

    def add_words(self, words: Iterable[tuple[str, str]]) -> None:
        """Record (stem, surface form) pairs not recorded yet; their vectors are made later (NULL until then)."""
        with self.transaction() as db:
            db.executemany("INSERT OR IGNORE INTO words (stem, surface) VALUES (?, ?)", words)

    def words_without_vectors(self, limit: int) -> list[tuple[str, str]]:
        """(stem, surface) of up to `limit` words still to embed."""
        rows = self.db.execute("SELECT stem, surface FROM words WHERE vec IS NULL LIMIT ?", (limit,))
        return [(str(stem), str(surface)) for stem, surface in rows]

    def count_words_without_vectors(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM words WHERE vec IS NULL").fetchone()[0])

    def store_word_vectors(self, rows: Sequence[tuple[str, str, bytes]]) -> None:
        """Store (stem, surface, vector) rows. Each is written again as a new row, so a reader that has read up to
        some row id finds every vector stored since by reading on from it."""
        with self.transaction() as db:
            db.executemany("INSERT OR REPLACE INTO words (stem, surface, vec) VALUES (?, ?, ?)", rows)

    def word_vectors_after(self, row_id: int) -> list[tuple[int, str, bytes]]:
        """(row id, stem, vector) of the embedded words stored after row `row_id`, in row order."""
        rows = self.db.execute(
            "SELECT rowid, stem, vec FROM words WHERE rowid > ? AND vec IS NOT NULL ORDER BY rowid", (row_id,)
        )
        return [(int(r), str(stem), bytes(vec)) for r, stem, vec in rows]

    def vocabulary_state(self) -> tuple[str, int]:
        """(the token of the stored word vectors, the last row id): a reader that saw both has every vector."""
        token, last = self.db.execute(
            "SELECT (SELECT value FROM meta WHERE key = ?), (SELECT MAX(rowid) FROM words)", (TOKEN_KEY,)
        ).fetchone()
        return str(token or ""), int(last or 0)

    def vocabulary_model(self) -> str | None:
        return self.get_meta(MODEL_KEY)

    def forget_word_vectors(self, model: str) -> None:
        """Drop every word's vector (to be made again by `model`)."""
        with self.transaction() as db:
            db.execute("UPDATE words SET vec = NULL WHERE vec IS NOT NULL")
            self.set_meta(db, MODEL_KEY, model)
            self.set_meta(db, TOKEN_KEY, uuid.uuid4().hex)

    def unit_texts_after(self, after_id: int, limit: int) -> list[tuple[int, str]]:
        """(id, text) of up to `limit` units with ids above `after_id`, by id."""
        rows = self.db.execute("SELECT id, text FROM units WHERE id > ? ORDER BY id LIMIT ?", (after_id, limit))
        return [(int(unit_id), str(text)) for unit_id, text in rows]
