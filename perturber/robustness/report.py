"""Read results (one file per model) and write report.json, report.md, report.html and the plots.

``report.json`` (``"schema": "perturber.robustness.report/2"``) keeps every field of ``/1`` with
its meaning (``collapse_point`` is the paper's, now over cells with at least ``min_n`` cases;
``perturbations`` are ordered by broken cases; ``hint`` only where answers break significantly;
``errors`` counts only errors no later result superseded; ``broken``/``repaired``/``net``/
``churn`` are null for refusal and directional entries, which are not paired) and adds::

    {"min_n", "alpha", "correction": "holm" | "bh", "bootstrap": {"replicates", "seed", "unit"},
     "suite": {"rejection", "flagged", ...} | null,           # cases.summary.json, with --cases
     "mode": "gold" | "invariance" | "mixed", "baseline_ci", "baseline_n",
     "errors_superseded", "duplicate_results",
     "families": [{"scoring", "n", "accuracy", "too_small", "stability_ci",
                   "paired_collapse_point", "paired_collapse_label", "paired_note",
                   "collapse_differs", "relative_stability", "relative_ci", "relative_quadrant",
                   "levels": [{"examples_n", "ci", "too_small", "original_accuracy", "ratio",
                               "ratio_ci", "drop", "drop_ci"}]}],
     "perturbations": [{"scoring", "examples_n", "accuracy", "ci", "original_accuracy", "drop",
                        "drop_ci", "flip_rate", "flip_ci", "failures_original_wrong", "status",
                        "test": {"examples_broken", "examples_repaired", "p", "p_adjusted"}}],
     "regressions": {"not_retested": [case_id] | null}}

Intervals are ``[low, high]`` (95 %). The top-level model fields are those of the first model;
``by_model`` holds every model. A case fails when its ``sim`` < 0.5.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from ..errors import InvalidParams
from ..records import AtomicJsonl, read_records
from . import document, rankings, render
from .analysis import Options, analyse
from .results import FAIL_BELOW, load
from .suite import summary_path

SCHEMA = "perturber.robustness.report/2"


def read_suite_summary(cases_path: str | None) -> dict | None:
    """``cases.summary.json`` of a suite (None without ``cases_path``)."""
    if cases_path is None:
        return None
    path = summary_path(cases_path)
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError) as err:
        raise InvalidParams(f"cannot read the suite summary {path}: {err}", field="cases") from None


def aggregate(paths: Iterable[str], options: Options | None = None, suite: dict | None = None) -> dict:
    """The report data of one or more results files (and the suite's summary, when given)."""
    options = options or Options()
    if not 0 < options.tau <= 1:
        raise InvalidParams("--tau must be in (0, 1]", field="tau")
    if options.min_n < 1:
        raise InvalidParams("--min-n must be >= 1", field="min_n")
    if options.correction not in ("holm", "bh"):
        raise InvalidParams("--correction must be holm or bh", field="correction")
    exported = suite.get("exported_case_ids") if suite else None
    paths = list(paths)
    runs = load(paths, keep=len(paths) > 1)  # the cases are kept to compare models, one per file
    by_model = {name: analyse(run, options, exported) for name, run in runs.items()}
    first = next(iter(by_model.values()))
    return {
        "schema": SCHEMA,
        "tau": options.tau,
        "min_n": options.min_n,
        "alpha": options.alpha,
        "correction": options.correction,
        "bootstrap": {"replicates": options.replicates, "seed": options.seed, "unit": "example"},
        "suite": suite,
        "models": list(by_model),
        **first,
        "by_model": by_model,
        "across_models": rankings.across_models(runs, options.min_n, options.alpha),
    }


def plot_images(data: dict) -> dict[str, bytes]:
    """The report's PNG plots, from its data: only cells with at least ``min_n`` cases."""
    from . import plots

    families = [f for f in data["families"] if f["scoring"] == "answer"]
    series = {
        f["name"]: [
            (lv["level"], lv["accuracy"], *lv["ci"]) for lv in f["levels"] if not lv["too_small"] and lv["ci"]
        ]
        for f in families
    }
    title = f"Accuracy by level ({data['models'][0]}; cells with n < {data['min_n']} left out)"
    images = {"degradation": plots.degradation_png({k: v for k, v in series.items() if v}, title)}
    shown = [f for f in families if f["quadrant"]]
    mean_mag = data["mean_magnitude"] or 0.0
    images["quadrant"] = plots.quadrant_png(
        {f["name"]: (f["magnitude"], f["stability"]) for f in shown},
        data["tau"],
        mean_mag,
        "Magnitude - Stability quadrants (paper)",
    )
    images["quadrant_relative"] = plots.quadrant_png(
        {f["name"]: (f["magnitude"], f["relative_stability"]) for f in shown if f["relative_quadrant"]},
        data["tau"],
        mean_mag,
        "Magnitude - relative Stability quadrants",
        "relative Stability (1.0: nothing flips)",
    )
    across = data.get("across_models")
    if across:
        images["rankings"] = plots.rankings_png(
            across["clean_accuracy"], across["family_accuracy"], "Accuracy by family, per model"
        )
    return images


def write_report(
    paths: list[str],
    out_dir: str,
    *,
    options: Options | None = None,
    cases: str | None = None,
    plots_enabled: bool = True,
) -> dict:
    """Write report.json, report.md, report.html and the PNG plots into ``out_dir``; ``cases``:
    the suite's cases file, whose summary adds the gates' rejection rates and "not re-tested"."""
    data = aggregate(paths, options, read_suite_summary(cases))
    try:
        os.makedirs(out_dir, exist_ok=True)
        images = plot_images(data) if plots_enabled else {}
        for name, png in images.items():
            Path(out_dir, f"{name}.png").write_bytes(png)
        doc = document.build(data, list(images))
        Path(out_dir, "report.json").write_text(
            json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        Path(out_dir, "report.md").write_text(render.markdown(doc), encoding="utf-8")
        Path(out_dir, "report.html").write_text(render.to_html(doc, images), encoding="utf-8")
    except OSError as err:
        raise InvalidParams(f"cannot write the report to {out_dir}: {err}", field="output") from None
    return data


def _exportable(r: dict, only: str) -> bool:
    if r.get("kind") != "case" or "error" in r or r.get("sim", 1.0) >= FAIL_BELOW:
        return False
    return only == "failing" or r.get("original_sim", 1.0) >= FAIL_BELOW


def export_failures(
    paths: list[str],
    out_path: str,
    *,
    perturbation: str | None = None,
    family: str | None = None,
    level: int | None = None,
    only: str = "failing",
) -> int:
    """Write failing cases in ``suite``'s input format: the example's own fields, the perturbed
    text as the input, the gold answer, and ``provenance``. ``only="broken"`` keeps the cases whose
    original was answered correctly. Returns how many were written."""
    if only not in ("failing", "broken"):
        raise InvalidParams("--only must be failing or broken", field="only")
    seen: set[str] = set()
    with AtomicJsonl(out_path) as out:
        for path in paths:
            for r in read_records(path):
                if not _exportable(r, only) or r["case_id"] in seen:
                    continue
                if perturbation and r["name"] != perturbation:
                    continue
                if family and family not in (r.get("family"), r.get("graded_family")):
                    continue
                if level is not None and r.get("level") != level:
                    continue
                seen.add(r["case_id"])
                out.write(_as_example(r))
    return out.count


def _as_example(r: dict) -> dict:
    record = dict(r.get("example") or {})
    record[r.get("input_field") or "input"] = r["perturbed"]
    if r.get("id_field"):
        record[r["id_field"]] = f"{r['example_id']}~{r['case_id'][:8]}"
    if r.get("answer_field") and r.get("answer") is not None:
        record[r["answer_field"]] = r["answer"]
    record["provenance"] = {
        "case_id": r["case_id"],
        "example_id": r["example_id"],
        "category": r.get("category"),
        "name": r["name"],
        "version": r.get("version"),
        "params": r.get("params"),
        "seed": r.get("seed"),
        "catalog_digest": r.get("catalog_digest"),
        "level": r.get("level"),
        "model": r.get("model"),
    }
    return record
