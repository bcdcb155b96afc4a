"""Compaction summaries: grep, describe, expand."""

from typing import NotRequired, TypedDict


class SummaryHit(TypedDict):
    """One summary `memlens.summaries.grep` found."""

    summaryId: str
    sessionKey: str
    format: str
    messageId: str
    timestamp: str | None
    excerpt: str


class SummariesGrepResponse(TypedDict):
    """`memlens.summaries.grep`: matching summaries, newest first."""

    pattern: str
    totalMatches: int
    truncated: bool
    results: list[SummaryHit]


SummaryCovers = TypedDict(  # functional form: `from` is a Python keyword
    "SummaryCovers",
    {
        "messageCount": int,
        "firstMessageId": str | None,
        "lastMessageId": str | None,
        "from": str | None,
        "to": str | None,
        "tokens": int,
    },
)
"""The span of messages a summary replaced."""


class SummaryHeader(TypedDict):
    """The fields a summary's describe and expand answers open with."""

    summaryId: str
    sessionKey: str
    sessionId: str
    format: str
    messageId: str
    timestamp: str | None


class SummaryDescription(SummaryHeader):
    """`memlens.summaries.describe`: one summary in full and what it covers."""

    text: str
    tokens: int
    covers: SummaryCovers


class SummaryMessage(TypedDict):
    """One message a summary replaced."""

    messageId: str
    role: str
    timestamp: str | None
    text: str
    position: int
    truncated: NotRequired[bool]


class SummariesExpandResponse(SummaryHeader):
    """`memlens.summaries.expand`: the messages a summary replaced, within a token budget."""

    tokenBudget: int
    tokens: int
    messages: list[SummaryMessage]
    totalMessages: int
    omittedMessages: int
    truncated: bool
