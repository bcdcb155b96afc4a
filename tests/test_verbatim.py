"""A pasted text first finds the messages that hold it as written (ranking/verbatim.py): the tool output that printed
an error before the agent's messages that quote a few of its words and discuss it; a typed question is left to the
other passes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from bare_query import bare_query
from claude_lines import claude_line
from memlens.engine.engine import Engine
from memlens.engine.keyword.error_query import looks_like_error
from memlens.engine.keyword.parsed_query import ParsedQuery
from memlens.engine.ranking.head import Head
from memlens.engine.ranking.hits import UnitHit
from memlens.engine.ranking.query_facts import QueryFacts
from memlens.engine.ranking.unit_facts import UnitFacts, Words
from memlens.engine.ranking.verbatim import (
    MIN_HELD,
    held_words,
    is_code,
    put_verbatim_first,
    query_codes,
    query_runs,
    take_in_holders,
    written_words,
)
from memlens.engine.vectors.embedder import Embedder
from memlens.settings import Settings
from transcript_fixtures import jsonl

WARNING = (
    "warning: invalid association `lines` in schema Billing.Invoice: "
    "associated schema Billing.InvoiceLine does not exist"
)
SESSION = "5d2c8e41-7b3a-4f09-9c6e-2a1b0d9e8f73"
RUNS = 30  # runs of one failing test in a session


def query(text: str) -> ParsedQuery:
    """`text` as a query, read as an error when error_query reads it so (only the fields this pass reads)."""
    return bare_query(text, error_like=looks_like_error(text))


def head(*units: tuple[str, str, float]) -> Head:
    """A head of hits in the order given, each (text, kind, ts), scores and chances falling down the list."""
    hits = [UnitHit(i, score=1 - i / 10, probability=0.9 - i / 10) for i in range(len(units))]
    facts = {i: UnitFacts(text, ts, "s", Words(""), 0.0, text, 0.0, kind) for i, (text, kind, ts) in enumerate(units)}
    return Head(hits, facts, QueryFacts(words=[], idf=[], technical=False, windows=[]))


def test_words_held_in_runs_count_once_in_the_query_order() -> None:
    runs = query_runs(query("the current branch main has no upstream branch"))
    assert runs is not None
    assert held_words(runs, written_words("fatal: The current branch main has no upstream branch.")) == 8
    assert held_words(runs, written_words("upstream branch has no main current branch the")) == 0  # other order
    assert held_words(runs, written_words("the current branch main, and then: has no upstream")) == 4
    assert held_words(runs, written_words("the current branch")) == 0  # shorter than a run


@pytest.mark.parametrize(
    "text",
    [
        "how did we fix the current branch has no upstream branch",  # a question, typed
        "what does associated schema Billing.InvoiceLine does not exist mean?",
        "no upstream branch",  # fewer than MIN_HELD words
    ],
)
def test_a_question_or_a_few_words_read_as_no_paste(text: str) -> None:
    assert query_runs(query(text)) is None


@pytest.mark.parametrize(
    ("token", "code"),
    [
        ("LED-231", True),  # a ticket
        ("#4512", True),
        ("0b2e5f71", True),  # a hash, a request's id
        ("v1.8.0", True),
        ("9041", True),  # a run's number
        ("mark_shipped", True),
        ("fetchUserProfile", True),
        ("`routing.yaml`", True),
        ("404", False),  # a short number is a status, a count
        ("blue-green", False),  # a hyphenated English word
        ("deploy", False),
        ("DLQ", False),
    ],
)
def test_a_code_is_what_nobody_types_from_memory(token: str, code: bool) -> None:
    assert is_code(token) is code


def test_a_query_of_a_few_codes_and_nothing_else_is_copied() -> None:
    assert query_codes("LED-231") == [" led 231 "]
    assert query_codes("0b2e5f71 9c41e0a7") == [" 0b2e5f71 ", " 9c41e0a7 "]
    assert query_codes("what is LED-231") is None  # words around it: asked
    assert query_codes("LED-231 LED-232 LED-233 LED-234") is None  # a list, not a lookup
    assert query_codes("") is None


def test_the_hits_holding_every_code_come_first_in_the_order_they_had() -> None:
    ranked = head(
        ("the ticket for the contract test", "transcript", 1.0),
        ("contract test for every route (LED-231)", "memory", 2.0),
        ("LED-2310 is another ticket", "transcript", 3.0),
        ("done: LED-231", "transcript", 4.0),
    )
    ranked.answerable = 0.5
    put_verbatim_first(ranked, query("LED-231"))
    assert [h.unit_id for h in ranked.hits] == [1, 3, 0, 2]
    assert ranked.answerable == 1.0


def test_a_copied_line_that_starts_with_a_question_word_is_a_paste() -> None:
    assert query_runs(query('when defining the variable "conn", you must also pattern match on "%Plug.Conn{}".'))
    assert query_runs(query("what happened\nfatal: The current branch main has no upstream branch"))


def test_the_output_holding_the_paste_comes_before_the_messages_quoting_part_of_it() -> None:
    quote = ("Expected — Billing.InvoiceLine does not exist yet, so the association is invalid.", "transcript", 30.0)
    edit = ("associated schema Billing.InvoiceLine does not exist in the docs", "transcript", 5.0)
    output = (f"$ mix compile\n{WARNING}\n└─ lib/billing/invoice.ex: Billing.Invoice (module)", "tool", 20.0)
    ranked = head(quote, edit, output)
    put_verbatim_first(ranked, query(WARNING))
    assert [h.unit_id for h in ranked.hits] == [2, 1, 0]  # most held first: all of it, then 7 words, then none
    assert [h.score for h in ranked.hits] == pytest.approx([1.0, 0.9, 0.8])  # handed out again, still falling
    assert [h.probability for h in ranked.hits] == pytest.approx([0.9, 0.8, 0.7])


def test_among_hits_holding_as_much_the_tool_output_then_the_earliest_comes_first() -> None:
    later_quote = (f"I saw: {WARNING}", "transcript", 40.0)
    later_output = (WARNING, "tool", 30.0)
    earlier_output = (WARNING, "tool", 10.0)
    ranked = head(later_quote, later_output, earlier_output)
    put_verbatim_first(ranked, query(WARNING))
    assert [h.unit_id for h in ranked.hits] == [2, 1, 0]


def test_among_hits_holding_a_pasted_command_as_much_the_order_stands() -> None:
    """A command or a commit message is held alike by its call, its output and a summary: no kind is its source."""
    commit = "feat: add invoice lines to the billing schema"
    ranked = head((f"[Bash] git commit -m '{commit}'", "transcript", 20.0), (f"[main 1a2b3c4] {commit}", "tool", 10.0))
    put_verbatim_first(ranked, query(commit))
    assert [h.unit_id for h in ranked.hits] == [0, 1]


def test_a_paste_held_as_written_is_answerable_whatever_the_head_guessed() -> None:
    """The query-level guess read a head of messages discussing the error and put the chance that anything here
    answers it at a tenth; the output holding the paste settles it, so each chance is its own model's again."""
    output = (WARNING, "tool", 20.0)
    ranked = head(("the invoice lines are missing", "transcript", 1.0), output)
    ranked.answerable = 0.1
    for hit in ranked.hits:
        hit.probability *= 0.1
    put_verbatim_first(ranked, query(WARNING))
    assert [h.unit_id for h in ranked.hits] == [1, 0]
    assert [h.probability for h in ranked.hits] == pytest.approx([0.9, 0.8])
    assert ranked.answerable == 1.0
    unheld = head(("the invoice lines are missing", "transcript", 1.0), ("Billing.InvoiceLine", "tool", 2.0))
    unheld.answerable = 0.1
    put_verbatim_first(unheld, query(WARNING))  # nothing holds the paste: the guess stands
    assert [h.probability for h in unheld.hits] == pytest.approx([0.9, 0.8]) and unheld.answerable == 0.1


