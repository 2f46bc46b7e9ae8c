"""The report's sections about the runs (provenance, tokens and cost, sampling) and across models
(ranking reversals, Kendall's tau, the variance decomposition), from ``report.json``.

>>> s = runs([("m", {"provenance": {"runs": 0, "reply_sources": {}},
...                   "sampling": {"samples": 1, "note": "sampled once per text"}})])
>>> s.title, s.blocks[-1]
('Runs, tokens and sampling', ('p', ['m: sampled once per text.']))
"""

from __future__ import annotations

from .blocks import Cell, Code, Section, Table, num, p_value, with_ci


def _short(values: list | None, width: int = 12) -> str:
    return ", ".join(str(v)[:width] for v in values or []) or "–"


def _tokens(p: dict) -> str:
    act, est = p["actual"], p["estimated"]
    used = (
        "usage not reported"
        if act["prompt_tokens"] is None
        else f"used {act['prompt_tokens']:,.0f} in / {act['completion_tokens']:,.0f} out"
    )
    if not est["runs"]:
        return used + "; no run asked all it planned"
    compared = (
        ""
        if est["actual_prompt_tokens"] is None
        else f"; actual/estimate {num(p['input_ratio'], 2)} in, {num(p['output_ratio'], 2)} out"
    )
    return (
        f"{used}; the {est['runs']} run(s) that asked all they planned estimated "
        f"{est['input_tokens'] or 0:,.0f} in / {est['output_tokens'] or 0:,.0f} out "
        f"({est['tokenizer']}){compared}"
    )


def _cost(p: dict) -> str:
    spent, est = p["actual"]["cost"], p["estimated"]
    if spent is None and est["cost"] is None:
        return "– (no price given)"
    return f"${spent or 0:,.4f} spent; estimated ${est['cost'] or 0:,.4f} for ${est['actual_cost'] or 0:,.4f}"


def _model(settings: dict | None) -> str:
    if not settings:
        return "–"
    if settings.get("kind") == "callable":
        return f"callable {settings.get('name')}"
    system = settings.get("system_prompt_sha256")
    return (
        f"{settings.get('name')} at {settings.get('endpoint')}, temperature {settings.get('temperature')}, "
        f"max_tokens {settings.get('max_tokens')}, system prompt "
        + (f"sha256 {system[:12]}" if system else "none")
    )


def _checker(checker: dict | None) -> str:
    if not checker:
        return "–"
    parts = [checker["mode"]]
    if checker.get("tolerance") is not None:
        parts.append(f"relative tolerance {checker['tolerance']:g}")
    parts += [f"{k} {checker[k]!r}" for k in ("regex", "json_field", "function") if checker.get(k)]
    return ", ".join(parts)


def runs(per: list) -> Section:
    """How each model's results were made: one column per model."""
    s = Section("Runs, tokens and sampling")
    s.para(
        "From the run records of the results: what made them, the tokens the plan estimated before "
        "each run against what the endpoint reported, and where the replies came from (endpoint; "
        "cache: an earlier run; run: an identical request of the same run)."
    )
    rows: list[tuple[str, list]] = [
        ("runs", [str(d["provenance"]["runs"]) for _, d in per]),
    ]
    documented = [d["provenance"] for _, d in per]
    if any(p["runs"] for p in documented):
        rows += [
            ("perturber", [_short(p.get("perturber_version")) for p in documented]),
            ("catalog digest", [_short(p.get("catalog_digest")) for p in documented]),
            ("suite file sha256", [_short(p.get("suite_sha256")) for p in documented]),
            ("model", [_model(p.get("model_settings")) for p in documented]),
            ("samples per text", [str(p.get("samples", "–")) for p in documented]),
            ("checker", [_checker(p.get("checker")) for p in documented]),
            ("started – ended", [f"{p.get('started', '–')} – {p.get('ended') or '–'}" for p in documented]),
            ("model calls", [f"{p.get('calls') or 0:,.0f}" for p in documented]),
            ("tokens", [_tokens(p) if p["runs"] else "–" for p in documented]),
            ("cost", [_cost(p) if p["runs"] else "–" for p in documented]),
        ]
    rows.append(
        (
            "reply sources",
            [", ".join(f"{k}: {v}" for k, v in p["reply_sources"].items()) or "–" for p in documented],
        )
    )
    s.table(
        Table("runs", ["run facts", *(name for name, _ in per)], [[label, *cells] for label, cells in rows])
    )
    for name, d in per:
        s.para(f"{name}: {_sampling(d['sampling'])}.")
    return s


