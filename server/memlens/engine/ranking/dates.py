"""Dates named in a question or a message, as day windows, so a message on the named date can rank higher.

A question's dates: absolute ("8 May 2023", "May 8, 2023", "2023-05-08", "May 2023", "2023-05", "in March", "Feb
10-12", "between March 2 and 5", "early/mid/late March", "the first half of March" (or of 2025), "the first week of
March", "in 2025", "the week of March 3"), relative to now ("yesterday", "the day before yesterday", "this morning",
"last week" or "the previous week", "last month", "three days ago", "a fortnight ago", "last Friday", "Monday last
week", "this Monday" and "Monday of this week": this calendar week's, "the Tuesday before last"), from a day to now
("since Monday", "since March 2") and relative to a named date ("two weeks before August 11, 2023", "the week before 3
August 2023"); a two-digit year after a day and a month's name is that year ("12 Feb 26", "Feb 12 '26"), and so is one
after a numeric date's day and month ("12.02.26", "13/02/26"). Each day of a list is one ("last Tuesday and
Wednesday", "on Feb 10 and 12"), not a number that counts a thing ("March 3 and 4 people"); two days said as a span's
ends are it ("from Feb 10 to Feb 12", "between Monday and Wednesday"); a possessive is its date's ("Monday's release",
"last year's budget"), and two weekdays as a range's ends ("Mon-Wed", "mon to wed", "Mon–Fri"). Both a question
about a period (`period_windows`) and the ranking (`query_windows`) also read "in the last 3 days", "over the past
fortnight", "the week before last", "the end of last year", "the second half of last month", "in Q1", "from the 2nd
to the 5th", "the 12th", "the first half of the week" (this one's); only a question about a period reads "last
month" as the calendar's, "two days ago" as that day (the ranking keeps its wider windows of these words) and a
weekday said alone ("what did we do Friday"), and no period in a day said as an open bound ("before Feb
5"). Every reader also takes "the Tuesday before last week", "a week ago Friday" (the Friday nearest a week
back), "the other week", "last March" (said in March: the year before's), "late 2025", a weekday's short form after
a word that makes it one ("last Fri", "on Wed") and common misspellings ("wensday", "febuary", "yesterdy"); "sat"
and "sun" only so and before no word of a name ("last sat", not "last sat solver run"), or together ("Fri-Sun", "Sat
and Sun"). A question's holidays ("over Christmas", "since Easter": holidays.py), seasons ("last summer":
seasons.py) and weekdays of a month ("the first Monday of March") are read as its dates of the calendar are; a
message's are not, but for a season said with "last". Every reader takes the days beside a date, a holiday or a
weekday ("the week after Christmas", "the weekend before March 14", "the Friday before Christmas", "the day after last
Tuesday": `_beside`), "the weekend of March 7", parts of a quarter ("the end of Q3"), "Q3 last year", "H2 2025" and
"year to date"; "a week from Monday" is a plan's, no day.
A message's dates: the day it was written, plus what its own relative words mean from that day ("yesterday", "last
week", "two days ago", "last weekend", "next month", "last summer"); the single day it states of an event from that
day ("offsite tomorrow!", "the launch is next Tuesday", "demo in two days", "the offsite is on Friday":
`stated_relative_days`). A question's named events: days counted from one ("the week before the offsite":
`anchored_events`) or between two ("between the offsite and the launch": `event_spans`). Windows are (first day,
last day) as epoch days (UTC).
"""

from __future__ import annotations

import calendar
import functools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from memlens.engine.keyword.stop_words import STOP_WORDS
from memlens.engine.ranking.holidays import ends_a_day, holiday_windows, nth_weekday
from memlens.engine.ranking.seasons import season_windows
from memlens.requests import why_no_such_day
from memlens.requests.day_parts import NUMBERS, PART_SPELLINGS, YESTERDAY_MISSPELT, spelt_right
from memlens.wire import AmbiguousDate, UnreadDate

Window = tuple[int, int]

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS |= {name.lower(): i for i, name in enumerate(calendar.month_abbr) if name}
MONTHS["sept"] = 9
MONTHS |= {"febuary": 2, "feburary": 2, "janurary": 1, "septmber": 9}  # misspelt as often as spelt in a search box
WEEKDAYS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
# weekdays misspelt as users type them: read wherever a weekday is
WEEKDAYS |= {
    "wensday": 2, "wendsday": 2, "wednsday": 2, "wendesday": 2, "wedensday": 2, "tuseday": 1, "tusday": 1,
    "thurday": 3, "thrusday": 3, "thursady": 3, "firday": 4, "saturaday": 5,
}  # fmt: skip
# a weekday's short form ("last Fri", "on Wed"): read only after a word that says it is a day ("wed" and "mon" alone
# are words too often)
WEEKDAY_SHORT = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "weds": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4}
# "sat" and "sun" are words more often still ("worked on sat solving", "on Sun's JDK", "the cat sat"): days only after
# such a word when no word of a thing's name follows ("last sat", "on sun?", "since Sat morning"; not "last sat
# solver run"), as a range's end ("Fri-Sun") or together ("Sat and Sun")
WEEKEND_SHORT = {"sat": 5, "sun": 6}
UNITS = {"day": 1, "week": 7, "wk": 7, "fortnight": 14, "month": 30, "year": 365}
_UNIT = "(day|week|wk|fortnight|month|year)"
# "the previous week", "the prior month", "previous Tuesday": said as "last" is
_PREVIOUS = r"(?:the\s+)?(?:previous|prior)"

_MONTH = "(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_NUM = r"(\d{1,3}|" + "|".join(sorted(NUMBERS, key=len, reverse=True)) + ")"
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+(\d{{4}})\b", re.I)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I)
# A two-digit year after a month's name and its day: "12 Feb 26", "12 Feb '26", "Feb 12 '26" (with an apostrophe only
# after the day: "Feb 12, 26" names two days)
_DAY_MONTH_SHORT_YEAR = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?:,?\s+['’]|\s+)(\d{{2}})\b(?![:.]\d)", re.I
)
_MONTH_DAY_SHORT_YEAR = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+['’](\d{{2}})\b(?![:.]\d)", re.I)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_ISO_MONTH = re.compile(r"\b((?:19|20)\d{2})-(0[1-9]|1[0-2])\b(?![-/.:]\d)")  # "2025-03": that month
# Numeric dates with a four-digit year, not part of a longer run of numbers or a word (a version, a path): "2026/02/11"
# (year first), "11.02.2026" (dots: day first, as written where dots are used), and "25/02/2026" or "2/25/2026",
# read only when one order alone makes a date: "11/02/2026" is 11 February or 2 November by where it was written,
# and a period answer of both would span the nine months between, so it stays words
_YEAR_SLASH = re.compile(r"(?<![\w/.])((?:19|20)\d{2})/(\d{1,2})/(\d{1,2})(?![\w/]|\.\d)")
_DAY_DOTS = re.compile(r"(?<![\w.])(\d{1,2})\.(\d{1,2})\.((?:19|20)\d{2})(?!\w|\.\d)")
_SLASHES = re.compile(r"(?<![\w/.])(\d{1,2})/(\d{1,2})/((?:19|20)\d{2})(?![\w/]|\.\d)")
# A two-digit year last is read the same ways: "12.02.26" (day first; its day and month written with two digits
# each, as a date is and a version such as "3.12.10" is not), "13/02/26" or "2/13/26" (one order alone makes a
# date); "12/02/26" reads either way and stays words. A fraction or a ratio ("1/2/3", "3/4") has no two-digit year.
_SHORT_DAY_DOTS = re.compile(r"(?<![\w.])(\d{2})\.(\d{2})\.(\d{2})(?!\w|\.\d)")
_SHORT_SLASHES = re.compile(r"(?<![\w/.])(\d{1,2})/(\d{1,2})/(\d{2})(?![\w/]|\.\d)")
# each with the ways it can be read: the groups of year, month and day
_NUMERIC_DATES = (
    (_YEAR_SLASH, ((1, 2, 3),)),
    (_DAY_DOTS, ((3, 2, 1),)),
    (_SLASHES, ((3, 2, 1), (3, 1, 2))),
    (_SHORT_DAY_DOTS, ((3, 2, 1),)),
    (_SHORT_SLASHES, ((3, 2, 1), (3, 1, 2))),
)
_AFTER_A_VERSION = re.compile(r"\b(?:v|version|release|python|node|go|java|ruby|rust)\s*$", re.I)
_MONTH_YEAR = re.compile(rf"\b{_MONTH}\s*,?\s+(\d{{4}})\b", re.I)
_IN_MONTH = re.compile(rf"\b(?:in|during|since|early|late|mid|last|this)\s+(?:-\s*)?{_MONTH}\b", re.I)
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b(?!,?\s+\d{{4}})", re.I)
_MONTH_DAY = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?!,?\s+\d{{4}})(?!\d)", re.I)
_TO = r"\s*(?:-|–|to|through|thru|until|till)\s*"
_ORD = r"(?:st|nd|rd|th)?"
_YEAR_AFTER = r"(?:,?\s+(\d{4}))?"
_HALF = r"(?:first|1st|second|2nd|latter)\s+half"
_MONTH_DAY_RANGE = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}}){_ORD}{_TO}(\d{{1,2}}){_ORD}\b(?!:){_YEAR_AFTER}", re.I)
_DAY_RANGE_MONTH = re.compile(
    rf"\b(\d{{1,2}}){_ORD}{_TO}(?:the\s+)?(\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH}\b{_YEAR_AFTER}", re.I
)
# "between March 2 and 5", "between the 2nd and 5th of March": a range only after "between" ("March 2 and 5" alone
# may name two days)
_BETWEEN_MONTH_DAYS = re.compile(
    rf"\bbetween\s+{_MONTH}\s+(\d{{1,2}}){_ORD}\s+and\s+(?:the\s+)?(\d{{1,2}}){_ORD}\b(?!:){_YEAR_AFTER}", re.I
)
_BETWEEN_DAYS_MONTH = re.compile(
    rf"\bbetween\s+(?:the\s+)?(\d{{1,2}}){_ORD}\s+and\s+(?:the\s+)?(\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH}\b{_YEAR_AFTER}",
    re.I,
)
# A part of a month: "early February" its first ten days, "mid-February" the next ten, "late February" or "the end of
# February" the rest, "the first half of February" its days 1-14 and "the second half" the rest; "the first week of
# March" its days 1-7, "the last week of March" its last seven
_PART_OF_MONTH = re.compile(
    rf"\b(?:(early|mid|late)\s*-?\s*|(?:the\s+)?(beginning|start|middle|end|{_HALF})\s+of\s+){_MONTH}\b{_YEAR_AFTER}",
    re.I,
)
_PARTS = {"early": 1, "beginning": 1, "start": 1, "mid": 2, "middle": 2, "late": 3, "end": 3}
_WEEK_OF_MONTH = re.compile(
    rf"\b(?:the\s+)?(first|1st|second|2nd|third|3rd|fourth|4th|last)\s+week\s+of\s+{_MONTH}\b{_YEAR_AFTER}", re.I
)
_WEEKS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "last": 0}
# "the first Monday of March", "the last Friday of February", "the second weekend in May 2025": that day (a
# weekend its Saturday and Sunday), in a question the latest such day (a message's is as often one to come)
_WEEKDAY_OF_MONTH = re.compile(
    r"\b(?:the\s+)?(first|1st|second|2nd|third|3rd|fourth|4th|fifth|5th|last)\s+("
    + "|".join(calendar.day_name)
    + rf"|weekend)\s+(?:of|in)\s+{_MONTH}\b{_YEAR_AFTER}",
    re.I,
)
_NTH = _WEEKS | {"fifth": 5, "5th": 5, "last": -1}
# "early 2025", "mid-2025", "the end of 2025": a third of that year (January to April, May to August, September to
# December)
_PART_OF_YEAR = re.compile(
    r"\b(?:(early|mid|late)\s*-?\s*|(?:the\s+)?(beginning|start|middle|end)\s+of\s+)((?:19|20)\d{2})\b(?![-/.:]\d)",
    re.I,
)
_HALF_OF_YEAR = re.compile(rf"\b(?:the\s+)?({_HALF})\s+of\s+((?:19|20)\d{{2}})\b(?![-/.:]\d)", re.I)  # January-June
_IN_YEAR = re.compile(r"\b(?:in|during|throughout)\s+(?:the\s+year\s+)?((?:19|20)\d{2})\b(?![-/.:]\d)", re.I)
_WEEK_OF = re.compile(r"\bweek\s+of\s+(?:the\s+)?$", re.I)
_WEEKEND_OF = re.compile(r"\bweekend\s+of\s+(?:the\s+)?$", re.I)
_AGO = re.compile(rf"\b{_NUM}\s+{_UNIT}s?\s+(?:ago|back)\b", re.I)  # "2 wks ago", "a few weeks back"
_WEEKDAY_NAME = "(" + "|".join(WEEKDAYS) + ")"
# the days said beside a date, written right before it: "two weeks before August 11", "the week after Christmas",
# "the weekend before March 14", "the Friday before Christmas" ("last weekend before April 10" too: not the latest
# weekend, `_beside` says which days)
_BEFORE_AFTER = re.compile(
    rf"\b(?:{_NUM}\s+{_UNIT}s?|(?:the|last)\s+(?:(day|week|month|weekend)|{_WEEKDAY_NAME}))\s+(before|after)\s+"
    r"(?:the\s+)?$",
    re.I,
)
_YESTERDAY_MISSPELT = "(?:" + "|".join(YESTERDAY_MISSPELT) + ")"
# "this morning" and "last night" as they are misspelt ("this mornig", "last nite", "tonite"): read as spelt right
_DAY_PART_SPELT = (
    "(?:"
    + "|".join(spelt for name in ("morning", "afternoon", "evening") for spelt in (name, *PART_SPELLINGS[name]))
    + ")"
)
_NIGHT_SPELT = "(?:" + "|".join(("night", *PART_SPELLINGS["night"])) + ")"
_LAST = re.compile(r"\b((?:the\s+)?day\s+(?:before\s+yesterday|after\s+tomorrow)|yesterday|today|tonight|tomorrow|"
                   rf"{_YESTERDAY_MISSPELT}|tonite|2nite|"
                   rf"(?:last|{_PREVIOUS})\s+(?:week|weekend|fortnight|month|year)|last\s+{_NIGHT_SPELT}|the\s+night\s+before\s+last|"
                   rf"this\s+{_DAY_PART_SPELT}|"
                   r"(?:this|next)\s+(?:week|weekend|month|year)|the\s+other\s+(?:day|week))\b", re.I)  # fmt: skip
