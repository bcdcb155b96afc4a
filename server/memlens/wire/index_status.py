"""What the index holds and how a sync went: stats, the reindex report, the live status notification."""

from typing import NotRequired, TypedDict


class FileError(TypedDict):
    """A file with skipped lines or a failure."""

    path: str
    badLines: int
    replaced: int  # characters read as U+FFFD (invalid bytes, NULs, lone surrogates); their messages are kept
    reasons: list[str]


class StatsResponse(TypedDict):
    """`memlens.stats`: what the index holds and whether it is up to date."""

    totalChunks: int
    chunksWithEmbeddings: int
    chunksNeedingEmbeddings: int
    pendingMessages: int
    lastSync: str | None
    provider: str
    providerNote: str | None
    files: dict[str, int]
    messages: dict[str, int]
    sessions: int
    badLines: int
    replaced: int  # characters read as U+FFFD (invalid bytes, NULs, lone surrogates) in the messages and notes kept
    orphanedMessages: int
    filesWithErrors: int
    fileErrors: list[FileError]
    filesUnrecognised: int  # files found among transcripts that no parser recognised (nothing of them is searchable)
    unrecognisedFiles: list[str]  # the first 50 of them, by path
    filesEmpty: int  # transcripts holding nothing yet (no bytes, blank space, a first line begun): not of no format
    emptyFiles: list[str]  # the first 50 of them, by path
    aliases: int  # names of indexed files found under another name too (hard links, symlinks): not indexed again
    watcherErrors: int  # changes live indexing failed on since this process started (each logged; watching goes on)
    indexing: bool
    indexDir: str
    readOnly: bool
    readOnlyReason: (
        str | None
    )  # why this process only reads (another writer, a folder it may not write); None when it writes
    filesNotIndexed: int  # source files the index does not hold as they are now (new, or changed since)
    notIndexedReason: str | None  # why they wait (a full disk, a broken lock, no sync yet); None when none wait


class EmptyIndexFind(TypedDict):
    """Files that the flag `flag` would read: `count` of them in `folder`, counted up to a cap (`more`: there are
    more than `count`)."""

    folder: str
    count: int
    more: bool
    flag: str  # the command line's: `--scope all`, `--transcripts DIR`
    setting: str  # the editor's: `memlens.scope "all"`, `'DIR' in memlens.transcripts.paths`


class EmptyIndex(TypedDict):
    """A sync or a search that met an empty index: what was looked in, and what would find something
    (engine/answers/empty_index.py). `lines` says it in one or two short sentences, as each face shows it."""

    workspaces: list[str]
    memoryFiles: list[str]  # the memory-note globs looked for in each workspace
    transcriptFolders: list[str]  # the transcript folders looked in that exist
    scope: str  # "workspace": the agents' folders' sessions whose cwd is in a workspace only; "all": every session
    finds: list[EmptyIndexFind]  # each way found to read something, most files first
    lines: list[str]  # the step named by its command-line flag
    settingLines: list[str]  # the same, the step named by the setting an editor sets


class ReindexReport(TypedDict):
    """`memlens.reindex`: what a sync did (`indexer.SyncReport.to_wire`)."""

    filesSeen: int
    filesParsed: int
    filesAppended: int
    filesUnchanged: int
    filesDeleted: int
    filesFailed: int
    filesEmptied: int  # transcripts that held a session and were found empty (truncated): their messages left
    aliases: int
    messagesAdded: int  # messages the index holds more than before (one read again or moved is none)
    chunksAdded: int  # chunks the index holds more than before (one written again is none), as `stats` counts
    unitsEmbedded: int  # unit texts given a vector (units of one text share it): the embedding's work
    chunksEmbedded: int  # chunks given their last missing vector, as `stats` counts "chunks with embeddings"
    badLines: int
    errors: list[str]
    seconds: float
    cancelled: bool
    filesLeft: int  # changed files a cancelled sync left for the next one (about); 0 when not cancelled
    filesPartly: int  # of the files read, those a cancel stopped part-way, kept as far as they were read
    partlyReadBytes: int  # the bytes of those files read and kept (the next sync reads the rest as an append)
    partlySizeBytes: int  # their sizes
    empty: NotRequired[EmptyIndex]  # the index holds nothing after this sync: where it looked, what would find some


class IndexStatus(TypedDict):
    """The `memlens/indexStatus` notification: what a status line says (sessions, messages, notes) and how far
    the vectors have come (chunks waiting for them), read from counts the catalog keeps."""

    indexing: bool
    # sent by this server always; optional on the wire since a client may talk to a server from before them
    sessions: NotRequired[int]
    messages: NotRequired[int]  # the sessions' messages, as `stats` counts them by format
    notes: NotRequired[int]  # memory notes (markdown files)
    totalChunks: int
    chunksNeedingEmbeddings: int
    pendingMessages: int
    provider: str
    lastSync: str | None
    message: NotRequired[str]
