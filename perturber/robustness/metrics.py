"""The graded-severity metrics of the paper, over sets of scored cases.

Per case: correctness ``sim`` in [0, 1] and magnitude ``score``. Over a set S:
``Accuracy = mean(sim)``, ``Magnitude = mean(score)``, ``Stability = sum(sim*score) / sum(score)``.
The Collapse Point of a family is the lowest level k in L1..L5 with ``acc(Lk) < tau * acc(L0)``
(L0: the unperturbed baseline), None ("—") when that never happens; empty levels are skipped.
A family's quadrant places it by its magnitude (against the mean over families) and Stability
(against ``tau``).

>>> stability([1, 0, 1], [0.1, 0.3, 0.2])
0.5
>>> collapse_point({0: 1.0, 1: 0.9, 2: 0.8, 3: 0.5}, tau=0.8)   # 0.8 is not < 0.8
3
"""

from __future__ import annotations

TAU = 0.80
_EPS = 1e-12


def mean(values) -> float | None:
    values = list(values)
    return sum(values) / len(values) if values else None


def stability(sims, scores) -> float | None:
    """Magnitude-weighted accuracy; None when every weight is 0 (or the set is empty)."""
    total = sum(scores)
    if total <= 0:
        return None
    return sum(s * w for s, w in zip(sims, scores)) / total


def collapse_point(accuracy_by_level: dict[int, float | None], tau: float = TAU) -> int | None:
    """Lowest level k >= 1 with ``acc(k) < tau * acc(0)``; None when it never collapses or the
    baseline is missing (a baseline of 0 never collapses: nothing is below 0)."""
    base = accuracy_by_level.get(0)
    if base is None:
        return None
    threshold = tau * base
    for k in sorted(k for k in accuracy_by_level if k >= 1):
        acc = accuracy_by_level[k]
        if acc is not None and acc < threshold - _EPS:
            return k
    return None


def quadrant(magnitude: float, stability: float, mean_magnitude: float, threshold: float) -> str:
    """``robust`` (strong perturbations, stable), ``stable`` (weak, stable), ``unstable``
    (strong, unstable), ``failure`` (breaks even under weak perturbations).

    >>> quadrant(0.4, 0.9, 0.2, 0.8), quadrant(0.1, 0.5, 0.2, 0.8)
    ('robust', 'failure')
    """
    high_mag = magnitude > mean_magnitude
    if stability >= threshold:
        return "robust" if high_mag else "stable"
    return "unstable" if high_mag else "failure"
