"""The index's vocabulary: each distinct content word (by its stem) with one surface form and, once the writer has
embedded it, that form's vector and its nearest words in meaning (`near`, JSON [[stem, cosine], …], best first).
Query expansion reads `near` (term_expansion.py); vocabulary.py fills all of it."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Sequence

from memlens.engine.catalog.connection import CatalogConnection

TOKEN_KEY = "vocabulary_token"  # changes whenever stored word vectors are dropped: readers start over
MODEL_KEY = "vocabulary_model"  # the model the stored word vectors came from
NEAR_KEY = "vocabulary_near"  # changes whenever stored neighbour lists change: readers forget the ones they cached


VOCABULARY_KEYS = (TOKEN_KEY, NEAR_KEY)  # what vocabulary_state reads


def vocabulary_state(meta: dict[str, str | None]) -> tuple[str, str]:
    """`WordTables.vocabulary_state` from meta values read with VOCABULARY_KEYS among them."""
    return meta[TOKEN_KEY] or "", meta[NEAR_KEY] or ""


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

    def count_words_without_neighbours(self) -> int:
        """Words still to embed or, embedded, still without their nearest words."""
        return int(self.db.execute("SELECT COUNT(*) FROM words WHERE near IS NULL").fetchone()[0])

    def words_to_link(self) -> bool:
        """Whether an embedded word has no list of nearest words yet (`near` and `near_floor` are stored together,
        by store_neighbours): read through the partial index of those words, not the vocabulary."""
        sql = "SELECT EXISTS (SELECT 1 FROM words WHERE near IS NULL AND vec IS NOT NULL)"
        return bool(self.db.execute(sql).fetchone()[0])

    def embedded_words(self) -> list[tuple[str, bytes, float | None]]:
        """(stem, vector, near_floor) of every embedded word, in row order; the floor is None for a word not linked
        yet (no list)."""
        rows = self.db.execute(
            "SELECT stem, vec, CASE WHEN near IS NULL THEN NULL ELSE near_floor END FROM words "
            "WHERE vec IS NOT NULL ORDER BY rowid"
        )
        return [(str(stem), bytes(vec), None if floor is None else float(floor)) for stem, vec, floor in rows]

    def store_neighbours(self, lists: dict[str, tuple[list[tuple[str, float]], float]]) -> None:
        """Store each stem's (nearest words best first, floor) and tell readers that lists changed."""
        rows = [(json.dumps([[n, round(c, 4)] for n, c in near]), floor, stem) for stem, (near, floor) in lists.items()]
        with self.transaction() as db:
            db.executemany("UPDATE words SET near = ?, near_floor = ? WHERE stem = ?", rows)
            self.set_meta(db, NEAR_KEY, uuid.uuid4().hex)

    def word_neighbours(self, stems: Sequence[str]) -> dict[str, list[tuple[str, float]]]:
        """The stored nearest words of each of `stems` that has them (best first)."""
        if not stems:
            return {}
        found: dict[str, list[tuple[str, float]]] = {}
        for start in range(0, len(stems), 500):
            part = list(stems[start : start + 500])
            marks = ",".join("?" * len(part))
            rows = self.db.execute(f"SELECT stem, near FROM words WHERE near IS NOT NULL AND stem IN ({marks})", part)
            found.update((str(stem), [(str(n), float(c)) for n, c in json.loads(near)]) for stem, near in rows)
        return found

    def vocabulary_stems(self) -> list[str]:
        """Every recorded word's stem."""
        return [str(stem) for (stem,) in self.db.execute("SELECT stem FROM words")]

    def drop_words(self, stems: Iterable[str]) -> int:
        """Forget `stems`, and the nearest-word lists that held one of them: those words are linked again
        (vocabulary.link_words), their next nearest words taking the places. Returns how many lists were dropped."""
        gone = set(stems)
        if not gone:
            return 0
        with self.transaction() as db:
            rows = db.execute("SELECT stem, near FROM words WHERE near IS NOT NULL").fetchall()
            stale = [(stem,) for stem, near in rows if stem not in gone and any(n in gone for n, _ in json.loads(near))]
            db.executemany("DELETE FROM words WHERE stem = ?", [(stem,) for stem in gone])
            db.executemany("UPDATE words SET near = NULL, near_floor = NULL WHERE stem = ?", stale)
            self.set_meta(db, NEAR_KEY, uuid.uuid4().hex)
        return len(stale)

    def store_word_vectors(self, rows: Sequence[tuple[str, str, bytes]]) -> None:
        """Store (stem, surface, vector) rows; their nearest words are worked out afterwards (`near` NULL)."""
        with self.transaction() as db:
            db.executemany("INSERT OR REPLACE INTO words (stem, surface, vec) VALUES (?, ?, ?)", rows)

    def vocabulary_state(self) -> tuple[str, str]:
        """(the token of the stored word vectors, the token of the stored neighbour lists): a reader that cached
        lists under both still holds what the catalog holds."""
        return vocabulary_state(self.meta_values(VOCABULARY_KEYS))

    def vocabulary_model(self) -> str | None:
        return self.get_meta(MODEL_KEY)

    def forget_word_vectors(self, model: str) -> None:
        """Drop every word's vector (to be made again by `model`)."""
        with self.transaction() as db:
            db.execute("UPDATE words SET vec = NULL, near = NULL WHERE vec IS NOT NULL OR near IS NOT NULL")
            self.set_meta(db, MODEL_KEY, model)
            self.set_meta(db, TOKEN_KEY, uuid.uuid4().hex)

    def unit_texts_after(self, after_id: int, limit: int) -> list[tuple[int, str]]:
        """(id, text) of up to `limit` units with ids above `after_id`, by id."""
        rows = self.db.execute("SELECT id, text FROM plain_units WHERE id > ? ORDER BY id LIMIT ?", (after_id, limit))
        return [(int(unit_id), str(text)) for unit_id, text in rows]
