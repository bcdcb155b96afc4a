"""Indexing: finding the files (discovery), reading and chunking them into search units (file_reader, ingest, the
chunkers), redaction before storage, and the one index writer (indexer, with its vector half in vector_writer) that
puts them in the catalog, the keyword index and the vectors, under the cross-process writer lock."""
