"""The search answer: ranked results, each with its citation fields and, asked for, how it was scored."""

from typing import Literal, NotRequired, TypedDict

from memlens.wire.index_status import EmptyIndex
from memlens.wire.params import FusionMode, HitKind
from memlens.wire.team import TeamStatus

Confidence = Literal["strong", "possible", "weak"]  # a hit's calibrated chance of relevance, in words


class PeriodPart(TypedDict):
    """One run of the days a list names ("on Feb 10 and 12": Feb 10, then Feb 12)."""

    since: str  # ISO-8601 time of its first day's start
    until: str  # ISO-8601 time of its last day's end


class StatedDay(TypedDict):
    """Another day the mentions of an event state than the one taken, and how many of them state it."""

    day: str  # YYYY-MM-DD
    mentions: int


class PeriodEvent(TypedDict):
    """The event a question counts its days from ("the week before the offsite") and the day it was taken to be: a
    date its mentions state near its words, else the day they were written."""

    event: str  # the event's words as the query names them ("offsite")
    offset: str  # the days from it, as the query says them ("the week before"; "between the offsite and the launch")
    day: str  # the event's day (YYYY-MM-DD)
    stated: NotRequired[str]  # the date as a message states it ("Friday 20 Feb"; absent: dated by when written)
    statedIn: NotRequired[str]  # that message: its reference (SESSION:MESSAGE), or a note's relPath:line
    # the day that message was written (YYYY-MM-DD), when what it states is relative to it ("tomorrow", "on Friday")
    statedOn: NotRequired[str]
    # when mentions state other days: how many state this one, the others (most first), and why this one was taken
    # ("most": more mentions state it; "latest": as many state another, and this one was stated last)
    mentions: NotRequired[int]
    otherDays: NotRequired[list[StatedDay]]
    chosenBy: NotRequired[Literal["most", "latest"]]


class UnnamedEvent(TypedDict):
    """An event a question counts its days from that no message this search may show names: no day was read."""

    event: str  # the event's words as the query names them ("offsite")
    offset: str  # the days from it, as the query says them ("the week before"; "between the offsite and the launch")
    end: NotRequired[Literal["start", "end"]]  # of days between two events ("between the offsite and the launch")


class Period(TypedDict):
    """The days a question names ("on March 3", "last week"), in the user's time zone (display.timeZone)."""

    since: str  # ISO-8601 time of the first day's start
    until: str  # ISO-8601 time of the last day's end
    timeZone: str
    parts: NotRequired[list[PeriodPart]]  # a list of days ("last Monday and Friday"): those only, not the days between
    nearestBefore: NotRequired[str]  # when the period holds no message: the time of the last one before it
    nearestAfter: NotRequired[str]  # ...and of the first one after it
    # when the query's other words match nothing written in the period: how many sessions were written then (their
    # messages withheld; the answer's note says so)
    sessionsWritten: NotRequired[int]
    event: NotRequired[PeriodEvent]  # the days are counted from an event ("the week before the offsite"): its day
    endEvent: NotRequired[PeriodEvent]  # days between two events ("between the offsite and the launch"): the second


class EmptyWindow(TypedDict):
    """A search's `since`/`until` window that holds no message at all: nothing was searched. Times are ISO-8601 in
    the user's time zone (display.timeZone); a side not given is absent."""

    since: NotRequired[str]
    until: NotRequired[str]
    timeZone: str
    sinceInFuture: NotRequired[bool]  # true: the `since` is later than now
    nearestBefore: NotRequired[str]  # the time of the last message before the window (absent: none)
    nearestAfter: NotRequired[str]  # ...and of the first one after it