def test_no_hit_holding_enough_of_the_paste_leaves_the_order_alone() -> None:
    ranked = head(("the invoice lines are missing", "transcript", 1.0), ("Billing.InvoiceLine", "tool", 2.0))
    put_verbatim_first(ranked, query(WARNING))
    assert [h.unit_id for h in ranked.hits] == [0, 1] and MIN_HELD > 1
    asked = head(("x", "transcript", 1.0), (f"how did we fix {WARNING}", "tool", 2.0))
    put_verbatim_first(asked, query(f"how did we fix {WARNING}"))  # a question: no paste
    assert [h.unit_id for h in asked.hits] == [0, 1]


def _facts(text: str, kind: str, ts: float) -> UnitFacts:
    """A unit's facts; identical texts up to case and white space share their key, as unit_facts.py makes it."""
    return UnitFacts(text, ts, "s", Words(""), 0.0, " ".join(text.split()).casefold(), 0.0, kind)


def _past_the_head(*units: tuple[str, str, float, int | None]) -> tuple[list[UnitHit], dict[int, UnitFacts]]:
    """Hits past a head, each (text, kind, ts, its place in the BM25 list), their scores below the head's, and their
    facts."""
    hits = [UnitHit(10 + i, score=0.5 - i / 100, keyword_rank=rank) for i, (_, _, _, rank) in enumerate(units)]
    return hits, {10 + i: _facts(text, kind, ts) for i, (text, kind, ts, _) in enumerate(units)}


