"""Hover-to-recall: the identifier under the cursor, searched, shown as the few best memories and transcript turns."""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from datetime import datetime, tzinfo
from typing import Any
from urllib.parse import quote, unquote
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from lsprotocol import types

from memlens.engine.answers.speaker import speaker
from memlens.engine.file_names import disk_path  # a path shown escaped, back to the bytes the URI names
from memlens.lsp.state import ServerState
from memlens.redaction import redact
from memlens.wire import SearchResult

log = logging.getLogger(__name__)

CACHE_SIZE = 256
EXCERPT_CHARS = 180
LABEL_CHARS = 60
_IDENT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
STOP_WORDS = frozenset(
    """a an and are as at be but by can def do does else for from get had has have if in into is it its let
    new not null of on or our self set should that the their then there this to true false none var was were
    what when where which while will with you your return import const function class public private static
    void int str string bool self this args kwargs value values data item items type use make init""".split()  # noqa: SIM905
)


def word_range(line: str, character: int) -> tuple[int, int] | None:
    """The [start, end) columns of the dotted/kebab/snake identifier under `character`, if any."""
    for match in _IDENT.finditer(line):
        if match.start() <= character <= match.end():
            start, end = match.start(), match.end()
            while end > start and line[end - 1] in ".-":
                end -= 1
            return (start, end) if end > start else None
    return None


def query_words(identifier: str) -> list[str]:
    """Split an identifier into lower-case words (camelCase, snake_case, kebab-case, dotted), minus stop words."""
    words: list[str] = []
    for part in re.split(r"[._\-]+", identifier):
        for word in _CAMEL.findall(part):
            lowered = word.lower()
            if len(lowered) >= 3 and lowered not in STOP_WORDS and not lowered.isdigit() and lowered not in words:
                words.append(lowered)
    return words


def encode_component(text: str) -> str:
    """JavaScript's encodeURIComponent."""
    return quote(text, safe="-_.!~*'()")


def transcript_uri(session_key: str, message_id: str | None) -> str:
    """`memlens-transcript:/<sessionKey>.md?message=<messageId>`, as the VS Code client opens it."""
    query = f"?message={encode_component(message_id)}" if message_id else ""
    return f"memlens-transcript:/{encode_component(session_key)}.md{query}"


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT_CHARS else flat[: EXCERPT_CHARS - 1].rstrip() + "…"


def _escape(text: str) -> str:
    return re.sub(r"([\\`*_\[\]<>#|])", r"\\\1", text)


def hover_zone(name: str) -> tzinfo | None:
    """The zone `display.timeZone` names; None (the machine's) when it is empty or unknown here."""
    try:
        return ZoneInfo(name) if name else None
    except (ZoneInfoNotFoundError, ValueError):
        return None


def _date(timestamp: str | None, zone: tzinfo | None) -> str:
    """The day of `timestamp` in `zone` (None: the machine's), as the client shows days."""
    if not timestamp:
        return ""
    try:
        moment = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return timestamp[:10]
    return (moment if moment.tzinfo is None else moment.astimezone(zone)).date().isoformat()


def _first_words(text: str) -> tuple[str, str]:
    """The excerpt's first words (cut at a word near LABEL_CHARS) and what follows them."""
    flat = " ".join(text.split()).lstrip("… ")
    if len(flat) <= LABEL_CHARS:
        return flat, ""
    cut = flat[:LABEL_CHARS]
    space = cut.rfind(" ")
    if space > LABEL_CHARS * 0.6:
        cut = cut[:space]
    return cut.rstrip() + "…", flat[len(cut) :].strip()


def _link_title(title: str) -> str:
    """A markdown link title (`"…"`), quotes and backslashes escaped."""
    return ' "' + re.sub(r'(["\\])', r"\\\1", _one_line(title)[:120]) + '"'


