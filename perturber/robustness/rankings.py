"""Across models: do perturbations change which model is better?

On the cases every model answered (and the examples whose original every model answered):

* **Reversals.** For every pair of models (A, B), the clean ranking is the order of their
  accuracies on the unperturbed originals. Under a perturbation (or a family x level cell) the
  ranking *reverses* when the other model is strictly more accurate. It is a **significant**
  reversal when an exact McNemar test on examples (an example counts for the model that got more
  of its cases right) says so after Holm's adjustment across the pair's perturbations (cells).
  The share of reversing perturbations (cells) is over those with at least ``min_n`` cases.
* **Kendall's tau-b** between the clean ranking of all models and their ranking under each
  perturbation (ties allowed; None when either ranking is all ties).
* **Two-way decomposition** of each model's accuracy across cases: over the (perturbation,
  example) cells with a case, ``y[p, e]`` = the share of those cases answered correctly, grand
  mean ``m``; ``SS_perturbation = sum over cells (mean_p - m)^2``, ``SS_example = sum over cells
  (mean_e - m)^2``, ``SS_total = sum over cells (y - m)^2``; the shares ``SS_perturbation /
  SS_total`` and ``SS_example / SS_total``, and the remainder (interaction; with missing cells it
  also absorbs the imbalance). With every cell present this is the two-way analysis of variance
  without replication.

>>> kendall_tau_b([0.9, 0.8, 0.7], [0.5, 0.6, 0.4])         # one of three pairs swapped
0.333333
>>> decompose({("p1", "e1"): 1.0, ("p1", "e2"): 1.0, ("p2", "e1"): 0.0, ("p2", "e2"): 0.0})
{'cells': 4, 'perturbation': 1.0, 'example': 0.0, 'remainder': 0.0}
"""

from __future__ import annotations

import math
from itertools import combinations

from . import stats
from .results import FAIL_BELOW, ModelRun


def kendall_tau_b(x: list[float], y: list[float]) -> float | None:
    """Kendall's tau-b of two score lists (ties in either list allowed), rounded to 6 places."""
    concordant = discordant = ties_x = ties_y = 0
    for i, j in combinations(range(len(x)), 2):
        dx, dy = x[i] - x[j], y[i] - y[j]
        if dx == 0 and dy == 0:
            continue
        if dx == 0:
            ties_x += 1
        elif dy == 0:
            ties_y += 1
        elif (dx > 0) == (dy > 0):
            concordant += 1
        else:
            discordant += 1
    denominator = math.sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y))
    return None if denominator == 0 else round((concordant - discordant) / denominator, 6)


def decompose(cells: dict[tuple[str, str], float]) -> dict:
    """Shares of the variance of ``cells`` ((perturbation, example) -> accuracy) explained by the
    perturbation, by the example, and the remainder (see the module docstring)."""
    n = len(cells)
    if n == 0:
        return {"cells": 0, "perturbation": None, "example": None, "remainder": None}
    grand = sum(cells.values()) / n
    by_p: dict[str, list[float]] = {}
    by_e: dict[str, list[float]] = {}
    for (p, e), y in cells.items():
        by_p.setdefault(p, []).append(y)
        by_e.setdefault(e, []).append(y)
    mean_p = {p: sum(v) / len(v) for p, v in by_p.items()}
    mean_e = {e: sum(v) / len(v) for e, v in by_e.items()}
    ss_total = sum((y - grand) ** 2 for y in cells.values())
    if ss_total == 0:
        return {"cells": n, "perturbation": None, "example": None, "remainder": None}
    ss_p = sum((mean_p[p] - grand) ** 2 for p, _ in cells)
    ss_e = sum((mean_e[e] - grand) ** 2 for _, e in cells)
    share_p, share_e = round(ss_p / ss_total, 6), round(ss_e / ss_total, 6)
    return {
        "cells": n,
        "perturbation": share_p,
        "example": share_e,
        "remainder": round(1 - share_p - share_e, 6),
    }


def _correct(sim: float) -> int:
    return int(sim >= FAIL_BELOW)


def _scores(runs: dict[str, ModelRun]) -> tuple[dict, dict, dict]:
    """(model -> example -> clean correctness, cell -> model -> example -> [right, n],
    model -> (perturbation, example) -> [right, n]) over what every model answered."""
    names = list(runs)
    examples = set.intersection(*(set(r.originals) for r in runs.values()))
    clean = {m: {e: _correct(runs[m].originals[e]) for e in examples} for m in names}
    shared = set.intersection(*(set(r.kept) for r in runs.values()))
    cells: dict[tuple, dict[str, dict[str, list[int]]]] = {}
    grid: dict[str, dict[tuple[str, str], list[int]]] = {m: {} for m in names}
    for key in shared:
        for m in names:
            example, sim, _, _, keys = runs[m].kept[key]
            if keys[1][2] != "answer":  # refusal and directional cases are not ranked
                break
            right = _correct(sim)
            for cell in (keys[0], *keys[2:]):
                counts = cells.setdefault(cell, {}).setdefault(m, {}).setdefault(example, [0, 0])
                counts[0] += right
                counts[1] += 1
            counts = grid[m].setdefault((keys[0][2], example), [0, 0])
            counts[0] += right
            counts[1] += 1
    return clean, cells, grid