SIZE = 40  # the first hits of the BM25 list a keyword search re-scores


def test_the_output_holding_the_paste_past_the_head_comes_first() -> None:
    """The vectors ranked the messages near the paste in meaning first and its own output past the head: the words
    found it, so it is read, taken in, and put first."""
    ranked = head(("the invoice lines are missing", "transcript", 1.0), ("Billing.InvoiceLine", "transcript", 2.0))
    ranked.hits.append(UnitHit(2, score=0.7, probability=0.6))
    ranked.units[2] = _facts("the invoice schema again", "transcript", 3.0)
    tail, facts = _past_the_head(
        ("the billing app compiles", "tool", 4.0, 3),  # in the BM25 list's head, holding none of the paste
        (f"$ mix compile\n{WARNING}", "tool", 5.0, 2),  # the output that printed it
        (WARNING, "transcript", 6.0, None),  # not found by words: not read
        (f"again: {WARNING}", "tool", 7.0, SIZE),  # past the BM25 list's head: not read
    )
    read: list[list[int]] = []  # the texts read: every candidate the words found
    looked_up: list[list[int]] = []  # the facts read: only those taken in

    def texts_of(ids: Sequence[int]) -> dict[int, str]:
        read.append(list(ids))
        return {i: facts[i].text for i in ids}

    def facts_of(ids: Sequence[int]) -> dict[int, UnitFacts]:
        looked_up.append(list(ids))
        return {i: facts[i] for i in ids}

    rest = take_in_holders(ranked, tail, query(WARNING), size=SIZE, texts=texts_of, facts=facts_of)
    assert read == [[10, 11]] and looked_up == [[11]]
    assert [h.unit_id for h in rest] == [10, 12, 13]
    assert ranked.hits[-1].unit_id == 11 and ranked.hits[-1].probability == pytest.approx(0.6 * 0.49 / 0.7)
    put_verbatim_first(ranked, query(WARNING))
    assert [h.unit_id for h in ranked.hits] == [11, 0, 1, 2]
    # the scores and chances handed out again: the one taken in gave the last its own, still falling
    assert [h.score for h in ranked.hits] == pytest.approx([1.0, 0.9, 0.7, 0.49])
    assert [h.probability for h in ranked.hits] == pytest.approx([0.9, 0.8, 0.6, 0.42])


