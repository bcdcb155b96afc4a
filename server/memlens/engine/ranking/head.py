"""The head of a ranking while it is re-scored: its hits, what the passes read about each, and what they record.
Both the hand-set passes (rescoring.py) and the learned ranker (learned_order.py) work on it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from memlens.engine.ranking.hits import UnitHit
    from memlens.engine.ranking.query_facts import QueryFacts
    from memlens.engine.ranking.unit_facts import UnitFacts


@dataclass(slots=True)
class Head:
    """The hits re-scored, with what the passes read and record about them."""

    hits: list[UnitHit]
    units: dict[int, UnitFacts]  # each hit's unit (unit_facts.py)
    facts: QueryFacts
    covers: dict[int, float] = field(default_factory=dict)  # idf-weighted share of the query's words each hit holds
    matched: dict[int, float] = field(default_factory=dict)  # unweighted share of them
    # the score without the question penalty and the ordering-only boosts (`lift`): they order the hits; the
    # calibrated chance was fitted without them
    unasked: dict[int, float] = field(default_factory=dict)
    neighbours: dict[int, float] = field(default_factory=dict)  # what the neighbouring messages added to each score
    dated: set[int] = field(default_factory=set)  # the hits the date boost lifted
    # the chance that anything here answers the query (calibration.answerable), a factor of every hit's probability
    answerable: float = 1.0
    # the learned ranker's features of the hits as the hand-set passes left them (ranker_features.py), and each hit's
    # row in it: the passes after them drop and move hits, the model reads the rows of those kept, in their order
    ranker_rows: npt.NDArray[np.float64] | None = None
    ranker_row_of: dict[int, int] = field(default_factory=dict)
