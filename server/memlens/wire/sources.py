"""The folders an index was built from (`memlens sources`, `memlens.sources`)."""

from typing import Literal, TypedDict


class SourceFolder(TypedDict):
    """One folder the index was built from or is told to read (`memlens.sources`, `memlens sources --json`)."""

    path: str
    displayPath: str
    kind: Literal["memory", "transcripts", "agent"]
    files: int
    units: int
    addedFrom: str
    named: bool


class SourcesResponse(TypedDict):
    """`memlens.sources`: every remembered folder, and any the settings name that no sync has recorded yet."""

    sources: list[SourceFolder]


class RemoveSourceResponse(TypedDict):
    """`memlens.removeSource`: the folder forgotten and how many of its files left the index."""

    path: str
    displayPath: str
    filesRemoved: int


class UnnamedSources(TypedDict):
    """The `memlens/unnamedSources` notification: folders the index holds (and keeps syncing and searching) that the
    server's settings no longer name."""

    sources: list[SourceFolder]
