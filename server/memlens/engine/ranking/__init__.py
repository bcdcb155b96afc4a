"""Ranking: BM25 and cosine candidates fused per unit (search.py), neighbour and reply context, the last re-scoring
pass over the head (rescoring.py, with what it reads of each unit in unit_facts.py), dates in queries and messages, the
calibrated chance that a hit answers, and the optional cross-encoder."""
