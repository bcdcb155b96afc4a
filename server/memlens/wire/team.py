"""The team index's answers: a publish, the team's sessions, and how a search's team part went."""

from typing import NotRequired, TypedDict


class PublishResponse(TypedDict):
    """`memlens publish --team URL --json`."""

    publisher: str
    project: str
    units: int
    sent: int
    deleted: int
    unchanged: int
    withVectors: int
    seconds: float
    note: NotRequired[str]


class TeamStatus(TypedDict):
    """A search's team part: whether the team index answered, how many of the hits it gave, and why not."""

    reachable: bool
    hits: int
    reason: NotRequired[str]


class TeamSession(TypedDict):
    publisher: str
    project: str
    sessionKey: str
    format: str
    title: str | None
    firstTimestamp: str | None
    lastTimestamp: str | None
    messageCount: int


class TeamSessionsResponse(TypedDict):
    """`memlens sessions --team URL --json`."""

    sessions: list[TeamSession]
    note: NotRequired[str]  # a publisher or project filter the team index holds no row of
