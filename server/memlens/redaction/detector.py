"""What a detector is, and how one match of it becomes the span of text to mask.

A detector is a pattern in RE2 syntax (so every scan is linear in the text's length) plus what to keep of a
match: only the named groups that hold the secret (the key, quotes and scheme around it stay readable), a gate
that judges the captured value, and whether the match must start at a word boundary.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from memlens.redaction.values import Evidence, is_secret_value

# The kind of an assignment's secret follows from its key: "DB_PASSWORD" → password.
KindOfKey = Callable[[str], str]
# Characters trimmed from both ends of a whole-match secret: the context that some library patterns consume.
_DELIMITERS = " \t\r\n\"'=:@,;"
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
# A run of a token's own characters: a whole-match secret runs on over them. A fixed-length pattern (a Discord bot
# token's last part of 27, npm's 36) matched the head of a longer token of a newer format and left its tail shown.
_TOKEN_RUN = re.compile("[A-Za-z0-9_-]*")


class TokenRuns:
    """Where the run of token characters from a position of one text ends, each run read once: a text that is one
    long run holding thousands of matches (`AKIA` repeated) was read to its end once per match, in time quadratic in
    its length."""

    __slots__ = ("_end", "_start", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._start = self._end = 0

    def end_from(self, at: int) -> int:
        """The end of the run of token characters that starts at `at` (`at` itself when none does)."""
        if self._start <= at < self._end:  # inside the run last read: every character up to its end is a token's
            return self._end
        run = _TOKEN_RUN.match(self._text, at)
        self._start, self._end = at, run.end() if run else at
        return self._end


# A bare value followed by an opener is a call, a literal or an index in code (`_is_call` says when it is not).
_CLOSER_OF = {"(": ")", "[": "]", "{": "}"}
# Where a password's unquoted value runs on: the characters that end a bare value (`&` of a URL's query, `;` of a
# shell line, `)` of a call) are a password's own when no space comes before the next field or the line's end.
_RUN = re.compile("[^ \t\r\n\"'`]{0,256}")  # at most 256 characters: longer than any password a person types
_CLOSERS = ").,;]}>"
_RUNS_ON = frozenset("&;,()[]{}<>|\\")  # what ends a bare value (patterns.py's _VALUE) and may be a password's
_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$.]*")


def _is_code_name(value: str) -> bool:
    """An identifier a person wrote (``GetCloudToken``, ``load_key``), not a generated string cut short."""
    return _IDENTIFIER.fullmatch(value) is not None and not any(c.isdigit() for c in value)


def _is_bare(match: Any, start: int) -> bool:
    """Whether the unquoted-value group (``bare``) is the one that holds the secret starting at ``start``."""
    index = match.re.groupindex.get("bare")
    return index is not None and match.start(index) == start


class Span(NamedTuple):
    """One secret found in a text: ``text[start:end]`` is masked as ``[REDACTED:<kind>]``."""

    kind: str
    start: int
    end: int


@dataclass(frozen=True)
class Detector:
    """One pattern and the rules that turn its matches into spans."""

    kind: str
    pattern: str
    # Named groups that may hold the secret (the first that took part in the match); empty: the whole match.
    secret_groups: tuple[str, ...] = ()
    # None: any match is a secret; otherwise the captured value must pass the gate for this strength of evidence.
    evidence: Evidence | None = None
    # The secret must not continue a word ("task-runner" holds no "sk-" key).
    word_start: bool = False
    # Characters that must not come right before the secret either: "_" of a snake_case name ("set_fw_…"), "+" and
    # "/" of a base64 run (an image's data holds "/EAA…" and "+1//0…" by chance).
    not_after: str = ""
    # Extra check on the secret itself (e.g. a token must contain a digit).
    check: Callable[[str], bool] | None = None
    # Check on the key (the named group ``key``): "commit_token_sha" names a digest, not a secret.
    key_check: Callable[[str], bool] | None = None
    # Name the kind from this named group (an assignment's key) instead of using ``kind``.
    kind_of_key: KindOfKey | None = None
    # From detect-secrets: the secret is the last group when it ends the match, else the trimmed whole match.
    from_library: bool = False

    def span_of(self, match: Any, text: str, runs: TokenRuns | None = None) -> Span | None:
        """The span to mask for one RE2 match, or None when the match is not a secret after all; `runs`: the token
        runs of `text`, shared by the matches of one scan."""
        start, end = self._secret_bounds(match, text)
        if start >= end:
            return None
        opens = text[end : end + 1] in _CLOSER_OF
        called = opens and self.secret_groups and _is_bare(match, start) and _is_call(_run_after(text, end))
        if called and _is_code_name(text[start:end]):
            return None  # "GetCloudToken()", "NewSecret{}", "tokens[0]": an expression in code, not a value
        if self.word_start and start > 0 and text[start - 1] in _WORD_CHARS:
            return None
        if self.not_after and start > 0 and text[start - 1] in self.not_after:
            return None
        value = text[start:end]
        if self.evidence is not None and not is_secret_value(value, self.evidence):
            return None
        if self.check is not None and not self.check(value):
            return None
        if self.key_check is not None and not self.key_check(match.group(match.re.groupindex["key"])):
            return None
        kind = self.kind_of_key(match.group(match.re.groupindex["key"])) if self.kind_of_key is not None else self.kind
        if not self.secret_groups:  # a token's whole run, however long its format has grown
            end = (runs or TokenRuns(text)).end_from(end)
        elif self.evidence is Evidence.STRONG and _is_bare(match, start) and text[end : end + 1] in _RUNS_ON:
            end = _password_end(text, end)
        return Span(kind, start, end)

    def _secret_bounds(self, match: Any, text: str) -> tuple[int, int]:
        names = match.re.groupindex
        for group in self.secret_groups:
            start, end = match.span(names[group])
            if start >= 0:
                return start, end
        start, end = match.span()
        if self.secret_groups:
            return end, end  # no value group took part: nothing to mask
        while start < end and text[start] in _DELIMITERS:
            start += 1
        while end > start and text[end - 1] in _DELIMITERS:
            end -= 1
        if self.from_library:
            return _library_secret(match, start, end)
        return start, end


def _run_after(text: str, end: int) -> str:
    """The characters from `end` to the next space, quote or line end, at most 256 of them: minified code
    runs on for megabytes without a space, and every value found in it would read them all."""
    run = _RUN.match(text, end)
    return run.group() if run else ""


def _is_call(run: str) -> bool:
    """Whether `run`, what follows a name, opens a call, an index or a literal (`(user)`, `(a, b)`, `[0].x`, `{}`):
    an opener, unless its closer is followed at once by a letter or digit, as in `Pa(ss)w0rd`, which code never
    writes."""
    if not run or run[0] not in _CLOSER_OF:
        return False
    closed = run.find(_CLOSER_OF[run[0]])
    return closed < 0 or not run[closed + 1 : closed + 2].isalnum()


def _password_end(text: str, end: int) -> int:
    """Where an unquoted password that the pattern ended at `&`, `;`, `)` or the like really ends: at the next space,
    quote or line end, short of a next field (`&user=me`, `;Server=db`), a shell operator (`&&`, `||`) and closing
    punctuation. `password=Tr0ub4dor&3xyz` showed `&3xyz`."""
    rest = _run_after(text, end)
    if "=" in rest:  # the next field's name ends at the "="; the separator before that name ends the password
        named = rest[: rest.index("=")]
        rest = named[: max(named.rfind(c) for c in "&;,|")] if any(c in named for c in "&;,|") else ""
    rest = rest.rstrip(_CLOSERS)
    if not rest or rest.startswith(("&&", "||")):
        return end
    return end + len(rest)


def _library_secret(match: Any, start: int, end: int) -> tuple[int, int]:
    """detect-secrets yields a pattern's groups when it has any: honour that when the last group ends the match.

    A group that opens the match is a prefix choice (``(ghp|gho)_…``), not the secret, so the whole match is kept.
    """
    for group in range(match.re.groups, 0, -1):
        group_start, group_end = match.span(group)
        if group_start < 0 or group_start == group_end:
            continue
        if group_start > start and group_end >= end:
            return group_start, group_end
        break
    return start, end
