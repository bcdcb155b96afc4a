"""Questions about a period ("what did we do on March 3", "in May 2025", "last week", "yesterday"): answered with
that period's sessions and their most telling messages, not with hits for the words "what did we do".

A query is such a question when it names days (ranking/dates.py reads them) and says little else: at most
MAX_OTHER_WORDS words besides the date's own and the asking words. The days are the user's (display.timeZone):
"yesterday" and "on March 3" start and end at that zone's midnights, "this morning" and "last night" at its hours
(requests/day_parts.py); a list of days ("last Monday and Friday") is those days only (`PeriodQuestion.parts`), not the
days between them. Each session written in the period shows its first real request, a message that records a decision
and the last thing the assistant said there (its summary, usually); the sessions are ordered by what else the query says
(a search over the period only) and then by how much was written in them that period. When the query says more than the
period and nothing written in it matches those words as a search would answer them (the best of the period's top hits
under search.minScore) nor says them in other words (period_nearness.py: its nearest message far nearer than the query's
typical one), the answer is silence that says so and counts the period's sessions: "what kind of saxophone did you buy
last spring?" is not answered with that spring's busiest sessions.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from memlens.engine.answers.confidence import confidence
from memlens.engine.answers.period_nearness import named_within, said_otherwise
from memlens.engine.catalog import Catalog, PeriodUnit, ResultRow
from memlens.engine.filters import SearchFilters
from memlens.engine.keyword.stop_words import STOP_WORDS
from memlens.engine.ranking.dates import (
    MONTHS,
    UNITS,
    WEEKDAY_SHORT,
    WEEKDAYS,
    period_days,
    said_since,
    without_dates,
)
from memlens.engine.ranking.hits import UnitHit
from memlens.engine.ranking.rescoring import answered, hit_floor, passes
from memlens.errors import InvalidRequest
from memlens.requests.day_parts import (
    NUMBERS,
    PART_SPELLINGS,
    YESTERDAY_MISSPELT,
    DayPart,
    SaidDayPart,
    said_clock,
    said_clock_span,
    said_day_part,
    said_day_parts,
    said_hours,
)
from memlens.wire import Confidence, Period, PeriodEvent, PeriodPart, SearchResult

MAX_OTHER_WORDS = 3  # "what did we discuss about the parser on March 3" is still about the day
# ...and said with "since", a question that says more ("how did we configure credo and dialyzer for the project since
# last week"): its days are a bound it sets; more words than a question's are a paste ("deprecated since March 2024")
MAX_OTHER_WORDS_SINCE = 12
PER_SESSION = 3  # telling messages shown per session at most
PERIOD_MATCHES = 50  # hits of the search for the other words that can put a session first
NEAREST_LOOKED_AT = 50  # messages read on each side of an empty period for the nearest one a search may show
NEAREST_BATCH = 5  # ...a few at a time, nearest first
MIN_REQUEST_CHARS = 12  # shorter user messages ("ok", "go on") say nothing about what the session was for
MAX_PART_DAYS = 31  # a part of a day ("in the morning") is its hours on up to a month's days

Hides = Callable[[str | None, str | None, str, str | None, str | None], bool]
"""Whether a message of (session key, session id, path, cwd, parent key) is out of this search's sight."""

# words that only ask ("what did we work on"), or only name the date ("two weeks ago", "last Tuesday")
_ASKING_WORDS = (
    "what which when did do does we i you us our my work worked working discuss discussed talk talked happen "
    "happened go went going get got session sessions chat chats conversation conversations were was day days week "
    "weeks weekend month months year years ago last past this today yesterday tonight tomorrow other earlier recently "
    "previous prior on in during since st nd rd th of the couple back morning afternoon evening night between thru "
    "around sometime late done everything anything"
)
_ASKING = (
    frozenset(_ASKING_WORDS.split())
    | frozenset(YESTERDAY_MISSPELT)
    | frozenset(spelt for spellings in PART_SPELLINGS.values() for spelt in spellings)
    | {"tonite", "2nite"}
)
_WORD = re.compile(r"[^\W_][\w'-]*")
_CLOCK_WORDS = frozenset({"am", "pm", "noon", "midday", "midnight", "since", "around", "till"})
_POSSESSIVE = re.compile(r"(?<=\w)['’]s\b")  # "yesterday's standup": the day's, no word of its own
_YEAR = re.compile(r"\b\d{4}\b")
_SCAFFOLDING = re.compile(r"^\s*(?:#\s*files mentioned by the user|<[\w-]+>|\[|caveat:|/\w+\s*$)", re.I)
_DECISION = re.compile(
    r"\b(?:decided|decision|we(?:'ll| will) (?:go with|use|keep)|going with|settled on|chose|the fix (?:is|was)|"
    r"root cause|conclusion)\b",
    re.I,
)


