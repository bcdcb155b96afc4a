""" "How did we fix X": the past tool results that best match an error text, each with what followed it in its
session (the assistant's next messages and the edits they made), read from the catalog.

Why tool results: an error lives in what a command printed (a failed test, a linter's complaint, a traceback), and
the agent rarely repeats it in prose; the messages after it are what was done about it. One error per session: the
same failure repeated within a session would otherwise fill the answer with one story."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from memlens.engine.answers.history import history_message
from memlens.engine.answers.quoted_fixes import quoted_fix
from memlens.engine.answers.results import display_path, iso
from memlens.engine.answers.search_answer import SearchSource, ranked
from memlens.engine.answers.sessions import session_labels
from memlens.engine.answers.visibility import Visibility
from memlens.engine.catalog import Catalog
from memlens.engine.filters import SearchFilters
from memlens.engine.keyword.error_query import looks_like_error
from memlens.engine.keyword.pasted_noise import without_pasted_noise
from memlens.engine.keyword.source_excerpts import without_source_excerpts
from memlens.engine.keyword.stack_frames import root_cause, trace_message, without_stack_frames
from memlens.engine.ranking.calibration import FEATURES
from memlens.engine.ranking.query_facts import coverage, query_facts
from memlens.engine.ranking.rescoring import answered
from memlens.engine.sources.common import scrub
from memlens.engine.sources.tool_output import TAIL_LINES
from memlens.redaction import clear_cut
from memlens.requests import FixesRequest, checked, read_end
from memlens.wire import ErrorFix, FixesResponse, HistoryMessage

if TYPE_CHECKING:
    from memlens.engine.ranking.hits import Ranking, UnitHit

COVERAGE = FEATURES.index("coverage")  # in a hit's calibration features: the share of the query's words it holds

CANDIDATES = 40  # tool results ranked before the best ones per session are picked
MIN_COVERAGE = 0.5
"""The share of a pasted error's words (weighted by rarity) a tool result must hold itself to count as an occurrence
of it: below this the best matches were other output that shares a common word or two ("No module named 'psycopg'"
finding a file that imports a module), in the bundled example and in bench/errors.py's absent errors."""
NOT_FAILED_WEIGHT = 0.7  # a tool result that did not fail ranks below failed ones that match about as well
VERBATIM_CHARS = 16  # a pasted line this long or longer, found as written in an output, marks it as an occurrence
# A question to `fixes` asks for a fix in its first words ("how did we fix …", "how do I get rid of …"), which every
# fix it finds answers: its topic is the rest. Searched whole, "fix" was expanded to the words nearest it ("update")
# and an output about another topic that held them ranked first. (Not "how did we handle …": a topic may be handled
# without a fault, and the absent-topic prose asked of `fixes` was then answered.)
_ASKS_FOR_A_FIX = re.compile(
    r"(?:how|what)\s+(?:did|do|does|have|had|can|could|should|would)\s+(?:we|i|you|they|it)\s+(?:ever\s+)?"
    r"(?:fix(?:ed)?|solved?|resolved?|repair(?:ed)?|patch(?:ed)?|get\s+(?:past|around|rid\s+of)|work(?:ed)?\s+around)"
    r"\b[\s:,]*",
    re.IGNORECASE,
)
AFTER_MESSAGE_CHARS = 1500  # each message after an error is cut to this: enough for an edit and its reason
# the module path before a Python exception's class at the start of a line: "ledgerline.consumers.router."
_MODULE_PATH = re.compile(r"^(?:[a-z_][a-z0-9_]*\.)+(?=[A-Z]\w*:)")
LOOK_AHEAD = 40  # units read after an error to find its next messages (tool results in between are skipped)


def _after(catalog: Catalog, row: sqlite3.Row, follow: int) -> list[HistoryMessage]:
    """The first `follow` messages of the session after the error (tool results skipped, the parts of a long
    message joined), each cut to AFTER_MESSAGE_CHARS: as its file holds them, those another file of the session
    keeps too (catalog/copies.py), since what came next in that file is what followed the error."""
    messages: list[HistoryMessage] = []
    for unit in catalog.session_units(row["session_key"], after=row["seq"], count=LOOK_AHEAD, copies=True):
        if unit["kind"] == "tool":
            continue
        message = history_message(unit)
        if messages and message["messageId"] and messages[-1]["messageId"] == message["messageId"]:
            messages[-1]["text"] += "\n" + message["text"]
            continue
        if len(messages) == follow:
            break
        messages.append(message)
    for message in messages:
        if len(message["text"]) > AFTER_MESSAGE_CHARS:
            # never through a secret: with `privacy.redactIndex` off the text is raw, and the door knows no piece
            message["text"] = message["text"][: clear_cut(message["text"], AFTER_MESSAGE_CHARS - 1)] + "…"
    return messages


