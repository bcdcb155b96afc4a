"""A running `memlens serve` or `memlens mcp` answers `memlens search` over a Unix socket in the index folder, so a
CLI call beside an open editor costs a connection, not a second engine (tantivy, SQLite, the embedding model).

protocol.py: the socket's place and the one-line JSON framing; server.py: the listener the servers start (it
translates requests to `Engine.search`); client.py: what the CLI asks with, importing nothing of the engine."""
