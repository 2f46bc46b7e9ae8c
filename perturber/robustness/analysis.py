"""The statistics of one model's run: paired flips with exact tests, intervals, collapse points.

Pure data in, pure data out (the ``report.json`` of one model); nothing here renders.

* **Paired view.** Every case is compared with the same example's original. Per perturbation:
  ``broken`` (original correct, perturbed wrong), ``repaired`` (the reverse), ``net``, the flip
  rate ``broken / cases whose original was correct`` with its Wilson interval, the accuracy drop
  with a bootstrap interval over examples, and an exact McNemar test. The test counts examples,
  not cases: an example is discordant in the direction of its net flips (with one case per example
  this is McNemar's test on the cases; with several - seeds, ladder levels - it does not treat
  correlated cases as independent). p-values are adjusted across the perturbations with at least
  ``min_n`` cases (Holm by default, or Benjamini-Hochberg).
* **Status.** ``breaks answers`` (adjusted p < alpha, net < 0; the only status with a fix hint),
  ``repairs answers``, ``already failing on the original`` (most failures had a wrong original),
  ``no significant change``, ``n too small``.
* **Families.** The paper's Stability, quadrant and Collapse Point (guarded by ``min_n``), and the
  paired ones: relative Stability ``sum(sim*mag) / sum(orig*mag)`` (1.0 when nothing flips) with
  its quadrant, and a paired Collapse Point: the lowest level whose bootstrap interval of
  ``acc(Lk) / acc(same examples' originals)`` lies below ``tau``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import metrics, stats
from .facts import INPUT_NORMALISATION, PROMPT, entry_facts
from .provenance import provenance, sampling
from .results import FAIL_BELOW, ModelRun, Sums, scoring_of, total

HINTS = {
    INPUT_NORMALISATION: "fix in input normalisation, not in the prompt",
    PROMPT: "fix in the prompt",
}
HINT_DIRECTIONAL = (
    "the answer changes almost every time (the perturbation may change it): move to a directional test"
)
DIRECTIONAL_RATE = 0.9
BREAKS, REPAIRS, ALREADY, NO_CHANGE, TOO_SMALL = (
    "breaks answers",
    "repairs answers",
    "already failing on the original",
    "no significant change",
    "n too small",
)


@dataclass(frozen=True)
class Options:
    """How a report judges: collapse threshold ``tau``, minimum cell size ``min_n``, test level
    ``alpha``, p-value ``correction`` (``holm`` or ``bh``), bootstrap replicates and seed."""

    tau: float = metrics.TAU
    min_n: int = 30
    alpha: float = 0.05
    correction: str = "holm"
    replicates: int = stats.BOOTSTRAP_REPLICATES
    seed: int = stats.BOOTSTRAP_SEED


def _div(a: float, b: float) -> float | None:
    return a / b if b else None


# The ratio-of-sums statistics that get a bootstrap interval: (numerator, denominator) of Sums.
_RATIOS = {
    "ratio": (lambda s: s.sim, lambda s: s.orig),
    "drop": (lambda s: s.orig - s.sim, lambda s: s.n),
    "relative": (lambda s: s.sim_mag, lambda s: s.orig_mag),
    "stability": (lambda s: s.sim_mag, lambda s: s.mag),
}


class _Intervals:
    """Bootstrap intervals of every requested (statistic, cell), over the run's examples."""

    def __init__(self, run: ModelRun, options: Options) -> None:
        self.run, self.options = run, options
        self.requests: list[tuple[str, tuple]] = []
        self.values: dict[tuple[str, tuple], tuple[float, float] | None] = {}

    def want(self, statistic: str, cell: tuple) -> None:
        self.requests.append((statistic, cell))

    def compute(self) -> None:
        examples = sorted(set(self.run.originals) | {e for c in self.run.cells.values() for e in c})
        index = {e: i for i, e in enumerate(examples)}
        num = [[0.0] * len(self.requests) for _ in examples]
        den = [[0.0] * len(self.requests) for _ in examples]
        for k, (statistic, cell) in enumerate(self.requests):
            top, bottom = _RATIOS[statistic]
            for example, sums in self.run.cells[cell].items():
                num[index[example]][k] = top(sums)
                den[index[example]][k] = bottom(sums)
        found = stats.bootstrap_ratios(num, den, replicates=self.options.replicates, seed=self.options.seed)
        self.values = dict(zip(self.requests, found))

    def get(self, statistic: str, cell: tuple) -> list[float] | None:
        value = self.values.get((statistic, cell))
        return list(value) if value else None


