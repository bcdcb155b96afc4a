"""The index's vocabulary: each distinct content word (by its stem) with one surface form and, once the writer has
embedded it, that form's vector and its nearest words in meaning (`near`, JSON [[stem, cosine], …], best first).
Query expansion reads `near` (term_expansion.py); vocabulary.py fills all of it.

Beside them, how often the units held hold each surface form of a stem (`word_forms`), from which the word's one
surface form is chosen, and the texts of the units deleted since the writer last counted (`words_leaving`, kept by a
trigger on `units`, so every path that deletes units is counted out)."""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence

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

    def count_word_forms(
        self,
        uses: Mapping[tuple[str, str], int],
        *,
        choose: Callable[[list[str]], str],
        counted_leaving: int | None = None,
    ) -> int:
        """Add `uses` ((stem, surface) -> occurrences, negative for texts that left) to the forms' counts, forget
        the texts of `words_leaving` up to row `counted_leaving` (the ones `uses` counted out), and give each stem
        touched the surface form `choose` picks among the forms still held: a new stem is recorded (its vector made
        later, NULL until then); a stem whose form changes loses its vector and its nearest words, and the words
        that listed it are linked again (vocabulary.link_words). A stem no form is held of keeps its row (until
        vocabulary.drop_unheld_words). Returns how many stems changed form, all in one transaction."""
        stems = sorted({stem for stem, _ in uses})
        with self.transaction() as db:
            db.executemany(
                "INSERT INTO word_forms (stem, surface, uses) VALUES (?, ?, ?)"
                " ON CONFLICT (stem, surface) DO UPDATE SET uses = uses + excluded.uses",
                [(stem, surface, n) for (stem, surface), n in uses.items() if n],
            )
            if counted_leaving is not None:
                db.execute("DELETE FROM words_leaving WHERE rowid <= ?", (counted_leaving,))
            held: dict[str, list[str]] = {}
            recorded: dict[str, tuple[str, bool]] = {}
            for part in _parts(stems):
                marks = ",".join("?" * len(part))
                db.execute(f"DELETE FROM word_forms WHERE uses <= 0 AND stem IN ({marks})", part)
                rows = db.execute(f"SELECT stem, surface FROM word_forms WHERE stem IN ({marks})", part)
                for stem, surface in rows:
                    held.setdefault(str(stem), []).append(str(surface))
                rows = db.execute(f"SELECT stem, surface, vec IS NOT NULL FROM words WHERE stem IN ({marks})", part)
                recorded.update((str(stem), (str(surface), bool(embedded))) for stem, surface, embedded in rows)
            chosen = {stem: choose(forms) for stem, forms in held.items()}
            new = [(stem, surface) for stem, surface in chosen.items() if stem not in recorded]
            moved = [
                (surface, stem) for stem, surface in chosen.items() if stem in recorded and recorded[stem][0] != surface
            ]
            db.executemany("INSERT INTO words (stem, surface) VALUES (?, ?)", new)
            db.executemany(
                "UPDATE words SET surface = ?, vec = NULL, near = NULL, near_floor = NULL WHERE stem = ?", moved
            )
            embedded = {stem for _, stem in moved if recorded[stem][1]}
            if embedded:  # their vectors are made again: the lists that hold them hold a cosine of the old one
                self._unlink_lists_holding(db, embedded)
        return len(moved)

    def leaving_texts(self, after: int, limit: int) -> list[tuple[int, str, str]]:
        """(row, text, kind) of up to `limit` deleted units' texts not counted out yet, with rows above `after`."""
        rows = self.db.execute(
            "SELECT rowid, plain(text), kind FROM words_leaving WHERE rowid > ? ORDER BY rowid LIMIT ?", (after, limit)
        )
        return [(int(row), str(text), str(kind)) for row, text, kind in rows]

    def forget_word_forms(self) -> None:
        """Drop every form's count and every deleted text not counted out, and every list of nearest words: the forms
        are counted again from the units held and the words linked again, as a fresh build links them
        (vocabulary.backfill_words: the vocabulary's VERSION changed). A word whose form stays keeps its vector."""
        with self.transaction() as db:
            db.execute("DELETE FROM word_forms")
            db.execute("DELETE FROM words_leaving")
            db.execute("UPDATE words SET near = NULL, near_floor = NULL WHERE near IS NOT NULL")
            self.set_meta(db, NEAR_KEY, uuid.uuid4().hex)

    def surfaces(self) -> dict[str, str]:
        """Every recorded stem's surface form."""
        return {str(stem): str(surface) for stem, surface in self.db.execute("SELECT stem, surface FROM words")}

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

    def stems_without_forms(self) -> list[str]:
        """The recorded stems no unit held holds a form of (their units deleted)."""
        sql = "SELECT stem FROM words WHERE NOT EXISTS (SELECT 1 FROM word_forms f WHERE f.stem = words.stem)"
        return [str(stem) for (stem,) in self.db.execute(sql)]

    def drop_words(self, stems: Iterable[str]) -> int:
        """Forget `stems`, and the nearest-word lists that held one of them: those words are linked again
        (vocabulary.link_words), their next nearest words taking the places. Returns how many lists were dropped."""
        gone = set(stems)
        if not gone:
            return 0
        with self.transaction() as db:
            db.executemany("DELETE FROM words WHERE stem = ?", [(stem,) for stem in gone])
            db.executemany("DELETE FROM word_forms WHERE stem = ?", [(stem,) for stem in gone])
            return self._unlink_lists_holding(db, gone)

    def _unlink_lists_holding(self, db: sqlite3.Connection, stems: set[str]) -> int:
        """Drop the nearest-word lists that hold one of `stems` (to be linked again) and tell readers that lists
        changed; returns how many were dropped. Reads every list: called for a batch of stems at a time."""
        rows = db.execute("SELECT stem, near FROM words WHERE near IS NOT NULL").fetchall()
        stale = [(stem,) for stem, near in rows if stem not in stems and any(n in stems for n, _ in json.loads(near))]
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

    def unit_texts_after(self, after_id: int, limit: int) -> list[tuple[int, str, str]]:
        """(id, text, kind) of up to `limit` units with ids above `after_id`, by id."""
        sql = "SELECT id, text, kind FROM plain_units WHERE id > ? ORDER BY id LIMIT ?"
        return [(int(unit_id), str(text), str(kind)) for unit_id, text, kind in self.db.execute(sql, (after_id, limit))]


def _parts(items: Sequence[str], size: int = 500) -> Iterable[list[str]]:
    """`items` in lists of at most `size`: the most one statement's placeholders hold here."""
    for start in range(0, len(items), size):
        yield list(items[start : start + size])
