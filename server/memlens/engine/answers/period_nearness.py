"""Whether a period holds what a question about it says in other words ("what did we discuss about the first tickets
epic on February 11" when that day's session speaks of the tracker's opening issues).

The calibrated chance that decides whether a search answers (search.minScore) was fitted on chat whose words match
the question's; a paraphrase's best match in a period often stays under it although the period holds the message it
means. A period holds few messages, so here the vectors are read against the query's own scale instead: the period's
nearest message must stand out from the query's cosines with the index's typical messages (SIGMAS standard
deviations above their mean), and the query must name a topic the data knows: most of its words (idf-weighted) are
written somewhere in the index, or the period's matches hold a good share of them. A word written nowhere
("saxophone") has vector neighbours as near as a paraphrase's, so it is never answered on the vectors alone.
The constants were fitted on bench/period_topics.py's tune questions (bench/RESULTS.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from memlens.engine.ranking.calibration import FEATURES
from memlens.engine.ranking.hits import UnitHit
from memlens.engine.ranking.rescoring import ANSWER_TOP

SIGMAS = 3.0  # how far above the query's typical cosine the period's nearest message must be
MAX_UNWRITTEN = 0.35  # the idf-weighted share of the query's words written nowhere in the index, at most...
MIN_COVERAGE = 0.3  # ...or else the share of them a period's match holds, at least

_COVERAGE = FEATURES.index("coverage")
_UNWRITTEN = FEATURES.index("absent_share")


def said_otherwise(matches: Sequence[UnitHit], typical: tuple[float, float] | None) -> bool:
    """Whether `matches` (a search for the query's other words within the period, best first) hold a message that
    says them in other words; `typical`: the mean and spread of the query's cosines with the index's messages (None
    without vectors: never)."""
    if typical is None or not matches:
        return False
    mean, spread = typical
    nearest = max((h.vector for h in matches if h.vector is not None and not h.cosine_stood_in), default=None)
    if nearest is None or spread <= 0 or (nearest - mean) / spread < SIGMAS:
        return False
    top = [h.features for h in matches[:ANSWER_TOP] if len(h.features) == len(FEATURES)]
    if not top:
        return False
    unwritten = top[0][_UNWRITTEN]  # a fact of the query: every hit carries the same
    coverage = max(f[_COVERAGE] for f in top)
    return unwritten < MAX_UNWRITTEN or coverage >= MIN_COVERAGE


def named_within(matches: Sequence[UnitHit], floor: float) -> bool:
    """Whether `matches` (a search for the question's other words within an event's days, best first) name them as
    written: the data knows the words (under MAX_UNWRITTEN of their idf weight written nowhere), a match among the
    first ANSWER_TOP holds at least MIN_COVERAGE of it and the best reaches `floor` (the hit floor a search shows a
    weaker hit at). The chance a search is answered at all was fitted on whole questions; here the event's words,
    most of what the question names, are taken out, and what is left reads as a vague query of two or three words
    ("change consumer" of "what did we change in the consumer since the refund incident") even where the event's
    days hold messages that write them."""
    top = [h for h in matches[:ANSWER_TOP] if len(h.features) == len(FEATURES)]
    if not top or max(h.probability for h in top) < floor:
        return False
    return top[0].features[_UNWRITTEN] < MAX_UNWRITTEN and max(h.features[_COVERAGE] for h in top) >= MIN_COVERAGE
