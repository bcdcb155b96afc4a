"""Benchmarks: retrieval quality on LoCoMo (locomo.py) and indexing/search speed (speed.py)."""
