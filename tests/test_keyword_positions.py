"""A query's words are scored from their postings' frequencies: their positions are read for quoted phrases only.
tantivy-py's term queries ask for positions unless told otherwise, and a term query that asks for them opens each
matching term's positions too: a process that searched 980,000 messages held 135 MB of the position files
resident for that alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memlens.engine.keyword.keyword_index import KeywordDoc, KeywordIndex

SERVER = Path(__file__).resolve().parents[1] / "server"

# in a fresh process (nothing mapped before): the positions files' resident KiB after opening, after searches of
# words in both fields, after a quoted phrase
PROBE = """
import json, sys
from pathlib import Path
from memlens.engine.keyword.keyword_index import KeywordIndex

folder = Path(sys.argv[1])

def positions_kb():
    resident, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        fields = line.split()
        if fields and "-" in fields[0] and not fields[0].endswith(":"):
            inside = len(fields) >= 6 and fields[5].startswith(str(folder)) and fields[5].endswith(".pos")
        elif inside and fields and fields[0] == "Rss:":
            resident += int(fields[1])
    return resident

index = KeywordIndex(folder)
opened = positions_kb()
found = 0
for words in sys.argv[2:-1]:
    for field in ("text", "context"):
        found += len(index.search(index.parse(words), 50, field))
after_words = positions_kb()
phrase = index.search(index.parse(sys.argv[-1]), 50)
print(json.dumps([opened, after_words, positions_kb(), found, len(phrase)]))
"""


def _words(rng: np.random.Generator, vocabulary: list[str], count: int) -> str:
    return " ".join(vocabulary[i] for i in rng.integers(0, len(vocabulary), count))


@pytest.mark.skipif(not Path("/proc/self/smaps").is_file(), reason="no /proc/self/smaps on this platform")
def test_word_searches_read_no_positions_and_phrases_do(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    vocabulary = [f"{a}{b}{c}" for a in "bcdfg" for b in "aeiou" for c in ("lmn", "rst", "vx", "zk", "pq", "dt")]
    vocabulary += [f"alpha{n}" for n in range(20)]  # first in the term order: their positions lead the files
    folder = tmp_path / "kw"
    index = KeywordIndex(folder)
    docs = []
    for unit in range(12_000):
        text = _words(rng, vocabulary, 60)
        docs.append(KeywordDoc(unit, unit, "memory", "markdown", "s", "", -1, text, context=text))
    docs.append(KeywordDoc(99_999, 1, "memory", "markdown", "s", "", -1, "alpha3 alpha7 gone", "alpha3 alpha7"))
    assert index.write(1, docs)
    positions = sum(p.stat().st_size for p in folder.glob("*.pos"))
    assert positions > 1 << 20  # a file of many pages: what a search opens shows apart from what opening read
    queries = [
        f"{vocabulary[0]} {vocabulary[41]}",
        f"{vocabulary[77]} {vocabulary[5]} {vocabulary[140]}",
        "alpha7 alpha3",
    ]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SERVER), *sys.path])}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(folder), *queries, '"alpha3 alpha7"'],
        capture_output=True,
        env=env,
        check=True,
    )
    opened, after_words, after_phrase, found, phrase = json.loads(done.stdout.decode().strip().splitlines()[-1])
    assert found > 0 and phrase >= 1
    assert after_words == opened  # the word searches read no position
    assert after_phrase > after_words  # the phrase did: the measure sees positions read