def _sampling(sm: dict) -> str:
    if "agreement" not in sm:
        return sm["note"]
    return (
        f"{sm['note']}; mean agreement between samples {with_ci(sm['agreement'], sm['agreement_ci'])} "
        f"(unanimous on {num(sm['unanimous'])} of {sm['cases']} cases); accuracy as the mean over "
        f"samples: perturbed {with_ci(sm['mean_accuracy'], sm['mean_accuracy_ci'])}, originals "
        f"{with_ci(sm['original_mean_accuracy'], sm['original_mean_accuracy_ci'])}"
    )


def across_models(am: dict | None, plot: bool) -> list[Section]:
    """The across-models sections (none for a single model)."""
    if not am:
        return []
    s = Section("Across models")
    ranking = " > ".join(f"{m} ({num(am['clean_accuracy'][m])})" for m in am["clean_ranking"])
    s.para(
        f"On the cases every model answered ({am['examples']} examples). Clean ranking: {ranking}. A "
        "perturbation (or family × level cell) reverses a pair when the model that is less accurate on "
        "the originals is strictly more accurate under it; significant: exact McNemar on examples, Holm "
        "across the pair's perturbations (cells), in the reversed direction."
    )
    s.table(Table("reversals", _REVERSAL_COLUMNS, [_reversal_row(p) for p in am["pairs"]]))
    changed = [t for t in am["kendall_tau"] if t["tau"] is None or t["tau"] < 1]
    s.para(
        f"Kendall's τ-b between the clean ranking and the ranking under each perturbation: the same "
        f"order (τ = 1) under {len(am['kendall_tau']) - len(changed)} of {len(am['kendall_tau'])} "
        "perturbations; the others:"
    )
    s.table(
        Table(
            "kendall",
            ["perturbation", "τ", "ranking under it (accuracy)"],
            [
                [
                    Code(t["name"]),
                    "tie" if t["tau"] is None else num(t["tau"]),
                    " > ".join(f"{m} ({num(t['accuracy'][m])})" for m in t["ranking"]),
                ]
                for t in changed
            ],
        )
    )
    s.para(
        "Variance of each model's accuracy across (perturbation, example) cells: the share explained "
        "by the perturbation, by the example, and the remainder (interaction)."
    )
    rows: list[list[Cell]] = [
        [m, str(d["cells"]), num(d["perturbation"]), num(d["example"]), num(d["remainder"])]
        for m, d in am["decomposition"].items()
    ]
    s.table(Table("decomposition", ["model", "cells", "perturbation", "example", "remainder"], rows))
    if plot:
        s.image("rankings")
    return [s]


_REVERSAL_COLUMNS = [
    "pair (A vs B)",
    "clean accuracy A / B",
    "clean p",
    "perturbations reversed (share)",
    "significant",
    "family × level reversed (share)",
    "significant",
    "reversing perturbations (A / B)",
]


def _reversal_row(p: dict) -> list[Cell]:
    pert, lev = p["perturbations"], p["levels"]
    shown: list = []
    for i, r in enumerate(pert["reversals"][:5]):
        shown += [", " if i else "", Code(r["name"]), f" {num(r['a'])} / {num(r['b'])}"]
    return [
        f"{p['a']} vs {p['b']}",
        f"{num(p['clean_a'])} / {num(p['clean_b'])}",
        p_value(p["clean_p"]),
        f"{pert['reversed']} of {pert['compared']} ({num(pert['share'], 2)})",
        str(pert["significant"]),
        f"{lev['reversed']} of {lev['compared']} ({num(lev['share'], 2)})",
        str(lev["significant"]),
        shown or "–",
    ]
