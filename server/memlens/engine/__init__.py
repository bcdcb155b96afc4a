"""The memlens engine: sources, catalog, indexes and search. Imports nothing from the LSP layer."""
