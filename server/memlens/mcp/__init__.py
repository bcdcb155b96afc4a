"""memlens as a Model Context Protocol server: the agent's own memory, as tools the agent can call.

Why it exists: the language server serves editors and the CLI serves people; an agent (Claude Code, Codex, any MCP
client) needs the same engine as tools it can call mid-task: search its past sessions and notes, read a session,
list sessions and resume one. This package only translates MCP tool calls into `Engine` calls and their answers
into text and structured content; it imports nothing from `memlens.lsp` or `memlens.cli`.

- `tools`: the tool table (name, description, JSON schemas) and the thin typed handlers.
- `render`: the concise text an agent reads, and the bound on every answer's size.
- `server`: the wiring: SDK server, stdio or streamable HTTP, live indexing, errors that never end the server.
"""
