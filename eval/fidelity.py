"""Fidelity stage: does each perturbation keep the prompt's meaning? Measured on eval/corpus/.

    python eval/fidelity.py [--fast] [--no-embedding] [--no-judge] [--strict-json] [--seeds 0 1 2]

For every deterministic entry (default parameters) x corpus text x seed (seed-sensitive entries
only get more than one): applied rate, magnitude distribution (§1.12: 1 - difflib ratio),
numbers-preserved rate (``perturber.number_words``, spelled-out numbers included: the same
sequence of numbers before and after, so a number lost *or created* counts), JSON-validity-
preserved rate (texts holding JSON: every region still parses and equals the original except
inside prose string values, §1.8 kind 5), cosine similarity of all-MiniLM-L6-v2 embeddings
(``eval/embedding.py``), an optional LLM judge (``eval/judge.py``), Spearman correlations
between them, and a negative control (out-of-scope and directional entries must score lower than
the in-scope invariant ones). Also ``synonym``'s candidate yield, v1 vs v2.

Writes eval/out/fidelity.json, eval/out/fidelity_samples.jsonl, eval/out/sections/fidelity.md
and eval/out/fidelity_families.png. Exit status 1 on a JSON-validity failure of a non-exempt
entry when ``--strict-json`` (or PERTURBER_EVAL_STRICT_JSON=1) is given, else 0.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import evalkit as kit

import perturber
from perturber import registry

#: Entries allowed to change JSON regions (docs/spec/catalog.md §1.8): the schema family edits JSON
#: Schemas by design; these three change protected spans by design.
JSON_EXEMPT_ENTRIES = frozenset({"full_width", "strip_markdown", "url_email_mask"})
JSON_EXEMPT_FAMILIES = frozenset({"schema"})
JUDGE_MAX_PAIRS = 300


def json_exempt(spec) -> bool:
    return spec.family in JSON_EXEMPT_FAMILIES or spec.name in JSON_EXEMPT_ENTRIES


def control_group(spec) -> bool:
    """Negative control: entries outside the invariance scope, or meant to change the answer."""
    return (not spec.in_scope) or spec.expectation != "invariant"


def number_checker():
    """``(numbers_preserved, note)``; the function is None when unavailable."""
    try:
        from perturber import number_words

        number_words.numbers_preserved("three apples", "3 apples")
    except ImportError:
        return None, "numbers preserved not measured: perturber.number_words is not available"
    except perturber.PerturberError as exc:
        return None, f"numbers preserved not measured: {exc}"
    return (
        number_words.numbers_preserved,
        "numbers preserved: perturber.number_words (digits and spelled-out numbers, text2num)",
    )


def failures_of_json(rows, by_spec) -> dict:
    """``{entry: count}`` of applied outputs that broke a JSON region, non-exempt entries only."""
    failures: dict[str, int] = {}
    for r in rows:
        if r["json_preserved"] is False and not json_exempt(by_spec[r["entry"]]):
            failures[r["entry"]] = failures.get(r["entry"], 0) + 1
    return failures


def measure(specs, corpus, seeds, embedder, numbers_preserved):
    """One row per (entry, text, seed)."""
    rows = []
    for n, spec in enumerate(specs, 1):
        for item in corpus:
            for seed in seeds if spec.seed_sensitive else seeds[:1]:
                original = item["text"]
                r = perturber.apply(original, spec.name, None, seed)
                row = {
                    "entry": spec.name,
                    "family": spec.family,
                    "id": item["id"],
                    "kind": item["kind"],
                    "seed": seed,
                    "applied": r.applied,
                    "magnitude": r.magnitude if r.applied else None,
                    "numbers_preserved": None,
                    "json_preserved": None,
                    "cosine": None,
                }
                if r.applied:
                    if numbers_preserved is not None:
                        row["numbers_preserved"] = bool(numbers_preserved(original, r.text))
                    row["json_preserved"] = kit.json_preserved(original, r.text)
                    if embedder is not None:
                        row["cosine"] = round(embedder.cosine(original, r.text), 6)
                    row["perturbed"] = r.text
                rows.append(row)
        kit.progress("fidelity", n, len(specs))
    return rows


def summarise(rows: list[dict]) -> dict:
    applied = [r for r in rows if r["applied"]]
    mags = [r["magnitude"] for r in applied]
    cos = [r["cosine"] for r in applied]
    return {
        "samples": len(rows),
        "applied": len(applied),
        "applied_rate": kit.rate([r["applied"] for r in rows]),
        "magnitude_median": kit.median(mags),
        "magnitude_p10": kit.quantile(mags, 0.1),
        "magnitude_p90": kit.quantile(mags, 0.9),
        "magnitude_max": max(mags) if mags else None,
        "numbers_preserved_rate": kit.rate([r["numbers_preserved"] for r in applied]),
        "numbers_checked": sum(r["numbers_preserved"] is not None for r in applied),
        "json_preserved_rate": kit.rate([r["json_preserved"] for r in applied]),
        "json_checked": sum(r["json_preserved"] is not None for r in applied),
        "cosine_median": kit.median(cos),
        "cosine_p10": kit.quantile(cos, 0.1),
        "judge_same_rate": kit.rate([r.get("judge") for r in applied]),
        "judged": sum(r.get("judge") is not None for r in applied),
    }


def run_judge(judge, rows, limit: int) -> None:
    """Judge up to ``limit`` applied samples, spread evenly over the entries (in place)."""
    applied = [r for r in rows if r["applied"]]
    step = max(1, len(applied) // limit)
    chosen = applied[::step][:limit]
    originals = {item["id"]: item["text"] for item in kit.load_corpus()}
    print(f"  [fidelity] judge: {len(chosen)} pairs x 3 samples", flush=True)
    verdicts = judge.verdicts([(originals[r["id"]], r["perturbed"]) for r in chosen])
    for r, v in zip(chosen, verdicts):
        r["judge"] = v


def synonym_yield(corpus) -> dict | None:
    """Candidate words per 1,000 word tokens on the corpus: synonym v1's rule vs v2's."""
    try:
        from perturber import text as tm
        from perturber.perturbations.word_level import synonym as syn
        from perturber.resources import nltk_data

        nltk_data.wordnet()
    except perturber.PerturberError as exc:
        return {"note": f"not measured: {exc}"}

    def v1(word: str, pos: str) -> tuple[str, ...]:
        """Version 1's rule: any lemma of the first synset, up to two words, no digits/capitals."""
        wn = nltk_data.wordnet()
        if wn.morphy(word, pos) != word or not wn.synsets(word, pos):
            return ()
        out = []
        for name in wn.synsets(word, pos)[0].lemma_names():
            lemma = name.replace("_", " ")
            if (
                lemma != word
                and not any(c.isupper() or c.isdigit() for c in lemma)
                and len(lemma.split(" ")) <= 2
                and lemma not in out
            ):
                out.append(lemma)
        return tuple(out)

    tokens = sum(len(tm.word_tokens(item["text"])) for item in corpus)
    count_v1 = sum(len(syn.find_candidates(item["text"], v1)) for item in corpus)
    count_v2 = sum(len(syn.find_candidates(item["text"])) for item in corpus)
    return {
        "tokens": tokens,
        "v1_candidates": count_v1,
        "v2_candidates": count_v2,
        "v1_per_1000": round(1000 * count_v1 / tokens, 1),
        "v2_per_1000": round(1000 * count_v2 / tokens, 1),
    }


