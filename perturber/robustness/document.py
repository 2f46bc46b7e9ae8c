"""The report as a document: sections of paragraphs, tables, lists and images, built once from the
report data and rendered to Markdown and HTML (``render``), so both carry the same sections.

>>> doc = build({"models": ["m"], "tau": 0.8, "min_n": 30, "alpha": 0.05, "correction": "holm",
...              "bootstrap": {"replicates": 2000, "seed": 1}, "suite": None,
...              "by_model": {"m": {"mode": "gold", "baseline_accuracy": 1.0, "baseline_ci": [0.9, 1.0],
...                                 "baseline_n": 40, "families": [], "perturbations": [],
...                                 "regressions": {"exported": 0}, "errors": {},
...                                 "errors_superseded": 0, "duplicate_results": 0,
...                                 "provenance": {"runs": 0, "reply_sources": {}},
...                                 "sampling": {"samples": 1, "note": "sampled once per text"}}}})
>>> [s.title for s in doc]
['Robustness report', 'Perturbations ranked by broken answers', 'Runs, tokens and sampling', 'Errors']
"""

from __future__ import annotations

from . import runs_doc
from .analysis import BREAKS
from .blocks import Cell, Code, Inline, Section, Table, num, p_value, with_ci
from .text import visible

EXAMPLE_IDS_SHOWN = 20


def build(data: dict, images: list[str] | None = None) -> list[Section]:
    """The sections of a report (``data``: the ``report.json`` dict)."""
    models = data["models"]
    per = [(m, data["by_model"][m]) for m in models]
    sections = [_summary(data, per), _perturbations(per, len(models) > 1)]
    sections += _broken_examples(per)
    if any(f for _, d in per for f in d["families"]):
        sections += [_levels(per, len(models) > 1, data), _collapse(per, len(models) > 1, data)]
        sections.append(_stability(per, len(models) > 1, data))
    sections += _other_scorings(per, len(models) > 1)
    if data.get("suite"):
        sections.append(_gates(data["suite"]))
    sections += _exported(per)
    sections.append(runs_doc.runs(per))
    sections += runs_doc.across_models(data.get("across_models"), "rankings" in (images or []))
    sections.append(_errors(per))
    if images:
        plots = Section("Plots")
        for name in images:
            if name != "rankings":
                plots.image(name)
        sections.append(plots)
    return sections


def _model_col(many: bool, name: str) -> list[Cell]:
    return [name] if many else []


def _summary(data: dict, per: list) -> Section:
    s = Section("Robustness report", level=1)
    s.para(f"Models: {', '.join(data['models'])}.")
    for name, d in per:
        mode = {
            "gold": "gold answers: a case fails when its answer is wrong",
            "invariance": "invariance without gold answers: a case fails when its answer differs "
            "from the answer to the original",
            "mixed": "gold answers where the example has one, else invariance (a changed answer fails)",
        }[d["mode"]]
        s.para(
            f"{name}: baseline accuracy (L0, the originals) {with_ci(d['baseline_accuracy'], d['baseline_ci'])} "
            f"over n = {d['baseline_n']} examples; mode: {mode}."
        )
        s.para(*_findings(name, d, data))
    s.para(
        f"Statistics: 95 % Wilson intervals on accuracies; 95 % percentile bootstrap intervals over "
        f"examples ({data['bootstrap']['replicates']} resamples, seed {data['bootstrap']['seed']}) on "
        f"drops, ratios and Stability; exact McNemar tests on examples, p-values adjusted across "
        f"perturbations by {_CORRECTION[data['correction']]} (α = {data['alpha']}); cells with fewer "
        f"than {data['min_n']} cases are marked “n too small” and drive no collapse point, plot point "
        f"or hint; τ = {data['tau']}."
    )
    return s


_CORRECTION = {"holm": "Holm's method (family-wise error)", "bh": "Benjamini-Hochberg (false discovery rate)"}


def _findings(name: str, d: dict, data: dict) -> list[Inline]:
    breaking = [p for p in d["perturbations"] if p.get("status") == BREAKS]
    out: list[Inline] = []
    if breaking:
        out.append(f"{name}: {len(breaking)} perturbation(s) significantly break answers: ")
        for i, p in enumerate(breaking[:5]):
            out += [", " if i else "", Code(p["name"]), f" ({p['broken']} broken of {p['n']})"]
        out.append(f" and {len(breaking) - 5} more. " if len(breaking) > 5 else ". ")
    else:
        out.append(f"{name}: no perturbation significantly breaks answers. ")
    answer = [f for f in d["families"] if f["scoring"] == "answer" and f["relative_stability"] is not None]
    weak = [f for f in answer if f["relative_quadrant"] in ("failure", "unstable")]
    if weak:
        out.append(
            "Relative to the same examples' originals, "
            + ", ".join(
                f"{f['name']} keeps {round(100 * f['relative_stability'])} % of its accuracy" for f in weak
            )
            + f" (below τ = {data['tau']}). "
        )
    elif answer:
        out.append("Every family keeps at least τ of its original accuracy (relative Stability). ")
    collapsed = [f for f in answer if f["paired_collapse_point"]]
    if collapsed:
        out.append(
            "Paired collapse: "
            + ", ".join(f"{f['name']} at {f['paired_collapse_label']}" for f in collapsed)
            + "."
        )
    return out


