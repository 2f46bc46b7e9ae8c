"""The report's statistics against known values: Wilson, exact McNemar, Holm, BH, the bootstrap."""

import json
import math
import subprocess
import sys

import pytest

from perturber.robustness import stats

pytest.importorskip("numpy")


@pytest.mark.parametrize(
    "k, n, low, high",
    [
        # Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I,
        # method 3 (score interval without continuity correction).
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0000, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_matches_newcombe(k, n, low, high):
    lo, hi = stats.wilson(k, n)
    assert (round(lo, 4), round(hi, 4)) == (low, high)


def test_wilson_edges():
    assert stats.wilson(0, 0) is None
    lo, hi = stats.wilson(10, 10)
    assert hi == 1.0 and lo == pytest.approx(10 / (10 + stats.Z95**2))  # closed form at p = 1


@pytest.mark.parametrize(
    "b, c, expected",
    [
        (0, 0, 1.0),
        (10, 0, 2 / 2**10),  # every discordant pair one way
        (8, 1, 2 * (1 + 9) / 2**9),  # 2 * P(X <= 1), X ~ Bin(9, 1/2) = 20/512
        (1, 8, 2 * (1 + 9) / 2**9),  # symmetric
        (3, 3, 1.0),  # capped
        (12, 5, 2 * sum(math.comb(17, i) for i in range(6)) / 2**17),
    ],
)
def test_exact_mcnemar_by_hand(b, c, expected):
    assert stats.mcnemar_exact(b, c) == pytest.approx(expected, abs=1e-15)


def test_holm_and_bh_by_hand():
    p = [0.001953125, 0.0390625, 1.0]
    # Holm: sorted p times (m - rank), then a running maximum
    assert stats.holm(p) == [0.005859375, 0.078125, 1.0]
    # BH: sorted descending, p * m / rank, then a running minimum
    assert stats.benjamini_hochberg(p) == pytest.approx([0.005859375, 0.05859375, 1.0])
    assert stats.holm([]) == [] and stats.adjust([0.5], "bh") == [0.5]


def test_bootstrap_over_examples_has_the_right_shape():
    # ten examples, each one case: 7 right. The interval holds 0.7 and lies in [0, 1].
    num = [[1.0]] * 7 + [[0.0]] * 3
    den = [[1.0]] * 10
    [(lo, hi)] = stats.bootstrap_ratios(num, den, replicates=500)
    assert 0.2 < lo < 0.7 < hi <= 1.0
    # a statistic whose denominator is 0 in every resample has no interval
    assert stats.bootstrap_ratios([[0.0]] * 3, [[0.0]] * 3, replicates=200) == [None]
    # all examples alike: the interval collapses on the value
    assert stats.bootstrap_ratios([[2.0]] * 5, [[4.0]] * 5, replicates=200) == [(0.5, 0.5)]


def test_bootstrap_resamples_examples_not_cases():
    # one example carries 9 failing cases, nine examples carry one right case each. Resampling
    # cases would give a narrow interval around 0.5; resampling examples must be much wider.
    num = [[0.0]] + [[1.0]] * 9
    den = [[9.0]] + [[1.0]] * 9
    [(lo, hi)] = stats.bootstrap_ratios(num, den, replicates=2000)
    assert lo <= 0.35 and hi == 1.0


def test_bootstrap_is_the_same_in_another_process():
    num = [[float(i % 3 == 0), float(i % 5)] for i in range(40)]
    den = [[1.0, 4.0] for _ in range(40)]
    here = stats.bootstrap_ratios(num, den, replicates=300, seed=11)
    code = (
        "import json, sys\nfrom perturber.robustness import stats\n"
        "num, den = json.load(sys.stdin)\n"
        "print(json.dumps(stats.bootstrap_ratios(num, den, replicates=300, seed=11)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], input=json.dumps([num, den]), capture_output=True, text=True, check=True
    )
    assert [tuple(x) for x in json.loads(out.stdout)] == here
    assert stats.bootstrap_ratios(num, den, replicates=300, seed=12) != here
