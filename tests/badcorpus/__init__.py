"""A generated bad-input corpus: every class of malformed input memlens meets on a user's disk (issue 9)."""
