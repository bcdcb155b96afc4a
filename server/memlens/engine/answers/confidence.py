"""How sure an answer is, in words a reader takes at face value: a hit's calibrated chance of being what the query
asked about (ranking/calibration.py) read as strong, possible or weak. A ranking score shown as a percentage read as
confidence and was not (a hit shown at 71 % had a chance of 0.40).

A list's words follow its order (`in_rank_order`): each hit's chance is its own model's, from features beside the rank
(its coverage of the query, its cosine), so two hits of nearly the same score could read "strong, weak, possible" down
a list, and a reader takes the list for broken. The words are read from the closest chances that never rise down the
list (least squares, pool-adjacent-violators: a run the order disagrees with shares its mean), so a word says what
the ranking and the calibration agree on. Which hits are shown is decided on each hit's own chance, before."""

from __future__ import annotations

from memlens.wire import Confidence

STRONG = 0.5  # more likely relevant than not
POSSIBLE = 0.15  # about one in seven or better: worth a look


def in_rank_order(probabilities: list[float]) -> list[Confidence]:
    """The words of a ranked list's chances, best first, made never to rise down the list (see the module)."""
    runs: list[tuple[float, int]] = []  # (sum, count) of each run of pooled chances
    for chance in probabilities:
        total, count = chance, 1
        while runs and runs[-1][0] / runs[-1][1] < total / count:  # rises: pool it with the run above
            above_total, above_count = runs.pop()
            total, count = total + above_total, count + above_count
        runs.append((total, count))
    return [confidence(total / count) for total, count in runs for _ in range(count)]


def confidence(probability: float) -> Confidence:
    """The word for a calibrated chance of relevance."""
    if probability >= STRONG:
        return "strong"
    if probability >= POSSIBLE:
        return "possible"
    return "weak"