def _perturbations(per: list, many: bool) -> Section:
    s = Section("Perturbations ranked by broken answers")
    s.para(
        "Paired view: each case against the same example's original. The perturbations that "
        "significantly break answers come first, by broken cases (correct → wrong), then the "
        "others; flip rate = broken / cases whose original was correct; p = exact McNemar on "
        "examples, adjusted. A fix hint only where answers break significantly."
    )
    columns = [
        *(["model"] if many else []),
        "perturbation",
        "family",
        "n",
        "broken",
        "repaired",
        "net",
        "flip rate [95 % CI]",
        "accuracy drop [95 % CI]",
        "p (adj.)",
        "status",
        "hint",
    ]
    rows, muted = [], []
    for name, d in per:
        for p in d["perturbations"]:
            if p["scoring"] != "answer":
                continue
            rows.append(
                [
                    *_model_col(many, name),
                    Code(p["name"]),
                    p["graded_family"] or p["family"] or "",
                    str(p["n"]),
                    str(p["broken"]),
                    str(p["repaired"]),
                    f"{p['net']:+d}",
                    with_ci(p["flip_rate"], p["flip_ci"]),
                    with_ci(p["drop"], p["drop_ci"]),
                    p_value(p["test"]["p_adjusted"]),
                    p["status"],
                    p["hint"] or "",
                ]
            )
            muted.append(p["status"] == "n too small")
    return s.table(Table("perturbations", columns, rows, muted))


def _broken_examples(per: list) -> list[Section]:
    out = []
    for name, d in per:
        for p in d["perturbations"]:
            if p.get("status") != BREAKS or not p["examples"]:
                continue
            s = Section(f"{p['name']} — {p['broken']} of {p['n']} broken ({name})", level=3)
            if p["hint"]:
                s.para(f"Hint: {p['hint']}.")
            s.bullets(
                [
                    [
                        Code(ex["case_id"]),
                        f" (example {ex['example_id']}): ",
                        Code(ex["diff"]),
                        " — answer ",
                        Code(_answer(ex, "original_extracted", "original_output")),
                        " → ",
                        Code(_answer(ex, "extracted", "output")),
                    ]
                    for ex in p["examples"]
                ]
            )
            out.append(s)
    return out


def _answer(example: dict, extracted: str, output: str) -> str:
    """The extracted answer, else the start of the raw output (made visible)."""
    value = example.get(extracted)
    return str(value) if value is not None else visible(example[output])[:120]


def _levels(per: list, many: bool, data: dict) -> Section:
    s = Section("Families × levels")
    s.para(
        "Accuracy per severity level with its Wilson interval; “same originals” is the accuracy of "
        "the originals of the same cases, “ratio” acc(Lk) / same originals with its bootstrap "
        f"interval over examples. Rows with n < {data['min_n']}: n too small."
    )
    columns = [
        *(["model"] if many else []),
        "family",
        "level",
        "n",
        "accuracy [95 % CI]",
        "same originals",
        "ratio [95 % CI]",
        "magnitude",
        "Stability",
        "note",
    ]
    rows, muted = [], []
    for name, d in per:
        for f in d["families"]:
            for lv in f["levels"]:
                rows.append(
                    [
                        *_model_col(many, name),
                        f["name"],
                        f"L{lv['level']}",
                        str(lv["n"]),
                        with_ci(lv["accuracy"], lv["ci"]),
                        num(lv.get("original_accuracy")),
                        with_ci(lv.get("ratio"), lv.get("ratio_ci")),
                        num(lv["magnitude"]),
                        num(lv["stability"]),
                        "n too small" if lv["too_small"] else "",
                    ]
                )
                muted.append(lv["too_small"])
    return s.table(Table("levels", columns, rows, muted))


def _collapse(per: list, many: bool, data: dict) -> Section:
    s = Section("Collapse points")
    s.para(
        "Paired: the lowest level whose bootstrap interval of acc(Lk) / acc(same originals) lies "
        f"below τ = {data['tau']}. Paper: the lowest level with acc(Lk) < τ·acc(L0), L0 over all "
        f"the family's examples. Both use only levels with n ≥ {data['min_n']}."
    )
    columns = [*(["model"] if many else []), "family", "paired", "paper", "note"]
    rows = []
    for name, d in per:
        for f in d["families"]:
            note = f["paired_note"] or ""
            if f["collapse_differs"]:
                note = (note + "; " if note else "") + "the paired and the paper collapse points differ"
            rows.append(
                [*_model_col(many, name), f["name"], f["paired_collapse_label"], f["collapse_label"], note]
            )
    return s.table(Table("collapse", columns, rows))


