"""Context packs: the turns most relevant to a question, cited, within a token budget."""

from typing import NotRequired, TypedDict

from memlens.wire.params import HitKind, SearchMode


class ContextMessage(TypedDict):
    """A message quoted in a context pack."""

    messageId: str
    role: str
    timestamp: str | None
    text: str


class ContextPassage(TypedDict):
    """A context item before its cost is known: `ContextItem` without `tokens` (no TS counterpart)."""

    kind: HitKind
    score: float
    relPath: str
    source: str
    citation: str
    truncated: NotRequired[bool]
    sessionKey: NotRequired[str]
    messageId: NotRequired[str]
    timestamp: NotRequired[str | None]
    format: NotRequired[str]
    messages: NotRequired[list[ContextMessage]]
    lineStart: NotRequired[int | None]
    lineEnd: NotRequired[int | None]
    heading: NotRequired[str | None]
    text: NotRequired[str]


class ContextItem(ContextPassage):
    """One passage of a context pack: a transcript message (or summary) with a neighbour, or a memory section."""

    tokens: int


class ContextResponse(TypedDict):
    """`memlens.context`: cited passages within a token budget, and the same as ready-to-paste markdown."""

    question: str
    tokenBudget: int
    tokens: int
    sources: int
    truncated: bool
    indexing: bool
    mode: SearchMode
    items: list[ContextItem]
    markdown: str