def test_nothing_past_the_head_is_read_for_a_question_or_taken_twice() -> None:
    ranked = head(("x", "transcript", 2.0), ("y", "transcript", 2.0))
    ranked.units[0] = _facts(WARNING, "tool", 1.0)
    tail, facts = _past_the_head((f"{WARNING} ", "tool", 3.0, 2), (f"again: {WARNING}", "tool", 4.0, 1))

    def unread(ids: Sequence[int]) -> dict[int, Any]:
        raise AssertionError(f"read {ids} for a question")

    asked = f"what does {WARNING} mean?"
    assert take_in_holders(ranked, tail, query(asked), size=SIZE, texts=unread, facts=unread) == tail
    rest = take_in_holders(
        ranked,
        tail,
        query(WARNING),
        size=SIZE,
        texts=lambda ids: {i: facts[i].text for i in ids},
        facts=lambda ids: facts,
    )
    assert [h.unit_id for h in rest] == [10]  # the head holds its text already (up to case and white space)
    assert [h.unit_id for h in ranked.hits] == [0, 1, 11]


def _line(kind: str, uuid: str, parent: str | None, content: object, minute: int) -> dict[str, Any]:
    return claude_line(kind, uuid, parent, content, session=SESSION, timestamp=f"2026-05-11T10:{minute:02d}:00Z")


def _text(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


@pytest.fixture()
def engine(tmp_path: Path) -> Any:
    """A session where `mix compile` printed WARNING and the agent then quoted its start and talked about it at
    length."""
    folder = tmp_path / "transcripts" / "claude-code" / "-w"
    folder.mkdir(parents=True)
    call = [{"type": "tool_use", "id": "c1", "name": "Bash", "input": {"command": "mix compile"}}]
    printed = "\n".join(
        ["Compiling 12 files (.ex)", WARNING, "└─ lib/billing/invoice.ex: Billing.Invoice (module)", "Generated app"]
    )
    result = [{"type": "tool_result", "tool_use_id": "c1", "is_error": False, "content": printed}]
    lines = [
        _line("user", "u1", None, "compile the billing app", 0),
        _line("assistant", "a1", "u1", call, 1),
        _line("user", "r1", "a1", result, 2),
        _line(
            "assistant",
            "a2",
            "r1",
            _text(
                "Expected — `warning: invalid association `lines` in schema Billing.Invoice`: Billing.InvoiceLine "
                "does not exist yet, the invoice schema names Billing.InvoiceLine before I wrote it. Let me create "
                "Billing.InvoiceLine now."
            ),
            3,
        ),
        _line(
            "assistant",
            "a3",
            "a2",
            _text("Billing.InvoiceLine exists now, so the invalid association in Billing.Invoice is resolved."),
            4,
        ),
    ]
    (folder / f"{SESSION}.jsonl").write_bytes(jsonl(*lines))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with Engine([workspace], Settings(), [tmp_path / "transcripts"], index_dir=tmp_path / "index", embedder=False) as e:
        e.sync()
        yield e


@pytest.mark.parametrize(
    "pasted",
    [
        "associated schema Billing.InvoiceLine does not exist",  # part of the line, no error's prefix
        WARNING,
        f"{WARNING}\n└─ lib/billing/invoice.ex: Billing.Invoice (module)",
    ],
)
def test_a_pasted_line_finds_the_output_that_printed_it_before_the_agent_discussing_it(
    engine: Engine, pasted: str
) -> None:
    results = engine.search(pasted, mode="keyword", min_score=0.0)["results"]
    assert results[0]["kind"] == "tool" and results[0]["messageId"] == "r1", [r["messageId"] for r in results]
    assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)


def test_a_question_about_the_error_keeps_the_prose_first(engine: Engine) -> None:
    results = engine.search("did Billing.InvoiceLine exist?", mode="keyword", min_score=0.0)["results"]
    assert results and results[0]["kind"] != "tool"


FRAME = "test/billing/invoice_test.exs:{line}: (test)"


