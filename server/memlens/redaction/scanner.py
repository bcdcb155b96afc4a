"""Run every detector over a text in linear time and merge what they find into non-overlapping spans.

One RE2 ``Set`` pass tells which detectors match anywhere in the text; only those then run (``finditer``), each
on its own, so a match of one detector never hides an overlapping match of another. RE2 never backtracks, so
no input, however adversarial, makes a scan slower than linear.

The ``Set`` pass reads a long text in overlapping windows: RE2's DFA for a set keeps, in each state, which
patterns have matched so far, so on a long text full of matches its states multiply and the scan slows tenfold.
Each window starts afresh. A detector only needs *some* match inside one window to be run over the whole
text, and every detector matches on a short prefix of its secret (a key and one character of value, a PEM
header, a fixed-length token), so the overlap of ``_OVERLAP`` characters loses nothing.

The detectors are split between two Sets (`_spans_lines`): those with a run of any character in them (``.*``,
``.{0,120}``, ``[^\n]*``) keep a DFA state open from where they could start until the run ends, and in one Set with
all the others each such open state multiplies the states of the whole set. Apart, the two Sets' DFAs stay small
(bench/RESULTS.md, cold indexing, has the A/B). Which Set a detector is in changes nothing of what `hits` gives: each
detector either matches somewhere in a window or not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import re2

from memlens.redaction.detector import Detector, Span, TokenRuns

# RE2's DFA cache per compiled pattern set; a Set that runs out of it would report no match, so be generous.
_MAX_MEMORY = 256 << 20
# a pattern whose match can run over any characters for long: `.*`, `.+`, `.{0,120}`, `[^\n]*`, a `(?s:` group
_ANY_RUN = re.compile(r"\.[*+]|\.\{\d*,|\[\^\\n\][*+]|\(\?s:")
_WINDOW = 16_384
_OVERLAP = 2_048


def _options() -> Any:
    options = re2.Options()
    options.log_errors = False
    options.max_mem = _MAX_MEMORY
    return options


class Scanner:
    """A compiled set of detectors."""

    def __init__(self, detectors: Sequence[Detector]) -> None:
        options = _options()
        self.detectors = list(detectors)
        # each Set with the detectors' indices in this scanner, in the order they were added to it
        self._sets: list[tuple[list[int], Any]] = []
        for group in _spans_lines(self.detectors):
            if not group:
                continue
            pattern_set = re2.Set.SearchSet(options)
            for index in group:
                pattern_set.Add(self.detectors[index].pattern)
            pattern_set.Compile()
            self._sets.append((group, pattern_set))
        self._compiled = [re2.compile(detector.pattern, options) for detector in self.detectors]

    def hits(self, text: str) -> list[int]:
        """Indices of the detectors whose pattern matches somewhere in ``text`` (before any gate)."""
        found: set[int] = set()
        for start in range(0, max(1, len(text)), _WINDOW - _OVERLAP):
            # encoded once for both Sets (each would encode a `str` again): a build scans every text and every
            # join of two messages, and encoding each window once per Set costs a fifth of the scan's CPU
            window = (text if len(text) <= _WINDOW else text[start : start + _WINDOW]).encode("utf-8")
            for group, pattern_set in self._sets:
                matched = pattern_set.Match(window)  # None: no match
                if matched:
                    found.update(group[index] for index in matched)
            if start + _WINDOW >= len(text):
                break
        return sorted(found) if found else []

    def raw_spans(self, text: str) -> list[Span]:
        """Every secret each detector finds, possibly overlapping, in detector order."""
        spans: list[Span] = []
        for index in self.hits(text):
            detector = self.detectors[index]
            runs = TokenRuns(text)  # a detector's matches come in order: each run of the text is read once
            for match in self._compiled[index].finditer(text):
                span = detector.span_of(match, text, runs)
                if span is not None:
                    spans.append(span)
        return spans

    def find(self, text: str) -> list[Span]:
        """The secrets in ``text``, merged where they overlap (the longer span names the kind), in order."""
        if not text:
            return []
        return merge(self.raw_spans(text))


def _spans_lines(detectors: Sequence[Detector]) -> tuple[list[int], list[int]]:
    """The indices of the detectors without a run of any character in their pattern, and of those with one."""
    plain = [i for i, detector in enumerate(detectors) if _ANY_RUN.search(detector.pattern) is None]
    running = [i for i, detector in enumerate(detectors) if _ANY_RUN.search(detector.pattern) is not None]
    return plain, running


def merge(spans: list[Span]) -> list[Span]:
    """Overlapping spans become one; its kind is the kind of the longest span in it."""
    merged: list[Span] = []
    longest: list[int] = []
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if merged and span.start < merged[-1].end:
            last = merged[-1]
            kind = span.kind if span.end - span.start > longest[-1] else last.kind
            longest[-1] = max(longest[-1], span.end - span.start)
            merged[-1] = Span(kind, last.start, max(last.end, span.end))
        else:
            merged.append(span)
            longest.append(span.end - span.start)
    return merged