# a weekday's short form said before a part of a day in a question ("mon morning", "tue evening and wed night"): a
# day, as "Monday morning" is; alone, "mon" and "sat" are as often other words
_SHORT_WEEKDAY_PART = re.compile(
    rf"(?<![\w*/,-])({'|'.join([*WEEKDAY_SHORT, *WEEKEND_SHORT])})\.?"
    rf"(?=(?:['’]s)?\s+(?:{_DAY_PART_SPELT}|{_NIGHT_SPELT})s?\b)",
    re.I,
)
_ANCHORED = re.compile(
    rf"\b(?:{_NUM}\s+{_UNIT}s?|the\s+(day|week|month|weekend|year))\s+(before|after)\s+"
    r"(?:the|my|his|her|their|our|your)\s+([^\W\d][\w'-]*(?:\s+[^\W\d][\w'-]*){0,3})",
    re.I,
)
# "between the offsite and the launch", "from the offsite to the launch", "after the offsite until the launch": the
# days from one event's day to the other's ("to" only after "from": "after the visit to the hospital" is one event)
_EVENT_DETERMINER = r"(?:the|my|his|her|their|our|your)"
_EVENT_NAME = r"([^\W\d][\w'-]*(?:\s+[^\W\d][\w'-]*){0,3})"
_EVENT_ENDS = r"(?:until|till|through|thru|up\s+to|up\s+until|before)"
_BETWEEN_EVENTS = re.compile(
    rf"\b(?:between\s+{_EVENT_DETERMINER}\s+{_EVENT_NAME}\s+and|from\s+{_EVENT_DETERMINER}\s+{_EVENT_NAME}\s+"
    rf"(?:to|{_EVENT_ENDS})|(?:after|since)\s+{_EVENT_DETERMINER}\s+{_EVENT_NAME}\s+{_EVENT_ENDS})\s+"
    rf"{_EVENT_DETERMINER}\s+{_EVENT_NAME}",
    re.I,
)
# "since the offsite", "everything after the launch": the days from the event's day to today; only as the question's
# last words ("since the refactor broke the parser" is a cause, "after the visit to the hospital" one event of more
# words than its name)
_SINCE_EVENT = re.compile(
    rf"\b((?:ever\s+)?since|after)\s+{_EVENT_DETERMINER}\s+([^\W\d][\w'-]*(?:\s+[^\W\d][\w'-]*){{0,3}})\s*[?.!]*\s*$",
    re.I,
)
_WEEKDAY = "(" + "|".join(WEEKDAYS) + ")"
_WEEKDAY_OR_SHORT = "(" + "|".join([*WEEKDAYS, *WEEKDAY_SHORT, *WEEKEND_SHORT]) + r")\b\.?"  # "last Fri", "on Wed."
_POSSESSIVE = r"['’]s\b"
# "last Friday", "the previous Friday", "on Monday", "since Monday", and a weekday's thing ("Monday's release": the
# latest Monday's)
_LAST_WEEKDAY = re.compile(
    rf"\b(?:(?:last|this past|{_PREVIOUS}|on|since(?:\s+last)?|(?:from|between)(?:\s+last)?)\s+{_WEEKDAY_OR_SHORT}|"
    rf"{_WEEKDAY}(?={_POSSESSIVE}))",
    re.I,
)
_WEEK = rf"(last|this|next|{_PREVIOUS})\s+week\b"  # which week a weekday is of: "last", "the previous", "this", "next"
_WEEK_THEN_WEEKDAY = re.compile(rf"\b{_WEEK},?\s+(?:on\s+)?{_WEEKDAY_OR_SHORT}", re.I)  # "last week on Monday"
# "the Tuesday before last", "two Tuesdays ago": the one a week (or more) before the latest
_WEEKDAY_WEEKS_BACK = re.compile(
    rf"\b(?:(?:the\s+)?{_WEEKDAY}\s+before\s+last\b(?!\s+(?:week|weekend|month|year)\b)|{_NUM}\s+{_WEEKDAY}s\s+ago\b)",
    re.I,
)
# "the Tuesday before last week": that of the calendar week before last week
_WEEKDAY_BEFORE_LAST_WEEK = re.compile(rf"\b(?:the\s+)?{_WEEKDAY}\s+before\s+last\s+week\b", re.I)
# "a week ago Friday", "two weeks ago on Friday": the Friday nearest to that many weeks ago (said on a Thursday, the
# Friday six days back; the idiom's other reading, the Friday a week before the latest, is a week earlier then and
# the same day when said on a Saturday)
_WEEKS_AGO_WEEKDAY = re.compile(rf"\b{_NUM}\s+weeks?\s+ago,?\s+(?:on\s+)?(?:last\s+)?{_WEEKDAY}\b", re.I)
# "a week ago today", "two weeks ago yesterday", "this time last week": that day, so many weeks back
_WEEKS_AGO_DAY = re.compile(
    rf"\b(?:{_NUM}\s+weeks?\s+ago,?\s+(today|yesterday)|this\s+time\s+(?:last|{_PREVIOUS})\s+(week))\b", re.I
)
# "Mon-Wed", "mon to wed", "Monday thru Wednesday", "Mon–Fri": two
# weekdays said as a span's ends, in a question; not inside a hyphenated name ("deploy-mon-wed-job"), after "every" or
# a cron line's fields ("0 9 * * mon-fri"), nor before hours ("Mon-Fri 9-5": opening hours, no days that were)
_DAY_FORM = "(?:" + "|".join([*WEEKDAYS, *WEEKDAY_SHORT, *WEEKEND_SHORT]) + ")"
_WEEKDAY_RANGE = re.compile(
    rf"(?<![\w*/,-])(?<!every )(?<![*\d/,] )({_DAY_FORM})\.?(?={_TO}{_DAY_FORM}\b\.?(?![\w-])"
    r"(?!\s*,?\s*(?:from\s+|at\s+)?\d{1,2}(?::\d{2}|\s*[ap]\.?m\b|\s*(?:[-–]|to\b))))",
    re.I,
)
# "Sat and Sun" in a question: the latest weekend, as "Sat-Sun" is
_WEEKEND_PAIR = re.compile(r"(?<![\w*/,-])(?<!every )(sat)\.?(?=\s*(?:and|&)\s*sun\b\.?(?![\w'’-]))", re.I)
# "this Monday" in a question: this week's Monday (said in a message, as often the one to come)
_THIS_WEEKDAY = re.compile(rf"\bthis\s+{_WEEKDAY_OR_SHORT}", re.I)
# a weekday said alone, not one still to come ("next Friday", "this Friday") nor every one ("on Fridays")
_BARE_WEEKDAY = re.compile(rf"(?<!next )(?<!this )(?<!coming )(?<!every ){_WEEKDAY}\b", re.I)
# What a pattern cannot match without, so a long text (a pasted log) is searched once for it, not once a pattern: a
# weekday's full name (in every pattern of `_WEEKDAY`), any of its forms as a word (`_WEEKDAY_OR_SHORT`: each said
# after a space or `\b`), a month's name at a word's start (each `_MONTH` but `_PART_OF_MONTH`'s, said after a space,
# a hyphen or `\b`) or anywhere ("midMarch"), a count's "ago" or "back" (`_AGO`), a "week" (`_WEEKS_AGO_DAY`)
_WEEKDAY_FORM_WORD = re.compile(rf"\b{_DAY_FORM}\b", re.I)
_MONTH_WORD = re.compile(r"\b(?:" + "|".join(MONTHS) + ")", re.I)
_DAY_FORMS = (*WEEKDAYS, *WEEKDAY_SHORT, *WEEKEND_SHORT)
# the letters outside ASCII that `re.I` takes for an ASCII one ("\u017f" for "s")
_FOLDED_TO_ASCII = {"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"}
_FOLD = str.maketrans(_FOLDED_TO_ASCII)


def ascii_letters(text: str) -> str:
    """`text` with each letter `re.I` takes for an ASCII one ("Auguſt", the Kelvin sign) written as that one, letter for
    letter (every offset the same): what a case-blind pattern matched then names a month, a weekday or a unit as the
    tables spell it, where `.lower()` alone would leave "auguſt" and fail the lookup."""
    if not text.isascii() and any(letter in text for letter in _FOLDED_TO_ASCII):
        return text.translate(_FOLD)
    return text


def folded(text: str) -> str:
    """`text` in lower case and with every letter `re.I` takes for an ASCII one as that one: it holds a name (lower
    case ASCII) as plain text wherever a case-blind pattern finds it, which `in` finds far faster than a scan."""
    return ascii_letters(text).lower()


# the patterns whose every match starts with a month's name at a word's start (`\b{_MONTH}` first): found where
# `_MONTH_WORD` is, not searched for at every character
_MONTH_LED = frozenset({_MONTH_DAY_RANGE, _MONTH_DAY_YEAR, _MONTH_DAY_SHORT_YEAR, _MONTH_YEAR, _MONTH_DAY})


def _matches_at(pattern: re.Pattern[str], text: str, starts: Iterable[int]) -> Iterator[re.Match[str]]:
    """`pattern.finditer(text)` for a pattern no match of which starts but at one of `starts` (ascending): each
    match there, none overlapping the one before (as `finditer` goes on from a match's end)."""
    end = 0
    for start in starts:
        if start >= end and (m := pattern.match(text, start)):
            yield m
            end = m.end()


