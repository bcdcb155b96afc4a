"""What a session's message count counts, defined once for every door (the CLI's MSGS column, MCP's `sessions`, the
editor's Sessions view and transcript header, a search hit's `messageCount`, `memlens stats`, the "+N messages" of
`memlens index` and `memlens watch`, a team index's sessions): the messages its people and its agent wrote, its
units of kind "transcript". Tool outputs (kind "tool": what a command printed) and compaction summaries (kind
"summary": the agent's digest of earlier messages) are not messages of the conversation; `memlens history` and the
editor's transcript show and count them apart. A message longer than a unit holds (`chunking.messagePartChars`) is
stored as several units, its parts, and the counts count each part; `memlens history` and the editor's transcript
show it whole, as one."""

MESSAGE_KIND = "transcript"


def is_message(unit_kind: str) -> bool:
    """Whether a unit of this kind counts as a message of its session."""
    return unit_kind == MESSAGE_KIND