def _ci(successes: float, n: float) -> list[float] | None:
    interval = stats.wilson(successes, int(n))
    return list(interval) if interval else None


def example_test(cell: dict[str, Sums]) -> tuple[int, int, float]:
    """(examples with net broken, examples with net repaired, exact McNemar p)."""
    worse = sum(1 for s in cell.values() if s.broken > s.repaired)
    better = sum(1 for s in cell.values() if s.repaired > s.broken)
    return worse, better, stats.mcnemar_exact(worse, better)


def _perturbation(run: ModelRun, key: tuple, cis: _Intervals) -> dict:
    cell = run.cells[key]
    t = total(cell)
    meta = run.meta[key]
    scoring = scoring_of(meta["expectation"])
    row = {
        **meta,
        "scoring": scoring,
        "n": int(t.n),
        "examples_n": len(cell),
        "failures": t.failures,
        "rate": t.failures / t.n,
        "accuracy": t.sim / t.n,
        "ci": _ci(t.sim, t.n),
        "examples": run.examples[key],
    }
    if scoring != "answer":
        return {**row, "broken": None, "repaired": None, "net": None, "churn": None, "hint": None}
    worse, better, p = example_test(cell)
    return {
        **row,
        "original_accuracy": t.orig / t.n,
        "drop": (t.orig - t.sim) / t.n,
        "drop_ci": cis.get("drop", key),
        "broken": t.broken,
        "repaired": t.repaired,
        "net": t.repaired - t.broken,
        "churn": (t.broken + t.repaired) / t.n,
        "original_correct": t.orig_correct,
        "flip_rate": _div(t.broken, t.orig_correct),
        "flip_ci": _ci(t.broken, t.orig_correct),
        "failures_original_wrong": t.failures_orig_wrong,
        "test": {"examples_broken": worse, "examples_repaired": better, "p": p},
    }


def _judge(rows: list[dict], options: Options) -> None:
    """Adjust the p-values of the tested rows, then give every answer row its status and hint."""
    tested = [r for r in rows if r["scoring"] == "answer" and r["n"] >= options.min_n]
    for row, adjusted in zip(tested, stats.adjust([r["test"]["p"] for r in tested], options.correction)):
        row["test"]["p_adjusted"] = adjusted
    for row in rows:
        if row["scoring"] != "answer":
            row["status"] = None
            continue
        row["test"].setdefault("p_adjusted", None)
        row["status"] = _status(row, options)
        row["hint"] = _hint(row) if row["status"] == BREAKS else None


def _status(row: dict, options: Options) -> str:
    if row["n"] < options.min_n:
        return TOO_SMALL
    test = row["test"]
    if test["p_adjusted"] < options.alpha and test["examples_broken"] != test["examples_repaired"]:
        return BREAKS if test["examples_broken"] > test["examples_repaired"] else REPAIRS
    if row["failures"] and 2 * row["failures_original_wrong"] >= row["failures"]:
        return ALREADY
    return NO_CHANGE


def _hint(row: dict) -> str | None:
    fix_at = entry_facts(row["name"], row.get("category", "native")).fix_at
    if fix_at:
        return HINTS[fix_at]
    if (row["flip_rate"] or 0) >= DIRECTIONAL_RATE:
        return HINT_DIRECTIONAL
    return None


