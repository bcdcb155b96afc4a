"""A query of only stop words, lone letters or digits, or punctuation ("the", "to be or not", "a", "?") names no
topic: nothing is searched (BM25 would rank the commonest messages and the vectors the nearest, which read as answers
and are none), and the answer says why and how to find the words as written: in quotes, which then must hold in
every hit, also in hybrid search."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memlens.engine.engine import Engine
from memlens.settings import Settings

SESSION = "7a0be11e-0000-4000-8000-000000000001"
HAMLET = "m-hamlet"
TALK = [
    (HAMLET, "user", "To be or not to be, that is the question the kiln crew kept asking."),
    ("m-0002", "assistant", "The kiln thermocouple reads six degrees low; it is a calibration issue."),
    ("m-0003", "user", "What did we do about the glaze that was running off the pots?"),
    ("m-0004", "assistant", "We lowered the peak temperature by 20 degrees and it was fine after that."),
    ("m-0005", "user", "Can you check whether the shelf is cracked or not?"),
    ("m-0006", "assistant", "It is not cracked, but the kiln wash is flaking off in a few places."),
]
NO_TOPIC = ["the", "a", "x", "3", "?", "to be or not", "what did we do", "to be OR not", "How do I"]


def _transcripts(folder: Path) -> Path:
    claude = folder / "claude-code"
    claude.mkdir(parents=True)
    lines = []
    for n, (uuid, role, text) in enumerate(TALK):
        line = {
            "parentUuid": TALK[n - 1][0] if n else None,
            "type": role,
            "sessionId": SESSION,
            "cwd": "/home/dev/kiln",
            "uuid": uuid,
            "timestamp": f"2026-03-02T09:{n:02d}:00.000Z",
            "message": {"role": role, "content": text},
        }
        lines.append(json.dumps(line) + "\n")
    (claude / f"{SESSION}.jsonl").write_text("".join(lines), encoding="utf-8")
    return folder


def test_a_query_that_names_no_topic_searches_nothing(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    settings = Settings()
    settings.transcripts.agent_defaults = False
    folder = _transcripts(tmp_path / "transcripts")
    with Engine([tmp_path / "ws"], settings, extra_transcripts=[folder], index_dir=tmp_path / "i", embedder=False) as e:
        e.sync()
        for query in NO_TOPIC:
            answer = e.search(query, min_score=0)
            assert answer["results"] == [] and answer.get("namesNoTopic") is True, query
            assert "stop words" in answer["note"] and "quote" in answer["note"]
        quoted = e.search('"to be or not to be"', min_score=0)
        assert [r["messageId"] for r in quoted["results"]] == [HAMLET] and "namesNoTopic" not in quoted
        assert e.search('"to be or"', min_score=0)["results"][0]["messageId"] == HAMLET
        for query in ("kiln", "not cracked", "is the shelf ok", "20"):  # one word that names something is enough
            assert e.search(query, min_score=0)["results"], query
        pack = e.context("what about it")  # a context pack says so too
        assert pack["items"] == [] and "nothing searched: only stop words" in pack["markdown"]


@pytest.mark.slow  # CLI processes and the bundled model
def test_the_cli_says_why_and_a_quoted_phrase_holds_in_every_hybrid_hit(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    where = ["--workspace", str(tmp_path / "ws"), "--transcripts", str(_transcripts(tmp_path / "t"))]
    where += ["--index-dir", str(tmp_path / "i")]

    def memlens(*args: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "HOME": str(tmp_path), "COLUMNS": "80"}
        command = [sys.executable, "-m", "memlens", *args, *where]
        return subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)

    indexed = memlens("index")
    assert indexed.returncode == 0, indexed.stderr
    said = memlens("search", "to be or not", "--no-sync", "--no-pager")
    assert said.returncode == 1  # as for any search that finds nothing
    assert said.stdout == ""  # nothing found: said on stderr, as rg says it
    assert said.stderr.startswith("memlens: nothing searched: only stop words")
    assert said.stderr.splitlines()[1:] == [
        "memlens: no results for 'to be or not'",
        """memlens: to find the words as written: memlens search '"to be or not"'""",
    ]
    quoted = memlens("search", '"to be or not"', "--no-sync", "--json", "--min-score", "0")
    answer = json.loads(quoted.stdout)
    assert answer["mode"] == "hybrid" and [r["messageId"] for r in answer["results"]] == [HAMLET]
    absent = memlens("search", '"what did we do to it"', "--no-sync", "--json", "--min-score", "0")
    assert json.loads(absent.stdout)["results"] == []  # not the messages nearest in meaning, which do not hold it
