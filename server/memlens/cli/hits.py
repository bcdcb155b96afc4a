"""A search hit in at most three lines, within the terminal's width, as ripgrep shows a match:

    5b0e7d3c:b93217ff the orders DLQ is backing up… · 2026-02-10 08:57 · assistant · strong
      Yes, fixed: the DLQ backlog is gone and every stuck message was replayed. Moved 1,204
      messages back…

The first word is the hit's reference: `SESSION:MESSAGE` prefixes that `memlens history` opens, or a memory note's
`path:line`. The excerpt starts near the first matched word, and matched words are bold."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import tzinfo

from memlens.cli.clock import local_time
from memlens.cli.terminal import Style, breakable, cells, clip, clip_styled, cut
from memlens.engine.answers.speaker import speaker
from memlens.engine.keyword.name_forms import form_free
from memlens.engine.keyword.stop_words import STOP_WORDS
from memlens.wire import SearchResult

REF_CHARS = 8  # a random uuid's first 8 hex digits: unique among a person's sessions in practice
# A UUIDv7 (Codex CLI's session ids) starts with its creation time in milliseconds, whose first 8 hex digits change
# only every 65 s: two sessions started in the same minute share them, so its reference keeps the whole timestamp.
_UUID7 = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", re.IGNORECASE)
UUID7_REF_CHARS = 13  # `019e1625-789d`
INDENT = "  "
_WORD = re.compile(r"\w+", re.UNICODE)


def short_session_id(session_id: str) -> str:
    """The prefix of a session id that the terminal shows and `memlens history` opens: `5b0e7d3c`, or a UUIDv7's
    `019e1625-789d`."""
    return session_id[: UUID7_REF_CHARS if _UUID7.fullmatch(session_id) else REF_CHARS]


def reference(result: SearchResult) -> str:
    """The short name of a hit: the engine's reference (`5b0e7d3c:b93217ff`, session and message id prefixes that
    name it alone), or `MEMORY.md:12`."""
    if made := result.get("reference"):
        return made
    session = short_session_id(result.get("sessionId") or result.get("sessionKey") or "")
    if result["kind"] == "memory" or not session:  # a file's line: what an editor opens
        return f"{result['relPath']}:{result.get('lineStart') or 1}"
    # a team index's hit: another person's session, named as this index cannot check
    message = result.get("messageId")
    return f"{session}:{message[:REF_CHARS]}" if message else session


def query_terms(query: str) -> list[str]:
    """The words of a query that a hit's excerpt may show (stop words and one-letter words left out); a name's parts,
    whatever its form (`reviewHeartbeatInterval` and `review_heartbeat_interval`: review, heartbeat, interval), as
    the engine finds a name written in another form by its parts."""
    words = {w.lower() for w in _WORD.findall(form_free(query))}
    return sorted((w for w in words if len(w) > 1 and w not in STOP_WORDS), key=len, reverse=True)


# where a word or a name's part starts: a word's edge, after a `_`, or at a camelCase capital (matched case-sensitive)
_PART_START = r"(?:\b|(?<=_)|(?-i:(?<=[a-z])(?=[A-Z])))"


def _matcher(terms: list[str]) -> re.Pattern[str] | None:
    """Words and names' parts that start with a term's stem (`queue` matches `queues`, `fixed` matches `fix`,
    `heartbeat` the rest of `reviewHeartbeatInterval` from its part)."""
    if not terms:
        return None
    stems = sorted({_stem(t) for t in terms}, key=len, reverse=True)
    return re.compile(_PART_START + "(?:" + "|".join(re.escape(s) for s in stems) + r")\w*", re.IGNORECASE)


def _stem(term: str) -> str:
    """A word's stem for highlighting: short words whole, longer ones less their last letter or two."""
    if len(term) <= 5:
        return term
    return term[:-2] if len(term) >= 8 else term[:-1]