@dataclass(frozen=True, slots=True)
class PeriodQuestion:
    """The days a query asks about, as instants in the user's time zone, and what else it says."""

    since: float  # epoch seconds: the first day's midnight
    until: float  # the last day's end
    zone: str
    rest: str  # the query's other words ("" when it names only the period)
    # a list of days ("last Monday and Friday"): each run of days named, (since, until) as above; () when the period
    # is all the days from `since` to `until`
    parts: tuple[tuple[float, float], ...] = ()
    event: PeriodEvent | None = None  # the event the days are counted from ("the week before the offsite")
    end_event: PeriodEvent | None = None  # days between two events ("between the offsite and the launch"): the second

    def holds(self, ts: float | None) -> bool:
        """Whether a message written at `ts` was written on a day the query names."""
        if ts is None or not self.since <= ts <= self.until:
            return False
        return not self.parts or any(since <= ts <= until for since, until in self.parts)

    def wire(self, zone: tzinfo, *, nearest: tuple[float | None, float | None] = (None, None)) -> Period:
        """The period as the answer states it; `nearest`: `nearest_outside`'s times, for a period that held none."""
        since, until = iso_time(self.since, zone), iso_time(self.until, zone)
        period: Period = {"since": since, "until": until, "timeZone": self.zone}
        if self.parts:
            parts: list[PeriodPart] = [{"since": iso_time(a, zone), "until": iso_time(b, zone)} for a, b in self.parts]
            period["parts"] = parts
        if self.event is not None:
            period["event"] = self.event
        if self.end_event is not None:
            period["endEvent"] = self.end_event
        before, after = nearest
        if before is not None:
            period["nearestBefore"] = iso_time(before, zone)
        if after is not None:
            period["nearestAfter"] = iso_time(after, zone)
        return period

    def narrow(self, filters: SearchFilters | None) -> SearchFilters:
        """The request's own filters within the period."""
        filters = filters or SearchFilters()
        since = self.since if filters.since is None else max(self.since, filters.since)
        until = self.until if filters.until is None else min(self.until, filters.until)
        return replace(filters, since=since, until=until)


@dataclass(frozen=True, slots=True)
class PeriodAnswer:
    """What a period question is answered with: its messages, or, when the query's other words match nothing
    written in the period, none, how many sessions were written then (`unmatched`; None when they matched) and how
    many of their messages were withheld."""

    results: list[SearchResult]
    unmatched: int | None = None
    withheld: int = 0  # the messages shown at minScore 0 when unmatched


def time_zone(name: str) -> tzinfo:
    """A zone by its IANA name ("Europe/Berlin"); "" is the machine's."""
    if not name:
        local = datetime.now().astimezone().tzinfo
        return local if local is not None else UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise InvalidRequest(
            f"display.timeZone: no time zone named {name!r} (an IANA name such as Europe/Berlin)"
        ) from exc


def zone_name(zone: tzinfo) -> str:
    return str(getattr(zone, "key", None) or datetime.now(zone).tzname() or "UTC")