def _holds(lowered: str, names: Iterable[str], word: re.Pattern[str] | None = None, text: str = "") -> bool:
    """Whether `lowered` (`folded`) holds one of `names`, and (`word`) `text` one as `word` finds it."""
    return any(name in lowered for name in names) and (word is None or word.search(text) is not None)


# the next of a list of days after the first ("last Tuesday and Wednesday", "on Monday, Tuesday or Friday",
# "on Feb 10, 11 and 12"): each day named is one, read as the first is
_AND = r"(?:\s*,\s*(?:(?:and|or|&)\s+)?|\s+(?:and|or|&)\s+)"
_MORE_WEEKDAY = re.compile(rf"(?:{_AND}|{_TO})(?:(?:on|last)\s+)?{_WEEKDAY_OR_SHORT}", re.I)
_MORE_DAY = re.compile(
    rf"{_AND}(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)?\b(?![:.,]?\d|\s*(?:%|[ap]\.?m\b|h\b))"
    r"(?!\s+(?:day|week|month|year|hour|minute)s?\b)",
    re.I,
)
_OF_WEEK = re.compile(rf"\s*,?\s+(?:of\s+)?{_WEEK}(?!\s*['’]s\b)", re.I)  # "Monday of last week", "Monday this week"
_SINCE = re.compile(r"\bsince\s+(?:the\s+)?$", re.I)  # "since March 2", "since yesterday": from then to now
# a weekday written before the date it names ("on Wednesday, February 11"): that date, not the latest Wednesday
_WEEKDAY_BEFORE = re.compile(
    r"(?:\b(?:on|last|this\s+past)\s+)?\b(?:" + "|".join(WEEKDAYS) + r"),?\s+(?:the\s+)?$", re.I
)


