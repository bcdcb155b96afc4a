"""The memlens language server: search, history, summaries, context packs and hover-to-recall over LSP."""