def _order(row: dict) -> tuple:
    """Perturbations that significantly break answers first, by broken cases; then the other
    answer-scored ones, by broken cases; then directional, then refusal entries."""
    scoring = {"answer": 0, "directional": 1, "refusal": 2}[row["scoring"]]
    broken = -(row["broken"] or 0)
    return (
        scoring,
        row["status"] != BREAKS,
        broken,
        row.get("test", {}).get("p", 1.0),
        -row["failures"],
        row["name"],
    )


def _level(run: ModelRun, cell: tuple, cis: _Intervals, options: Options, paired: bool) -> dict:
    per_example = run.cells.get(cell, {})
    t = total(per_example)
    row = {
        "level": cell[-1],
        "n": int(t.n),
        "examples_n": len(per_example),
        "accuracy": _div(t.sim, t.n),
        "ci": _ci(t.sim, t.n),
        "magnitude": _div(t.mag, t.n),
        "stability": _div(t.sim_mag, t.mag),
        "too_small": t.n < options.min_n,
    }
    if paired:
        row.update(
            original_accuracy=_div(t.orig, t.n),
            ratio=_div(t.sim, t.orig),
            ratio_ci=cis.get("ratio", cell) if per_example else None,
            drop=_div(t.orig - t.sim, t.n),
            drop_ci=cis.get("drop", cell) if per_example else None,
        )
    return row


def _family(run: ModelRun, key: tuple, cis: _Intervals, options: Options) -> dict:
    _, name, scoring = key
    paired = scoring == "answer"
    t = total(run.cells[key])
    examples = [e for e in run.cells[key] if e in run.originals]
    base = metrics.mean(run.originals[e] for e in examples)
    l0: dict[str, Any] = {"level": 0, "n": len(examples), "examples_n": len(examples), "accuracy": base}
    l0.update(ci=_ci(sum(run.originals[e] for e in examples), len(examples)), magnitude=0.0)
    l0.update(stability=None, too_small=len(examples) < options.min_n)
    levels = [l0] + [_level(run, ("level", name, scoring, k), cis, options, paired) for k in range(1, 6)]
    family = {
        "name": name,
        "scoring": scoring,
        "baseline": base,
        "levels": levels,
        "n": int(t.n),
        "accuracy": t.sim / t.n,
        "magnitude": t.mag / t.n,
        "stability": _div(t.sim_mag, t.mag),
        "stability_ci": cis.get("stability", key) if t.mag else None,
        "too_small": t.n < options.min_n,
    }
    paper = _paper_collapse(levels, options) if paired else None
    family.update(collapse_point=paper, collapse_label=f"L{paper}" if paper else "—")
    family.update(_paired_collapse(levels, options) if paired else _no_paired_collapse(scoring))
    family["collapse_differs"] = paired and paper != family["paired_collapse_point"]
    if paired:
        family.update(relative_stability=_div(t.sim_mag, t.orig_mag), relative_ci=cis.get("relative", key))
    else:
        family.update(relative_stability=None, relative_ci=None)
    return family


def _paper_collapse(levels: list[dict], options: Options) -> int | None:
    """The paper's Collapse Point over the levels with at least ``min_n`` cases."""
    if levels[0]["too_small"]:
        return None
    eligible = {lv["level"]: lv["accuracy"] for lv in levels if not lv["too_small"]}
    return metrics.collapse_point(eligible, options.tau)


def _paired_collapse(levels: list[dict], options: Options) -> dict:
    """The lowest level whose interval of acc(Lk)/acc(same originals) lies below tau."""
    eligible = [lv for lv in levels[1:] if not lv["too_small"]]
    for lv in eligible:
        if lv["ratio_ci"] is not None and lv["ratio_ci"][1] < options.tau:
            k = lv["level"]
            return {"paired_collapse_point": k, "paired_collapse_label": f"L{k}", "paired_note": None}
    note = None
    if not eligible:
        note = f"no level has n >= {options.min_n}"
    elif all(lv["ratio"] is None for lv in eligible):
        note = "already failing on the original"
    else:
        below = next((lv for lv in eligible if lv["ratio"] is not None and lv["ratio"] < options.tau), None)
        if below is not None:
            note = f"L{below['level']} below τ but not significant at n = {below['n']}"
    return {"paired_collapse_point": None, "paired_collapse_label": "—", "paired_note": note}