def error_fixes(
    catalog: Catalog,
    ranking: Ranking,
    *,
    error: str,
    visibility: Visibility,
    limit: int,
    follow: int,
    min_coverage: float = 0.0,
    min_chance: float = 0.0,
    end_coverage: Callable[[str], float] | None = None,
    pasted_lines: Sequence[str] = (),
) -> FixesResponse:
    """The best matching tool result of each of the `limit` best sessions (`ranking`: tool results only, best
    first), failed ones first when they match about as well, each with the `follow` messages after it; only those
    that hold at least `min_coverage` of the query's words (weighted by rarity) themselves, or of its last lines
    (`end_coverage`: the share of them a tool result's text holds); nothing unless the ranking answers the query by
    search's rule at `min_chance` (rescoring.answered). An output that holds one of `pasted_lines` as
    written (`verbatim_lines`) counts as failed: a log line that printed the error is where it happened, while the
    code that raises it (a file that was read) holds its words apart."""
    hits = ranking.hits[:CANDIDATES] if answered(ranking.hits, min_chance, calibrated=ranking.calibrated) else []
    rows = catalog.units_by_id([h.unit_id for h in hits])
    weighted: list[tuple[float, sqlite3.Row]] = []
    for hit in hits:
        row = rows.get(hit.unit_id)
        if row is None or row["kind"] != "tool" or not row["session_key"]:
            continue
        if min_coverage and not _holds(hit, row["text"], min_coverage, end_coverage):
            continue
        occurred = row["error"] or _holds_a_line(row["text"], pasted_lines)
        weighted.append((hit.score * (1.0 if occurred else NOT_FAILED_WEIGHT), row))
    weighted.sort(key=lambda pair: -pair[0])
    fixes: list[ErrorFix] = []
    seen: set[str] = set()
    for score, row in weighted:
        key = str(row["session_key"])
        if key in seen:
            continue
        seen.add(key)
        session = catalog.session(key)
        if session is None or visibility.hides_row(session, key=key):
            continue
        fixes.append(
            {
                "sessionKey": key,
                "sessionId": session["session_id"],
                "format": session["format"],
                "path": session["path"],
                "title": session["title"],
                "messageId": row["message_id"],
                "timestamp": iso(row["ts"]),
                "error": bool(row["error"]),
                "score": round(score, 4),
                "text": row["text"],
                "after": _after(catalog, row, follow),
            }
        )
        if len(fixes) == limit:
            break
    # the title a session is known by everywhere else (its first real request when the transcript names none)
    labels = session_labels(catalog, [fix["sessionKey"] for fix in fixes])
    for fix in fixes:
        if (label := labels.get(fix["sessionKey"])) is not None:
            fix["title"] = label["title"]
    return {"error": error, "fixes": fixes}


def verbatim_lines(error: str) -> list[str]:
    """The lines of a pasted error that can be looked for as written: each with its spaces folded and in lower case,
    of VERBATIM_CHARS characters or more (a short line, `Error:` or `}`, is in every log). A Python exception line
    also without its module (`app.router.UnroutableEvent: …` is `UnroutableEvent: …` in a log that printed it)."""
    lines = [" ".join(line.split()) for line in error.splitlines()]
    lines += [unqualified for line in lines if (unqualified := _MODULE_PATH.sub("", line, count=1)) != line]
    return [line.casefold() for line in lines if len(line) >= VERBATIM_CHARS]


def _holds_a_line(text: str, lines: Sequence[str]) -> bool:
    if not lines:
        return False
    folded = " ".join(text.split()).casefold()
    return any(line in folded for line in lines)


def _holds(hit: UnitHit, text: str, share: float, end_coverage: Callable[[str], float] | None) -> bool:
    """Whether a tool result holds `share` of the query's words, or of its last lines (`end_coverage`)."""
    return _coverage(hit) >= share or (end_coverage is not None and end_coverage(text) >= share)


def _coverage(hit: UnitHit) -> float:
    return hit.features[COVERAGE] if hit.features else 0.0


