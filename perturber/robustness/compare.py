"""A regression gate: two runs of the same suite (a baseline and a candidate) paired case by case.

Only the cases both runs answered are compared (``shared``); cases of one run only are counted
and the comparison says so. Per perturbation, per family x level and for the unperturbed
originals: the accuracy of each run, the accuracy drop (baseline - candidate) with a 95 %
bootstrap interval over examples, the change in the broken rate (cases wrong where the same
example's original was right) with its interval, ``regressed`` (right in the baseline, wrong in
the candidate) and ``improved`` cases, and an exact McNemar test on examples (an example is
discordant in the direction of its net change), p-values adjusted across every tested row (Holm
or Benjamini-Hochberg). A row **regresses** when its adjusted p < ``alpha``, more examples got
worse than better, and the drop is at least ``min_effect``.

>>> base = {"c1": ("e1", 1.0, 1.0, 0.1, [("perturbation", "native", "x")])}
>>> cand = {"c1": ("e1", 0.0, 1.0, 0.1, [("perturbation", "native", "x")])}
>>> rows = paired_rows(base, cand, {}, {})
>>> (rows[0]["regressed"], rows[0]["drop"], rows[0]["test"]["p"])
(1, 1.0, 1.0)
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InvalidParams
from ..records import read_records
from . import stats
from .analysis import example_test
from .results import FAIL_BELOW, ModelRun, Sums, load, total

SCHEMA = "perturber.robustness.compare/1"
ORIGINALS = ("originals", "unperturbed")


@dataclass(frozen=True)
class Gate:
    """When a comparison fails: ``alpha`` (after the correction) and the smallest accuracy drop
    that counts (``min_effect``); rows with fewer than ``min_n`` shared cases are not tested."""

    alpha: float = 0.05
    min_effect: float = 0.02
    min_n: int = 30
    correction: str = "holm"
    replicates: int = stats.BOOTSTRAP_REPLICATES
    seed: int = stats.BOOTSTRAP_SEED

    def __post_init__(self) -> None:
        if not 0 < self.alpha < 1:
            raise InvalidParams("--alpha must be in (0, 1)", field="alpha")
        if not 0 <= self.min_effect <= 1:
            raise InvalidParams("--min-effect must be in [0, 1]", field="min_effect")
        if self.min_n < 1:
            raise InvalidParams("--min-n must be >= 1", field="min_n")
        if self.correction not in stats.CORRECTIONS:
            raise InvalidParams("--correction must be holm or bh", field="correction")


def _broken(sim: float, orig: float) -> float:
    return float(orig >= FAIL_BELOW > sim)


def paired_rows(
    base: dict, cand: dict, base_originals: dict[str, float], cand_originals: dict[str, float]
) -> list[dict]:
    """The rows of a comparison, untested: ``base``/``cand`` map case keys to ``ModelRun.kept``
    tuples (example, sim, original sim, magnitude, cells); the originals map example ids to sims."""
    pairs = ModelRun("compare")
    broken: dict[tuple, dict[str, list[float]]] = {}  # cell -> example -> [base broken, cand broken]
    for key in base.keys() & cand.keys():
        example, b_sim, b_orig, mag, cells = base[key]
        _, c_sim, c_orig, _, _ = cand[key]
        pairs.pair(cells, example, c_sim, b_sim, mag)
        for cell in cells:
            counts = broken.setdefault(cell, {}).setdefault(example, [0.0, 0.0])
            counts[0] += _broken(b_sim, b_orig)
            counts[1] += _broken(c_sim, c_orig)
    for example in base_originals.keys() & cand_originals.keys():
        pairs.pair([ORIGINALS], example, cand_originals[example], base_originals[example], 0.0)
    return [_row(cell, pairs.cells[cell], broken.get(cell)) for cell in sorted(pairs.cells, key=_order)]


def _order(cell: tuple) -> tuple:
    return ({"originals": 0, "perturbation": 1, "family": 2, "level": 3}[cell[0]], tuple(map(str, cell)))


def _row(cell: tuple, per_example: dict[str, Sums], broken: dict[str, list[float]] | None) -> dict:
    t = total(per_example)
    worse, better, p = example_test(per_example)
    row = {
        "cell": list(cell),
        "kind": cell[0],
        "name": _name(cell),
        "n": int(t.n),
        "examples_n": len(per_example),
        "baseline_accuracy": t.orig / t.n,
        "candidate_accuracy": t.sim / t.n,
        "drop": (t.orig - t.sim) / t.n,
        "regressed": t.broken,
        "improved": t.repaired,
        "test": {"examples_worse": worse, "examples_better": better, "p": p, "p_adjusted": None},
    }
    if broken is not None:
        row["baseline_broken_rate"] = sum(b for b, _ in broken.values()) / t.n
        row["candidate_broken_rate"] = sum(c for _, c in broken.values()) / t.n
    return row


def _name(cell: tuple) -> str:
    if cell[0] == "originals":
        return "unperturbed originals"
    if cell[0] == "perturbation":
        return cell[2]
    if cell[0] == "family":
        return cell[1] + ("" if cell[2] == "answer" else f" ({cell[2]})")
    return f"{cell[1]} L{cell[3]}" + ("" if cell[2] == "answer" else f" ({cell[2]})")


def _intervals(rows: list[dict], pairs: dict, gate: Gate) -> None:
    """Bootstrap intervals over examples of each row's drop and broken-rate change."""
    examples = sorted({e for cells in pairs.values() for e in cells})
    index = {e: i for i, e in enumerate(examples)}
    k = 2 * len(rows)
    num = [[0.0] * k for _ in examples]
    den = [[0.0] * k for _ in examples]
    for r, row in enumerate(rows):
        for example, (drop, rise, n) in pairs[tuple(row["cell"])].items():
            i = index[example]
            num[i][2 * r], num[i][2 * r + 1] = drop, rise
            den[i][2 * r] = den[i][2 * r + 1] = n
    found = stats.bootstrap_ratios(num, den, replicates=gate.replicates, seed=gate.seed)
    for r, row in enumerate(rows):
        drop, rise = found[2 * r], found[2 * r + 1]
        row["drop_ci"] = list(drop) if drop else None
        if "baseline_broken_rate" in row:
            row["broken_rate_change"] = row["candidate_broken_rate"] - row["baseline_broken_rate"]
            row["broken_rate_change_ci"] = list(rise) if rise else None


