"""A name is found whatever way it is written (keyword/name_forms.py): a query writing `reviewHeartbeatInterval`
finds, and shows as sure, the note that writes `review_heartbeat_interval`, and the other way round; a name the notes
do not hold (`reviewHeartbeatTimeout`) is not answered as sure on the parts it shares with one they do.

Real engines (tantivy, the bundled model) over notes in tmp folders."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bare_query import bare_query
from memlens.cli.hits import matcher_of
from memlens.engine.engine import Engine
from memlens.engine.keyword.keyword_index import KeywordDoc, KeywordIndex
from memlens.engine.keyword.name_forms import form_free, snake_form
from memlens.engine.keyword.parsed_query import ParsedQuery
from memlens.engine.ranking.query_facts import found_in_text, found_words, query_facts
from memlens.engine.ranking.verbatim import copied, query_codes
from memlens.engine.vectors.embedder import Embedder
from memlens.settings import Settings

OTHER_NOTES = {
    "deploys.md": "The deploy script retries twice before it pages the on-call engineer.",
    "billing.md": "Invoices are rendered to PDF by the billing worker every night.",
}
SNAKE_NOTE = "The review loop sets review_heartbeat_interval to 30 seconds so stalled reviewers are noticed."
CAMEL_NOTE = "The review loop sets reviewHeartbeatInterval to 30 seconds so stalled reviewers are noticed."
NAMES_NOTES = {
    "decoder.md": "The socket reader wraps utf8_decoder around the stream so split characters wait for more bytes.",
    "responses.md": "Every fetch goes through parseHTTPResponse, which maps a 429 to a retry after the given delay.",
    "client.md": "Requests to the gateway use http2Client with a pool of four connections.",
}

FORMS = (
    "reviewHeartbeatInterval",
    "ReviewHeartbeatInterval",
    "review_heartbeat_interval",
    "REVIEW_HEARTBEAT_INTERVAL",
    "review-heartbeat-interval",
    "review.heartbeat.interval",
    "review heartbeat interval",
    "reviewHeartbeat",
    "review_heartbeat",
    "heartbeatInterval",
    "heartbeat_interval",
)
# asked, not copied: no code to hold as written, the question's words decide
QUESTIONS = (
    "what sets the reviewHeartbeatInterval",
    "what sets the ReviewHeartbeatInterval",
    "what sets the review_heartbeat_interval",
    "what sets the review heartbeat interval",
    "what sets the reviewHeartbeat",
)
ABSENT = ("reviewHeartbeatTimeout", "review_heartbeat_timeout", "ReviewHeartbeatTimeout")


def engine_over(folder: Path, notes: dict[str, str], embedder: Embedder) -> Engine:
    (folder / "memory").mkdir(parents=True)
    for name, text in notes.items():
        (folder / "memory" / name).write_text(text + "\n")
    settings = Settings()
    settings.transcripts.agent_defaults = False
    engine = Engine([folder], settings, index_dir=folder.parent / f"{folder.name}-index", embedder=embedder)
    engine.sync()
    return engine


@pytest.fixture(scope="module")
def notes(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[dict[str, Engine]]:
    """An engine over the note in each form (`snake`, `camel`) beside two unrelated notes, and one over names with
    digits and acronyms (`names`)."""
    root = tmp_path_factory.mktemp("forms")
    engines = {
        "snake": engine_over(root / "snake", {"heartbeat.md": SNAKE_NOTE, **OTHER_NOTES}, embedder),
        "camel": engine_over(root / "camel", {"heartbeat.md": CAMEL_NOTE, **OTHER_NOTES}, embedder),
        "names": engine_over(root / "names", {**NAMES_NOTES, **OTHER_NOTES}, embedder),
    }
    yield engines
    for engine in engines.values():
        engine.close()


def shown(engine: Engine, query: str) -> list[tuple[str, str]]:
    """(the note's file name, how sure) of each hit a default search shows."""
    return [(r["relPath"].rsplit("/", 1)[-1], r.get("confidence", "")) for r in engine.search(query)["results"]]


@pytest.mark.slow
@pytest.mark.parametrize("form", ["snake", "camel"])
@pytest.mark.parametrize("query", [*FORMS, *QUESTIONS])
def test_a_name_in_any_form_alone_or_in_a_question_finds_and_shows_the_note_writing_it_in_another(
    notes: dict[str, Engine], form: str, query: str
) -> None:
    found = shown(notes[form], query)
    assert found[:1] == [("heartbeat.md", "strong")], (form, query, found)


@pytest.mark.slow
@pytest.mark.parametrize("form", ["snake", "camel"])
@pytest.mark.parametrize("query", ABSENT)
def test_a_name_the_notes_do_not_hold_is_not_answered_as_sure_on_the_parts_it_shares(
    notes: dict[str, Engine], form: str, query: str
) -> None:
    found = shown(notes[form], query)
    assert ("heartbeat.md", "strong") not in found, (form, query, found)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("query", "note"),
    [
        ("utf8Decoder", "decoder.md"),
        ("UTF8_DECODER", "decoder.md"),
        ("utf8-decoder", "decoder.md"),
        ("parse_http_response", "responses.md"),
        ("parseHttpResponse", "responses.md"),
        ("PARSE_HTTP_RESPONSE", "responses.md"),
        ("http2_client", "client.md"),
        ("Http2Client", "client.md"),
    ],
)
def test_names_with_digits_and_acronyms_are_found_in_another_form(
    notes: dict[str, Engine], query: str, note: str
) -> None:
    assert shown(notes["names"], query)[:1] == [(note, "strong")]