def _accuracy(per_example: dict[str, list[int]]) -> float:
    return sum(r for r, _ in per_example.values()) / sum(n for _, n in per_example.values())


def _pair_test(a: dict[str, list[int]], b: dict[str, list[int]]) -> tuple[int, int, float]:
    """(examples where A got more right, where B did, exact McNemar p)."""
    a_better = sum(1 for e in a if a[e][0] > b[e][0])
    b_better = sum(1 for e in a if b[e][0] > a[e][0])
    return a_better, b_better, stats.mcnemar_exact(a_better, b_better)


def _cell_name(cell: tuple) -> str:
    return cell[2] if cell[0] == "perturbation" else f"{cell[1]} L{cell[3]}"


def _pair(a: str, b: str, clean: dict, cells: dict, kind: str, min_n: int, alpha: float) -> dict:
    """Reversals of the pair (a, b) over the cells of one kind (perturbation or level)."""
    clean_a = sum(clean[a].values()) / len(clean[a])
    clean_b = sum(clean[b].values()) / len(clean[b])
    sign = (clean_a > clean_b) - (clean_a < clean_b)
    rows = []
    for cell, per_model in sorted(cells.items(), key=lambda kv: tuple(map(str, kv[0]))):
        if cell[0] != kind or sum(n for _, n in per_model[a].values()) < min_n:
            continue
        acc_a, acc_b = _accuracy(per_model[a]), _accuracy(per_model[b])
        a_better, b_better, p = _pair_test(per_model[a], per_model[b])
        now = (acc_a > acc_b) - (acc_a < acc_b)
        rows.append({"name": _cell_name(cell), "a": acc_a, "b": acc_b, "reversed": sign != 0 and now == -sign,
                     "a_better": a_better, "b_better": b_better, "p": p})  # fmt: skip
    for row, adjusted in zip(rows, stats.holm([r["p"] for r in rows])):
        direction = (row["a_better"] > row["b_better"]) - (row["a_better"] < row["b_better"])
        row["p_adjusted"] = adjusted
        row["significant"] = row["reversed"] and adjusted < alpha and direction == -sign
    reversed_rows = [r for r in rows if r["reversed"]]
    return {
        "compared": len(rows),
        "reversed": len(reversed_rows),
        "share": len(reversed_rows) / len(rows) if rows else None,
        "significant": sum(r["significant"] for r in rows),
        "reversals": sorted(reversed_rows, key=lambda r: r["p_adjusted"]),
    }


def across_models(runs: dict[str, ModelRun], min_n: int = 30, alpha: float = 0.05) -> dict | None:
    """The across-models section of ``report.json``: None for a single model, or for runs not
    loaded with ``keep=True`` (``report`` keeps the cases when it reads several files)."""
    if len(runs) < 2 or not all(r.kept for r in runs.values()):
        return None
    names = list(runs)
    clean, cells, grid = _scores(runs)
    if not next(iter(clean.values())):
        return None
    clean_acc = {m: sum(v.values()) / len(v) for m, v in clean.items()}
    pairs = []
    for a, b in combinations(names, 2):
        a_better = sum(1 for e in clean[a] if clean[a][e] > clean[b][e])
        b_better = sum(1 for e in clean[a] if clean[b][e] > clean[a][e])
        pairs.append({
            "a": a, "b": b, "clean_a": clean_acc[a], "clean_b": clean_acc[b],
            "clean_p": stats.mcnemar_exact(a_better, b_better),
            "perturbations": _pair(a, b, clean, cells, "perturbation", min_n, alpha),
            "levels": _pair(a, b, clean, cells, "level", min_n, alpha),
        })  # fmt: skip
    taus = []
    for cell, per_model in sorted(cells.items(), key=lambda kv: tuple(map(str, kv[0]))):
        if cell[0] != "perturbation" or sum(n for _, n in per_model[names[0]].values()) < min_n:
            continue
        perturbed = {m: _accuracy(per_model[m]) for m in names}
        taus.append({
            "name": cell[2],
            "tau": kendall_tau_b([clean_acc[m] for m in names], [perturbed[m] for m in names]),
            "ranking": sorted(names, key=lambda m: -perturbed[m]),
            "accuracy": perturbed,
        })  # fmt: skip
    return {
        "models": names,
        "clean_accuracy": clean_acc,
        "clean_ranking": sorted(names, key=lambda m: -clean_acc[m]),
        "examples": len(clean[names[0]]),
        "pairs": pairs,
        "kendall_tau": taus,
        "decomposition": {m: decompose({k: r / n for k, (r, n) in grid[m].items()}) for m in names},
        "family_accuracy": _family_accuracy(cells, names),
    }


def _family_accuracy(cells: dict, names: list[str]) -> dict[str, dict[str, float]]:
    """Per family (over its levels' shared cases): each model's accuracy, for the plot."""
    out: dict[str, dict[str, list[int]]] = {}
    for cell, per_model in cells.items():
        if cell[0] != "level":
            continue
        for m in names:
            acc = out.setdefault(cell[1], {}).setdefault(m, [0, 0])
            acc[0] += sum(r for r, _ in per_model[m].values())
            acc[1] += sum(n for _, n in per_model[m].values())
    return {f: {m: r / n for m, (r, n) in per.items()} for f, per in sorted(out.items())}