@dataclass(frozen=True, slots=True)
class AnchoredEvent:
    """ "two days before the demo": the event's words ("demo"), the offset (2 days) and its direction (-1)."""

    phrase: str
    days: int  # the offset in days (0 for "the week before": the whole unit next to the event instead)
    span: int  # "the week before/after": the length of that unit in days; 0 for a counted offset
    sign: int  # -1 before, +1 after
    start: int = 0  # where in the text the offset starts ("the week before the offsite": at "the week")
    end: int = 0  # ...and where the event's words end
    offset: str = ""  # the offset as written ("the week before")

    def window(self, event_day: int, *, slack: bool = True) -> Window:
        """The days this names, given the day of the event; `slack`: a counted offset widened by a day or a fifth of
        it either side (a boost forgives "two days" said of three), else the very day ("what did I do two days after
        the launch")."""
        if self.span:
            return (event_day - self.span, event_day - 1) if self.sign < 0 else (event_day + 1, event_day + self.span)
        spare = max(1, self.days // 5) if slack else self.days // 7
        centre = event_day + self.sign * self.days
        return centre - spare, centre + spare


@dataclass(frozen=True, slots=True)
class EventSpan:
    """ "between the offsite and the launch": the days from one event's day to the other's, both days included."""

    first: AnchoredEvent  # the event said first, as an event with no offset (`offset`: the whole span as written)
    last: AnchoredEvent  # the one said second
    start: int  # where in the text the span starts ("between")
    end: int  # ...and where the second event's words end


def event_spans(text: str) -> list[EventSpan]:
    """Spans between two named events ("between the offsite and the launch", "after the offsite until the launch");
    each event's words stop as `anchored_events`' do, and a span whose either end is no event's words is skipped."""
    text = ascii_letters(text)  # a case-blind pattern's match is looked up as the ASCII name it is
    spans: list[EventSpan] = []
    for m in _BETWEEN_EVENTS.finditer(text):
        first_words, _ = _event_words(m, next(group for group in (1, 2, 3) if m[group]))
        last_words, end = _event_words(m, 4)
        if not first_words or not last_words or {first_words, last_words} & _NO_EVENT:
            continue
        said = " ".join(text[m.start() : end].split())
        first = AnchoredEvent(first_words, 0, 0, 0, m.start(), end, said)
        last = AnchoredEvent(last_words, 0, 0, 0, m.start(), end, said)
        spans.append(EventSpan(first, last, m.start(), end))
    return spans


# words that end a span's phrase but name no event ("between the first and the second deploy")
_NO_EVENT = frozenset({"first", "second", "third", "last", "next", "previous", "other", "same", "start", "end"})


def since_events(text: str) -> list[AnchoredEvent]:
    """The event the question's last words count to today from ("what have we done since the offsite", "everything
    after the launch"): at most one, its `offset` the word before it ("since", "after"). None inside a span between
    two events or an offset from one ("the week after the offsite"), nor when the words are a date ("since the 3rd",
    "after the holidays") or all of them stop words."""
    text = ascii_letters(text)  # a case-blind pattern's match is looked up as the ASCII name it is
    m = _SINCE_EVENT.search(text)
    if m is None or any(a.start <= m.start() < a.end for a in anchored_events(text)):
        return []
    if any(s.start <= m.start() < s.end for s in event_spans(text)):
        return []
    phrase, end = _event_words(m, 2)
    if not phrase or phrase.split()[0] in _NO_EVENT or end != m.end(2):  # "after the visit to the hospital"
        return []
    if without_dates(text)[m.start(2) : end].strip() != text[m.start(2) : end].strip():  # a date, not an event
        return []
    return [AnchoredEvent(phrase, 0, 0, 1, m.start(), end, " ".join(m[1].lower().split()))]


def _event_words(m: re.Match[str], group: int) -> tuple[str, int]:
    """The event's words of `m`'s `group`, lower case, up to its first stop word, month or weekday, and where they
    end in the text ("" when the first word is one)."""
    words: list[str] = []
    end = m.start(group)
    for said in re.finditer(r"\S+", m[group]):
        word = said[0]
        if word.lower() in STOP_WORDS or word.lower().rstrip(".") in MONTHS or word.lower() in WEEKDAYS:
            break
        words.append(word.lower())
        end = m.start(group) + said.end()
    return " ".join(words), end


def anchored_events(text: str) -> list[AnchoredEvent]:
    """Offsets from a named event ("the day after my birthday party"); the event's words stop at the first stop
    word or month name, and a phrase made only of those is skipped (a date, not an event)."""
    text = ascii_letters(text)  # a case-blind pattern's match is looked up as the ASCII name it is
    events: list[AnchoredEvent] = []
    for m in _ANCHORED.finditer(text):
        phrase, end = _event_words(m, 5)
        if not phrase:
            continue
        sign = -1 if m[4].lower() == "before" else 1
        offset = " ".join(text[m.start() : m.end(4)].split())
        if m[3]:  # "the week after …"
            unit = "week" if m[3].lower() == "weekend" else m[3].lower()
            events.append(AnchoredEvent(phrase, 0, UNITS[unit], sign, m.start(), end, offset))
        else:
            count = _count(m[1]) * UNITS[m[2].lower()]
            events.append(AnchoredEvent(phrase, count, 0, sign, m.start(), end, offset))
    return events


def epoch_day(when: date) -> int:
    return (when - date(1970, 1, 1)).days


def day_of(ts: float) -> date:
    return datetime.fromtimestamp(ts, UTC).date()


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _year_with(year: int, month: int, day: int) -> int:
    """`year`, or for a February 29 without a year when `year` has none, the last leap year before it."""
    if (month, day) != (2, 29):
        return year
    while not calendar.isleap(year):
        year -= 1
    return year


def _full_year(short: int) -> int:
    """A two-digit year as the POSIX strptime reads one ("%y"): 69-99 the 1900s, 00-68 the 2000s."""
    return short + (1900 if short >= 69 else 2000)


def _month_window(year: int, month: int) -> Window:
    last = calendar.monthrange(year, month)[1]
    return epoch_day(date(year, month, 1)), epoch_day(date(year, month, last))


def _count(word: str) -> int:
    word = word.lower()
    return int(word) if word.isdigit() else NUMBERS.get(word, 1)


_PREVIOUS_WORDS = re.compile(_PREVIOUS, re.I)
_MISSPELT_YESTERDAY = re.compile(rf"\b{_YESTERDAY_MISSPELT}\b")


def _relative(word: str, anchor: date) -> Window | None:
    """yesterday / last week / this month … seen from `anchor`."""
    w = _MISSPELT_YESTERDAY.sub("yesterday", _PREVIOUS_WORDS.sub("last", " ".join(word.lower().split())))
    w = spelt_right(w)  # "this mornig", "tonite"
    a = epoch_day(anchor)
    table: dict[str, Window] = {
        "day before yesterday": (a - 2, a - 2),
        "the day before yesterday": (a - 2, a - 2),
        "yesterday": (a - 1, a - 1),
        "this morning": (a, a),
        "this afternoon": (a, a),
        "this evening": (a, a),
        "last night": (a - 1, a),
        "the night before last": (a - 2, a - 1),
        "today": (a, a),
        "tonight": (a, a),
        "tomorrow": (a + 1, a + 1),
        "day after tomorrow": (a + 2, a + 2),
        "the day after tomorrow": (a + 2, a + 2),
        "the other day": (a - 6, a - 1),
        # some week of the month before this one: not this week, rarely more than four weeks back
        "the other week": (a - 28, a - 7),
        # the thirteen days before today: both what users mean by it, the calendar week before this one and the
        # seven days back (bench/data/day_questions.json's labels mean it so); a period answer shows every session
        # of either meaning, where the calendar week alone missed half of those of the seven days back
        "last week": (a - 13, a - 1),
        "last fortnight": (a - 14, a - 1),
        "last weekend": (a - 9, a - 1),
        "this week": (a - 6, a + 6),
        "this weekend": (a - 3, a + 6),
        "next week": (a + 1, a + 13),
        "next weekend": (a + 1, a + 13),
        "next month": (a + 1, a + 45),
        "this month": (a - 30, a + 30),
        "last month": (a - 60, a - 1),
        "last year": (a - 540, a - 1),
        "this year": (a - 365, a + 365),
        "next year": (a + 1, a + 540),
    }
    return table.get(w)


def _part_of(month: Window, said: str) -> Window:
    """The days of `month` a part of it names: "early" its first ten, "mid" the next ten, "late" the rest; "the first
    half" its first half (days 1-14 of 28, 1-15 of 31), "the second half" the rest."""
    first, last = month
    said = " ".join(said.lower().split())
    if said.endswith("half"):
        middle = first + (last - first + 1) // 2 - 1
        return (first, middle) if said.startswith(("first", "1st")) else (middle + 1, last)
    return _thirds("month", first, last, _PARTS[said])


def _ago(count: int, unit: str, anchor: int, sign: int = -1) -> Window:
    days = count * UNITS[unit.lower()]
    slack = max(1, days // 5)
    centre = anchor + sign * days
    return centre - slack, centre + slack


# A search reads its question's dates several times (whether it asks about a period, the days it names for the
# ranking, its words besides its dates), each time with every date pattern: the last few questions' reads are kept.
QUESTIONS_KEPT = 32


@functools.lru_cache(maxsize=QUESTIONS_KEPT)
def _question_dates(text: str, year_hint: int, today: date | None) -> tuple[tuple[Window, int, int], ...]:
    """`absolute_dates(text, year_hint, today, question=True)`, kept for the last few questions."""
    return tuple(absolute_dates(text, year_hint, today, question=True))


def absolute_dates(
    text: str, year_hint: int | None = None, today: date | None = None, *, question: bool = False
) -> list[tuple[Window, int, int]]:
    """(window, start, end offsets in `text`) for every absolute date; a month without a year takes `year_hint`, but
    "last March" said on `today` is the latest March before today's month (March 2025, said in March 2026).
    `question`: a question's holidays ("over Christmas", "since Easter": holidays.py) and weekdays of a month ("the
    first Monday of March") too, the latest seen from `today` (or the end of `year_hint`'s year); a message's are
    not read (one written in December is as often about the Christmas to come)."""
    text = ascii_letters(text)  # a case-blind pattern's match is looked up as the ASCII name it is
    found: list[tuple[Window, int, int]] = []
    taken = bytearray(len(text))  # a mark on each character a date took: a long paste stays linear

    def free(m: re.Match[str]) -> bool:
        return not any(taken[m.start() : m.end()])

    def add(window: Window, m: re.Match[str]) -> None:
        found.append((window, m.start(), m.end()))
        taken[m.start() : m.end()] = b"\x01" * (m.end() - m.start())

    lowered = folded(text)
    month_word = _holds(lowered, MONTHS, _MONTH_WORD, text)
    months_at = [m.start() for m in _MONTH_WORD.finditer(text)] if month_word else []

    def matches(pattern: re.Pattern[str]) -> Iterator[re.Match[str]]:
        return _matches_at(pattern, text, months_at) if pattern in _MONTH_LED else pattern.finditer(text)

    ranges = ((_MONTH_DAY_RANGE, "mdd"), (_DAY_RANGE_MONTH, "ddm"), (_BETWEEN_MONTH_DAYS, "mdd"))
    for pattern, order in (*ranges, (_BETWEEN_DAYS_MONTH, "ddm")) if month_word else ():  # "Feb 10-12", "10 to 12 May"
        for m in matches(pattern):
            month, first, last = (m[1], m[2], m[3]) if order == "mdd" else (m[3], m[1], m[2])
            year = int(m[4]) if m[4] else year_hint
            if year is None or not free(m):
                continue
            start = _safe_date(year, MONTHS[month.lower().rstrip(".")], int(first))
            end = _safe_date(year, MONTHS[month.lower().rstrip(".")], int(last))
            if start and end and start <= end:
                add((epoch_day(start), epoch_day(end)), m)
    for m in _PART_OF_MONTH.finditer(text) if month_word or _holds(lowered, MONTHS) else ():
        year = int(m[4]) if m[4] else year_hint
        if year is not None and free(m):
            add(_part_of(_month_window(year, MONTHS[m[3].lower().rstrip(".")]), m[1] or m[2]), m)
    for m in _WEEK_OF_MONTH.finditer(text) if month_word else ():
        year = int(m[3]) if m[3] else year_hint
        if year is not None and free(m):
            first, last = _month_window(year, MONTHS[m[2].lower().rstrip(".")])
            week = _WEEKS[m[1].lower()]
            add((last - 6, last) if week == 0 else (first + 7 * (week - 1), first + 7 * week - 1), m)
    for m in _WEEKDAY_OF_MONTH.finditer(text) if question else ():
        if free(m) and (window := _weekday_of_month(m, year_hint, today)) is not None:
            add(window, m)
    for m in _HALF_OF_YEAR.finditer(text):
        if free(m):
            year = int(m[2])
            months = (1, 6) if m[1].lower().startswith(("first", "1st")) else (7, 12)
            add((_month_window(year, months[0])[0], _month_window(year, months[1])[1]), m)
    for m in _PART_OF_YEAR.finditer(text):  # "late 2025": its last third, September to December
        if free(m):
            year, part = int(m[3]), _PARTS[(m[1] or m[2]).lower()]  # "LATE 2025" too
            add(_thirds("year", epoch_day(date(year, 1, 1)), epoch_day(date(year, 12, 31)), part), m)
    for m in _ISO.finditer(text):
        d = _safe_date(int(m[1]), int(m[2]), int(m[3]))
        if d:
            add((epoch_day(d), epoch_day(d)), m)
    for m in _ISO_MONTH.finditer(text):
        if free(m):
            add(_month_window(int(m[1]), int(m[2])), m)
    for pattern, readings in _NUMERIC_DATES:
        for m in pattern.finditer(text):
            days = _numeric_days(text, m, readings)
            if len(days) == 1 and free(m):
                only = epoch_day(days.pop())
                add((only, only), m)
    for pattern, order in ((_DAY_MONTH_YEAR, "dmy"), (_MONTH_DAY_YEAR, "mdy")) if month_word else ():
        for m in matches(pattern):
            if not free(m):
                continue
            day, month = (m[1], m[2]) if order == "dmy" else (m[2], m[1])
            d = _safe_date(int(m[3]), MONTHS[month.lower().rstrip(".")], int(day))
            if d:
                add((epoch_day(d), epoch_day(d)), m)
    for pattern, order in ((_DAY_MONTH_SHORT_YEAR, "dmy"), (_MONTH_DAY_SHORT_YEAR, "mdy")) if month_word else ():
        for m in matches(pattern):
            if not free(m):
                continue
            day, month = (m[1], m[2]) if order == "dmy" else (m[2], m[1])
            d = _safe_date(_full_year(int(m[3])), MONTHS[month.lower().rstrip(".")], int(day))
            if d:
                add((epoch_day(d), epoch_day(d)), m)
    for m in matches(_MONTH_YEAR):
        if free(m):
            add(_month_window(int(m[2]), MONTHS[m[1].lower().rstrip(".")]), m)
    seen_from = today or (date(year_hint, 12, 31) if year_hint is not None else None)
    if question and seen_from is not None:  # before a month's day: "July 4th" is the latest, not this year's
        said = [*holiday_windows(text, seen_from), *season_windows(text, seen_from)]
        for (first_day, last_day), said_at, said_to in said:
            if not any(taken[said_at:said_to]):
                found.append(((epoch_day(first_day), epoch_day(last_day)), said_at, said_to))
                taken[said_at:said_to] = b"\x01" * (said_to - said_at)
    if year_hint is not None:
        for pattern, order in ((_DAY_MONTH, "dm"), (_MONTH_DAY, "md")) if month_word else ():
            for m in matches(pattern):
                if not free(m) or (order == "md" and _counts_not_a_day(text, m)):
                    continue
                day, month = (m[1], m[2]) if order == "dm" else (m[2], m[1])
                month_number, day_number = MONTHS[month.lower().rstrip(".")], int(day)
                d = _safe_date(_year_with(year_hint, month_number, day_number), month_number, day_number)
                if d:
                    add((epoch_day(d), epoch_day(d)), m)
                    if order == "md":
                        _more_days(text, m.end(), d, add, free)
        for m in _IN_YEAR.finditer(text):  # "in 2025": the whole year
            if free(m):
                add((epoch_day(date(int(m[1]), 1, 1)), epoch_day(date(int(m[1]), 12, 31))), m)
        for m in _IN_MONTH.finditer(text) if month_word else ():
            month = MONTHS[m[1].lower().rstrip(".")]
            year = year_hint
            if today is not None and m[0].lower().startswith("last") and month >= today.month:
                year = today.year - 1  # "last March" said in March or after: not this one
            # "in may": too often the verb, so "may" and "march" only with a capital, or ending what is said ("what
            # did we do in march?", "since may, anything about the parser"), where no verb stands
            if free(m) and (
                m[1].lower() not in ("may", "march") or text[m.start(1)].isupper() or _CLAUSE_ENDS.match(text, m.end())
            ):
                add(_month_window(year, month), m)
    return found


_CLAUSE_ENDS = re.compile(r"\s*(?:[,;:!?)]|\.(?!\w)|$)")
_NEXT_WORD = re.compile(r"\s+([^\W\d_]+)")
_IRREGULAR_PLURALS = frozenset({"people", "men", "women", "children", "folks", "staff", "mice", "feet", "teeth"})


def counts_a_thing(text: str, at: int) -> bool:
    """Whether the number that ends at `at` counts what the word after it names ("March 3 and 4 people", "on the
    3rd and 4 tests failed", "Feb 10 and 12 files"): a plural noun, not a word a date runs on with ("12 was
    busy", "12 at noon", "12 Feb", "12 Monday")."""
    m = _NEXT_WORD.match(text, at)
    if m is None:
        return False
    word = m[1].lower()
    if word in _IRREGULAR_PLURALS:
        return True
    if word in STOP_WORDS or word.rstrip(".") in MONTHS or word.rstrip("s") in WEEKDAYS or word in NUMBERS:
        return False
    return len(word) > 2 and word.endswith("s") and not word.endswith(("ss", "us", "is"))


def _counts_not_a_day(text: str, m: re.Match[str]) -> bool:
    """Whether the number of a month and day `m` ("March 3 people") counts the thing named after it: a list's
    number's rule (`counts_a_thing`), for a date not said as one ("on March 3 tests failed" is that day)."""
    return counts_a_thing(text, m.end()) and not _DATE_PREPOSITION.search(text[max(0, m.start() - 12) : m.start()])


def _weekday_of_month(m: re.Match[str], year_hint: int | None, today: date | None) -> Window | None:
    """The day `_WEEKDAY_OF_MONTH` matched (a weekend: its Saturday and Sunday) in the year said, else in `year_hint`'s
    or, when that one is still to come seen from `today`, the year before's."""
    month, nth, said = MONTHS[m[3].lower().rstrip(".")], _NTH[m[1].lower()], m[2].lower()
    weekday = 5 if said == "weekend" else WEEKDAYS[said]
    years = [int(m[4])] if m[4] else [] if year_hint is None else [year_hint, year_hint - 1]
    for year in years:
        day = nth_weekday(year, month, weekday, nth)
        if day is not None and (m[4] or today is None or day <= today):
            return epoch_day(day), epoch_day(day) + (said == "weekend")
    return None


def _numeric_days(text: str, m: re.Match[str], readings: tuple[tuple[int, int, int], ...]) -> set[date]:
    """The days a numeric date `m` of `text` makes, one for each reading of its groups that a calendar has (a
    two-digit year as `_full_year` reads it); none after a version's word ("python 3.12.10", "node 18.02.24")."""
    if _AFTER_A_VERSION.search(text[max(0, m.start() - 12) : m.start()]):
        return set()
    days = set()
    for y, mo, da in readings:
        year = int(m[y]) if len(m[y]) == 4 else _full_year(int(m[y]))
        if (day := _safe_date(year, int(m[mo]), int(m[da]))) is not None:
            days.add(day)
    return days


def _more_days(
    text: str,
    at: int,
    first: date,
    add: Callable[[Window, re.Match[str]], None],
    free: Callable[[re.Match[str]], bool],
) -> None:
    """The days listed after `first`'s at `at` ("Feb 10 and 12", "Feb 10, 11 or 12"): each one of its month."""
    while (m := _MORE_DAY.match(text, at)) and free(m) and not counts_a_thing(text, m.end()):
        day = _safe_date(first.year, first.month, int(m[1]))
        if day is None:
            return
        add((epoch_day(day), epoch_day(day)), m)
        at = m.end()


_DAY_NUMBER = r"(\d{1,2})(?:st|nd|rd|th)?"
_NO_DAY_FORMS = (  # (pattern, the groups of month, day and year): a date written as one, whatever day it names
    (re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"), (2, 3, 1)),
    (re.compile(rf"\b{_MONTH}\s+{_DAY_NUMBER}\b(?:,?\s+(\d{{4}})\b)?(?![-–:/.]\d)", re.I), (1, 2, 3)),
    (re.compile(rf"\b{_DAY_NUMBER}\s+(?:of\s+)?{_MONTH}\b(?:,?\s+(\d{{4}})\b)?", re.I), (2, 1, 3)),
)


def unread_dates(text: str) -> list[UnreadDate]:
    """The dates `text` writes that no calendar has ("February 30", "31 April", "Feb 29, 2026", "2026-13-01"), each
    with why (requests.why_no_such_day): the other readers skip them (`_safe_date`), so the answer can say so. A day
    over 31 after a month's name is not read as a day at all ("June 45"), nor the verb "may" ("may 31" in lower
    case is not May)."""
    text = ascii_letters(text)  # a case-blind pattern's match is looked up as the ASCII name it is
    return [unread for _, _, unread in _unread_spans(text)]


_DATE_PREPOSITION = re.compile(r"\b(?:on|in|of|for|from|since|by|before|after|until|till|around)(?:\s+the)?\s*$", re.I)


def without_unread_dates(text: str) -> str:
    """`text` less the dates no calendar has, each with the preposition before it ("on February 30"): what the rest
    of a query asks, to be ranked as if the date were not written, since its month and number would otherwise pull
    up whatever mentions them. `text` itself when it names none."""
    spans = _unread_spans(text)
    for start, end, _ in sorted(spans, key=lambda span: span[0], reverse=True):
        before = text[:start].rstrip()
        before = before[: m.start()].rstrip() if (m := _DATE_PREPOSITION.search(before)) else before
        after = text[end:].lstrip()
        text = f"{before} {after}" if before and after else before or after
    return text


def _unread_spans(text: str) -> list[tuple[int, int, UnreadDate]]:
    found: list[tuple[int, int, UnreadDate]] = []
    taken: list[tuple[int, int]] = []
    for pattern, (month_at, day_at, year_at) in _NO_DAY_FORMS:
        for m in pattern.finditer(text):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            month_text, day = m[month_at], int(m[day_at])
            if month_text.isdigit():
                month = int(month_text)
            elif day > 31 or month_text == "may":
                continue
            else:
                month = MONTHS[month_text.lower().rstrip(".")]
            why = why_no_such_day(month, day, int(m[year_at]) if m[year_at] else None)
            taken.append((m.start(), m.end()))
            if why is not None:
                found.append((m.start(), m.end(), {"text": m[0], "reason": why}))
    return found


def ambiguous_dates(text: str) -> list[AmbiguousDate]:
    """The numeric dates `text` writes that read as two days, one for each order of day and month ("11/02/2026"):
    `absolute_dates` reads no day from them, so the answer can say which two they could be."""
    text = ascii_letters(text)  # a case-blind pattern's match is looked up as the ASCII name it is
    found: list[AmbiguousDate] = []
    for pattern, readings in _NUMERIC_DATES:
        for m in pattern.finditer(text):
            days = sorted(_numeric_days(text, m, readings))
            if len(days) > 1:
                found.append({"text": m[0], "readings": [day.isoformat() for day in days]})
    return found


Read = tuple[Window, int, int]  # a window and the span of the words that name it


def query_windows(query: str, now: float) -> list[Window]:
    """The day windows a question names; relative words are read from `now` (epoch seconds). Two dates said as the
    ends of a span ("from Feb 10 to Feb 12", "between Monday and Wednesday") are one window from the first to the
    last; a list ("on Feb 10 and 12") a window each. The periods of `_PHRASES` are read as a question about days
    reads them ("the 12th", "in Q1", "an hour ago", "early last week"), but where these words have a wider window
    of their own ("last weekend", "last month", "this week", "two days ago": `_WIDER_IN_RANKING`) that one stays: a
    boost that errs wide costs little, and takes both meanings of "last month" and the day either side a message's
    "two days ago" is as often."""
    query = ascii_letters(query)  # a case-blind pattern's match is looked up as the ASCII name it is
    return [window for window, _, _ in _phrase_reads(query, now, ranking=True)]


def _query_reads(query: str, now: float, *, bare_weekdays: bool = False) -> list[Read]:
    today = day_of(now)
    absolute = _question_dates(query, today.year, today)
    windows: list[Read] = []
    said_before: list[tuple[int, int]] = []  # "two weeks before": read with its date, not again as words of their own
    for window, start, end in absolute:
        before = _BEFORE_AFTER.search(query[max(0, start - 40) : start])
        if before:  # "two weeks before August 11", "the week after Christmas": read with its date
            said_before.append((max(0, start - 40) + before.start(), start))
            windows.append((_beside(before, window), start, end))
        elif _WEEK_OF.search(query[max(0, start - 20) : start]):  # "the week of March 3": its Monday to Sunday
            monday = window[0] - (window[0] + 3) % 7  # epoch day 0, 1 January 1970, was a Thursday
            windows.append(((monday, monday + 6), start, end))
        elif _WEEKEND_OF.search(query[max(0, start - 20) : start]):  # "the weekend of March 7"
            windows.append((_weekend_of(window[0]), start, end))
        elif _since(query, start, end) and window[0] <= epoch_day(today):
            windows.append(((window[0], max(window[1], epoch_day(today))), start, end))
        else:
            windows.append((window, start, end))
    spans = _with_weekdays_before(query, absolute) + said_before
    relative = _relative_reads(without_spans(query, spans), today, question=True, bare_weekdays=bare_weekdays)
    # a question asks about days that were: "tomorrow", "next week" name none yet (a plan's words, searched as
    # such), as "next Friday" names none
    windows += [read for read in _read_beside(query, relative) if read[0][0] <= epoch_day(today)]
    return spans_joined(query, windows)


def _read_beside(text: str, reads: Sequence[Read]) -> list[Read]:
    """`reads`, each said after "the day after", "the weekend before" … ("the day after last Tuesday") as the days
    those words name beside it, and after "the weekend of" ("the weekend of the 7th") as that weekend."""
    beside = []
    for window, start, end in reads:
        before = _BEFORE_AFTER.search(text[max(0, start - 40) : start])
        if before:
            window = _beside(before, window)
        elif _WEEKEND_OF.search(text[max(0, start - 20) : start]):
            window = _weekend_of(window[0])
        beside.append((window, start, end))
    return beside


def _weekend_of(day: int) -> Window:
    """The Saturday and Sunday "the weekend of" a day means: its own when it is one, else the one after it."""
    saturday = day - 1 if (day + 3) % 7 == 6 else day + (5 - (day + 3)) % 7
    return saturday, saturday + 1


def _beside(said: re.Match[str], window: Window) -> Window:
    """The days `said` (a match of `_BEFORE_AFTER`) names beside `window`'s: "the day after" the next day alone, "the
    week/month after" the seven/thirty days after its last day, "the week/month before" the seven/thirty before it and
    the date itself (what a week before a day was is told on that day: "last week, …"), "the weekend after/before"
    the nearest Saturday and Sunday that side, "the Friday before" the latest Friday before it; a count ("two weeks
    before") the days around that far off and the named days themselves, and so "last weekend before April 10" (a
    message's "last weekend" retold: the week up to the date)."""
    sign = -1 if said[5].lower() == "before" else 1
    edge = window[0] if sign < 0 else window[1]
    if said[4]:  # a weekday: the nearest one that side of the date (day d is weekday (d + 3) % 7)
        weekday = _weekday_number(said[4])
        day = edge - 1 - (edge + 2 - weekday) % 7 if sign < 0 else edge + 1 + (weekday - edge - 4) % 7
        return day, day
    unit, count = (said[3], 1) if said[3] else (said[2], _count(said[1]))
    unit = unit.lower()
    retold = unit == "weekend" and said[0].lower().startswith("last")
    if retold:
        unit = "week"
    if unit == "day" and count == 1:  # "the day after New Year's": that day alone
        return edge + sign, edge + sign
    if unit == "weekend":  # the Saturday and Sunday that side of the date
        sunday = edge - 1 - (edge + 2 - 6) % 7 if sign < 0 else edge + 1 + (5 - edge - 4) % 7 + 1
        return sunday - 1, sunday
    if said[3] and not retold:  # "the week before": the whole unit next to the date
        days = UNITS[unit]
        return (edge - days, window[1]) if sign < 0 else (edge + 1, edge + days)
    shifted = _ago(count, unit, edge, sign)
    return min(shifted[0], window[0]), max(shifted[1], window[1])


# what is written between the two ends of a span ("Feb 10 to Feb 12", "Feb 28 - March 2"), and after "between"
_SPAN_GAP = re.compile(rf"{_TO}(?:the\s+)?", re.I)
_LIST_GAP = re.compile(r"\s*(?:,\s*)?(?:and|&)\s+(?:the\s+)?", re.I)
_BETWEEN_BEFORE = re.compile(r"\bbetween\s+(?:the\s+)?$", re.I)


def spans_joined(text: str, reads: Sequence[Read]) -> list[Read]:
    """`reads`, two of them said as the ends of one span ("from Feb 10 to Feb 12", "between yesterday and today")
    joined into one window from the first's first day to the second's last; a list of days stays a read each."""
    joined: list[Read] = []
    for read in sorted(reads, key=lambda read: read[1]):
        if joined and _ends_of_a_span(text, joined[-1], read):
            (first, _), start, _ = joined[-1]
            joined[-1] = ((first, read[0][1]), start, read[2])
        else:
            joined.append(read)
    return joined


def _ends_of_a_span(text: str, earlier: Read, later: Read) -> bool:
    (first, _), start, end = earlier
    if later[1] < end or later[0][1] < first:
        return False
    gap = text[end : later[1]]
    if _SPAN_GAP.fullmatch(gap):
        return True
    said = text[start:end].lower()
    return bool(_LIST_GAP.fullmatch(gap)) and (
        said.startswith("between") or bool(_BETWEEN_BEFORE.search(text[max(0, start - 20) : start]))
    )


def _since(text: str, start: int, end: int) -> bool:
    """Whether the date at `start`..`end` of `text` is said with "since" ("since March 2", "since early March")."""
    return bool(_SINCE.search(text[max(0, start - 12) : start])) or text[start:end].lower().startswith("since")


def _with_weekdays_before(text: str, absolute: Sequence[tuple[Window, int, int]]) -> list[tuple[int, int]]:
    """The spans of `absolute`'s dates, each from the weekday written before it ("on Wednesday, February 11")."""
    spans = []
    for _, start, end in absolute:
        weekday = _WEEKDAY_BEFORE.search(text[max(0, start - 30) : start])
        spans.append((start - len(weekday[0]) if weekday else start, end))
    return spans


def without_spans(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """`text` with each span blanked (spaces: the offsets after it stay as they were); spans may overlap."""
    pieces: list[str] = []
    at = 0
    for start, end in sorted(spans):
        start = max(start, at)
        if end > start:
            pieces += [text[at:start], " " * (end - start)]
            at = end
    pieces.append(text[at:])
    return "".join(pieces)


def without_dates(text: str) -> str:
    """`text` less its dates of the calendar ("Feb 10-12", "mid-February", "the first week of March") and the periods
    only a question about days reads ("in the last 3 days", "in Q1"), blanked: the words a question about days says
    besides them (answers/period.py)."""
    spans = [(start, end) for _, start, end in _question_dates(text, 2000, None)]
    spans += [(m.start(), m.end()) for m, _ in _period_phrases(text)]
    spans += [(m.start(), m.end()) for m in _WEEKDAY_WEEKS_BACK.finditer(text)]  # "two Tuesdays ago": no "tuesdays"
    spans += [(m.start(), m.end()) for m in _WEEKS_AGO_DAY.finditer(text)]  # "this time last week": no "time"
    spans += _weekday_ranges(text)  # "Mon-Wed": no word "mon-wed"
    spans += _weekend_short_spans(text)  # "last sat": no word "sat"
    return without_spans(text, [(start, _past_possessive(text, end)) for start, end in spans])


def _weekday_ranges(text: str) -> list[tuple[int, int]]:
    """The spans of `_WEEKDAY_RANGE`'s ranges, from the first weekday to the last ("Mon-Wed")."""
    spans = []
    for m in (*_WEEKDAY_RANGE.finditer(text), *_WEEKEND_PAIR.finditer(text)):
        more = _MORE_WEEKDAY.match(text, m.end())
        spans.append((m.start(), more.end() if more else m.end()))
    return spans


_SAT_SUN = re.compile(r"\b(?:sat|sun)\b", re.I)


def _weekend_short_spans(text: str) -> list[tuple[int, int]]:
    """The spans of the weekdays read that are said as "sat" or "sun" ("last sat", "on sun?"): a word elsewhere
    ("sat solver") is kept."""
    if not _SAT_SUN.search(text):
        return []
    reads = _relative_reads(text, date(2000, 1, 1), question=True)
    return [(start, end) for _, start, end in reads if _SAT_SUN.search(text[start:end])]


_POSSESSIVE_AT = re.compile(_POSSESSIVE)


def _past_possessive(text: str, end: int) -> int:
    """`end`, or past the "'s" written right after it ("February 12's outage"): the date's, not a word to find."""
    m = _POSSESSIVE_AT.match(text, end)
    return m.end() if m else end


# "the last day of the sprint": a part of a thing, not the period asked about ("last year's budget" is last year's:
# a possessive asks about that period's thing, and its "'s" is blanked with the date)
_NOT_OF = r"(?!\s+of\s+(?:the|a|an|our|my|this|that|his|her|their|your)\b)"
# Periods a question about days says as often as "last weekend" or "on March 11", each with its reader below:
# - a span back from today: "in the last 3 days", "over the past week", "the past 24 hours", "this past week"
#   (a count, or "the"/"this" before "last": "last week" alone is `query_windows`' reading);
# - a whole unit of the calendar: "last month" (January, asked in February), "this year" (January 1 to today),
#   "last quarter", "the week/weekend/month/year before last";
# - a part of one: "early last month", "the end of last year", "late last week" (its first, middle or last third;
#   a week's are Monday to Wednesday, Wednesday to Friday, Friday to Sunday), "earlier this week" (its days before
#   today);
# - a quarter: "in Q1", "during the third quarter of 2025" (said with "in": "Q3 planning" is a topic);
# - days of a month said alone: "from the 2nd to the 5th", "on the 11th" (the latest such days);
# - a weekend said without "last" ("over the weekend"), and "this week" (its Monday to today);
# and, read as no period at all, a part of a thing ("the last week of the sprint", "the first day of the trial").
_SPAN_BACK = re.compile(
    rf"\b(?:(?:in|over|during|for|within)\s+)?(?:(?:the|this)\s+(?:last|past)\s+(?:{_NUM}\s+)?|last\s+{_NUM}\s+|"
    rf"past\s+(?:{_NUM}\s+)?)(day|week|wk|fortnight|month|year|hour)s?\b{_NOT_OF}",
    re.I,
)
_PART_OF_A_THING = re.compile(  # "the last week of the sprint": the thing's days, not today's last week
    r"\b(?:the\s+)?(?:last|first|final)\s+(?:day|week|weekend|month|year)s?(?=\s+of\s+(?:the|a|an|our|my|this|"
    r"that|his|her|their|your)\b)",
    re.I,
)
# "a week from Monday", "two days from today": days still to come, a plan's, not the day named
_FROM_A_DAY = re.compile(
    rf"\b{_NUM}\s+(?:day|week|wk|fortnight|month)s?\s+from\s+(?:(?:this|next|last)\s+)?(?:today|tomorrow|now|"
    + "|".join(WEEKDAYS)
    + r")\b",
    re.I,
)
# "what day it is today", "what's today's date", "what time is it now": the date itself asked about (a shell's
# `date`, a model's sense of the day), no period of the user's work
_ASKS_THE_DATE = re.compile(
    r"\bwhat(?:'s|\s+is)?\s+(?:the\s+)?(?:day|date|time|weekday|day\s+of\s+the\s+week)\s+(?:it\s+is|is\s+it|it's)"
    r"(?:\s+(?:today|now|tonight|right\s+now))?\b|\bwhat(?:'s|\s+is)\s+(?:today's\s+date|the\s+date\s+today)\b",
    re.I,
)
_BEFORE_LAST = re.compile(r"\bthe\s+(week|weekend|month|year)\s+before\s+last\b", re.I)
_CALENDAR_UNIT = re.compile(rf"\b(last|this|{_PREVIOUS})\s+(month|year|quarter)\b{_NOT_OF}", re.I)
_PART_OF_UNIT = re.compile(
    rf"\b(?:(earlier|early|mid|late)\s*-?\s*(?:in\s+)?|(?:the\s+)?(beginning|start|middle|end|{_HALF})\s+of\s+)"
    rf"(last|this|{_PREVIOUS}|(?<=of |in )the)\s+(week|month|quarter|year)\b",
    re.I,
)
# "the end of Q3", "early Q1 2026", "the start of the second quarter": a third of that quarter (one month), the
# latest begun when no year is said
_PART_OF_QUARTER = re.compile(
    r"\b(?:(early|mid|late)\s*-?\s*|(?:the\s+)?(beginning|start|middle|end)\s+of\s+)(?:the\s+)?"
    r"(?:q([1-4])|(first|second|third|fourth)\s+quarter)\b(?:\s+(?:of\s+)?((?:19|20)\d{2})\b(?![-/.:]\d))?",
    re.I,
)
# "Q3 last year", "the third quarter of last year", "Q1 this year"
_QUARTER_OF_UNIT_YEAR = re.compile(
    rf"\b(?:the\s+)?(?:q([1-4])|(first|second|third|fourth)\s+quarter)\s+(?:of\s+)?(last|this|{_PREVIOUS})\s+year\b",
    re.I,
)
# "H1 2025", "H2 of 2025": that half of the year (with its year: "h1" alone is a heading's tag)
_HALF_YEAR = re.compile(r"\bh([12])\s+(?:of\s+)?((?:19|20)\d{2})\b(?![-/.:]\d)", re.I)
# "year to date", "YTD", "month-to-date", "QTD": from the first day of this year (month, quarter) to today
_TO_DATE = re.compile(r"\b(?:(year|quarter|month)[\s-]+to[\s-]+date|([yqm])td)\b", re.I)
_QUARTER_OF_YEAR = re.compile(r"\bq([1-4])\s+(?:of\s+)?((?:19|20)\d{2})\b(?![-/.:]\d)", re.I)  # "Q1 2026"
# "the first week of last month", "the last week of the month" (this one's): its days 1-7 … or its last seven
_WEEK_OF_UNIT_MONTH = re.compile(
    rf"\b(?:the\s+)?(first|1st|second|2nd|third|3rd|fourth|4th|last)\s+week\s+of\s+(last|this|{_PREVIOUS}|the)\s+month\b",
    re.I,
)
# "an hour ago", "3 hours ago": today, and yesterday too when it may have been before midnight
_HOURS_AGO = re.compile(rf"\b{_NUM}\s+(hour|hr|minute|min)s?\s+ago\b", re.I)
_QUARTER = re.compile(
    r"\b(?:in|during|throughout)\s+(?:the\s+)?(?:q([1-4])|(first|second|third|fourth)\s+quarter)\b"
    r"(?:\s+(?:of\s+)?((?:19|20)\d{2})\b)?",
    re.I,
)
_BARE_DAYS = re.compile(
    rf"\b(?:(?:on|from)\s+the\s+(\d{{1,2}})(?:st|nd|rd|th){_TO}|between\s+the\s+(\d{{1,2}})(?:st|nd|rd|th)\s+and\s+)"
    rf"(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?{_MONTH})",
    re.I,
)
# "on the 3rd and 5th", "on the 3rd, 5th or 7th": each day named (the latest month that has them all)
_BARE_DAY_LIST = re.compile(
    rf"\bon\s+the\s+\d{{1,2}}(?:st|nd|rd|th)(?:{_AND}(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th))+\b"
    rf"(?!\s+(?:of\s+)?{_MONTH})",
    re.I,
)
_ORDINAL_DAY = re.compile(r"(\d{1,2})(?:st|nd|rd|th)")
_WEEKEND = re.compile(
    rf"\b(?:(?:over|on|at|during|since)\s+the|(?:this|the)\s+past|last|this|{_PREVIOUS})\s+weekend\b", re.I
)
# "this week", not when it says which week a weekday is of ("Monday this week", "this week on Monday": that day)
_THIS_WEEK = re.compile(
    "".join(rf"(?<!{day} )(?<!{day}, )(?<!{day} of )" for day in WEEKDAYS)
    + rf"\bthis\s+week\b(?!\s*,?\s+(?:on\s+)?{_WEEKDAY}\b)",
    re.I,
)
# "on the 3rd", "what did we do the 12th": not before a word it numbers ("on the 3rd try", "the 2nd attempt")
_BARE_DAY = re.compile(rf"\b(?:on\s+)?the\s+(\d{{1,2}})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?{_MONTH})", re.I)
# "two days ago" said with a number: that day (the ranking's window takes a day either side: a message's "two days
# ago" is as often three); "a few days ago" keeps them
_DAYS_AGO = re.compile(r"\b(\d{1,3}|a|one|two|three|four|five|six|seven|eight|nine|ten)\s+days?\s+(?:ago|back)\b", re.I)
MONTHS_BACK = 12  # "on the 31st" in a month without one: the latest month that had it, this far back at most


def _unit_window(unit: str, today: date, back: int) -> Window:
    """The whole week (Monday to Sunday), weekend, month, quarter or year `back` of them before today's; a weekend
    counts from the latest Saturday (today's weekend when today is one): `back` 1 is that weekend."""
    day = epoch_day(today)
    if unit == "week":
        monday = day - today.weekday() - 7 * back
        return monday, monday + 6
    if unit == "weekend":
        saturday = day - (today.weekday() - 5) % 7 - 7 * max(0, back - 1)
        return saturday, saturday + 1
    if unit == "year":
        year = today.year - back
        return epoch_day(date(year, 1, 1)), epoch_day(date(year, 12, 31))
    months = 3 if unit == "quarter" else 1
    index = (today.year * 12 + today.month - 1) // months - back
    year, first_month = divmod(index * months, 12)
    return epoch_day(date(year, first_month + 1, 1)), _month_window(year, first_month + months)[1]


def _no_period(m: re.Match[str], today: date) -> Window | None:
    return None


def _span_back(m: re.Match[str], today: date) -> Window | None:
    said = m[1] or m[2] or m[3]
    count = _count(said) if said else 1
    unit = m[4].lower()
    days = -(-count // 24) if unit == "hour" else count * UNITS[unit]
    return epoch_day(today) - days, epoch_day(today)


def _before_last(m: re.Match[str], today: date) -> Window | None:
    return _unit_window(m[1].lower(), today, 2)


def _calendar_unit(m: re.Match[str], today: date) -> Window | None:
    first, last = _unit_window(m[2].lower(), today, 0 if m[1].lower() == "this" else 1)
    return first, min(last, epoch_day(today))


def _part_of_unit(m: re.Match[str], today: date) -> Window | None:
    unit, said = m[4].lower(), (m[1] or m[2]).lower()
    this = m[3].lower() in ("this", "the")  # "the first half of the week": this one's
    first, last = _unit_window(unit, today, 0 if this else 1)
    if said == "earlier":  # "earlier this week": its days before today; "earlier last month" its early part
        if this:
            return None if first >= epoch_day(today) else (first, epoch_day(today) - 1)
        said = "early"
    if said.endswith("half") and unit == "year":  # January to June, July to December
        year = (date(1970, 1, 1) + timedelta(days=first)).year
        window = _month_window(year, 1)[0], _month_window(year, 6)[1]
        if not said.startswith(("first", "1st")):
            window = window[1] + 1, last
    elif said.endswith("half"):  # a month's days 1-14 of 28; a week's Monday to Wednesday, Thursday to Sunday
        window = _part_of((first, last), said)
    else:
        window = _thirds(unit, first, last, _PARTS[said])
    return None if window[0] > epoch_day(today) else (window[0], min(window[1], epoch_day(today)))


def _thirds(unit: str, first: int, last: int, part: int) -> Window:
    """The `part`th third (1-3) of a week, month or year that runs from `first` to `last`."""
    if unit == "week":  # Monday to Wednesday, Wednesday to Friday, Friday to Sunday
        return first + 2 * (part - 1), first + 2 * part
    if unit == "month":
        return first + 10 * (part - 1), first + 19 if part == 2 else (first + 9 if part == 1 else last)
    if unit == "quarter":  # its months
        start = date(1970, 1, 1) + timedelta(days=first)
        return _month_window(start.year, start.month + part - 1)
    # a year's thirds: January to April, May to August, September to December
    year = (date(1970, 1, 1) + timedelta(days=first)).year
    return epoch_day(date(year, 4 * part - 3, 1)), _month_window(year, 4 * part)[1]


def _quarter(m: re.Match[str], today: date) -> Window | None:
    number = int(m[1]) if m[1] else _WEEKS[m[2].lower()]
    year = int(m[3]) if m[3] else today.year - (date(today.year, 3 * number - 2, 1) > today)  # the latest begun
    return epoch_day(date(year, 3 * number - 2, 1)), _month_window(year, 3 * number)[1]


def _part_of_quarter(m: re.Match[str], today: date) -> Window | None:
    number = int(m[3]) if m[3] else _WEEKS[m[4].lower()]
    year = int(m[5]) if m[5] else today.year - (date(today.year, 3 * number - 2, 1) > today)  # the latest begun
    first, last = epoch_day(date(year, 3 * number - 2, 1)), _month_window(year, 3 * number)[1]
    window = _thirds("quarter", first, last, _PARTS[(m[1] or m[2]).lower()])
    return None if window[0] > epoch_day(today) else (window[0], min(window[1], epoch_day(today)))


def _quarter_of_unit_year(m: re.Match[str], today: date) -> Window | None:
    number = int(m[1]) if m[1] else _WEEKS[m[2].lower()]
    year = today.year - (m[3].lower() != "this")
    window = epoch_day(date(year, 3 * number - 2, 1)), _month_window(year, 3 * number)[1]
    return None if window[0] > epoch_day(today) else (window[0], min(window[1], epoch_day(today)))


def _half_year(m: re.Match[str], today: date) -> Window | None:
    year, months = int(m[2]), (1, 6) if m[1] == "1" else (7, 12)
    return _month_window(year, months[0])[0], _month_window(year, months[1])[1]


def _to_date(m: re.Match[str], today: date) -> Window | None:
    unit = {"y": "year", "q": "quarter", "m": "month"}[m[2].lower()] if m[2] else m[1].lower()
    return _unit_window(unit, today, 0)[0], epoch_day(today)


def _quarter_of_year(m: re.Match[str], today: date) -> Window | None:
    number, year = int(m[1]), int(m[2])
    return epoch_day(date(year, 3 * number - 2, 1)), _month_window(year, 3 * number)[1]


def _week_of_unit_month(m: re.Match[str], today: date) -> Window | None:
    first, last = _unit_window("month", today, 0 if m[2].lower() in ("this", "the") else 1)
    week = _WEEKS[m[1].lower()]
    window = (last - 6, last) if week == 0 else (first + 7 * (week - 1), first + 7 * week - 1)
    return None if window[0] > epoch_day(today) else (window[0], min(window[1], epoch_day(today)))


def _hours_ago(m: re.Match[str], today: date) -> Window | None:
    hours = _count(m[1]) * (1 if m[2].lower().startswith("h") else 1 / 60)
    return epoch_day(today) - max(1, -int(-hours // 24)), epoch_day(today)


def _bare_days(m: re.Match[str], today: date) -> Window | None:
    first, last = int(m[1] or m[2]), int(m[3])
    end = _latest_day_of_month(last, today)
    return None if end is None or first > last else (epoch_day(end) - (last - first), epoch_day(end))


def _bare_day_list(m: re.Match[str], today: date) -> list[Window]:
    numbers = [int(day) for day in _ORDINAL_DAY.findall(m[0])]
    last = _latest_day_of_month(max(numbers), today)
    if last is None:
        return []
    days = [_safe_date(last.year, last.month, number) for number in numbers]
    return [(epoch_day(day), epoch_day(day)) for day in days if day is not None and day <= today]


def _days_ago(m: re.Match[str], today: date) -> Window | None:
    day = epoch_day(today) - _count(m[1])
    return day, day


def _weekend(m: re.Match[str], today: date) -> Window | None:
    return _unit_window("weekend", today, 1)


def _this_week(m: re.Match[str], today: date) -> Window | None:
    return _unit_window("week", today, 0)[0], epoch_day(today)


def _bare_day(m: re.Match[str], today: date) -> Window | None:
    after = _NEXT_WORD.match(m.string, m.end())
    if after is not None and (after[1].lower() == "of" or after[1].lower() not in STOP_WORDS):  # "on the 3rd try"
        return None
    day = _latest_day_of_month(int(m[1]), today)
    return None if day is None else (epoch_day(day), epoch_day(day))


PhraseReader = Callable[[re.Match[str], date], Window | list[Window] | None]  # a list: days named one by one
_PHRASES: tuple[tuple[re.Pattern[str], PhraseReader], ...] = (  # in this order: the first to take a span reads it
    (_WEEK_OF_UNIT_MONTH, _week_of_unit_month),
    (_PART_OF_A_THING, _no_period),
    (_FROM_A_DAY, _no_period),
    (_ASKS_THE_DATE, _no_period),
    (_BEFORE_LAST, _before_last),
    (_SPAN_BACK, _span_back),
    (_DAYS_AGO, _days_ago),
    (_HOURS_AGO, _hours_ago),
    (_PART_OF_UNIT, _part_of_unit),
    (_PART_OF_QUARTER, _part_of_quarter),
    (_QUARTER_OF_UNIT_YEAR, _quarter_of_unit_year),
    (_QUARTER, _quarter),
    (_QUARTER_OF_YEAR, _quarter_of_year),
    (_HALF_YEAR, _half_year),
    (_TO_DATE, _to_date),
    (_CALENDAR_UNIT, _calendar_unit),
    (_BARE_DAYS, _bare_days),
    (_BARE_DAY_LIST, _bare_day_list),
    (_WEEKEND, _weekend),
    (_THIS_WEEK, _this_week),
    (_BARE_DAY, _bare_day),
)


# Phrases whose words the ranking reads as a wider window of its own ("last month": the sixty days back, both its
# meanings; "last weekend" with the week around it; "two days ago" a day either side): there that reading stays
_WIDER_IN_RANKING: frozenset[PhraseReader] = frozenset({_days_ago, _calendar_unit, _weekend, _this_week})


@functools.lru_cache(maxsize=QUESTIONS_KEPT)
def _period_phrases(text: str) -> tuple[tuple[re.Match[str], PhraseReader], ...]:
    """The periods of `_PHRASES` that `text` says, none overlapping another. Kept for the last few questions, as
    `_question_dates` is."""
    found: list[tuple[re.Match[str], PhraseReader]] = []
    taken = bytearray(len(text))  # a mark on each character a phrase took: a long paste stays linear
    for pattern, reader in _PHRASES:
        for m in pattern.finditer(text):
            if not any(taken[m.start() : m.end()]):
                taken[m.start() : m.end()] = b"\x01" * (m.end() - m.start())
                found.append((m, reader))
    return tuple(found)


def period_windows(query: str, now: float) -> list[Window]:
    """The days a question about a period names (answers/period.py): as `query_windows` reads them, and the periods
    of `_PHRASES`, read as a user means them where the ranking's windows are wider ("last weekend" there also takes
    the week's days around it, "this week" the days around it). A query naming a date of the calendar reads its
    weekend from that date ("the weekend before April 10"), as `query_windows` does. Said with "since" ("since last
    month"), a period runs to today. A weekday said alone ("what did we do Friday") is the latest one. A day said as
    an open bound ("before Feb 5", "after Monday") names no period: the days it bounds are not said."""
    query = ascii_letters(query)  # a case-blind pattern's match is looked up as the ASCII name it is
    reads = _phrase_reads(query, now, ranking=False)
    return [window for window, start, _ in reads if not _open_bound(query, start)]


def _phrase_reads(query: str, now: float, *, ranking: bool) -> list[Read]:
    """`_query_reads` with the periods of `_PHRASES` read in place of the words they take. `ranking`: a search's
    windows (`query_windows`): a weekday said alone names no day, and a phrase of `_WIDER_IN_RANKING` whose words
    `_query_reads` reads already keeps that wider reading; else a question about days (`period_windows`)."""
    today = day_of(now)
    said: Sequence[tuple[re.Match[str], PhraseReader]] = _period_phrases(query)
    if _question_dates(query, today.year, today) or not said:
        return _query_reads(query, now, bare_weekdays=not ranking)
    if ranking:
        own = [(start, end) for _, start, end in _query_reads(query, now)]
        said = [
            (m, reader)
            for m, reader in said
            if reader not in _WIDER_IN_RANKING or not any(s < m.end() and m.start() < e for s, e in own)
        ]
    spans = [(m.start(), m.end()) for m, _ in said]
    reads = _query_reads(without_spans(query, spans), now, bare_weekdays=not ranking)
    phrases: list[Read] = []
    for m, reader in said:
        read = reader(m, today)
        for first, last in read if isinstance(read, list) else [] if read is None else [read]:
            if _since(query, m.start(), m.end()) and first <= epoch_day(today):
                last = epoch_day(today)
            phrases.append(((first, last), m.start(), m.end()))
    return spans_joined(query, reads + _read_beside(query, phrases))


_SINCE_WORD = re.compile(r"\bsince\b", re.I)


def said_since(query: str, now: float) -> bool:
    """Whether `query` names days and says each with "since" ("how did we configure credo since last week", "since
    March, anything about the parser"): a bound it sets, from then to today, not a day its topic was about."""
    if not _SINCE_WORD.search(query):
        return False
    query = ascii_letters(query)
    reads = _phrase_reads(query, now, ranking=False)
    return bool(reads) and all(_since(query, start, end) for _, start, end in reads)


_OPEN_BOUND = re.compile(r"\b(?:before|after|prior\s+to|until|till|up\s+to)\s+(?:the\s+)?$", re.I)


def _open_bound(text: str, start: int) -> bool:
    """Whether the date read at `start` is said as one end of days left unsaid ("before Feb 5"); "two weeks before
    Feb 5" is a counted offset, read with its date."""
    said = text[start:]
    return (
        bool(_OPEN_BOUND.search(text[max(0, start - 16) : start]))
        and not _BEFORE_AFTER.search(text[max(0, start - 40) : start])
        and not said.lower().startswith(("before", "after"))
    )


def period_days(query: str, now: float) -> list[Window]:
    """The days of `period_windows`, as the fewest windows that hold them, in order: a list of days ("last Monday
    and Friday", "on Feb 10 and 12") is its days only, not the days between them."""
    query = ascii_letters(query)  # a case-blind pattern's match is looked up as the ASCII name it is
    return disjoint(period_windows(query, now))


def disjoint(windows: Sequence[Window]) -> list[Window]:
    """`windows` in order, each run of overlapping or touching ones merged into one."""
    merged: list[Window] = []
    for first, last in sorted(windows):
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return merged


def _latest_day_of_month(number: int, today: date) -> date | None:
    """The latest day numbered `number` on or before `today`, in the last MONTHS_BACK months."""
    months = today.year * 12 + today.month - 1
    for back in range(MONTHS_BACK + 1):
        year, month = divmod(months - back, 12)
        day = _safe_date(year, month + 1, number)
        if day is not None and day <= today:
            return day
    return None


def _relative_windows(text: str, anchor: date) -> list[Window]:
    """The days `text`'s relative words name, seen from `anchor`; said with "since" ("since yesterday", "since
    Monday"), from that day to `anchor`."""
    return [window for window, _, _ in _relative_reads(text, anchor)]


def _relative_reads(text: str, anchor: date, *, question: bool = False, bare_weekdays: bool = False) -> list[Read]:
    """`_relative_windows` with where each was said. `question`: the text asks about days, and "this Monday" is this
    week's Monday (in a message it is as often the one to come). `bare_weekdays`: a weekday said alone ("what did we
    do Friday") is the latest one too (a question about days; in a message's text it is too often a plan); one said
    with its week ("Monday last week", "Monday this week") is that week's in any text."""
    windows: list[tuple[Window, int, int]] = []
    lowered = folded(text)
    for m in _LAST.finditer(text):
        window = _relative(m[1], anchor)
        if window:
            windows.append((window, m.start(), m.end()))
    for m in _AGO.finditer(text) if _holds(lowered, ("ago", "back")) else ():
        windows.append((_ago(_count(m[1]), m[2], epoch_day(anchor)), m.start(), m.end()))
    weekdays: list[Read] = []
    full_weekday = _holds(lowered, WEEKDAYS)
    weekday_form = _holds(lowered, _DAY_FORMS, _WEEKDAY_FORM_WORD, text)

    def unread(m: re.Match[str]) -> bool:
        return not any(start < m.end() and m.start() < end for _, start, end in weekdays)

    for m in _WEEKDAY_BEFORE_LAST_WEEK.finditer(text) if full_weekday else ():
        back = _unit_window("week", anchor, 2)[0] + _weekday_number(m[1])
        weekdays.append(((back, back), m.start(), m.end()))
    for m in _WEEKS_AGO_WEEKDAY.finditer(text) if full_weekday else ():
        near = epoch_day(anchor) - 7 * _count(m[1])
        back = near - 3 + (_weekday_number(m[2]) - near) % 7  # day d is weekday (d + 3) % 7: 1970-01-01 a Thursday
        weekdays.append(((back, back), m.start(), m.end()))
    for m in _WEEKS_AGO_DAY.finditer(text) if _holds(lowered, ("week",)) else ():
        back = epoch_day(anchor) - (7 * _count(m[1]) + (m[2].lower() == "yesterday") if m[1] else 7)
        weekdays.append(((back, back), m.start(), m.end()))
    for m in _WEEKDAY_WEEKS_BACK.finditer(text) if full_weekday else ():
        if unread(m):
            weekday, count = (m[1], 2) if m[1] else (m[3], _count(m[2]))
            back = _latest_weekday(anchor, weekday) - 7 * (count - 1)
            weekdays.append(((back, back), m.start(), m.end()))
    for m in _WEEK_THEN_WEEKDAY.finditer(text) if weekday_form else ():  # "last week on Monday"
        if _said_as_a_day(text, m):
            weekdays += _weekdays_read(text, m, anchor, week=_weeks_back(m[1]))
    if question:
        weekdays += [
            read
            for m in _THIS_WEEKDAY.finditer(text)
            if unread(m) and _said_as_a_day(text, m)
            for read in _weekdays_read(text, m, anchor, week=0)
        ]
        weekdays += [
            read for m in _WEEKDAY_RANGE.finditer(text) if unread(m) for read in _weekdays_read(text, m, anchor)
        ]
        weekdays += [
            read
            for m in (_SHORT_WEEKDAY_PART.finditer(text) if weekday_form and bare_weekdays else ())
            if unread(m)
            for read in _weekdays_read(text, m, anchor)
        ]
        weekdays += [  # "Sat and Sun", not "sat and sun cron"
            read
            for m in _WEEKEND_PAIR.finditer(text)
            if unread(m) and (sun := _MORE_WEEKDAY.match(text, m.end())) and _said_as_a_day(text, sun)
            for read in _weekdays_read(text, m, anchor)
        ]
    for m in _LAST_WEEKDAY.finditer(text) if weekday_form else ():
        if unread(m) and _said_as_a_day(text, m):
            weekdays += _weekdays_read(text, m, anchor)
    read = [(start, end) for _, start, end in windows]
    for m in _BARE_WEEKDAY.finditer(text) if full_weekday else ():
        if unread(m) and not any(start < m.end() and m.start() < end for start, end in read):
            weekdays += _weekdays_read(text, m, anchor, week_said=not bare_weekdays)
    # "on Monday and Tuesday last week": "last week" says which week the days are of, no period of its own
    windows = [w for w in windows if not any(s < w[2] and w[1] < e for _, s, e in weekdays)] + weekdays
    day = epoch_day(anchor)
    return [
        ((first, max(last, day)) if _since(text, start, end) and first <= day else (first, last), start, end)
        for (first, last), start, end in windows
    ]


def _latest_weekday(anchor: date, weekday: str) -> int:
    """The latest day before `anchor` that is `weekday` ("Monday")."""
    return epoch_day(anchor) - ((anchor.weekday() - _weekday_number(weekday)) % 7 or 7)


def _weekday_number(said: str) -> int:
    """Monday 0 … Sunday 6, for a weekday's name, a misspelling of one or a short form ("Fri")."""
    word = said.lower()
    return WEEKDAYS.get(word, WEEKDAY_SHORT.get(word, WEEKEND_SHORT.get(word, 0)))


def _said_as_a_day(text: str, m: re.Match[str]) -> bool:
    """Whether the weekday `m` read ends a day's words: "sat" and "sun" only when no word of a thing's name follows
    them ("last sat solver run", "on Sun's JDK" are none); every other form always."""
    weekday = m[m.lastindex or 0]
    return weekday.lower() not in WEEKEND_SHORT or ends_a_day(text, m.end())


def _weeks_back(said: str) -> int:
    """How many calendar weeks before this one a week said so is: "this" 0, "last" or "the previous" 1, "next" -1."""
    return {"this": 0, "next": -1}.get(said.lower(), 1)


def _weekdays_read(
    text: str, m: re.Match[str], anchor: date, *, week: int | None = None, week_said: bool = False
) -> list[Read]:
    """The latest of each weekday named from `m` on ("last Tuesday and Wednesday": both), or the days from one to the
    other when they are a span's ends ("from Monday to Wednesday", "between Monday and Wednesday": the latest
    Wednesday and the Monday before it). Said with their week ("Monday and Tuesday last week", "Monday this week"),
    or `week` calendar weeks before this one, the days of that week; `week_said`: none unless their week is said."""
    named, at = [(m[m.lastindex or 0], m.start(), m.end())], m.end()
    while (more := _MORE_WEEKDAY.match(text, at)) and _said_as_a_day(text, more):  # "last Tuesday and Wednesday"
        named.append((more[1], more.start(), more.end()))
        at = more.end()
    of_week = _OF_WEEK.match(text, at) if week is None else None
    if of_week:  # "on Monday and Tuesday last week": the days of the calendar week before this one
        weekday, start, _ = named[-1]
        named[-1] = (weekday, start, of_week.end())
        at = of_week.end()
        week = _weeks_back(of_week[1])
    if week is None and week_said:
        return []

    def latest(weekday: str) -> int:
        if week is not None:
            return _unit_window("week", anchor, week)[0] + _weekday_number(weekday)
        return _latest_weekday(anchor, weekday)

    span = len(named) == 2 and (
        bool(_SPAN_GAP.match(text, named[0][2]))
        or m[0].lower().startswith(("between", "from"))
        or [_weekday_number(named[0][0]), _weekday_number(named[1][0])] == [5, 6]  # "Sat and Sun": one weekend
    )
    if span:
        last = latest(named[1][0])
        first = last - (_weekday_number(named[1][0]) - _weekday_number(named[0][0])) % 7
        return [((first, last), m.start(), at)]
    return [((latest(weekday), latest(weekday)), start, end) for weekday, start, end in named]


def message_windows(text: str, ts: float | None) -> list[Window]:
    """The days a message is about: the day it was written and its relative words read from that day."""
    text = ascii_letters(text)  # a case-blind pattern's match is looked up as the ASCII name it is
    if ts is None or ts < 0:
        return [w for w, _, _ in absolute_dates(text)]
    try:
        day = day_of(ts)
    except (OverflowError, OSError, ValueError):
        return []
    windows = [(epoch_day(day), epoch_day(day))]
    windows += _relative_windows(text, day)
    windows += [w for w, _, _ in absolute_dates(text, year_hint=day.year, today=day)]
    windows += [(epoch_day(first), epoch_day(last)) for (first, last), _, _ in season_windows(text, day, past=True)]
    return windows


def overlaps(a: Sequence[Window], b: Sequence[Window]) -> bool:
    return any(x0 <= y1 and y0 <= x1 for x0, x1 in a for y0, y1 in b)


# An event's day as a message states it from the day it was written: "offsite tomorrow!", "the launch was yesterday",
# "demo in two days", "released three days ago", "the launch is next Tuesday", "the offsite is on Friday". A weekday
# said of an event is a plan's, the coming one (that day included), unless said in the past tense ("was on Friday",
# "last Friday": the latest before); "next Tuesday" is the next calendar week's, as "Tuesday next week" is.
_EXACT_COUNT = r"(\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten)"
_IN_DAYS = re.compile(  # "in two days", "two days from now", "two days ago"
    rf"\b(?:in\s+{_EXACT_COUNT}\s+(day|week|fortnight)s?|"
    rf"{_EXACT_COUNT}\s+(day|week|fortnight)s?\s+(from\s+(?:now|today)|ago))\b",
    re.I,
)
_STATED_WEEKDAY = re.compile(
    rf"\b(?:(last|this\s+past|{_PREVIOUS}|next|this\s+coming|coming|this|on)\s+)?{_WEEKDAY_OR_SHORT}", re.I
)
_EVERY = re.compile(r"\bevery\s+$", re.I)
_DATE_FOLLOWS = re.compile(r"[\s,]*(?:the\s+)?")
_PAST_TENSE = re.compile(r"\b(?:was|were|happened|went|had|did|held|took\s+place)\b", re.I)


def stated_relative_days(text: str, written: date) -> list[Read]:
    """The single days `text`'s relative words state, seen from `written`, the day it was written, each with where it
    was said: its words for a day ("tomorrow", "yesterday", "today"), a count of days or weeks from it ("in two
    days", "two days ago") and its weekdays (a plan's coming one, one said in the past tense the latest before; not
    every one, nor one written before the date it names: "Friday 20 Feb" is that date's)."""
    text = ascii_letters(text)  # a case-blind pattern's match is looked up as the ASCII name it is
    day = epoch_day(written)
    reads: list[Read] = []
    for m in _LAST.finditer(text):
        window = _relative(m[1], written)
        if window is not None and window[0] == window[1]:
            reads.append((window, m.start(), m.end()))
    for m in _IN_DAYS.finditer(text):
        count, unit = (m[1], m[2]) if m[1] else (m[3], m[4])
        days = _count(count) * UNITS[unit.lower()]
        stated = day - days if (m[5] or "").lower() == "ago" else day + days
        reads.append(((stated, stated), m.start(), m.end()))
    dated = {start for _, start, _ in absolute_dates(text, written.year)}
    for m in _STATED_WEEKDAY.finditer(text):
        said, weekday = (m[1] or "").lower(), m[2]
        if (not said and weekday.lower() not in WEEKDAYS) or not _said_as_a_day(text, m):
            continue  # "fri", "sat" alone: words more often than days
        follows = _DATE_FOLLOWS.match(text, m.end())  # always a match, perhaps empty
        if _EVERY.search(text, max(0, m.start() - 6), m.start()) or (follows and follows.end() in dated):
            continue  # every Friday; "Friday 20 Feb": the date's own weekday
        number = _weekday_number(weekday)
        end = m.end()
        of_week = _OF_WEEK.match(text, end)
        if of_week:  # "Friday next week", "Monday of last week"
            stated = _unit_window("week", written, _weeks_back(of_week[1]))[0] + number
            end = of_week.end()
        elif said == "next":
            stated = _unit_window("week", written, -1)[0] + number
        elif said in ("last", "this past") or _PREVIOUS_WORDS.fullmatch(said) or _said_in_the_past(text, m.start()):
            stated = day - ((written.weekday() - number) % 7 or 7)
        else:  # a plan: the coming one, today included
            stated = day + (number - written.weekday()) % 7
        reads.append(((stated, stated), m.start(), end))
    return reads


def _said_in_the_past(text: str, start: int) -> bool:
    """Whether the three words before `start` hold a verb in the past tense ("the launch was on Friday", "we had
    the offsite Friday")."""
    before = text[max(0, start - 40) : start].split()[-3:]
    return bool(_PAST_TENSE.search(" ".join(before)))
