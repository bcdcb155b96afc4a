"""How sure an answer is, in words a reader takes at face value: a hit's calibrated chance of being what the query
asked about (ranking/calibration.py) read as strong, possible or weak. A ranking score shown as a percentage read as
confidence and was not (a hit shown at 71 % had a chance of 0.40)."""

from __future__ import annotations

from memlens.wire import Confidence

STRONG = 0.5  # more likely relevant than not
POSSIBLE = 0.15  # about one in seven or better: worth a look


def confidence(probability: float) -> Confidence:
    """The word for a calibrated chance of relevance."""
    if probability >= STRONG:
        return "strong"
    if probability >= POSSIBLE:
        return "possible"
    return "weak"