def render(identifier: str, results: list[SearchResult], *, zone: tzinfo | None = None) -> str:
    """Markdown for the hover: per hit how sure it is (strong / possible / weak), a link that opens it labelled by the
    hit's own first words (hits of one session differ there, while their session's title — its first prompt — is the
    same for all: it is the link's title), its date and where it is from, then the rest of the excerpt.

    Memory hits link to `file:///abs/path#L<line>`; transcript hits to `memlens-transcript:/<sessionKey>.md?message=
    <messageId>` (the VS Code client turns both into command links it trusts; other clients parse them), or, with a
    null `sessionKey`, to their file like a memory hit. Null fields (wire.SearchResult) fall back as absent ones do.
    Dates are days in `zone` (`display.timeZone`; None: the machine's).
    """
    # the hovered word is the one text here the engine's door did not mask (a `.env` line's value is a token)
    lines = [f"**memlens** · recall for `{redact(identifier).replace('`', '')}`", ""]
    for result in results:
        score = result.get("confidence") or f"{round(result['score'] * 100)}%"  # how sure, in words when calibrated
        if result["kind"] == "memory":
            line = result.get("lineStart") or 1
            link = disk_path(result["path"]).as_uri() + f"#L{line}"
            title = result.get("heading") or result["relPath"]
            facts = [f"{result['relPath']}:{line}"]
        else:
            session_key = result.get("sessionKey")
            if session_key is None:  # no session in the catalog, so no transcript view: open the file at the hit
                link = disk_path(result["path"]).as_uri() + f"#L{result.get('lineStart') or 1}"
            else:
                link = transcript_uri(session_key, result.get("messageId"))
            role = speaker(result["kind"], result.get("role"))
            facts = [_date(result.get("timestamp"), zone), result.get("format") or "transcript", role]
            label, rest = _first_words(result["excerpt"])
            session_title = result.get("title")
            link_title = _link_title(session_title) if session_title else ""
            fact_text = " · ".join(_escape(f) for f in facts if f)
            lines.append(f"- **{score}** [{_escape(label or 'message')}]({link}{link_title}) · {fact_text}  ")
            if rest:
                lines.append(f"  …{_escape(_one_line(rest))}")
            continue
        title = _one_line(title)[:80]
        fact_text = " · ".join(_escape(f) for f in facts if f)
        lines.append(f"- **{score}** [{_escape(title)}]({link}) · {fact_text}  ")
        lines.append(f"  {_escape(_one_line(result['excerpt']))}")
    return "\n".join(lines)


class HoverProvider:
    """Answers hovers from a small LRU cache, never waiting for the engine to open or index."""

    def __init__(self, state: ServerState) -> None:
        self.state = state
        self._cache: OrderedDict[tuple[Any, ...], str | None] = OrderedDict()

    def _cached(self, key: tuple[Any, ...]) -> tuple[bool, str | None]:
        if key in self._cache:
            self._cache.move_to_end(key)
            return True, self._cache[key]
        return False, None

    def _store(self, key: tuple[Any, ...], value: str | None) -> None:
        self._cache[key] = value
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)

    async def hover(self, params: types.HoverParams) -> types.Hover | None:
        settings = self.state.settings.hover
        engine = self.state.engine
        if not settings.enabled or engine is None:
            return None
        # the editor's own text only: for a document it never opened, pygls would read the file, whole and on this
        # event loop (a FIFO stalls every request after it, /dev/zero never ends), and the editor shows none of it
        document = self.state.server.workspace.text_documents.get(unquote(params.text_document.uri))
        if document is None:
            return None
        try:
            line = document.lines[params.position.line]
        except IndexError:
            return None
        span = word_range(line, params.position.character)
        if span is None:
            return None
        identifier = line[span[0] : span[1]]
        # an identifier made only of short or common words (`self`, `is_a`) recalls nothing worth a hover
        if not query_words(identifier):
            return None
        # a word naming a day (`yesterday`, `Tuesday`) is not a question about that day: a hover recalls a topic
        if engine.period_question(identifier) is not None:
            return None
        # the whole identifier is the query: the engine matches it whole first, then by its parts
        query = identifier
        zone_name = self.state.settings.display.time_zone
        key = (query, self.state.generation, settings.min_score, settings.max_results, zone_name)
        hit, markdown = self._cached(key)
        if not hit:
            try:
                response = await self.state.read(
                    lambda: engine.search(  # local only: a hover does not wait on a team server
                        query, limit=settings.max_results, mode="hybrid", min_score=settings.min_score, local_only=True
                    )
                )
            except Exception as exc:  # a hover never fails loudly
                log.debug("hover search for %r failed: %s", query, exc)
                return None
            results = response["results"]
            markdown = render(identifier, results, zone=hover_zone(zone_name)) if results else None
            self._store(key, markdown)
        if markdown is None:
            return None
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=markdown),
            range=types.Range(
                start=types.Position(line=params.position.line, character=span[0]),
                end=types.Position(line=params.position.line, character=span[1]),
            ),
        )
