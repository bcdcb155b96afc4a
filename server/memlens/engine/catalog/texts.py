"""The dictionaries the units' texts and words are compressed with, and the compression of the values stored plain
(compressed_text.py says how values are stored)."""

from __future__ import annotations

import random

from memlens.engine.catalog.connection import CatalogConnection

PLAIN_BELOW_KEY = "plain_texts_below"  # units with lower ids may still hold plain values; absent: none do


class TextTables(CatalogConnection):
    def know_dictionaries(self) -> int | None:
        """Take in the dictionaries another process stored since this one opened; the newest one's number."""
        newest = self.db.execute("SELECT MAX(id) FROM text_dictionaries").fetchone()[0]
        if newest is not None and newest != self.texts.newest:
            self.texts.refresh(self.db.execute("SELECT id, data FROM text_dictionaries"))
        return self.texts.newest

    def highest_unit_id(self) -> int:
        return int(self.db.execute("SELECT COALESCE(MAX(id), 0) FROM units").fetchone()[0])

    def text_samples(self, count: int, *, seed: int = 0) -> list[bytes]:
        """The texts and analysed words (UTF-8) of up to `count` units picked at random, to train a dictionary on.
        Picked by random ids, not `ORDER BY random()`, which would read every unit."""
        top = self.highest_unit_id()
        ids = random.Random(seed).sample(range(1, top + 1), min(count, top))
        samples: list[bytes] = []
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            sql = f"SELECT text, words FROM plain_units WHERE id IN ({','.join('?' * len(part))})"
            for text, words in self._tuples(sql, part):
                samples += [str(v).encode("utf-8", "surrogatepass") for v in (text, words) if v]
        return samples

    def store_dictionary(self, data: bytes) -> int:
        """Store a new dictionary; new values are encoded with it from now on, and the units already there are
        marked for `compress_plain_values`. Returns its number."""
        with self.transaction() as db:
            number = int(db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM text_dictionaries").fetchone()[0])
            if number > 255:  # a value names its dictionary in one byte
                raise ValueError("the catalog holds 255 text dictionaries already")
            db.execute("INSERT INTO text_dictionaries (id, data) VALUES (?, ?)", (number, data))
            self.set_meta(db, PLAIN_BELOW_KEY, str(self.highest_unit_id() + 1))
        self.texts.add(number, data)  # only once committed: a rolled-back number would be handed out again
        return number

    def compress_plain_values(self, limit: int) -> int:
        """Encode the texts and words stored plain among up to `limit` units, from the highest id marked down;
        returns how many units were looked at (0: none is left)."""
        if self.texts.newest is None:
            return 0
        with self.transaction() as db:
            below = self.get_meta(PLAIN_BELOW_KEY, db)
            if below is None:
                return 0
            sql = "SELECT id, text, words FROM units WHERE id < ? ORDER BY id DESC LIMIT ?"
            rows = db.execute(sql, (int(below), limit)).fetchall()
            changed = [
                (self._encoded(text), self._encoded(words), unit_id)
                for unit_id, text, words in rows
                if isinstance(text, str) or isinstance(words, str)
            ]
            db.executemany("UPDATE units SET text = ?, words = ? WHERE id = ?", changed)
            if len(rows) < limit:
                db.execute("DELETE FROM meta WHERE key = ?", (PLAIN_BELOW_KEY,))
            else:
                self.set_meta(db, PLAIN_BELOW_KEY, str(rows[-1][0]))
        return len(rows)

    def _encoded(self, value: str | bytes | None) -> str | bytes | None:
        return self.texts.encode(value) if isinstance(value, str) else value
