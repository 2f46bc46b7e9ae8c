"""Read results (one file per model) and write report.md, report.json, report.html and plots.

``report.json`` schema (``"schema": "perturber.robustness.report/1"``)::

    {"models": [name, ...], "tau": 0.8, "baseline_accuracy": float | null,
     "families": [{"name", "baseline", "collapse_point": int | null, "collapse_label": "L3" | "—",
                   "magnitude", "stability", "quadrant",
                   "levels": [{"level": 0..5, "n", "accuracy", "magnitude", "stability"}]}],
     "perturbations": [{"name", "category", "family", "graded_family", "expectation", "n",
                        "failures", "rate", "broken", "repaired", "net", "churn", "hint",
                        "examples": [{"case_id", "example_id", "original", "perturbed", "diff",
                                      "output", "original_output"}]}],
     "regressions": {"exported": int, "fixed": [case_id], "still_failing": [case_id]},
     "errors": {code: count},
     "by_model": {name: {"baseline_accuracy", "families", "perturbations", "regressions",
                         "errors"}}}

The top-level ``families``/``perturbations`` are those of the first model; ``by_model`` holds
every model. A case fails when its ``sim`` < 0.5. Levels are the measured levels of the suite.
"""

from __future__ import annotations

import base64
import difflib
import html
import json
import os
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..errors import InvalidParams
from . import metrics, plots
from .io import AtomicJsonl, read_records

SCHEMA = "perturber.robustness.report/1"
FAIL_BELOW = 0.5
N_EXAMPLES = 3

# Triage hints (the practice of the field): where a failing group is best fixed.
NORMALISATION = {
    "extra_whitespace",
    "tabs_for_spaces",
    "line_wrap",
    "spaces",
    "new_lines",
    "trailing_newline",
    "sequence_spaces",
    "punctuation_spaces",
    "quotes",
    "zero_width",
    "bidi_override",
    "invisible_instructions",
    "unicode_tag_smuggle",
    "homoglyph",
    "full_width",
    "diacritics_add",
    "diacritics_strip",
    "smart_to_ascii",
    "quote_style",
    "upper_case",
    "lower_case",
    "title_case",
    "random_case",
    "context_load",
    "key_sentence_to_middle",
    "leetspeak",
    "ocr_noise",
}
PROMPT = {
    "negation_paraphrase",
    "insert_negation",
    "reasoning_restructure",
    "question_to_end",
    "reorder_bullets",
    "syntactic_paraphrasing",
    "conflicting_instruction",
    "drop_stop_words",
}
HINT_NORMALISATION = "fix in input normalisation, not in the prompt"
HINT_PROMPT = "fix in the prompt"
HINT_DIRECTIONAL = "move to a directional test"
DIRECTIONAL_RATE = 0.9


def hint_for(group: dict) -> str | None:
    """The triage hint of a failing group (None when none applies).

    >>> hint_for({"name": "zero_width", "expectation": "invariant", "rate": 0.2, "failures": 3})
    'fix in input normalisation, not in the prompt'
    """
    if not group["failures"]:
        return None
    if group["expectation"] == "directional":
        return "directional expectation violated: the answer did not change as stated"
    if group["name"] in NORMALISATION:
        return HINT_NORMALISATION
    if group["name"] in PROMPT:
        return HINT_PROMPT
    if group["expectation"] == "invariant" and group["rate"] >= DIRECTIONAL_RATE:
        return f"the answer changes almost every time (the perturbation may change it): {HINT_DIRECTIONAL}"
    return None


def visible(text: str | None) -> str:
    """Invisible and ambiguous characters made visible.

    >>> visible("a\\u200bb\\tc  d\\n")
    'a⟨U+200B⟩b⟨TAB⟩c␠␠d⟨LF⟩'
    """
    if text is None:
        return ""
    out = []
    for ch in text:
        if ch == "\t":
            out.append("⟨TAB⟩")
        elif ch == "\n":
            out.append("⟨LF⟩")
        elif ch == " ":
            out.append("␠")
        elif unicodedata.category(ch) in ("Cf", "Cc", "Zs", "Zl", "Zp", "Co", "Mn"):
            out.append(f"⟨U+{ord(ch):04X}⟩")
        else:
            out.append(ch)
    return "".join(out)