def _stability(per: list, many: bool, data: dict) -> Section:
    s = Section("Stability and quadrants")
    s.para(
        "Paper: Stability = Σ sim·magnitude / Σ magnitude, quadrant by mean magnitude and τ. "
        "Relative: Σ sim·magnitude / Σ original·magnitude (1.0 when nothing flips), same quadrant "
        "rule; the findings above use the relative view."
    )
    columns = [
        *(["model"] if many else []),
        "family",
        "n",
        "magnitude",
        "Stability (paper) [95 % CI]",
        "quadrant (paper)",
        "relative Stability [95 % CI]",
        "quadrant (relative)",
    ]
    rows, muted = [], []
    for name, d in per:
        for f in d["families"]:
            rows.append(
                [
                    *_model_col(many, name),
                    f["name"],
                    str(f["n"]),
                    num(f["magnitude"]),
                    with_ci(f["stability"], f["stability_ci"]),
                    f["quadrant"] or ("n too small" if f["too_small"] else "–"),
                    with_ci(f["relative_stability"], f["relative_ci"]),
                    f["relative_quadrant"] or ("n too small" if f["too_small"] else "–"),
                ]
            )
            muted.append(f["too_small"])
    return s.table(Table("stability", columns, rows, muted))


def _other_scorings(per: list, many: bool) -> list[Section]:
    out = []
    for scoring, title, what in (
        ("directional", "Directional checks", "moved as stated"),
        ("refusal", "Refusal accuracy", "refusal accuracy"),
    ):
        rows = [
            [
                *_model_col(many, name),
                Code(p["name"]),
                str(p["n"]),
                with_ci(p["accuracy"], p["ci"]),
                str(p["failures"]),
            ]
            for name, d in per
            for p in d["perturbations"]
            if p["scoring"] == scoring
        ]
        if rows:
            s = Section(title)
            s.para(f"Scored on their own ({what}), not paired with answer correctness.")
            columns = [*(["model"] if many else []), "perturbation", "n", f"{what} [95 % CI]", "failures"]
            out.append(s.table(Table(scoring, columns, rows)))
    return out


def _gates(suite: dict) -> Section:
    s = Section("Suite gates")
    s.para("Cases rejected by the validity gates, per entry (from the suite's summary).")
    for flag in suite.get("flagged", []):
        s.para("⚠ ", Code(flag["name"]), flag["message"][len(flag["name"]) :] + ".")
    rows: list[list[Cell]] = [
        [Code(name), str(r["cases"]), str(r["rejected"]), f"{r['rate']:.1%}", ", ".join(r["reasons"])]
        for name, r in sorted(suite.get("rejection", {}).items(), key=lambda kv: (-kv[1]["rate"], kv[0]))
    ]
    return s.table(Table("gates", ["entry", "cases", "rejected", "rate", "reasons"], rows))


def _exported(per: list) -> list[Section]:
    out = []
    for name, d in per:
        reg = d["regressions"]
        if not reg["exported"]:
            continue
        s = Section(f"Previously exported failures ({name})")
        missing = reg.get("not_retested")
        rows: list[list[Cell]] = [
            ["fixed (now pass)", str(len(reg["fixed"])), _ids(reg["fixed"])],
            ["still failing", str(len(reg["still_failing"])), _ids(reg["still_failing"])],
        ]
        if missing is None:
            s.para("Pass the suite (--cases) to count the exported items that were not re-tested.")
        else:
            rows.append(["not re-tested (no case in this suite)", str(len(missing)), _ids(missing)])
        out.append(s.table(Table(f"exported-{name}", ["outcome", "count", "case ids"], rows)))
    return out


def _ids(ids: list[str]) -> list[Inline]:
    parts: list[Inline] = []
    for i, cid in enumerate(ids[:EXAMPLE_IDS_SHOWN]):
        parts += [", " if i else "", Code(cid)]
    if len(ids) > EXAMPLE_IDS_SHOWN:
        parts.append(f", … and {len(ids) - EXAMPLE_IDS_SHOWN} more (all in report.json)")
    return parts or ["–"]


def _errors(per: list) -> Section:
    s = Section("Errors")
    s.para(
        "Calls that failed (transport errors, malformed or empty replies) are never scored; a later "
        "result for the same key supersedes the error. Errors that still stand:"
    )
    rows = []
    for name, d in per:
        rows += [[name, Code(code), str(n)] for code, n in d["errors"].items()]
        if d["errors_superseded"]:
            rows.append([name, "superseded by a later result", str(d["errors_superseded"])])
    return s.table(Table("errors", ["model", "error", "count"], rows))