def judge(rows: list[dict], gate: Gate) -> None:
    """Adjust the p-values of the rows with at least ``min_n`` cases; mark the regressions."""
    tested = [r for r in rows if r["n"] >= gate.min_n]
    for row, p in zip(tested, stats.adjust([r["test"]["p"] for r in tested], gate.correction)):
        row["test"]["p_adjusted"] = p
    for row in rows:
        p = row["test"]["p_adjusted"]
        worse, better = row["test"]["examples_worse"], row["test"]["examples_better"]
        significant = p is not None and p < gate.alpha and worse != better
        row["status"] = (
            "n too small"
            if p is None
            else "regression"
            if significant and worse > better and row["drop"] >= gate.min_effect
            else "improvement"
            if significant and better > worse and -row["drop"] >= gate.min_effect
            else "no significant change"
        )


def _single(path: str) -> ModelRun:
    runs = load([path], keep=True)
    if len(runs) != 1:
        raise InvalidParams(
            f"{path} holds results of {len(runs)} models ({', '.join(runs)}); compare one model per file",
            field="results",
        )
    return next(iter(runs.values()))


def _suite_ids(cases: str | None) -> set[str] | None:
    if cases is None:
        return None
    return {c["case_id"] for c in read_records(cases) if c.get("gate", "pass") == "pass" and "case_id" in c}