def diff(original: str, perturbed: str | None, limit: int = 600) -> str:
    """A character diff: ``[-removed-]{+inserted+}``, changed parts made visible.

    >>> diff("two  cats", "two cats\\u200b")
    'two[-␠-] cats{+⟨U+200B⟩+}'
    """
    perturbed = perturbed or ""
    sm = difflib.SequenceMatcher(None, original, perturbed, autojunk=False)
    out = []
    for op, a0, a1, b0, b1 in sm.get_opcodes():
        if op == "equal":
            out.append(original[a0:a1])
            continue
        if a1 > a0:
            out.append(f"[-{visible(original[a0:a1])}-]")
        if b1 > b0:
            out.append(f"{{+{visible(perturbed[b0:b1])}+}}")
    text = "".join(out)
    return text if len(text) <= limit else text[:limit] + "…"


class _Model:
    """Streaming aggregation of one model's results."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.original_sim: dict[str, float] = {}
        self.exported: dict[str, tuple[str, float]] = {}
        self.family_examples: dict[str, set] = defaultdict(set)
        self.levels: dict[str, dict[int, metrics.Bucket]] = defaultdict(lambda: defaultdict(metrics.Bucket))
        self.family_all: dict[str, metrics.Bucket] = defaultdict(metrics.Bucket)
        self.flips: dict[tuple, metrics.Flips] = {}
        self.meta: dict[tuple, dict] = {}
        self.errors: Counter = Counter()

    def add(self, r: dict) -> None:
        if "error" in r:
            self.errors[r["error"].get("code", "error")] += 1
            return
        if r.get("kind") == "original":
            self.original_sim[r["example_id"]] = r["sim"]
            if r.get("exported_case_id"):
                self.exported[r["exported_case_id"]] = (r["example_id"], r["sim"])
            return
        family = r.get("graded_family") or r.get("family") or "?"
        level = r.get("level")
        sim, mag = float(r["sim"]), r.get("magnitude") or 0.0
        self.family_examples[family].add(r["example_id"])
        if isinstance(level, int) and 1 <= level <= 5:
            self.levels[family][level].add(sim, mag)
        self.family_all[family].add(sim, mag)
        key = (r.get("category", "native"), r["name"])
        flips = self.flips.get(key)
        if flips is None:
            flips = self.flips[key] = metrics.Flips()
            self.meta[key] = {
                "name": r["name"],
                "category": r.get("category", "native"),
                "family": r.get("family"),
                "graded_family": r.get("graded_family"),
                "expectation": r.get("expectation"),
            }
        flips.add(float(r.get("original_sim", 1.0)), sim)
        if sim < FAIL_BELOW and len(flips.examples) < N_EXAMPLES:
            flips.examples.append(
                {
                    "case_id": r["case_id"],
                    "example_id": r["example_id"],
                    "original": r["original"],
                    "perturbed": r["perturbed"],
                    "diff": diff(r["original"], r["perturbed"]),
                    "output": (r.get("output") or "")[:300],
                    "original_output": (r.get("original_output") or "")[:300],
                }
            )

    def summary(self, tau: float) -> dict:
        families = []
        for family in sorted(self.family_all):
            examples = self.family_examples[family]
            base = metrics.mean(self.original_sim[e] for e in examples if e in self.original_sim)
            levels: list[dict[str, Any]] = [
                {
                    "level": 0,
                    "n": sum(e in self.original_sim for e in examples),
                    "accuracy": base,
                    "magnitude": 0.0,
                    "stability": None,
                }
            ]
            for k in range(1, 6):
                bucket = self.levels[family].get(k)
                levels.append({"level": k, **(bucket.to_dict() if bucket else metrics.Bucket().to_dict())})
            cp = metrics.collapse_point({lv["level"]: lv["accuracy"] for lv in levels}, tau)
            overall = self.family_all[family].to_dict()
            families.append(
                {
                    "name": family,
                    "baseline": base,
                    "levels": levels,
                    "collapse_point": cp,
                    "collapse_label": f"L{cp}" if cp else "—",
                    "n": overall["n"],
                    "accuracy": overall["accuracy"],
                    "magnitude": overall["magnitude"],
                    "stability": overall["stability"],
                }
            )
        mags = [f["magnitude"] for f in families if f["magnitude"] is not None]
        mean_mag = metrics.mean(mags) or 0.0
        for f in families:
            f["quadrant"] = (
                plots.quadrant(f["magnitude"], f["stability"], mean_mag, tau)
                if f["stability"] is not None
                else None
            )
        perturbations = []
        for key, flips in self.flips.items():
            group = {
                **self.meta[key],
                "n": flips.n,
                "failures": flips.failures,
                "rate": flips.failures / flips.n if flips.n else 0.0,
                "broken": flips.broken,
                "repaired": flips.repaired,
                "net": flips.net,
                "churn": flips.churn,
                "examples": flips.examples,
            }
            group["hint"] = hint_for(group)
            perturbations.append(group)
        perturbations.sort(key=lambda g: (-g["failures"], -g["rate"], g["category"], g["name"]))
        fixed = sorted(c for c, (_, sim) in self.exported.items() if sim >= FAIL_BELOW)
        still = sorted(c for c, (_, sim) in self.exported.items() if sim < FAIL_BELOW)
        return {
            "baseline_accuracy": metrics.mean(self.original_sim.values()),
            "families": families,
            "perturbations": perturbations,
            "regressions": {"exported": len(self.exported), "fixed": fixed, "still_failing": still},
            "errors": dict(self.errors.most_common()),
            "mean_magnitude": mean_mag,
        }


_REQUIRED = {
    "original": ("example_id", "sim"),
    "case": ("case_id", "example_id", "name", "sim", "original", "perturbed"),
}


def _check_result(r: dict, path: str, index: int) -> None:
    kind = r.get("kind")
    if kind not in _REQUIRED:
        raise InvalidParams(
            f"{path}: record {index} is not a result (no 'kind'); is this a cases "
            "file? Run `perturber evaluate` on it first",
            field="results",
        )
    if "error" in r:
        return
    missing = [k for k in _REQUIRED[kind] if k not in r]
    if missing or not isinstance(r["sim"], (int, float)):
        raise InvalidParams(
            f"{path}: record {index} ({kind}) lacks {', '.join(missing) or 'a numeric sim'}", field="results"
        )


def aggregate(paths: Iterable[str], tau: float = metrics.TAU) -> dict:
    """The report data of one or more results files (one model per file, or per ``model`` field)."""
    models: dict[str, _Model] = {}
    for path in paths:
        for index, r in enumerate(read_records(path), 1):
            _check_result(r, path, index)
            name = r.get("model") or Path(path).stem
            if name not in models:
                models[name] = _Model(name)
            models[name].add(r)
    if not models:
        raise InvalidParams("no results to report", field="results")
    by_model = {name: m.summary(tau) for name, m in models.items()}
    first = next(iter(by_model.values()))
    return {"schema": SCHEMA, "tau": tau, "models": list(by_model), **first, "by_model": by_model}


def _fmt(x, digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def render_markdown(data: dict) -> str:
    out = [
        "# Robustness report\n",
        f"Models: {', '.join(data['models'])} · τ = {data['tau']}  ",
        f"Baseline accuracy (L0): {_fmt(data['baseline_accuracy'])}\n",
    ]
    models = data["models"]
    out.append("## Families × levels\n")
    cols = " | ".join(f"acc {m}" for m in models) if len(models) > 1 else "accuracy"
    out.append(f"| family | level | n | {cols} | magnitude | stability |")
    out.append("|---|---|---|" + "---|" * (len(models) if len(models) > 1 else 1) + "---|---|")
    for fam in data["families"]:
        for lv in fam["levels"]:
            accs = []
            for m in models:
                mf = next((f for f in data["by_model"][m]["families"] if f["name"] == fam["name"]), None)
                accs.append(_fmt(mf["levels"][lv["level"]]["accuracy"]) if mf else "–")
            out.append(
                f"| {fam['name']} | L{lv['level']} | {lv['n']} | {' | '.join(accs)} | "
                f"{_fmt(lv['magnitude'])} | {_fmt(lv['stability'])} |"
            )
    out.append("\n## Collapse points\n")
    out.append("| family | " + " | ".join(models) + " | stability | quadrant |")
    out.append("|---|" + "---|" * len(models) + "---|---|")
    for fam in data["families"]:
        cps = []
        for m in models:
            mf = next((f for f in data["by_model"][m]["families"] if f["name"] == fam["name"]), None)
            cps.append(mf["collapse_label"] if mf else "–")
        out.append(
            f"| {fam['name']} | {' | '.join(cps)} | {_fmt(fam['stability'])} | {fam['quadrant'] or '–'} |"
        )
    out.append("\n## Failures grouped by perturbation (most common first)\n")
    out.append(
        "| perturbation | expectation | n | failures | rate | broken | repaired | net | churn | hint |"
    )
    out.append("|---|---|---|---|---|---|---|---|---|---|")
    for g in data["perturbations"]:
        out.append(
            f"| {g['name']} | {g['expectation']} | {g['n']} | {g['failures']} | {_fmt(g['rate'], 2)} | "
            f"{g['broken']} | {g['repaired']} | {g['net']:+d} | {_fmt(g['churn'], 2)} | {g['hint'] or ''} |"
        )
    for g in data["perturbations"]:
        if not g["failures"]:
            continue
        out.append(f"\n### {g['name']} — {g['failures']}/{g['n']} failing\n")
        if g["hint"]:
            out.append(f"Hint: {g['hint']}\n")
        for ex in g["examples"]:
            out.append(f"- `{ex['case_id']}` (example {ex['example_id']}): `{ex['diff']}`  ")
            out.append(
                f"  original answer: `{visible(ex['original_output'])[:120]}` → "
                f"perturbed answer: `{visible(ex['output'])[:120]}`"
            )
    reg = data["regressions"]
    if reg["exported"]:
        out.append("\n## Previously exported failures\n")
        out.append(
            f"{len(reg['fixed'])} of {reg['exported']} now pass (fixed): "
            f"{', '.join(reg['fixed']) or '–'}; still failing: {', '.join(reg['still_failing']) or '–'}"
        )
    if data["errors"]:
        out.append("\n## Errors\n")
        out.extend(f"- {k}: {v}" for k, v in data["errors"].items())
    return "\n".join(out) + "\n"


def render_html(data: dict, images: dict[str, bytes]) -> str:
    e = html.escape
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<title>Robustness report</title><style>body{font-family:sans-serif;margin:2em;max-width:70em}"
        "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.2em .5em;"
        "font-size:.9em}code{background:#f4f4f4}img{max-width:100%}</style></head><body>",
        "<h1>Robustness report</h1>",
        f"<p>Models: {e(', '.join(data['models']))} · τ = {data['tau']} · baseline accuracy (L0): "
        f"{_fmt(data['baseline_accuracy'])}</p>",
    ]
    for name, png in images.items():
        parts.append(
            f"<figure><img id='plot-{e(name)}' alt='{e(name)} plot' "
            f"src='data:image/png;base64,{base64.b64encode(png).decode()}'></figure>"
        )
    parts.append(
        "<h2>Families × levels</h2><table id='levels'><tr><th>family</th><th>level</th><th>n</th>"
        "<th>accuracy</th><th>magnitude</th><th>stability</th></tr>"
    )
    for fam in data["families"]:
        for lv in fam["levels"]:
            parts.append(
                f"<tr><td>{e(fam['name'])}</td><td>L{lv['level']}</td><td>{lv['n']}</td>"
                f"<td>{_fmt(lv['accuracy'])}</td><td>{_fmt(lv['magnitude'])}</td>"
                f"<td>{_fmt(lv['stability'])}</td></tr>"
            )
    parts.append(
        "</table><h2>Collapse points</h2><table id='collapse'><tr><th>family</th>"
        + "".join(f"<th>{e(m)}</th>" for m in data["models"])
        + "<th>quadrant</th></tr>"
    )
    for fam in data["families"]:
        cells = []
        for m in data["models"]:
            mf = next((f for f in data["by_model"][m]["families"] if f["name"] == fam["name"]), None)
            cells.append(f"<td>{e(mf['collapse_label']) if mf else '–'}</td>")
        parts.append(
            f"<tr><td>{e(fam['name'])}</td>{''.join(cells)}<td>{e(fam['quadrant'] or '–')}</td></tr>"
        )
    parts.append(
        "</table><h2>Failures grouped by perturbation</h2><table id='failures'><tr><th>perturbation</th>"
        "<th>n</th><th>failures</th><th>rate</th><th>broken</th><th>repaired</th><th>net</th>"
        "<th>churn</th><th>hint</th></tr>"
    )
    for g in data["perturbations"]:
        parts.append(
            f"<tr><td>{e(g['name'])}</td><td>{g['n']}</td><td>{g['failures']}</td>"
            f"<td>{_fmt(g['rate'], 2)}</td><td>{g['broken']}</td><td>{g['repaired']}</td>"
            f"<td>{g['net']:+d}</td><td>{_fmt(g['churn'], 2)}</td><td>{e(g['hint'] or '')}</td></tr>"
        )
    parts.append("</table>")
    for g in data["perturbations"]:
        if g["failures"] and g["examples"]:
            parts.append(f"<h3>{e(g['name'])}</h3><ul>")
            parts.extend(f"<li><code>{e(ex['diff'])}</code></li>" for ex in g["examples"])
            parts.append("</ul>")
    parts.append("</body></html>\n")
    return "".join(parts)


def write_report(
    paths: list[str], out_dir: str, *, tau: float = metrics.TAU, plots_enabled: bool = True
) -> dict:
    """Write report.json, report.md, report.html and the PNG plots into ``out_dir``."""
    if not 0 < tau <= 1:
        raise InvalidParams("--tau must be in (0, 1]", field="tau")
    data = aggregate(paths, tau)
    try:
        os.makedirs(out_dir, exist_ok=True)
        images: dict[str, bytes] = {}
        if plots_enabled:
            series = {
                f["name"]: {lv["level"]: lv["accuracy"] for lv in f["levels"] if lv["accuracy"] is not None}
                for f in data["families"]
            }
            images["degradation"] = plots.degradation_png(series)
            images["quadrant"] = plots.quadrant_png(
                {
                    f["name"]: (f["magnitude"], f["stability"])
                    for f in data["families"]
                    if f["stability"] is not None
                },
                tau,
            )
            for name, png in images.items():
                Path(out_dir, f"{name}.png").write_bytes(png)
        Path(out_dir, "report.json").write_text(
            json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        Path(out_dir, "report.md").write_text(render_markdown(data), encoding="utf-8")
        Path(out_dir, "report.html").write_text(render_html(data, images), encoding="utf-8")
    except OSError as err:
        raise InvalidParams(f"cannot write the report to {out_dir}: {err}", field="output") from None
    return data


def export_failures(
    paths: list[str],
    out_path: str,
    *,
    perturbation: str | None = None,
    family: str | None = None,
    level: int | None = None,
) -> int:
    """Write failing cases in ``suite``'s input format: the example's own fields, the perturbed
    text as the input, the gold answer, and ``provenance``. Returns how many were written."""
    with AtomicJsonl(out_path) as out:
        for path in paths:
            for r in read_records(path):
                if r.get("kind") != "case" or "error" in r or r.get("sim", 1.0) >= FAIL_BELOW:
                    continue
                if perturbation and r["name"] != perturbation:
                    continue
                if family and family not in (r.get("family"), r.get("graded_family")):
                    continue
                if level is not None and r.get("level") != level:
                    continue
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
                out.write(record)
    return out.count