def test_a_name_reads_as_its_parts_in_snake_case() -> None:
    assert snake_form("reviewHeartbeatInterval") == "review_heartbeat_interval"
    assert snake_form("ReviewHeartbeatInterval") == "review_heartbeat_interval"
    assert snake_form("parseHTTPResponse") == "parse_http_response"
    assert snake_form("utf8Decoder") == "utf8_decoder"  # a digit stays with its letters, as the analyser keeps it
    assert snake_form("HTTP2Client") == "http2_client"
    assert snake_form("0B2E5F71") == "0b2e5f71"  # a hash in capitals has no parts
    assert form_free("set REVIEW_HEARTBEAT_INTERVAL or reviewHeartbeatInterval").lower() == (
        "set review heartbeat interval or review heartbeat interval"
    )


def typed(text: str) -> ParsedQuery:
    """`text` as a query, with only the fields verbatim.copied reads."""
    return bare_query(text, technical=True)


def keyword_index(tmp_path: Path, texts: tuple[str, ...]) -> KeywordIndex:
    keyword = KeywordIndex(tmp_path / "keyword")
    keyword.write(1, [KeywordDoc(i, 1, "memory", "markdown", "", "", 0, t) for i, t in enumerate(texts, 1)])
    return keyword


def test_a_camel_case_query_reads_as_the_parts_the_index_holds_in_a_row(tmp_path: Path) -> None:
    keyword = keyword_index(tmp_path, (SNAKE_NOTE, *OTHER_NOTES.values()))
    parsed = keyword.parse("reviewHeartbeat")
    assert parsed.text == "review_heartbeat"
    facts = query_facts(parsed, keyword)
    assert facts.absent == 0.0
    assert [unit for unit, _ in keyword.search(parsed, 5)][:1] == [1]
    # a name whose parts the index never holds in a row stays whole, in no document
    assert keyword.parse("reviewHeartbeatTimeout").text == "reviewHeartbeatTimeout"
    assert query_facts(keyword.parse("reviewHeartbeatTimeout"), keyword).absent == 1.0
    assert keyword.parse("PlayStation").text == "PlayStation"  # a brand's parts, not in a row: left as written


def test_a_query_writing_a_name_apart_counts_the_joined_name_as_holding_its_parts(tmp_path: Path) -> None:
    keyword = keyword_index(tmp_path, (CAMEL_NOTE, *OTHER_NOTES.values()))
    for query in ("review_heartbeat_interval", "review heartbeat interval", "review.heartbeat.interval"):
        parsed = keyword.parse(query)
        assert [a.term for a in parsed.acronyms if a.joined] == ["reviewheartbeatinterv"], query
        facts = query_facts(parsed, keyword)
        assert facts.absent == 0.0, query
        assert [unit for unit, _ in keyword.search(parsed, 5)][:1] == [1], query
    # a piece of the name: its words are held as the name's parts in the `ident` field, and the note holds them
    facts = query_facts(keyword.parse("heartbeat_interval"), keyword)
    assert facts.absent == 0.0
    found = found_words(facts, set(keyword.tokens(CAMEL_NOTE)))
    assert found == [False, False]
    assert found_in_text(facts, found, CAMEL_NOTE) == [True, True]
    assert found_in_text(facts, found, OTHER_NOTES["deploys.md"]) == [False, False]
    # the same words in prose are read as prose: a name holding a word the question asks in other words is no answer
    assert query_facts(keyword.parse("heartbeat interval"), keyword).absent == 1.0


def test_a_name_copied_as_a_code_is_held_by_a_text_writing_it_in_another_form() -> None:
    assert query_codes("reviewHeartbeatInterval") == [" review heartbeat interval "]
    code = copied(typed("REVIEW_HEARTBEAT_INTERVAL"))
    assert code is not None and not code.runs
    assert code.held(SNAKE_NOTE) == code.held(CAMEL_NOTE) == 1
    assert code.held(OTHER_NOTES["deploys.md"]) == 0
    hash_code = copied(typed("0B2E5F71"))
    assert hash_code is not None and hash_code.held("commit 0b2e5f71 reverted it") == 1


def test_the_terminal_marks_a_name_in_the_form_the_hit_writes_it() -> None:
    def marked(query: str, line: str) -> str:
        matcher = matcher_of(query)
        assert matcher is not None
        return matcher.sub(lambda m: f"[{m.group(0)}]", line)

    assert marked("reviewHeartbeatInterval", SNAKE_NOTE).count("[review_heartbeat_interval]") == 1
    assert marked("review_heartbeat_interval", CAMEL_NOTE).count("[reviewHeartbeatInterval]") == 1
    assert "review[HeartbeatInterval]" in marked("heartbeatInterval", CAMEL_NOTE)
