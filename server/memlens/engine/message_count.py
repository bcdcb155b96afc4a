"""What a session's message count counts, defined once for every door (the CLI's MSGS column, MCP's `sessions`, the
editor's Sessions view and transcript header, a team index's sessions): the messages its people and its agent wrote,
its units of kind "transcript". Tool outputs (kind "tool": what a command printed) and compaction summaries (kind
"summary": the agent's digest of earlier messages) are not messages of the conversation; `memlens history` and the
editor's transcript show and count them apart."""

MESSAGE_KIND = "transcript"
