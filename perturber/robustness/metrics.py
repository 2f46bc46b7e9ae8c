"""The graded-severity metrics over sets of scored cases.

Per case: correctness ``sim`` in [0, 1] and magnitude ``score``. Over a set S:
``Accuracy = mean(sim)``, ``Magnitude = mean(score)``, ``Stability = sum(sim*score) / sum(score)``.
The Collapse Point of a family is the lowest level k in L1..L5 with ``acc(Lk) < tau * acc(L0)``
(L0: the unperturbed baseline), None ("—") when that never happens; empty levels are skipped.

>>> stability([1, 0, 1], [0.1, 0.3, 0.2])
0.5
>>> collapse_point({0: 1.0, 1: 0.9, 2: 0.8, 3: 0.5}, tau=0.8)   # 0.8 is not < 0.8
3
"""

from __future__ import annotations

from dataclasses import dataclass, field

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


@dataclass
class Bucket:
    """Running sums for one set of cases (streaming: O(1) memory)."""

    n: int = 0
    sim: float = 0.0
    score: float = 0.0
    weighted: float = 0.0

    def add(self, sim: float, score: float | None) -> None:
        score = score or 0.0
        self.n += 1
        self.sim += sim
        self.score += score
        self.weighted += sim * score

    def to_dict(self) -> dict:
        return {
            "n": self.n,
            "accuracy": self.sim / self.n if self.n else None,
            "magnitude": self.score / self.n if self.n else None,
            "stability": self.weighted / self.score if self.score > 0 else None,
        }


@dataclass
class Flips:
    """Per perturbation: broken (correct -> wrong), repaired (wrong -> correct) relative to the
    original; ``net = repaired - broken``; ``churn = (broken + repaired) / n``.

    >>> f = Flips(); [f.add(o, p) for o, p in [(1, 0), (1, 0), (0, 1), (0, 1), (1, 1)]] and None
    >>> (f.broken, f.repaired, f.net, f.churn)
    (2, 2, 0, 0.8)
    """

    n: int = 0
    broken: int = 0
    repaired: int = 0
    failures: int = 0
    examples: list = field(default_factory=list)

    def add(self, original_correct: float, correct: float) -> None:
        self.n += 1
        was, now = original_correct >= 0.5, correct >= 0.5
        self.broken += was and not now
        self.repaired += now and not was
        self.failures += not now

    @property
    def net(self) -> int:
        return self.repaired - self.broken

    @property
    def churn(self) -> float:
        return (self.broken + self.repaired) / self.n if self.n else 0.0
