"""What a session's message count counts, defined once for every door (the CLI's MSGS column, MCP's `sessions`, the
editor's Sessions view and transcript header, `memlens stats`, the "+N messages" of `memlens index` and `memlens
watch`, a team index's sessions, and a search hit's `messageCount`, the messages that begin in its chunk): the
messages its people and its agent wrote, its units of kind "transcript", each once. Tool outputs (kind "tool": what
a command printed) and compaction summaries (kind "summary": the agent's digest of earlier messages) are not
messages of the conversation; `memlens history` and the editor's transcript show and count them apart. A message
longer than a unit holds (`chunking.messagePartChars`) is stored as several units, its parts (one message id,
numbered from FIRST_PART on in the units' `part`): it counts once, by its first part, as `memlens history` and the
editor's transcript show it whole, as one. The catalog's SQL reads this rule as `catalog.schema.MESSAGE_UNITS`."""

MESSAGE_KIND = "transcript"
FIRST_PART = 0  # a whole message, or the first part of one stored as several


def is_message(unit_kind: str, part: int) -> bool:
    """Whether a unit of this kind, the `part`-th part of its message, counts as a message of its session."""
    return unit_kind == MESSAGE_KIND and part == FIRST_PART