def _end_coverage(engine: SearchSource, error: str) -> Callable[[str], float] | None:
    """For an error of more lines than the index keeps of a tool output's end (tool_output.TAIL_LINES): the share of
    its last lines' words (weighted by rarity) a text holds. A long paste's first lines are mostly a traceback's
    outer frames, which the index keeps of no output in full (an output is kept in part, tool_output.trim_output):
    held against the whole paste, the very output it was copied from would not count as an occurrence."""
    lines = error.strip().splitlines()
    return _coverage_of(engine, "\n".join(lines[-TAIL_LINES:])) if len(lines) > TAIL_LINES else None


def _message_coverage(engine: SearchSource, error: str) -> Callable[[str], float] | None:
    """For a pasted stack trace: the share of its message lines' words (weighted by rarity) a text holds. Its kept
    innermost frame names a file and function that a log which printed the error alone never holds, so the very
    output that logged it would not count as an occurrence."""
    message = trace_message(error)
    return _coverage_of(engine, message) if message is not None else None


def _cause_coverage(engine: SearchSource, error: str) -> Callable[[str], float] | None:
    """For a chained trace (`Caused by:`): the share of its root cause's words (weighted by rarity) a text holds. The
    exceptions wrapping the cause say what the code around it was doing (`IllegalStateException: task 3 failed`),
    words a log of the cause alone never holds: with them the output of the very error held too little of the
    message to count as an occurrence."""
    cause = root_cause(error)
    return _coverage_of(engine, cause) if cause is not None else None


def _coverage_of(engine: SearchSource, part: str) -> Callable[[str], float]:
    """The share of `part`'s words (weighted by rarity) a text holds."""
    keyword = engine.retriever.keyword
    facts = query_facts(keyword.parse(part), keyword)
    return lambda text: coverage(facts, set(keyword.tokens(text)), text)


def _part_coverage(engine: SearchSource, error: str) -> Callable[[str], float] | None:
    """The best share a text holds of a part of the paste that may be all an output printed of it: its last lines
    (`_end_coverage`), a trace's message (`_message_coverage`) or its root cause (`_cause_coverage`)."""
    found = (_end_coverage(engine, error), _message_coverage(engine, error), _cause_coverage(engine, error))
    parts = [c for c in found if c is not None]
    if not parts:
        return None
    return lambda text: max(part(text) for part in parts)


def topic_of_question(question: str) -> str:
    """A question's topic without its opening words that ask for a fix (`how did we fix the DLQ backup?` → `the DLQ
    backup?`); a question with nothing after them, and any other text, as it is."""
    asked = _ASKS_FOR_A_FIX.match(question.lstrip())
    topic = question.lstrip()[asked.end() :].strip() if asked else ""
    return topic or question


def past_fixes(engine: SearchSource, error: str, *, limit: int, follow: int) -> FixesResponse:
    """The answer to `memlens fixes` before the door's redaction: the request checked, the tool results ranked for
    the error, then the best of each session with what followed it (`error_fixes`)."""
    request = checked(FixesRequest, error=error, limit=limit, follow=follow)
    engine.refresh()
    error, left_out = read_end(FixesRequest, "error", request.error)  # a traceback tells at its end
    query = scrub(error)
    read = without_pasted_noise(query)  # its colours and time stamps are in no output
    # searched by its message, which an output of the same error holds; not by its innermost frame, which names
    # the code it ran through on the machine it was copied from (an output of the same error from other code, or
    # another home folder, holds other names, and they counted against it as words of the error it lacked)
    message = without_source_excerpts(without_stack_frames(read, innermost=False))
    pasted = looks_like_error(read)
    if not pasted:
        message = topic_of_question(message)
    ranking = ranked(
        engine,
        message,
        mode=None,
        filters=SearchFilters(kind="tool"),
        limit=CANDIDATES,
        fusion=None,
    )
    answer = error_fixes(
        engine.catalog,
        ranking,
        error=query,
        visibility=engine.visibility(),
        limit=request.limit,
        follow=request.follow,
        # a pasted error is verbatim: output that holds little of it is not an occurrence; a question in prose ("how
        # did we fix the goreleaser check") is in other words than the output, and is answered as a search would
        # answer it: not at all when the index does not hold its topic (words found nowhere, nothing near in meaning)
        min_coverage=MIN_COVERAGE if pasted else 0.0,
        min_chance=0.0 if pasted else engine.settings.search.min_score,
        end_coverage=_part_coverage(engine, read),
        pasted_lines=verbatim_lines(message),  # prose asked in other words is held by no output
    )
    # a question that asks for a fix is asked by its topic, as prose, though its words look like an error's (a
    # snake_case name: "how did we fix esbuild failing to resolve phoenix_html"): a note quotes the error, not it
    topic = topic_of_question(message)
    verbatim = pasted and topic == message
    quoted = _quoted_fixes(
        engine,
        topic,
        pasted=verbatim,
        lines=verbatim_lines(topic),
        limit=request.limit,
        follow=request.follow,
        min_chance=0.0 if verbatim else engine.settings.search.min_score,
    )
    answer["fixes"] = _quoted_first(quoted, answer["fixes"], request.limit)
    if left_out is not None:
        answer["leftOut"] = left_out
    return answer


