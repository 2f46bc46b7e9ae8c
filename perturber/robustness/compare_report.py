"""A comparison as a document (``compare.md``, ``compare.html``) and as the short Markdown summary
a CI job shows (``$GITHUB_STEP_SUMMARY``).

>>> data = {"baseline": {"model": "a", "path": "a.jsonl"}, "candidate": {"model": "b", "path": "b.jsonl"},
...         "shared": 40, "only_baseline": 0, "only_candidate": 0, "regressions": ["zero_width"],
...         "improvements": [], "gate": {"alpha": 0.05, "min_effect": 0.02, "correction": "holm"},
...         "rows": [{"kind": "perturbation", "name": "zero_width", "n": 40, "baseline_accuracy": 0.9,
...                   "candidate_accuracy": 0.5, "drop": 0.4, "drop_ci": [0.25, 0.55], "regressed": 16,
...                   "improved": 0, "status": "regression", "test": {"p_adjusted": 3e-5}}]}
>>> print(summary_markdown(data).splitlines()[0])
### ❌ Robustness regression: 1 of 1 rows regress (b vs a, 40 shared cases)
"""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import InvalidParams
from . import render
from .blocks import Cell, Section, Table, num, p_value, with_ci

_KINDS = {
    "originals": "originals",
    "perturbation": "perturbation",
    "family": "family",
    "level": "family × level",
}


def verdict(data: dict) -> str:
    rows = [r for r in data["rows"] if r["status"] != "n too small"]
    who = f"{data['candidate']['model']} vs {data['baseline']['model']}, {data['shared']} shared cases"
    if data["regressions"]:
        return f"❌ Robustness regression: {len(data['regressions'])} of {len(rows)} rows regress ({who})"
    return f"✅ No robustness regression ({who})"


def _differences(data: dict) -> list[str]:
    notes = []
    if data["only_baseline"] or data["only_candidate"]:
        notes.append(
            f"The suites differ: {data['only_baseline']} cases only in the baseline, "
            f"{data['only_candidate']} only in the candidate; only the {data['shared']} shared cases are compared."
        )
    if data.get("same_catalog") is False:
        notes.append("The runs used different catalogs (catalog digests differ).")
    return notes


def _row_cells(row: dict) -> list[Cell]:
    broken = (
        with_ci(row.get("broken_rate_change"), row.get("broken_rate_change_ci"))
        if "broken_rate_change" in row
        else "–"
    )
    return [
        _KINDS[row["kind"]],
        row["name"],
        str(row["n"]),
        num(row["baseline_accuracy"]),
        num(row["candidate_accuracy"]),
        with_ci(row["drop"], row.get("drop_ci")),
        broken,
        str(row["regressed"]),
        str(row["improved"]),
        p_value(row["test"]["p_adjusted"]),
        row["status"],
    ]


COLUMNS = [
    "level of detail",
    "name",
    "n",
    "baseline acc.",
    "candidate acc.",
    "accuracy drop [95 % CI]",
    "broken-rate change [95 % CI]",
    "regressed",
    "improved",
    "p (adj.)",
    "status",
]


def build(data: dict) -> list[Section]:
    """The sections of ``compare.md`` / ``compare.html``."""
    gate = data["gate"]
    head = Section(verdict(data), level=1)
    head.para(
        f"Baseline: {data['baseline']['model']} ({data['baseline']['path']}); candidate: "
        f"{data['candidate']['model']} ({data['candidate']['path']}). Paired case by case; a row regresses "
        f"when its exact McNemar test on examples is significant after {gate['correction']} adjustment "
        f"(α = {gate['alpha']}) and its accuracy drop is at least {gate['min_effect']}. Intervals: 95 % "
        "bootstrap over examples."
    )
    for note in _differences(data):
        head.para(note)
    provenance = Section("Runs")
    keys = ["model", "perturber_version", "catalog_digest", "suite_sha256", "samples", "cases"]
    rows: list[list[Cell]] = [
        [k, _fact(data["baseline"].get(k)), _fact(data["candidate"].get(k))] for k in keys
    ]
    provenance.table(Table("runs", ["", "baseline", "candidate"], rows))
    table = Section("Rows")
    table.table(
        Table(
            "compare",
            COLUMNS,
            [_row_cells(r) for r in data["rows"]],
            [r["status"] == "n too small" for r in data["rows"]],
        )
    )
    return [head, provenance, table]


def _fact(value) -> str:
    if isinstance(value, list):
        return ", ".join(v[:12] for v in value) or "–"
    return "–" if value is None else str(value)[:40]


def summary_markdown(data: dict, limit: int = 10) -> str:
    """A few lines for a CI job summary: the verdict and the regressed (or closest) rows."""
    s = Section(verdict(data), level=3)
    for note in _differences(data):
        s.para(note)
    shown = [r for r in data["rows"] if r["status"] == "regression"] or sorted(
        (r for r in data["rows"] if r["status"] != "n too small"), key=lambda r: -r["drop"]
    )[:3]
    s.table(Table("summary", COLUMNS, [_row_cells(r) for r in shown[:limit]]))
    if len(shown) > limit:
        s.para(f"… and {len(shown) - limit} more (compare.md).")
    return render.markdown([s])


def write(data: dict, out_dir: str) -> None:
    """``compare.json``, ``compare.md`` and ``compare.html`` in ``out_dir``."""
    doc = build(data)
    try:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        Path(out_dir, "compare.json").write_text(
            json.dumps(data, indent=2, ensure_ascii=False) + "\n", "utf-8"
        )
        Path(out_dir, "compare.md").write_text(render.markdown(doc), "utf-8")
        Path(out_dir, "compare.html").write_text(render.to_html(doc, {}, "Robustness comparison"), "utf-8")
    except OSError as err:
        raise InvalidParams(f"cannot write the comparison to {out_dir}: {err}", field="output") from None
