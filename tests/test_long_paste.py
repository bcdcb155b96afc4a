"""A pasted error or query longer than a query's bound, through the real CLI: read by its last lines (a traceback
tells at its end), the answer saying what of its start was left out; past the most a door takes at all, one clear
error. The cut itself: at a line's start, the exception line kept whole, or its tail (from a word's start) when it
alone is over."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from long_paste import EXCEPTION, FIX_WORDS, SESSION, traceback_text, write_transcripts
from memlens.engine.engine import Engine
from memlens.errors import InvalidRequest
from memlens.requests import MAX_PASTE_CHARS, MAX_QUERY_CHARS, FixesRequest, SearchRequest, parse, text_end

REPO = Path(__file__).resolve().parents[1]


def _cli(*args: str | Path, columns: int = 80) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(REPO / "server"), "PATH": "/usr/bin:/bin", "HOME": str(Path.home())}
    env["COLUMNS"] = str(columns)
    return subprocess.run(
        [sys.executable, "-m", "memlens", *map(str, args)], capture_output=True, text=True, timeout=300, env=env
    )


@pytest.fixture(scope="module")
def where(tmp_path_factory: pytest.TempPathFactory) -> list[str | Path]:
    root = tmp_path_factory.mktemp("paste")
    (root / "ws").mkdir()
    flags: list[str | Path] = ["--workspace", root / "ws", "--transcripts", write_transcripts(root / "transcripts")]
    flags += ["--index-dir", root / "index", "--no-embeddings"]
    built = _cli("index", *flags)
    assert built.returncode == 0, built.stderr
    return [*flags, "--no-sync"]


def test_a_long_traceback_finds_its_fix_by_its_end(where: list[str | Path]) -> None:
    pasted = traceback_text()
    assert len(pasted) > 3 * MAX_QUERY_CHARS and EXCEPTION not in pasted[:MAX_QUERY_CHARS]
    shown = _cli("fixes", pasted, *where)
    assert shown.returncode == 0, shown.stderr
    assert f"claude-code:{SESSION}" in shown.stdout and FIX_WORDS in shown.stdout
    said = " ".join(shown.stdout.split())
    assert "lines of the error after its first were left out" in said and "its first line and its end were read" in said
    answer = json.loads(_cli("fixes", pasted, *where, "--json").stdout)
    first, tail = answer["error"].split("\n…\n")
    assert first == "Traceback (most recent call last):" and tail.endswith(EXCEPTION)
    assert len(answer["error"]) <= MAX_QUERY_CHARS
    body = pasted.rstrip()
    tail_at = len(body) - len(tail)
    assert body.endswith(tail) and body[tail_at - 1] == "\n"  # the end as pasted, from a line's start
    left_out = answer["leftOut"]
    assert left_out == {
        "chars": tail_at - len(first) - 1,
        "lines": body.count("\n", len(first) + 1, tail_at),
        "readChars": len(answer["error"]),
        "firstLine": True,
    }
    # under the bound, a traceback of more lines than the index keeps of an output is still found by its last ones
    middling = "\n".join(pasted.splitlines()[-41:])
    assert len(middling) < MAX_QUERY_CHARS
    found = json.loads(_cli("fixes", middling, *where, "--json").stdout)
    assert "leftOut" not in found and found["fixes"][0]["sessionKey"] == f"claude-code:{SESSION}"
    short = json.loads(_cli("fixes", EXCEPTION, *where, "--json").stdout)
    assert "leftOut" not in short and short["fixes"][0]["sessionKey"] == f"claude-code:{SESSION}"


def test_a_long_search_query_is_read_by_its_end_too(where: list[str | Path]) -> None:
    pasted = traceback_text()
    answer = json.loads(_cli("search", pasted, *where, "--json", "--min-score", "0").stdout)
    assert answer["query"].endswith(EXCEPTION) and answer["leftOut"]["readChars"] <= MAX_QUERY_CHARS
    assert answer["query"].startswith("Traceback (most recent call last):\n…\n")
    assert any(hit.get("sessionKey") == f"claude-code:{SESSION}" for hit in answer["results"])
    shown = _cli("search", pasted, *where, "--min-score", "0")
    assert shown.returncode == 0, shown.stderr
    said = " ".join(shown.stdout.split())
    assert f"{answer['leftOut']['lines']} lines of the query after its first were left out" in said


def test_a_phrase_repeated_past_the_bound_finds_what_the_phrase_finds(example: Engine) -> None:
    """One line over the bound is read by its tail, which began inside a word: "dead letter queue " × 280 was read
    from "ueue", a word no text holds, so the query counted as asking for something absent and found nothing."""
    once = example.search("dead letter queue")["results"]
    repeated = example.search("dead letter queue " * 280)
    assert repeated["leftOut"]["readChars"] <= MAX_QUERY_CHARS and repeated["query"].startswith("dead ")
    assert once and once[0]["sessionKey"] in {hit.get("sessionKey") for hit in repeated["results"][:3]}


def test_a_paste_over_the_most_a_door_takes_is_one_clear_error() -> None:
    huge = "x = 1\n" * (MAX_PASTE_CHARS // 6 + 1)
    for cls, field in ((FixesRequest, "error"), (SearchRequest, "query")):
        with pytest.raises(InvalidRequest) as caught:
            parse(cls, {field: huge})
        message = str(caught.value)
        assert f"at most {MAX_PASTE_CHARS:,} characters, got {len(huge):,}" in message and "paste those" in message
        assert len(message) < 200  # the paste is not echoed
    kept = parse(FixesRequest, {"error": huge[-MAX_PASTE_CHARS:]})  # at the bound: taken, its end read later
    assert len(kept.error) == MAX_PASTE_CHARS


def test_the_cut_keeps_the_first_line_and_the_end_from_a_line_start() -> None:
    text = "first line\n" + "a" * 50 + "\nsecond\nKeyError: 'orders'\n\n"
    kept, left_out = text_end(text, 60)
    assert kept == "first line\n…\nsecond\nKeyError: 'orders'"
    assert left_out == {"chars": 51, "lines": 1, "readChars": len(kept), "firstLine": True}
    trace = "\n\nTypeError: Cannot read properties of undefined (reading 'id')\n" + "    at render (app.js:1:2)\n" * 400
    kept, left_out = text_end(trace, MAX_QUERY_CHARS)  # a JavaScript trace opens with its error: kept
    assert kept.startswith("TypeError: Cannot read properties of undefined (reading 'id')\n…\n    at render")
    assert left_out is not None and len(kept) <= MAX_QUERY_CHARS
    one_line = "é" * 40 + "ValueError: " + "z" * 40
    kept, left_out = text_end(one_line, 30)  # one line over the bound: its tail
    assert kept == "z" * 30 and left_out == {"chars": 62, "lines": 1, "readChars": 30, "firstLine": False}
    phrase = "dead letter queue " * 280  # one line over the bound: its tail from a word's start, no half word read
    kept, left_out = text_end(phrase, MAX_QUERY_CHARS)
    assert kept.startswith("dead letter queue ") and kept.split() == phrase.split()[-len(kept.split()) :]
    assert left_out is not None and left_out["chars"] + len(kept) == len(phrase.rstrip())
    assert text_end("aaa bbb ccc ddd", 6)[0] == "ddd" and text_end("x" * 40, 30)[0] == "x" * 30  # no space: its tail
    huge_first = "E" * 5000 + "\nlast line"
    kept, _ = text_end(huge_first, 100)  # a first line longer than its share: its start
    assert kept == "E" * 25 + "\n…\nlast line"
    accents = "e\u0301" * 40  # a combining accent is never cut from its letter
    kept, _ = text_end(accents, 31)
    assert not kept.startswith("\u0301") and len(kept) == 30
    assert text_end("short", 30) == ("short", None)
    assert text_end("x" * 20 + " " * 40, 30) == ("x" * 20, None)  # trailing blank space is no content
