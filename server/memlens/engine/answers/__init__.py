"""Answers: what the engine hands out, built from the catalog and a ranking: search results and their excerpts,
session history, session lists and labels, compaction summaries, context packs, index stats, what a request may see
(visibility), and the last redaction pass every response goes through (outbound)."""