def _run_facts(run: ModelRun) -> dict:
    """What the run headers say (the last run's), for the comparison's provenance."""
    header = run.headers[-1] if run.headers else {}
    return {
        "model": run.name,
        "suite_sha256": sorted({h.get("suite_sha256") for h in run.headers if h.get("suite_sha256")}),
        "catalog_digest": header.get("catalog_digest"),
        "perturber_version": header.get("perturber_version"),
        "model_settings": header.get("model_settings"),
        "samples": header.get("samples"),
        "cases": len(run.kept),
    }


def compare(baseline: str, candidate: str, *, cases: str | None = None, gate: Gate | None = None) -> dict:
    """The comparison data (``compare.json``) of two results files."""
    gate = gate or Gate()
    base, cand = _single(baseline), _single(candidate)
    suite = _suite_ids(cases)
    b_keys, c_keys = set(base.kept), set(cand.kept)
    if suite is not None:
        b_keys, c_keys = b_keys & suite, c_keys & suite
    shared = b_keys & c_keys
    if not shared:
        raise InvalidParams(
            "the two runs share no answered case: are they runs of the same suite?", field="results"
        )
    b_kept = {k: base.kept[k] for k in shared}
    c_kept = {k: cand.kept[k] for k in shared}
    examples = {v[0] for v in b_kept.values()}
    b_orig = {e: s for e, s in base.originals.items() if e in examples}
    c_orig = {e: s for e, s in cand.originals.items() if e in examples}
    rows = paired_rows(b_kept, c_kept, b_orig, c_orig)
    _intervals(rows, _per_example(b_kept, c_kept, b_orig, c_orig), gate)
    judge(rows, gate)
    names = {k[2]: base.meta.get(k, {}) for k in base.meta}
    for row in rows:
        if row["kind"] == "perturbation":
            meta = names.get(row["name"], {})
            row["family"] = meta.get("graded_family") or meta.get("family")
    facts_b, facts_c = _run_facts(base), _run_facts(cand)
    return {
        "schema": SCHEMA,
        "baseline": {**facts_b, "path": baseline},
        "candidate": {**facts_c, "path": candidate},
        "shared": len(shared),
        "only_baseline": len(b_keys - c_keys),
        "only_candidate": len(c_keys - b_keys),
        "suite_restricted": suite is not None,
        "same_suite_file": bool(facts_b["suite_sha256"])
        and facts_b["suite_sha256"] == facts_c["suite_sha256"],
        "same_catalog": facts_b["catalog_digest"] == facts_c["catalog_digest"],
        "gate": {
            "alpha": gate.alpha,
            "min_effect": gate.min_effect,
            "min_n": gate.min_n,
            "correction": gate.correction,
            "bootstrap": {"replicates": gate.replicates, "seed": gate.seed, "unit": "example"},
        },
        "regressions": [r["name"] for r in rows if r["status"] == "regression"],
        "improvements": [r["name"] for r in rows if r["status"] == "improvement"],
        "rows": rows,
    }


def _per_example(b_kept: dict, c_kept: dict, b_orig: dict, c_orig: dict) -> dict:
    """cell -> example -> (accuracy drop sum, broken-rate rise sum, cases), for the bootstrap."""
    out: dict[tuple, dict[str, list[float]]] = {}
    for key, (example, b_sim, b_o, _, cells) in b_kept.items():
        _, c_sim, c_o, _, _ = c_kept[key]
        drop = b_sim - c_sim
        rise = _broken(c_sim, c_o) - _broken(b_sim, b_o)
        for cell in cells:
            acc = out.setdefault(cell, {}).setdefault(example, [0.0, 0.0, 0.0])
            acc[0] += drop
            acc[1] += rise
            acc[2] += 1
    for example in b_orig.keys() & c_orig.keys():
        out.setdefault(ORIGINALS, {})[example] = [b_orig[example] - c_orig[example], 0.0, 1.0]
    return {cell: {e: tuple(v) for e, v in per.items()} for cell, per in out.items()}


def failed(data: dict) -> bool:
    """Did the candidate regress (any row marked ``regression``)?"""
    return bool(data["regressions"])