def _quoted_fixes(
    engine: SearchSource,
    query: str,
    *,
    pasted: bool,
    lines: Sequence[str],
    limit: int,
    follow: int,
    min_chance: float,
) -> list[ErrorFix]:
    """The notes and messages (not tool results) that quote the error and say how it was fixed (quoted_fixes.py),
    best first, one per note file or session: each as a fix whose text is the piece that says it (a message's with
    the messages after it, as a tool result's)."""
    ranking = ranked(
        engine, query, mode=None, filters=SearchFilters(without_kind="tool"), limit=CANDIDATES, fusion=None
    )
    hits = ranking.hits if answered(ranking.hits, min_chance, calibrated=ranking.calibrated) else []
    rows = engine.catalog.result_rows([hit.unit_id for hit in hits])
    units = engine.catalog.units_by_id([hit.unit_id for hit in hits])
    covers = _coverage_of(engine, query)
    visibility = engine.visibility()
    fixes: list[ErrorFix] = []
    seen: set[str] = set()
    for hit in hits:
        row, unit = rows.get(hit.unit_id), units.get(hit.unit_id)
        if row is None or unit is None or row.kind not in ("memory", "transcript"):
            continue
        where = row.session_key or row.path  # one fix a session, or a note file
        if where in seen or visibility.hides(row.session_key, row.session_id, row.path, row.cwd, row.parent_key):
            continue
        note = row.kind == "memory"
        # a note's text as its file holds it: without the heading path the index puts first
        text = (
            row.text[len(row.heading) + 1 :]
            if note and row.heading and row.text.startswith(row.heading + "\n")
            else row.text
        )
        piece = quoted_fix(text, lines=lines, covers=covers, share=MIN_COVERAGE, pasted=pasted)
        if piece is None:
            continue
        seen.add(where)
        fix: ErrorFix = {
            "sessionKey": row.session_key or "",
            "sessionId": row.session_id or "",
            "format": row.file_format,
            "path": row.path,
            "title": row.heading if note else None,
            "messageId": row.message_id or "",
            "timestamp": iso(row.ts),
            "error": False,
            "score": round(hit.score, 4),
            "text": piece,
            "after": [] if note else _after(engine.catalog, unit, follow),
            "source": "note" if note else "message",
        }
        if note:
            fix["relPath"] = display_path(row.path, engine.workspaces)
            fix["lineStart"] = _line_of(piece, text, row.line_start if row.line_start is not None else row.position)
        fixes.append(fix)
        if len(fixes) == limit:
            break
    labels = session_labels(engine.catalog, [fix["sessionKey"] for fix in fixes if fix["sessionKey"]])
    for fix in fixes:
        if (label := labels.get(fix["sessionKey"])) is not None:
            fix["title"] = label["title"]
    return fixes


def _line_of(piece: str, text: str, first: int | None) -> int | None:
    """The line of the note file `piece` starts on: `text` (a chunk) starts on line `first`."""
    if first is None:
        return None
    head = piece.splitlines()[0] if piece else ""
    lines = text.splitlines()
    return first + lines.index(head) if head in lines else first


def _quoted_first(quoted: list[ErrorFix], found: list[ErrorFix], limit: int) -> list[ErrorFix]:
    """The notes and messages that say how the error was fixed, then the tool results that printed it: `limit` in
    all. A session whose tool result printed the error is told by that result and what followed it (its message
    that quotes the error is among them, or near), not twice."""
    printed = {fix["sessionKey"] for fix in found}
    told = [fix for fix in quoted if not fix["sessionKey"] or fix["sessionKey"] not in printed]
    return [*told, *found][:limit]