def figure(families: dict, control: dict, path) -> str | None:
    """PNG: per family, median embedding similarity vs median magnitude."""
    points = {
        f: s
        for f, s in families.items()
        if s["cosine_median"] is not None and s["magnitude_median"] is not None
    }
    if not points:
        return None
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, ax = plt.subplots(figsize=(7, 5), dpi=120)
    for name, s in points.items():
        ax.scatter(s["magnitude_median"], s["cosine_median"], color="tab:blue")
        ax.annotate(
            name,
            (s["magnitude_median"], s["cosine_median"]),
            fontsize=8,
            xytext=(4, 3),
            textcoords="offset points",
        )
    if control.get("cosine_median") is not None:
        ax.scatter(
            control["magnitude_median"],
            control["cosine_median"],
            color="tab:red",
            marker="x",
            label="negative control (out of scope / directional)",
        )
        ax.legend(loc="lower left", fontsize=8)
    ax.set_xlabel("median magnitude (1 - difflib ratio), applied outputs")
    ax.set_ylabel("median cosine similarity (all-MiniLM-L6-v2)")
    ax.set_title("Fidelity per family (in-scope invariant entries)")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path.name


def report(data: dict) -> str:
    f = kit.fmt
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--fast", action="store_true", help="seed 0 only, no embedding model, no judge (the CI subset)"
    )
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--entries", nargs="+", metavar="NAME", help="only these entries")
    parser.add_argument(
        "--report-only", action="store_true", help="rewrite the report section from eval/out/fidelity.json"
    )
    parser.add_argument("--no-embedding", action="store_true")
    parser.add_argument("--no-judge", action="store_true")
    parser.add_argument("--judge-pairs", type=int, default=JUDGE_MAX_PAIRS)
    parser.add_argument(
        "--strict-json",
        action="store_true",
        default=os.environ.get("PERTURBER_EVAL_STRICT_JSON") == "1",
        help="exit 1 when a non-exempt entry breaks a JSON region (also PERTURBER_EVAL_STRICT_JSON=1)",
    )
    args = parser.parse_args(argv)
    if args.report_only:
        data = json.loads((kit.OUT / "fidelity.json").read_text(encoding="utf-8"))
        order = registry.entries()  # catalog order, whatever order the JSON kept
        data["entries"] = {s.name: data["entries"][s.name] for s in order if s.name in data["entries"]}
        data["families"] = {
            f: data["families"][f] for f in dict.fromkeys(s.family for s in order) if f in data["families"]
        }
        kit.write_outputs("fidelity", data, report(data))
        return 0
    start = time.monotonic()
    seeds = [args.seeds[0]] if args.fast else args.seeds
    corpus = kit.load_corpus()
    specs = [
        s
        for s in registry.entries()
        if not s.model_backed and s.category == "native" and (not args.entries or s.name in args.entries)
    ]
    skipped = [s.name for s in registry.entries() if s.model_backed]
    notes = []
    embedder = None
    if args.fast or args.no_embedding:
        notes.append("embedding similarity not measured (fast run / --no-embedding)")
    else:
        from embedding import load as load_embedder

        embedder, note = load_embedder()
        notes.append(note)
    numbers_preserved, note = number_checker()
    notes.append(note)
    if skipped:
        notes.append(f"model-backed entries not measured here: {', '.join(skipped)}")
    print(f"  [fidelity] {len(specs)} entries x {len(corpus)} texts, seeds {seeds}", flush=True)
    rows = measure(specs, corpus, seeds, embedder, numbers_preserved)

    judge = None
    if args.fast or args.no_judge:
        notes.append("LLM judge not run (fast run / --no-judge)")
    else:
        from judge import load as load_judge

        judge, note = load_judge()
        notes.append(note)
        if judge is not None:
            run_judge(judge, rows, args.judge_pairs)

    by_spec = {s.name: s for s in specs}
    entries = {}
    for spec in specs:
        s = summarise([r for r in rows if r["entry"] == spec.name])
        s.update(
            family=spec.family,
            group="control" if control_group(spec) else "in-scope",
            json_exempt=json_exempt(spec),
        )
        entries[spec.name] = s
    in_rows = [r for r in rows if not control_group(by_spec[r["entry"]])]
    ctl_rows = [r for r in rows if control_group(by_spec[r["entry"]])]
    families = {}
    for fam in dict.fromkeys(s.family for s in specs if not control_group(s)):
        fam_rows = [r for r in in_rows if r["family"] == fam]
        families[fam] = summarise(fam_rows)
        families[fam]["entries"] = len({r["entry"] for r in fam_rows})
    in_scope, control = summarise(in_rows), summarise(ctl_rows)
    in_scope["entries"] = len({r["entry"] for r in in_rows})
    control["entries"] = len({r["entry"] for r in ctl_rows})
    lower = None
    if in_scope["cosine_median"] is not None and control["cosine_median"] is not None:
        lower = control["cosine_median"] < in_scope["cosine_median"]
    elif in_scope["judge_same_rate"] is not None and control["judge_same_rate"] is not None:
        lower = control["judge_same_rate"] < in_scope["judge_same_rate"]
    applied = [r for r in rows if r["applied"]]
    correlations = {
        "embedding cosine vs magnitude": kit.spearman(
            [r["cosine"] for r in applied], [r["magnitude"] for r in applied]
        ),
        "judge vs embedding cosine": kit.spearman(
            [r.get("judge") for r in applied], [r["cosine"] for r in applied]
        ),
        "judge vs magnitude": kit.spearman(
            [r.get("judge") for r in applied], [r["magnitude"] for r in applied]
        ),
    }
    json_failures = failures_of_json(applied, by_spec)
    data = {
        "corpus": {"texts": len(corpus), "kinds": sorted({i["kind"] for i in corpus})},
        "seeds": seeds,
        "notes": notes,
        "catalog_digest": perturber.catalog_digest(),
        "entries": entries,
        "families": families,
        "in_scope": in_scope,
        "control": control,
        "control_scores_lower": lower,
        "correlations": correlations,
        "json_failures": json_failures,
        "strict_json": args.strict_json,
        "synonym_yield": synonym_yield(corpus),
        "figure": None if args.fast else figure(families, control, kit.OUT / "fidelity_families.png"),
        "seconds": round(time.monotonic() - start, 1),
    }
    kit.write_outputs("fidelity", data, report(data))
    with open(kit.OUT / "fidelity_samples.jsonl", "w", encoding="utf-8") as out:
        for r in rows:
            out.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
    print(
        f"  [fidelity] in-scope median cosine {kit.fmt(in_scope['cosine_median'])}, control "
        f"{kit.fmt(control['cosine_median'])}; JSON failures in {len(json_failures)} entries; "
        f"{data['seconds']} s",
        flush=True,
    )
    if json_failures and args.strict_json:
        print(
            f"  [fidelity] FAILED: JSON regions broken by {', '.join(sorted(json_failures))}", file=sys.stderr
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
