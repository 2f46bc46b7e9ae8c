"""The statistics of a report, small and exact: Wilson intervals, the exact McNemar test, Holm and
Benjamini-Hochberg adjustment, and a bootstrap over examples.

>>> [round(x, 4) for x in wilson(81, 263)]          # Newcombe (1998), Table I, example (a)
[0.2553, 0.3662]
>>> mcnemar_exact(broken=8, repaired=1)             # 2 * P(X <= 1), X ~ Binomial(9, 1/2)
0.0390625
>>> holm([0.01, 0.04, 0.03])
[0.03, 0.06, 0.06]
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

Z95 = 1.959963984540054  # the 0.975 quantile of the standard normal distribution
BOOTSTRAP_SEED = 20240601
BOOTSTRAP_REPLICATES = 2000
_CHUNK = 250  # replicates per block of the bootstrap (bounded memory)


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of ``successes / n`` (None when n = 0). ``successes`` may be a
    sum of scores in [0, 1] (a refusal rubric), then it is the interval of their mean.

    >>> [round(x, 4) for x in wilson(0, 20)], [round(x, 4) for x in wilson(1, 29)]
    ([0.0, 0.1611], [0.0061, 0.1718])
    """
    if n <= 0:
        return None
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    return low, 1.0 if successes >= n else min(1.0, centre + half)


def mcnemar_exact(broken: int, repaired: int) -> float:
    """Two-sided exact McNemar p-value of the discordant counts: ``2 * P(X <= min(b, c))`` with
    ``X ~ Binomial(b + c, 1/2)``, capped at 1 (1 when there is no discordant pair).

    >>> mcnemar_exact(0, 0), mcnemar_exact(5, 5), mcnemar_exact(6, 0)
    (1.0, 1.0, 0.03125)
    """
    n = broken + repaired
    if n == 0:
        return 1.0
    k = min(broken, repaired)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment (controls the family-wise error rate), in input order."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def benjamini_hochberg(pvalues: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg step-up adjustment (controls the false discovery rate), in input order.

    >>> benjamini_hochberg([0.01, 0.04, 0.03])
    [0.03, 0.04, 0.04]
    """
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i], reverse=True)
    adjusted = [0.0] * m
    running = 1.0
    for rank, i in enumerate(order):
        running = min(running, pvalues[i] * m / (m - rank))
        adjusted[i] = running
    return adjusted


CORRECTIONS = {"holm": holm, "bh": benjamini_hochberg}


def adjust(pvalues: Sequence[float], method: str) -> list[float]:
    """``pvalues`` adjusted by ``holm`` or ``bh``."""
    return CORRECTIONS[method](pvalues)


def bootstrap_ratios(
    numerators: Sequence[Sequence[float]],
    denominators: Sequence[Sequence[float]],
    *,
    replicates: int = BOOTSTRAP_REPLICATES,
    seed: int = BOOTSTRAP_SEED,
    level: float = 0.95,
) -> list[tuple[float, float] | None]:
    """Percentile intervals of K ratios of sums, resampling **examples** with replacement.

    ``numerators[i][k]`` and ``denominators[i][k]`` are example i's contributions to statistic k,
    which is ``sum_i num[i][k] / sum_i den[i][k]``; every statistic of a report (an accuracy, a
    Stability, an accuracy ratio or drop) has that form. All statistics share the same resamples,
    drawn with Python's ``random.Random(seed)`` (the same in every process). A statistic whose
    denominator is 0 in a resample skips that resample; None when fewer than half remain.

    >>> bootstrap_ratios([[1, 1], [0, 1], [1, 1]], [[1, 1], [1, 1], [1, 1]], replicates=200)
    [(0.333333333333, 1.0), (1.0, 1.0)]
    """
    import numpy as np

    num = np.asarray(numerators, dtype=float)
    den = np.asarray(denominators, dtype=float)
    n = num.shape[0]
    if n == 0:
        return [None] * (num.shape[1] if num.ndim == 2 else 0)
    rng = random.Random(seed)
    blocks = []
    for first in range(0, replicates, _CHUNK):
        size = min(_CHUNK, replicates - first)
        picks = np.asarray(rng.choices(range(n), k=size * n), dtype=np.int64)
        rows = np.repeat(np.arange(size), n)
        counts = np.bincount(rows * n + picks, minlength=size * n).reshape(size, n).astype(float)
        top, bottom = counts @ num, counts @ den
        with np.errstate(invalid="ignore", divide="ignore"):
            blocks.append(np.where(bottom > 0, top / np.where(bottom > 0, bottom, 1), np.nan))
    ratios = np.vstack(blocks)
    tail = (1 - level) / 2 * 100
    out: list[tuple[float, float] | None] = []
    for k in range(ratios.shape[1]):
        column = ratios[:, k][~np.isnan(ratios[:, k])]
        if len(column) < replicates / 2:
            out.append(None)
            continue
        lo, hi = np.percentile(column, [tail, 100 - tail])
        out.append((round(float(lo), 12), round(float(hi), 12)))
    return out
