"""Hover-to-recall over LSP: a known identifier gives linked markdown, nonsense and disabled hovers give None."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp.helpers import SERVER_COMMAND, Prebuilt, copy_index, execute, init_params, lsp_fixture, wait_until

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]  # real server processes

SOURCE = """\
def configure_pool():
    # pgbouncer sits between the lambdas and postgres
    use_pgbouncer = True
    xylophoneQuasarFrobnicator = 3
    the = cardamomBuns + an
    zanzibarQuokkaLedger = 4
"""
URI = "file:///tmp/memlens-hover-test/app.py"
HIT_LINE = re.compile(
    r"- \*\*(strong|possible|weak)\*\* \[(.+?)\]\((memlens-transcript:/[^)\s]+|file:///[^)\s]+#L\d+)"
    r"(?: \"((?:[^\"\\]|\\.)*)\")?\) · (.+)  $"
)


@lsp_fixture(scope="module", config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, lsp_prebuilt: Prebuilt) -> AsyncIterator[None]:
    params = init_params(lsp_prebuilt, copy_index(lsp_prebuilt, "hover"))
    lsp_client.base_settings = params.initialization_options  # type: ignore[attr-defined]
    await lsp_client.initialize_session(params)
    lsp_client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=URI, language_id="python", version=1, text=SOURCE)
        )
    )
    # hovers never wait for the index: wait here until the engine is open so that they have something to say
    await execute(lsp_client, "memlens.stats")
    yield
    await lsp_client.shutdown_session()


async def hover(client: LanguageClient, line: int, character: int) -> types.Hover | None:
    return await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=URI),
            position=types.Position(line=line, character=character),
        )
    )


def markdown(result: types.Hover | None) -> str:
    assert result is not None
    assert isinstance(result.contents, types.MarkupContent) and result.contents.kind == types.MarkupKind.Markdown
    return result.contents.value


async def test_hover_hit_has_scored_links(client: LanguageClient) -> None:
    result = await hover(client, 1, 8)  # in "pgbouncer" of the comment
    text = markdown(result)
    assert "pgbouncer" in text and re.search(r"\*\*(strong|possible|weak)\*\*", text)
    assert "(memlens-transcript:/" in text or "(file://" in text
    assert result is not None and result.range is not None
    assert (result.range.start.character, result.range.end.character) == (6, 15)


async def test_hover_queries_the_whole_identifier(client: LanguageClient) -> None:
    # the whole identifier is the query (the engine matches it whole, then by its parts), not a word list
    text = markdown(await hover(client, 2, 10))
    assert "recall for `use_pgbouncer`" in text
    assert "pgbouncer" in text.split("\n", 1)[1].lower()


async def test_every_hit_is_a_link_with_title_date_and_score(client: LanguageClient) -> None:
    text = markdown(await hover(client, 1, 8))
    hits = [line for line in text.split("\n") if line.startswith("- ")]
    assert hits
    for line in hits:
        # - **strong** [the hit's first words](link "the session's title") · facts
        match = HIT_LINE.match(line)
        assert match, line
        assert match.group(1) in ("strong", "possible", "weak")
        if match.group(3).startswith("memlens-transcript:"):
            assert re.search(r"\b20\d\d-\d\d-\d\d\b", match.group(5)), line  # the message's date
            assert not match.group(2).startswith("claude-code ·"), line  # the hit's words, not its format


async def test_transcript_link_is_vscode_uri(client: LanguageClient) -> None:
    text = markdown(await hover(client, 1, 8))
    if "memlens-transcript:" in text:
        assert "memlens-transcript:/claude-code%3A" in text or "memlens-transcript:/" in text
        assert ".md?message=" in text


async def test_nonsense_word_gives_none(client: LanguageClient) -> None:
    assert await hover(client, 3, 8) is None


async def test_stop_words_and_whitespace_give_none(client: LanguageClient) -> None:
    assert await hover(client, 4, 5) is None  # "the"
    assert await hover(client, 0, 30) is None  # past the end of the line
    assert await hover(client, 4, 0) is None  # indentation


async def test_a_hover_follows_the_index(client: LanguageClient, lsp_prebuilt: Prebuilt) -> None:
    """Hovers are cached, but an answer cached before the index changed is not given after it: a word no note
    held has no hover; once a note holding it is indexed, it has one (and none again once the note is gone)."""
    assert await hover(client, 5, 10) is None  # zanzibarQuokkaLedger: in no note yet, and now cached as nothing
    note = lsp_prebuilt.workspace / "memory" / "zanzibar-ledger.md"
    note.write_text("# Ledger flag\n\nThe zanzibarQuokkaLedger flag turns the quokka ledger on for billing.\n")
    try:
        await execute(client, "memlens.reindex", {})
        assert "zanzibar-ledger.md" in markdown(await hover(client, 5, 10))
    finally:
        note.unlink()
        await execute(client, "memlens.reindex", {})
    assert await hover(client, 5, 10) is None


async def eventually_none(client: LanguageClient) -> bool:
    """Hover until it gives None (a configuration change is a notification: it lands soon, not at once)."""
    for _ in range(50):
        if await hover(client, 1, 8) is None:
            return True
        await asyncio.sleep(0.1)
    return False


def configure(client: LanguageClient, hover_settings: dict[str, object]) -> None:
    """didChangeConfiguration carries the client's whole set of settings: the start-up ones plus this change."""
    settings = {**client.base_settings, "hover": hover_settings}  # type: ignore[attr-defined]
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"memlens": settings}))


async def test_hover_disabled_by_settings(client: LanguageClient) -> None:
    assert await hover(client, 1, 8) is not None
    configure(client, {"enabled": False})
    assert await eventually_none(client)
    configure(client, {"enabled": True})
    await wait_until(lambda: True, timeout=1)
    for _ in range(50):
        if await hover(client, 1, 8) is not None:
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError("hover did not come back after enabling it")
    configure(client, {"minScore": 0.99})
    assert await eventually_none(client)  # nothing clears a 99% threshold


async def test_an_untitled_document_through_open_change_language_and_close(client: LanguageClient) -> None:
    """What VS Code sends for a new untitled file whose language is changed, typed into and closed: a change may
    arrive for a document the server was told is closed. Nothing of it may reach the user as a server error, and
    the document's text stays what the editor last sent."""
    untitled = "untitled:Untitled-1"
    configure(client, {})  # the hover settings as they start (a test before may have raised minScore)
    for _ in range(50):
        if await hover(client, 1, 8) is not None:
            break
        await asyncio.sleep(0.1)
    before = len(client.messages)

    def opened(language: str, version: int, text: str) -> None:
        item = types.TextDocumentItem(uri=untitled, language_id=language, version=version, text=text)
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))

    def changed(version: int, text: str) -> None:
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=untitled, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    def closed() -> None:
        doc = types.TextDocumentIdentifier(uri=untitled)
        client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=doc))

    opened("plaintext", 1, "")
    closed()  # the language changes: closed as plain text...
    changed(2, "const pgbouncer = 1;\n")  # ...a change still in flight for it...
    opened("javascript", 3, "const pgbouncer = 1;\n")  # ...and opened again as JavaScript
    changed(4, "const pgbouncer = 42;\n")
    found = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=untitled), position=types.Position(0, 8))
    )
    assert found is not None and "pgbouncer" in markdown(found)
    closed()
    changed(5, "")  # "Revert and Close": the revert's change after the close
    closed()  # and a second close of a closed document
    await execute(client, "memlens.stats")  # handled in order: anything the calls above raised is reported by now
    assert [m.message for m in client.messages[before:]] == []