class LeftOut(TypedDict):
    """A query or pasted error longer than the requests' MAX_QUERY_CHARS: its first line and its end were read (a
    Python traceback's exception line is at its end, a Java or JavaScript trace's on its first line), the lines
    between them were not."""

    chars: int  # characters left out, after the first line (from the start, for one long line)
    lines: int  # lines left out (the last of them in part when one line alone was over the bound)
    readChars: int  # characters read: the first line, "…", and the end from a line's start
    firstLine: bool  # the first line was read (false for one long line: only its tail was)


class UnreadDate(TypedDict):
    """A date the query names that no calendar has ("February 30", "2026-13-01"): no day was read from it, and its
    words were searched only when the rest of the query names no topic (else the rest is ranked without it)."""

    text: str  # as the query writes it
    reason: str  # why it is no day: "February has 29 days at most", "there is no month 13"
    wordsSearched: NotRequired[bool]  # its words took part in the ranking (the rest of the query named nothing)


class AmbiguousDate(TypedDict):
    """A numeric date whose day and month may be read either way ("11/02/2026": 11 February or 2 November): no day
    was read from it, since an answer spanning both would span the months between; its words were searched."""

    text: str  # as the query writes it
    readings: list[str]  # the days it may be, as ISO dates ("2026-02-11", "2026-11-02"), earliest first


class Explain(TypedDict):
    """How a hit was scored (`explain: true`)."""

    unitId: int
    bm25: float
    keyword: float
    fused: float
    context: float
    rankScore: float
    probability: float
    vector: float | None
    keywordRank: int | None
    vectorRank: int | None


class SearchResult(TypedDict):
    """One hit: a memory section (lines, heading) or a transcript/summary message (session, message, time).

    A hit's kind decides which keys it has; a `| None` field is one the catalog may hold NULL for (a section before
    a note's first heading, a transcript without a session), sent as null rather than left out, so clients must
    treat null as they treat an absent key."""

    id: str
    kind: HitKind
    score: float
    path: str
    relPath: str
    lineStart: NotRequired[int | None]
    lineEnd: NotRequired[int | None]
    heading: NotRequired[str | None]
    format: NotRequired[str]
    sessionKey: NotRequired[str | None]
    sessionId: NotRequired[str | None]
    reference: NotRequired[str]  # `SESSION:MESSAGE`: the short name `history` opens (answers/references.py)
    messageId: NotRequired[str | None]
    role: NotRequired[str | None]
    timestamp: NotRequired[str | None]
    messageCount: NotRequired[int]
    title: NotRequired[str]
    resumeCommand: NotRequired[str | None]
    parentSessionKey: NotRequired[str]
    excerpt: str
    confidence: NotRequired[Confidence]  # the calibrated chance of relevance in words (absent when not calibrated)
    explain: NotRequired[Explain]
    publisher: NotRequired[str]
    project: NotRequired[str]


class SearchResponse(TypedDict):
    """`memlens.search`, `memlens search --json`, MCP `search`."""

    query: str
    mode: str
    results: list[SearchResult]
    totalResults: int
    searchTimeMs: float
    indexing: bool
    withheld: int  # hits among the first `limit` under minScore, not shown (`--min-score 0` shows them)
    period: NotRequired[Period]  # the days the query asked about, when it is a question about a period
    emptyWindow: NotRequired[EmptyWindow]  # the filters' since/until held no message: the note says so
    emptyIndex: NotRequired[EmptyIndex]  # the index holds nothing: where a sync looked, and what would find some
    unnamedEvent: NotRequired[UnnamedEvent]  # the event the days are counted from is named nowhere: the note says so
    fusion: NotRequired[FusionMode]
    note: NotRequired[str]
    namesNoTopic: NotRequired[bool]  # true: only stop words or lone letters, nothing searched (`note` says so)
    team: NotRequired[TeamStatus]
    leftOut: NotRequired[LeftOut]  # the query was longer than the bound: only its end was read
    unreadDates: NotRequired[list[UnreadDate]]  # dates the query names that cannot exist
    ambiguousDates: NotRequired[list[AmbiguousDate]]  # numeric dates whose day and month may be read either way