@pytest.fixture()
def rerun(tmp_path: Path, embedder: Embedder) -> Any:
    """A session where the agent ran one failing test file RUNS times: each run printed the failure's last frame, at
    the line the test had then (`FRAME`), after the run's whole log; the last run failed at line 99. Every short
    frame the agent quoted back is nearer the pasted frame in meaning than any run's long log."""
    folder = tmp_path / "transcripts" / "claude-code" / "-w"
    folder.mkdir(parents=True)
    lines = [_line("user", "u0", None, "make the invoice tests pass", 0)]
    parent = "u0"
    log = [f"Compiling lib/billing/part_{n}.ex (module Billing.Part{n}) in {n} ms" for n in range(12)]
    for run in range(RUNS):
        line = 99 if run == RUNS - 1 else 10 + run
        call = [{"type": "tool_use", "id": f"c{run}", "name": "Bash", "input": {"command": "mix test"}}]
        printed = "\n".join(
            [*log, "  1) test totals (Billing.InvoiceTest)", "     stacktrace:", FRAME.format(line=line)]
        )
        result = [{"type": "tool_result", "tool_use_id": f"c{run}", "is_error": True, "content": printed}]
        quoted = _text(f"Still failing at {FRAME.format(line=line)}, the totals test")
        lines += [
            _line("assistant", f"a{run}", parent, call, 1),
            _line("user", f"r{run}", f"a{run}", result, 2),
            _line("assistant", f"q{run}", f"r{run}", quoted, 3),
        ]
        parent = f"q{run}"
    (folder / f"{SESSION}.jsonl").write_bytes(jsonl(*lines))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with Engine(
        [workspace], Settings(), [tmp_path / "transcripts"], index_dir=tmp_path / "index", embedder=embedder
    ) as e:
        e.sync()
        yield e


def test_a_pasted_frame_finds_its_run_whatever_place_the_meaning_gave_it(rerun: Engine) -> None:
    pasted = FRAME.format(line=99)
    results = rerun.search(pasted, mode="hybrid", min_score=0.0)["results"]
    assert results[0]["messageId"] == f"r{RUNS - 1}", [r["messageId"] for r in results[:5]]


@pytest.mark.parametrize(
    "pasted",
    [
        # the example's consumer error, for another detail-type and with the known list cut short
        "UnroutableEvent: no route for detail-type 'order.shipped' (known: order.created, order.paid)",
        "[ERROR] UnroutableEvent: no route for detail-type 'order.voided' (known: order.created, order.paid, "
        "order.cancelled, order.shipped)",
    ],
)
def test_a_pasted_error_with_other_values_is_shown_at_the_default_floor(example: Engine, pasted: str) -> None:
    results = example.search(pasted)["results"]
    assert results, "no results"
    assert results[0]["kind"] == "tool" and "UnroutableEvent" in results[0]["excerpt"], results[0]


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        ("LED-231", "memory"),  # a ticket a daily note names
        ("0b2e5f71", "tool"),  # a message id only the consumer's log printed
    ],
)
def test_a_code_looked_up_shows_what_holds_it_first(example: Engine, code: str, kind: str) -> None:
    results = example.search(code)["results"]
    assert results, "no results"
    assert results[0]["kind"] == kind and code.lower() in results[0]["excerpt"].lower(), results[0]


def test_a_hit_holding_most_of_a_paste_is_strong_however_weak_the_list() -> None:
    """A sentence of an error's message pasted without its exception's name reads as prose, and every chance of the
    list fell under minScore ("no results" for a line the index holds). The output holding it as written, a name in
    it changed as another checkout has it, is its source: strong; one holding a few runs of a long paste is not."""
    pasted = WARNING.replace("Billing.InvoiceLine", "Shop.OrderLine")
    output = (f"$ mix compile\n{WARNING}", "tool", 20.0)
    part = ("warning: invalid association `lines` in schema Billing.Invoice was renamed", "transcript", 10.0)
    ranked = head(("the invoice lines are missing", "transcript", 1.0), part, output)
    for hit in ranked.hits:
        hit.probability /= 100  # as the calibration put them for a paste that reads as prose
    put_verbatim_first(ranked, query(pasted))
    assert [h.unit_id for h in ranked.hits] == [2, 1, 0]
    assert ranked.hits[0].probability == pytest.approx(0.5)  # strong (answers/confidence.py STRONG)
    assert [h.probability for h in ranked.hits[1:]] == pytest.approx([0.008, 0.007])
