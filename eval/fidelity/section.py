"""The fidelity stage's section of ``eval/out/REPORT.md``."""

from __future__ import annotations

from evalkit.sections import fmt
from fidelity.groups import JSON_EXEMPT_ENTRIES, JSON_EXEMPT_FAMILIES


def section(data: dict) -> str:
    """The Markdown section of the report for the stage's ``data`` (``eval/out/fidelity.json``)."""
    f = fmt
    lines = [
        "## Fidelity",
        "",
        f"Corpus: {data['corpus']['texts']} texts written for this project "
        f"(`eval/corpus/`, kinds: {', '.join(data['corpus']['kinds'])}); seeds "
        f"{data['seeds']} for seed-sensitive entries, seed {data['seeds'][0]} otherwise; "
        "default parameters. Magnitude = 1 − difflib ratio. Rates are over applied outputs "
        "(numbers: same numbers before and after, spelled-out ones included, so a created "
        "number counts too; JSON: texts holding a JSON region).",
        "",
        "Measures available in this run:",
        "",
    ]
    lines += [f"* {note}" for note in data["notes"]]
    lines += [
        "",
        "### Per family (in-scope invariant entries)",
        "",
        "| family | entries | applied | magnitude median | cosine median | cosine p10 "
        "| numbers preserved | JSON preserved | judge: same |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for fam, s in data["families"].items():
        lines.append(
            f"| {fam} | {s['entries']} | {f(s['applied_rate'], percent=True)} "
            f"| {f(s['magnitude_median'])} | {f(s['cosine_median'])} | {f(s['cosine_p10'])} "
            f"| {f(s['numbers_preserved_rate'], percent=True)} "
            f"| {f(s['json_preserved_rate'], percent=True)} | {f(s['judge_same_rate'], percent=True)} |"
        )
    c, i = data["control"], data["in_scope"]
    lines += [
        "",
        "### Negative control",
        "",
        "| group | entries | applied | magnitude median | cosine median | judge: same |",
        "|---|---|---|---|---|---|",
        f"| in-scope invariant | {i['entries']} | {f(i['applied_rate'], percent=True)} "
        f"| {f(i['magnitude_median'])} | {f(i['cosine_median'])} | {f(i['judge_same_rate'], percent=True)} |",
        f"| out of scope or directional | {c['entries']} | {f(c['applied_rate'], percent=True)} "
        f"| {f(c['magnitude_median'])} | {f(c['cosine_median'])} | {f(c['judge_same_rate'], percent=True)} |",
        "",
        f"Control scores lower: **{data['control_scores_lower']}**.",
        "",
        "Reading the cosine column: the model's tokenizer (uncased BERT WordPiece) lower-cases, "
        "strips accents and drops control and format characters, so case, diacritic, "
        "zero-width and bidi edits score 1.000 and full-width text (no NFKC) scores near 0. "
        "The cosine measures whether the *wording* kept its meaning; the surface noise those "
        "entries add is what an invariance test probes in the model under test.",
        "",
    ]
    lines += ["### Correlations (Spearman, applied outputs)", ""]
    for name, rho in data["correlations"].items():
        lines.append(f"* {name}: {f(rho)}")
    y = data.get("synonym_yield") or {}
    lines += ["", "### `synonym` candidate yield", ""]
    if "v1_per_1000" in y:
        lines.append(
            f"On {y['tokens']} word tokens: v1 {y['v1_per_1000']} candidate words per "
            f"1,000 tokens ({y['v1_candidates']}), v2 {y['v2_per_1000']} ({y['v2_candidates']})."
        )
    else:
        lines.append(f"{y.get('note', 'not measured')}")
    if data.get("figure"):
        lines += [
            "",
            f"![median similarity vs magnitude per family]({data['figure']}) (`eval/out/{data['figure']}`)",
        ]
    lines += [
        "",
        "### Per entry",
        "",
        "| entry | family | group | applied | magnitude median / p90 | cosine median / p10 "
        "| numbers preserved | JSON preserved |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, s in data["entries"].items():
        lines.append(
            f"| `{name}` | {s['family']} | {s['group']} | {f(s['applied_rate'], percent=True)} "
            f"| {f(s['magnitude_median'])} / {f(s['magnitude_p90'])} "
            f"| {f(s['cosine_median'])} / {f(s['cosine_p10'])} "
            f"| {f(s['numbers_preserved_rate'], percent=True)} ({s['numbers_checked']}) "
            f"| {f(s['json_preserved_rate'], percent=True)} ({s['json_checked']}) |"
        )
    bad = data["json_failures"]
    lines += [
        "",
        "### JSON validity",
        "",
        (
            "Every non-exempt entry kept every JSON region valid."
            if not bad
            else f"{len(bad)} non-exempt entries broke a JSON region (they are expected to until the "
            "JSON-region protection of docs/spec/catalog.md §1.8 kind 5 lands): "
            + ", ".join(f"`{n}` ({k})" for n, k in bad.items())
            + "."
        ),
        f"Exempt: the {', '.join(sorted(JSON_EXEMPT_FAMILIES))} family and "
        f"{', '.join(f'`{n}`' for n in sorted(JSON_EXEMPT_ENTRIES))}. "
        f"Strict mode (fails the run): {'on' if data['strict_json'] else 'off'}.",
    ]
    return "\n".join(lines)
