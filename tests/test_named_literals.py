"""A commit hash or a URL's host and path typed among a few words is found as written (parsed_query.LITERAL): as
loose words the hash matched nothing a plain word's search reads (tool output is left out of it), a URL's prefix
("github.com/acme/widgets") matched every link to the host, and "commit 4f2a9c1" showed the output that printed the
hash at a chance under minScore: no results for what the index holds."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from claude_lines import claude_line
from memlens.engine.engine import Engine
from memlens.engine.vectors.embedder import Embedder
from memlens.settings import Settings
from transcript_fixtures import jsonl

SESSION = "7b1e2c3d-4a5b-4c6d-8e9f-0a1b2c3d4e5f"
COMMIT = "[main 4f2a9c1] fix(export): retry the upload with jitter\n 2 files changed, 31 insertions(+), 4 deletions(-)"
CREDO = "Checking 49 source files ...\nPlease report incorrect results: https://github.com/acme/widgets/issues\nok"


def _line(kind: str, uuid: str, parent: str | None, content: object, minute: int) -> dict[str, Any]:
    return claude_line(kind, uuid, parent, content, session=SESSION, timestamp=f"2026-05-11T10:{minute:02d}:00Z")


def _call(uuid: str, parent: str, call: str, command: str, minute: int) -> dict[str, Any]:
    return _line(
        "assistant",
        uuid,
        parent,
        [{"type": "tool_use", "id": call, "name": "Bash", "input": {"command": command}}],
        minute,
    )


def _result(uuid: str, parent: str, call: str, printed: str, minute: int) -> dict[str, Any]:
    content = [{"type": "tool_result", "tool_use_id": call, "is_error": False, "content": printed}]
    return _line("user", uuid, parent, content, minute)


def _text(uuid: str, parent: str, text: str, minute: int) -> dict[str, Any]:
    return _line("assistant", uuid, parent, [{"type": "text", "text": text}], minute)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[Engine]:
    """A session that committed a fix (its output printing the hash), ran a linter that printed its issues URL, and
    talked about commits and links in prose."""
    root = tmp_path_factory.mktemp("literals")
    folder = root / "transcripts" / "claude-code" / "-w"
    folder.mkdir(parents=True)
    lines = [
        _line("user", "u1", None, "commit the export retry fix and run the linter", 0),
        _call("a1", "u1", "c1", 'git commit -am "fix(export): retry the upload with jitter"', 1),
        _result("r1", "a1", "c1", COMMIT, 2),
        _call("a2", "r1", "c2", "mix credo --strict", 3),
        _result("r2", "a2", "c2", CREDO, 4),
        _text("a3", "r2", "Committed the fix. The linter is clean; its issue tracker link is in its output.", 5),
        _line("user", "u2", "a3", "ok, write a commit message for the docs change next and link the widgets repo", 6),
        _text("a4", "u2", "Done: the commit message says what changed, and the README links the repository.", 7),
    ]
    (folder / f"{SESSION}.jsonl").write_bytes(jsonl(*lines))
    (root / "ws").mkdir()
    with Engine([root / "ws"], Settings(), [root / "transcripts"], index_dir=root / "index", embedder=embedder) as e:
        e.sync()
        yield e


@pytest.mark.slow
@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("4f2a9c1", "r1"),  # a hash alone: no word a plain search reads
        ("commit 4f2a9c1", "r1"),  # and with a word its output does not cover
        ("what did 4f2a9c1 change", "r1"),
        ("github.com/acme/widgets", "r2"),  # a prefix of the URL printed, without its scheme
    ],
)
def test_a_hash_or_a_url_finds_the_message_holding_it(engine: Engine, query: str, message: str) -> None:
    results = engine.search(query, mode="hybrid")["results"]
    assert results and results[0]["messageId"] == message, [r["messageId"] for r in results]
    assert results[0]["confidence"] == "strong"


@pytest.mark.slow
def test_a_hash_nothing_holds_finds_nothing(engine: Engine) -> None:
    """Not the prose about commits: the hash is what was asked."""
    assert engine.search("commit 9e8d7c6", mode="hybrid")["results"] == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("text", "literals"),
    [
        ("commit 4f2a9c1", ("4f2a9c1",)),
        ("https://github.com/acme/widgets/issues", ("https://github.com/acme/widgets/issues",)),
        ("added a decade of facade", ()),  # words of hex letters, no digit
        ("1234567", ()),  # a number
        ("src/app.py", ()),  # a path, no host: found as an identifier is
        # a question of more words names one among many: searched as it was
        ("why did the export retry fail after we merged 4f2a9c1 into the release branch", ()),
        ("error: failed to push some refs to github.com/acme/widgets", ()),  # an error pasted
    ],
)
def test_what_reads_as_a_named_literal(engine: Engine, text: str, literals: tuple[str, ...]) -> None:
    parsed = engine.retriever.keyword.parse(text)
    assert parsed.literals == literals
    assert parsed.literal == bool(literals)


def test_a_named_literal_needs_no_index(tmp_path: Path) -> None:
    """The reading is the query's alone: an empty index reads it the same (a keyword search finds nothing)."""
    settings = Settings()
    settings.transcripts.agent_defaults = False
    (tmp_path / "ws").mkdir()
    with Engine([tmp_path / "ws"], settings, [], index_dir=tmp_path / "index", embedder=False) as e:
        assert e.retriever.keyword.parse("commit 4f2a9c1").literals == ("4f2a9c1",)
        assert e.search("commit 4f2a9c1", mode="keyword")["results"] == []