def read_period(text: str, *, now: float | None, zone: tzinfo) -> PeriodQuestion | None:
    """The period `text` asks about, or None when it names none or says too much else to be about a period."""
    rest = other_words(without_dates(text))  # "Feb 10-12", "mid-February": the date's own words
    if len(rest) > MAX_OTHER_WORDS_SINCE:
        return None
    moment = time.time() if now is None else now
    offset = datetime.fromtimestamp(moment, zone).utcoffset() or timedelta(0)
    local_now = moment + offset.total_seconds()  # dates.py reads days in UTC: shifted, its days are the user's
    if len(rest) > MAX_OTHER_WORDS and not said_since(text, local_now):
        return None
    windows = period_days(text, local_now)
    today = int(local_now // 86400)
    clock = said_clock(text)
    if not windows and clock is not None and clock.relation == "since":  # "what did we do since 9am": today's
        windows = [(today, today)]
    if not windows:
        return None
    if windows[0][0] > today and not _YEAR.search(text):  # "on March 3" asked in February: last year's March
        windows = [(_year_back(first), _year_back(last)) for first, last in windows]
    said = said_day_part(text)
    if said is not None:
        parts = _hours_of(said, windows, today, zone)
    else:  # "Monday evening and Tuesday morning": each day its own hours
        parts = _each_days_hours(said_day_parts(text), windows, today, zone)
    back = said_hours(text)
    span = said_clock_span(text)
    if back is not None:  # "in the last two hours", "an hour ago": those hours, not the days they fall on
        parts = ((moment - back[0], moment - back[1]),)
    elif span is not None:  # "between Monday 3pm and Tuesday noon": from the one to the other
        first, end = span.bounds(_date_of(windows[0][0]), _date_of(windows[-1][1]), zone)
        parts = ((first.timestamp(), end.timestamp() - 0.001),)
    elif clock is not None and len(windows) == 1 and windows[0][0] == windows[0][1]:  # "yesterday at 3pm"
        day = _date_of(windows[0][0])
        first, end = clock.bounds(day, zone)
        if said is not None:  # "this morning before 11am": the morning's hours up to eleven
            part_first, part_end = said.part.bounds(day, zone)
            if max(first, part_first) < min(end, part_end):
                first, end = max(first, part_first), min(end, part_end)
        parts = ((first.timestamp(), end.timestamp() - 0.001),)
    if parts is None:
        parts = tuple((midnight(first, zone), midnight(last + 1, zone) - 0.001) for first, last in windows)
    return PeriodQuestion(
        since=parts[0][0],
        until=parts[-1][1],
        zone=zone_name(zone),
        rest=" ".join(rest),
        parts=parts if len(parts) > 1 else (),
    )


def _hours_of(
    said: SaidDayPart, windows: Sequence[tuple[int, int]], today: int, zone: tzinfo
) -> tuple[tuple[float, float], ...] | None:
    """The hours of the part of a day said ("this morning", "last night", "Tuesday evening") on each day the question
    names, as (since, until) instants; said with "since", from the part's start to the end of today. None when
    there are more than MAX_PART_DAYS days (a season's mornings: the days, whole). A night's day is its evening's:
    "last night" is yesterday's evening and the hours after midnight, not today's evening too."""
    if said.days_back is not None:
        windows = [(today - said.days_back, today - said.days_back)]
    days = [day for first, last in windows for day in range(first, last + 1)]
    if not days or len(days) > MAX_PART_DAYS:
        return None
    hours = [said.part.bounds(_date_of(day), zone) for day in days]
    if said.since:
        return ((hours[0][0].timestamp(), midnight(max(today, days[-1]) + 1, zone) - 0.001),)
    return tuple((first.timestamp(), end.timestamp() - 0.001) for first, end in hours)


def _each_days_hours(
    said: Sequence[SaidDayPart], windows: Sequence[tuple[int, int]], today: int, zone: tzinfo
) -> tuple[tuple[float, float], ...] | None:
    """The hours of parts of a day said of different days ("Monday evening and Tuesday morning", "last night and this
    morning"), each on the day its words name, and a day named without a part ("Monday evening and Tuesday") whole;
    hours that meet are one run. Parts whose words name no day ("on March 3 in the morning and March 4 in the
    evening") go with the days named in the order said. None when fewer than two parts are said, one is said with
    "since", or a part's day cannot be told (the days, whole)."""
    days = [day for first, last in windows for day in range(first, last + 1)]
    if len(said) < 2 or not days or len(days) > MAX_PART_DAYS or any(part.since for part in said):
        return None
    on: list[tuple[int, DayPart]] = []
    unplaced: list[DayPart] = []
    for part in said:
        if part.days_back is not None:
            on.append((today - part.days_back, part.part))
        elif part.weekday is not None:
            # epoch day 0, 1 January 1970, was a Thursday: day d is weekday (d + 3) % 7
            matching = [day for day in days if (day + 3) % 7 == part.weekday]
            if len(matching) != 1:
                return None
            on.append((matching[0], part.part))
        else:
            unplaced.append(part.part)
    left = [day for day in days if day not in {day for day, _ in on}]
    if unplaced:
        if len(unplaced) != len(left):
            return None
        on += list(zip(left, unplaced, strict=True))
        left = []
    hours = [tuple(t.timestamp() for t in part.bounds(_date_of(day), zone)) for day, part in on]
    hours += [(midnight(day, zone), midnight(day + 1, zone)) for day in left]
    runs: list[tuple[float, float]] = []
    for first, end in sorted(hours):
        if runs and first <= runs[-1][1]:
            runs[-1] = (runs[-1][0], max(runs[-1][1], end))
        else:
            runs.append((first, end))
    return tuple((first, end - 0.001) for first, end in runs)


def _date_of(day: int) -> date:
    return date(1970, 1, 1) + timedelta(days=day)


def other_words(text: str) -> list[str]:
    """The query's words that neither ask nor name a date."""
    words = []
    for word in _WORD.findall(_POSSESSIVE.sub("", text.lower())):
        bare = word.rstrip("s") if word.endswith("s") and word[:-1] in UNITS else word
        if bare in STOP_WORDS or bare in _ASKING or bare.rstrip(".") in MONTHS:
            continue
        if bare in WEEKDAYS or bare.rstrip(".") in WEEKDAY_SHORT:  # "last Fri", "on wensday"
            continue
        if bare in NUMBERS or bare in UNITS or re.fullmatch(r"\d+(?:st|nd|rd|th)?|\d{4}-\d{2}-\d{2}", bare):
            continue
        if bare in _CLOCK_WORDS or re.fullmatch(r"\d{1,2}(?:am|pm)", bare):  # "since 9am", "at 3 pm", "before noon"
            continue
        words.append(word)
    return list(dict.fromkeys(words))


def telling(units: Sequence[PeriodUnit]) -> list[PeriodUnit]:
    """A session's most telling messages in a period (its units in order): the first real request, the first
    message that records a decision, and the assistant's last message with prose (its summary, usually)."""
    users = [u for u in units if u.role == "user"]
    answers = [u for u in units if u.role == "assistant"]
    # without a message that reads as one (all scaffolding, or text masked whole), the first and the last say most
    request = next((u for u in users if _real_request(u.head)), users[0] if users else None)
    decision = next((u for u in answers if _DECISION.search(u.head)), None)
    summary = next((u for u in reversed(answers) if _prose(u.head)), answers[-1] if answers else None)
    picked = {u.unit_id: u for u in (request, decision, summary) if u is not None}
    return sorted(picked.values(), key=lambda u: u.seq)[:PER_SESSION]


def _group(row: ResultRow) -> str | None:
    """The group a period answer shows a message in: its session, or for a memory note its file (`notes_between`)."""
    if row.session_key:
        return row.session_key
    return row.path if row.kind == "memory" else None


def by_session(units: Iterable[PeriodUnit]) -> dict[str, list[PeriodUnit]]:
    grouped: dict[str, list[PeriodUnit]] = {}
    for unit in units:
        grouped.setdefault(unit.session_key, []).append(unit)
    return grouped


def period_results(
    question: PeriodQuestion,
    *,
    catalog: Catalog,
    matches: Sequence[UnitHit],
    hides: Hides,
    make_result: Callable[..., SearchResult],
    filters: SearchFilters | None,
    limit: int,
    terms: list[str],
    excerpt_chars: int,
    min_score: float,
    calibrated: bool,
    typical: tuple[float, float] | None = None,
) -> PeriodAnswer:
    """The period's sessions and their telling messages, at most `limit` messages: sessions holding the best
    `matches` (a search for the query's other words within the period) first, then the busiest. With other words
    that none of the period's visible matches answers as a search would (`min_score`, on the calibrated chance when
    `calibrated`) and that say them in no other words either (period_nearness.py, on `typical`: the query's mean
    cosine with the index's messages and its spread; None: not asked), no message: those sessions are about
    something else, and their messages are counted as withheld."""
    narrowed = question.narrow(filters)
    assert narrowed.since is not None and narrowed.until is not None
    sessions = by_session(u for u in catalog.units_between(narrowed.since, narrowed.until) if question.holds(u.ts))
    notes = by_session(u for u in catalog.notes_between(narrowed.since, narrowed.until) if question.holds(u.ts))
    picks = {key: telling(units) for key, units in sessions.items()} | {
        path: units[:PER_SESSION] for path, units in notes.items()
    }
    sessions |= notes
    match_ids = [h.unit_id for h in matches]
    rows = catalog.result_rows([u.unit_id for units in picks.values() for u in units] + match_ids)

    def shown(unit_id: int) -> bool:
        row = rows.get(unit_id)
        return row is not None and visible(row, filters, hides)

    best_match: dict[str, UnitHit] = {}
    within: list[UnitHit] = []  # the matches written in the period that this search may show, best first
    for hit in matches:
        row = rows.get(hit.unit_id)
        key = _group(row) if row is not None else None
        if row is not None and key in sessions and question.holds(row.ts):
            best_match.setdefault(key, hit)
            if shown(hit.unit_id):
                within.append(hit)

    rank = {key: i for i, key in enumerate(best_match)}
    # the sessions and notes that hold the best matches first; then the period's daily notes (what was written down
    # about each day), in the order of their days; then the busiest sessions
    order = sorted(
        (key for key in sessions if any(shown(u.unit_id) for u in picks[key]) or key in best_match),
        key=lambda key: (
            rank.get(key, len(rank)),
            key not in notes,
            notes[key][0].ts if key in notes else -len(sessions[key]),
            key,
        ),
    )
    # as a search answers: nothing unless the best of the period's matches reaches min_score (0: all, the busiest
    # sessions when no word matched)
    matched = (
        not question.rest
        or not order
        or min_score <= 0
        or answered(within, min_score, calibrated=calibrated)
        or said_otherwise(within, typical)
        or (question.event is not None and named_within(within, hit_floor(min_score, calibrated=calibrated)))
    )
    if question.rest and within:  # the other words decide which sessions: those that hold none of them go
        order = [key for key in order if key in best_match]
    per_session = max(1, min(PER_SESSION, limit // max(1, len(order))))
    chosen: dict[str, list[int]] = {}
    for key in order:
        match = best_match.get(key)
        first = [match.unit_id] if match is not None and shown(match.unit_id) else []
        first += [u.unit_id for u in picks[key] if u.unit_id not in first and shown(u.unit_id)]
        chosen[key] = first[:per_session]
    more = more_matches(
        within, chosen, group=lambda i: _group(rows[i]), places=limit, floor=min_score, calibrated=calibrated
    )
    results: list[SearchResult] = []
    for place, key in enumerate(order):
        match = best_match.get(key)
        for unit_id in sorted(chosen[key], key=lambda i: rows[i].position or 0):
            hit = more.get(unit_id) or (match if match and match.unit_id == unit_id else UnitHit(unit_id))
            result = make_result(rows[unit_id], hit, terms, excerpt_chars)
            result["score"] = round(1.0 - place / (len(order) + 1), 4)  # the session's place: ordering only
            result["confidence"] = session_confidence(question, match)
            results.append(result)
            if len(results) >= limit:
                break
        if len(results) >= limit:
            break
    if not matched:  # withheld as a search withholds weak hits: minScore 0 shows the period's busiest sessions
        return PeriodAnswer([], unmatched=sum(key not in notes for key in order) or len(order), withheld=len(results))
    return PeriodAnswer(results)


def more_matches(
    within: Sequence[UnitHit],
    chosen: dict[str, list[int]],
    *,
    group: Callable[[int], str | None],
    places: int,
    floor: float,
    calibrated: bool = True,
) -> dict[int, UnitHit]:
    """The period's further matches for the query's other words, best first, added to their sessions' `chosen` in the
    places left of `places`: a session that holds several of them ("what did we change in the consumer since the
    refund incident": the route added, its tests run, the consumer deployed) shows them, not one and its telling
    messages only. Each is shown as a search shows a weaker hit once its query is answered: when its chance reaches
    the hit floor of `floor` (the request's minScore). Returns the matches added, by unit."""
    left = places - sum(len(ids) for ids in chosen.values())
    least = hit_floor(floor, calibrated=calibrated)
    added: dict[int, UnitHit] = {}
    for hit in within:
        if left <= 0:
            break
        key = group(hit.unit_id)
        if key not in chosen or hit.unit_id in chosen[key] or not passes(hit, least, calibrated=calibrated):
            continue
        chosen[key].append(hit.unit_id)
        added[hit.unit_id] = hit
        left -= 1
    return added


def unmatched_note(question: PeriodQuestion, sessions: int, zone: tzinfo) -> str:
    """What a period answer whose other words matched nothing says: `nothing about 'saxophone' from 2026-03-01 to
    2026-05-31; 14 sessions were written then`."""
    runs = question.parts or ((question.since, question.until),)
    days = " and ".join(_days(since, until, zone) for since, until in runs)
    written = "1 session was" if sessions == 1 else f"{sessions} sessions were"
    return f"nothing about {question.rest!r} {days}; {written} written then"


def _days(since: float, until: float, zone: tzinfo) -> str:
    """`on 2026-03-03`, `from 2026-03-01 to 2026-03-05`; a part of a day with its hours (`from 2026-03-03 05:00 to
    2026-03-03 11:59`)."""
    start, end = datetime.fromtimestamp(since, zone), datetime.fromtimestamp(until + 0.001, zone)
    if start.time() != end.time():  # not from midnight to midnight: hours said
        return f"from {start:%Y-%m-%d %H:%M} to {datetime.fromtimestamp(until, zone):%Y-%m-%d %H:%M}"
    first, last = start.date().isoformat(), datetime.fromtimestamp(until, zone).date().isoformat()
    return f"on {first}" if first == last else f"from {first} to {last}"


def nearest_outside(
    question: PeriodQuestion, *, catalog: Catalog, hides: Hides, filters: SearchFilters | None
) -> tuple[float | None, float | None]:
    """For a period that holds no message this search may show: when the nearest one before it and the nearest one
    after it were written (None on a side that has none within NEAREST_LOOKED_AT messages)."""
    narrowed = question.narrow(filters)
    assert narrowed.since is not None and narrowed.until is not None
    # a list of days that held none: the first after it is the first after its first day (the days between the days
    # named are no part of it, and a message there is nearer than one after the last day)
    after = min(narrowed.until, question.parts[0][1]) if question.parts else narrowed.until
    earlier, later = catalog.units_nearest(before=narrowed.since, after=after, limit=NEAREST_LOOKED_AT)

    def first_shown(ids: list[int]) -> float | None:
        for start in range(0, len(ids), NEAREST_BATCH):  # the nearest is nearly always shown: read a few at a time
            batch = ids[start : start + NEAREST_BATCH]
            rows = catalog.result_rows(batch)
            for unit_id in batch:
                row = rows.get(unit_id)
                if row is not None and row.ts is not None and visible(row, filters, hides):
                    return float(row.ts)
        return None

    return first_shown(earlier), first_shown(later)


def session_confidence(question: PeriodQuestion, match: UnitHit | None) -> Confidence:
    """How sure a period's message answers the question: a question naming only the period is answered by every
    session in it (strong); with other words, as sure as the session's best match for them (weak without one)."""
    if not question.rest:
        return "strong"
    return confidence(match.probability) if match is not None else "weak"


def visible(row: ResultRow, filters: SearchFilters | None, hides: Hides) -> bool:
    """Whether a search with `filters` may show the message of `row` (its filters, scope and excluded sessions)."""
    return _allowed(row, filters) and not hides(row.session_key, row.session_id, row.path, row.cwd, row.parent_key)


def _allowed(row: object, filters: SearchFilters | None) -> bool:
    if filters is None:
        return True
    fmt = getattr(row, "file_format", None)
    role = getattr(row, "role", None)
    key = getattr(row, "session_key", None)
    kind = getattr(row, "kind", None)
    return (
        (filters.format is None or fmt == filters.format)
        and (filters.role is None or role == filters.role)
        and (filters.session is None or key == filters.session)
        and filters.kind in (None, kind)
    )


def _real_request(head: str) -> bool:
    text = head.strip()
    return len(text) >= MIN_REQUEST_CHARS and not _SCAFFOLDING.match(text)


def _prose(head: str) -> bool:
    text = head.strip()
    return len(text) >= MIN_REQUEST_CHARS and not text.startswith("[")


def midnight(day: int, zone: tzinfo) -> float:
    when = date(1970, 1, 1) + timedelta(days=day)
    return datetime(when.year, when.month, when.day, tzinfo=zone).timestamp()


def _year_back(day: int) -> int:
    when = date(1970, 1, 1) + timedelta(days=day)
    try:
        earlier = when.replace(year=when.year - 1)
    except ValueError:  # 29 February
        earlier = when.replace(year=when.year - 1, day=28)
    return (earlier - date(1970, 1, 1)).days


def iso_time(ts: float, zone: tzinfo) -> str:
    """`ts` as the answer states a time: ISO-8601 to the second, in `zone`."""
    return datetime.fromtimestamp(ts, zone).isoformat(timespec="seconds")