def hit_lines(result: SearchResult, query: str, *, width: int, style: Style, zone: tzinfo | None = None) -> list[str]:
    """The hit's lines (one header, up to two excerpt lines), none wider than `width` cells; its time in `zone`
    (None: the machine's)."""
    header = _header(result, width, style, zone)
    return [header, *_excerpt(result["excerpt"], matcher_of(query), width, style)]


def sureness(result: SearchResult) -> str:
    """How sure a hit is: the engine's word for its calibrated chance (strong / possible / weak), else its score."""
    return result.get("confidence") or f"{round(result['score'] * 100)}%"


def _header(result: SearchResult, width: int, style: Style, zone: tzinfo | None) -> str:
    ref = reference(result)
    percent = sureness(result)
    if result["kind"] == "memory":
        title = result.get("heading") or ""
        details = ["memory"]
    else:
        title = result.get("title") or result.get("format") or ""
        when = local_time(result.get("timestamp"), zone)
        role = speaker(result["kind"], result.get("role"))
        team = f"{result['publisher']}/{result.get('project', '?')}" if "publisher" in result else ""
        details = [d for d in (when, role, team) if d]  # a team hit names who published it
    # never cut: a reference cut short opens nothing, and how sure the hit is tells whether to open it; the title
    # gives way first, then the details from the last (who published it, the speaker, the time)
    while details and cells(f"{ref} · {' · '.join([*details, percent])}") > width:
        details.pop()
    tail = " · " + " · ".join([*details, percent])
    room = width - cells(ref) - cells(tail) - 1
    title = clip(" ".join(title.split()), room) if room >= 4 else ""
    pieces: list[tuple[str, Callable[[str], str]]] = [(ref, style.reference)]
    if title:
        pieces += [(" ", _unstyled), (title, style.title)]
    if details:
        pieces += [(" · ", _unstyled), (" · ".join(details), style.dim)]
    pieces += [(" · ", _unstyled), (percent, style.score)]
    return clip_styled(pieces, width)  # cut only where narrower than the reference and the tail


def _unstyled(text: str) -> str:
    return text


def _excerpt(text: str, matcher: re.Pattern[str] | None, width: int, style: Style) -> list[str]:
    flat = " ".join(text.split())
    if not flat:
        return []
    room = width - len(INDENT)
    first = matcher.search(flat) if matcher else None
    if first and cells(flat[: first.start()]) > room // 3:
        start = flat.rfind(" ", 0, max(0, first.start() - room // 4)) + 1
        flat = "…" + flat[start:]
    lines = _wrap(flat, room, max_lines=2)
    return [INDENT + bolded(line, matcher, style) for line in lines]


def _wrap(text: str, room: int, *, max_lines: int) -> list[str]:
    """`text` in at most `max_lines` lines of `room` cells, broken between words, the last one ending in … when
    there was more."""
    lines: list[str] = []
    rest = text
    while rest and len(lines) < max_lines:
        if cells(rest) <= room:
            lines.append(rest)
            rest = ""
            break
        if len(lines) == max_lines - 1:
            lines.append(clip(rest, room))
            rest = ""
            break
        cut = _fit(rest, room)
        space = rest.rfind(" ", 0, cut + 1)
        end = rest.find(" ", cut)
        if space > room // 2 and not breakable(rest[space + 1 : end if end >= 0 else len(rest)]):
            cut = space  # between words, unless the word is CJK text, whose lines break between characters
        lines.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    return lines


def _fit(text: str, room: int) -> int:
    """How many characters of `text` fit in `room` cells (whole graphemes: an emoji sequence is never split)."""
    return len(cut(text, room))


def matcher_of(query: str) -> re.Pattern[str] | None:
    """What `bolded` shows as matches of `query` (a search's, or a pasted error's words); None: no word to show."""
    return _matcher(query_terms(query))


def bolded(line: str, matcher: re.Pattern[str] | None, style: Style) -> str:
    """`line` with what `matcher` finds styled as a match (a line of text already laid out in its cells)."""
    if matcher is None or not style.color:
        return line
    return matcher.sub(lambda m: style.match(m.group(0)), line)