def _no_paired_collapse(scoring: str) -> dict:
    note = f"{scoring} accuracy only" if scoring != "answer" else None
    return {"paired_collapse_point": None, "paired_collapse_label": "—", "paired_note": note}


def _quadrants(families: list[dict], tau: float) -> float | None:
    """Place the families with enough cases in the paper's and the relative quadrants; returns
    the mean magnitude of those families (the vertical line of both views)."""
    shown = [f for f in families if not f["too_small"] and f["stability"] is not None]
    mean_mag = metrics.mean(f["magnitude"] for f in shown)
    for f in families:
        f["quadrant"] = f["relative_quadrant"] = None
        if mean_mag is None or f not in shown:
            continue
        f["quadrant"] = metrics.quadrant(f["magnitude"], f["stability"], mean_mag, tau)
        if f["relative_stability"] is not None:
            f["relative_quadrant"] = metrics.quadrant(f["magnitude"], f["relative_stability"], mean_mag, tau)
    return mean_mag


def mode_of(run: ModelRun) -> str:
    """``gold`` (every example has a gold answer), ``invariance`` (none: a failure is a changed
    answer) or ``mixed``."""
    if not run.gold["none"]:
        return "gold"
    return "invariance" if not run.gold["gold"] else "mixed"


def analyse(run: ModelRun, options: Options, exported_ids: list[str] | None = None) -> dict:
    """The report data of one model (``exported_ids``: the exported failures the suite was built
    from, from ``cases.summary.json``, to count those not re-tested)."""
    cis = _Intervals(run, options)
    pkeys = sorted(k for k in run.cells if k[0] == "perturbation")
    fkeys = sorted(k for k in run.cells if k[0] == "family")
    for key in pkeys:
        cis.want("drop", key)
    for key in fkeys:
        cis.want("stability", key)
        if key[2] == "answer":
            cis.want("relative", key)
            for k in range(1, 6):
                if ("level", key[1], key[2], k) in run.cells:
                    cis.want("ratio", ("level", key[1], key[2], k))
                    cis.want("drop", ("level", key[1], key[2], k))
    cis.compute()
    perturbations = [_perturbation(run, key, cis) for key in pkeys]
    _judge(perturbations, options)
    perturbations.sort(key=_order)
    families = [_family(run, key, cis, options) for key in fkeys]
    mean_mag = _quadrants(families, options.tau)
    originals = list(run.originals.values())
    return {
        "mode": mode_of(run),
        "baseline_accuracy": metrics.mean(originals),
        "baseline_ci": _ci(sum(originals), len(originals)),
        "baseline_n": len(originals),
        "families": families,
        "perturbations": perturbations,
        "regressions": _regressions(run, exported_ids),
        "errors": run.standing_errors(),
        "errors_superseded": run.superseded,
        "duplicate_results": run.duplicates,
        "mean_magnitude": mean_mag,
        "provenance": provenance(run),
        "sampling": sampling(run, options.replicates, options.seed),
    }


def _regressions(run: ModelRun, exported_ids: list[str] | None) -> dict:
    fixed = sorted(c for c, sim in run.exported.items() if sim >= FAIL_BELOW)
    still = sorted(c for c, sim in run.exported.items() if sim < FAIL_BELOW)
    missing = None if exported_ids is None else sorted(set(exported_ids) - set(run.exported))
    return {
        "exported": len(run.exported) + len(missing or ()),
        "fixed": fixed,
        "still_failing": still,
        "not_retested": missing,
    }
