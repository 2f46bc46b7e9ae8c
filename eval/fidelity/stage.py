"""Fidelity stage: does each perturbation keep the prompt's meaning? Measured on eval/corpus/.

    python eval/run_all.py run fidelity [--fast] [--no-embedding] [--no-judge] [--strict-json] [--seeds 0 1 2]

For every deterministic entry (default parameters) x corpus text x seed (seed-sensitive entries
only get more than one): applied rate, magnitude distribution (§1.12: 1 - difflib ratio),
numbers-preserved rate (``perturber.number_words``, spelled-out numbers included: the same
sequence of numbers before and after, so a number lost *or created* counts), JSON-validity-
preserved rate (texts holding JSON: every region still parses and equals the original except
inside prose string values, §1.8 kind 5), cosine similarity of all-MiniLM-L6-v2 embeddings
(:mod:`fidelity.embedding`), an optional LLM judge (:mod:`fidelity.judge`), Spearman correlations
between them, and a negative control (out-of-scope and directional entries must score lower than
the in-scope invariant ones). Also ``synonym``'s candidate yield, v1 vs v2.

Writes eval/out/fidelity.json, eval/out/fidelity_samples.jsonl, eval/out/sections/fidelity.md
and eval/out/fidelity_families.png. Exit status 1 on a JSON-validity failure of a non-exempt
entry when ``--strict-json`` (or PERTURBER_EVAL_STRICT_JSON=1) is given, else 0.
"""

from __future__ import annotations

import json
import sys
import time

import perturber
from evalkit import cli, paths, sections
from evalkit.corpus import load_corpus
from fidelity.figure import figure
from fidelity.groups import control_group, failures_of_json, json_exempt
from fidelity.regions import json_preserved
from fidelity.section import section
from fidelity.stats import median, quantile, rate, spearman
from fidelity.synonym_yield import synonym_yield
from perturber import registry, settings

JUDGE_MAX_PAIRS = 300


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
                    row["json_preserved"] = json_preserved(original, r.text)
                    if embedder is not None:
                        row["cosine"] = round(embedder.cosine(original, r.text), 6)
                    row["perturbed"] = r.text
                rows.append(row)
        sections.progress("fidelity", n, len(specs))
    return rows


def summarise(rows: list[dict]) -> dict:
    applied = [r for r in rows if r["applied"]]
    mags = [r["magnitude"] for r in applied]
    cos = [r["cosine"] for r in applied]
    return {
        "samples": len(rows),
        "applied": len(applied),
        "applied_rate": rate([r["applied"] for r in rows]),
        "magnitude_median": median(mags),
        "magnitude_p10": quantile(mags, 0.1),
        "magnitude_p90": quantile(mags, 0.9),
        "magnitude_max": max(mags) if mags else None,
        "numbers_preserved_rate": rate([r["numbers_preserved"] for r in applied]),
        "numbers_checked": sum(r["numbers_preserved"] is not None for r in applied),
        "json_preserved_rate": rate([r["json_preserved"] for r in applied]),
        "json_checked": sum(r["json_preserved"] is not None for r in applied),
        "cosine_median": median(cos),
        "cosine_p10": quantile(cos, 0.1),
        "judge_same_rate": rate([r.get("judge") for r in applied]),
        "judged": sum(r.get("judge") is not None for r in applied),
    }


def run_judge(judge, rows, limit: int) -> None:
    """Judge up to ``limit`` applied samples, spread evenly over the entries (in place)."""
    applied = [r for r in rows if r["applied"]]
    step = max(1, len(applied) // limit)
    chosen = applied[::step][:limit]
    originals = {item["id"]: item["text"] for item in load_corpus()}
    print(f"  [fidelity] judge: {len(chosen)} pairs x 3 samples", flush=True)
    verdicts = judge.verdicts([(originals[r["id"]], r["perturbed"]) for r in chosen])
    for r, v in zip(chosen, verdicts):
        r["judge"] = v


def per_entry(specs, rows) -> dict:
    """The summary of each entry, with its family, group and JSON exemption."""
    entries = {}
    for spec in specs:
        s = summarise([r for r in rows if r["entry"] == spec.name])
        s.update(
            family=spec.family,
            group="control" if control_group(spec) else "in-scope",
            json_exempt=json_exempt(spec),
        )
        entries[spec.name] = s
    return entries


def summarise_group(rows: list[dict]) -> dict:
    """:func:`summarise` plus the number of entries the rows come from."""
    s = summarise(rows)
    s["entries"] = len({r["entry"] for r in rows})
    return s


def control_scores_lower(in_scope: dict, control: dict) -> bool | None:
    """Whether the control group scores lower: by embedding similarity, else by the judge."""
    if in_scope["cosine_median"] is not None and control["cosine_median"] is not None:
        return control["cosine_median"] < in_scope["cosine_median"]
    if in_scope["judge_same_rate"] is not None and control["judge_same_rate"] is not None:
        return control["judge_same_rate"] < in_scope["judge_same_rate"]
    return None


def correlations(applied: list[dict]) -> dict:
    judge = [r.get("judge") for r in applied]
    cosine = [r["cosine"] for r in applied]
    magnitude = [r["magnitude"] for r in applied]
    return {
        "embedding cosine vs magnitude": spearman(cosine, magnitude),
        "judge vs embedding cosine": spearman(judge, cosine),
        "judge vs magnitude": spearman(judge, magnitude),
    }


def aggregate(specs, rows) -> dict:
    """Per entry, per family (in-scope invariant entries), in scope vs control, correlations and
    JSON failures: the measured part of ``eval/out/fidelity.json``."""
    by_spec = {s.name: s for s in specs}
    in_rows = [r for r in rows if not control_group(by_spec[r["entry"]])]
    ctl_rows = [r for r in rows if control_group(by_spec[r["entry"]])]
    families = {}
    for fam in dict.fromkeys(s.family for s in specs if not control_group(s)):
        families[fam] = summarise_group([r for r in in_rows if r["family"] == fam])
    in_scope, control = summarise_group(in_rows), summarise_group(ctl_rows)
    applied = [r for r in rows if r["applied"]]
    return {
        "entries": per_entry(specs, rows),
        "families": families,
        "in_scope": in_scope,
        "control": control,
        "control_scores_lower": control_scores_lower(in_scope, control),
        "correlations": correlations(applied),
        "json_failures": failures_of_json(applied, by_spec),
    }


def optional_measures(args, notes: list[str]):
    """The embedder and the judge this run uses (None when off or unavailable), noted in ``notes``."""
    embedder = judge = None
    if args.fast or args.no_embedding:
        notes.append("embedding similarity not measured (fast run / --no-embedding)")
    else:
        from fidelity.embedding import load as load_embedder

        embedder, note = load_embedder()
        notes.append(note)
    if args.fast or args.no_judge:
        judge_note = "LLM judge not run (fast run / --no-judge)"
    else:
        from fidelity.judge import load as load_judge

        judge, judge_note = load_judge()
    return embedder, judge, judge_note


def rewrite_section() -> int:
    """The report section again from ``eval/out/fidelity.json``, in catalog order."""
    data = json.loads((paths.OUT / "fidelity.json").read_text(encoding="utf-8"))
    order = registry.entries()  # catalog order, whatever order the JSON kept
    data["entries"] = {s.name: data["entries"][s.name] for s in order if s.name in data["entries"]}
    data["families"] = {
        f: data["families"][f] for f in dict.fromkeys(s.family for s in order) if f in data["families"]
    }
    sections.write_outputs("fidelity", data, section(data))
    return 0


def run(args) -> tuple[dict, list[dict]]:
    """Measure, judge and aggregate; the content of ``eval/out/fidelity.json``, samples aside."""
    start = time.monotonic()
    seeds = [args.seeds[0]] if args.fast else args.seeds
    corpus = load_corpus()
    specs = [
        s
        for s in registry.entries()
        if not s.model_backed and s.category == "native" and (not args.entries or s.name in args.entries)
    ]
    skipped = [s.name for s in registry.entries() if s.model_backed]
    notes: list[str] = []
    embedder, judge, judge_note = optional_measures(args, notes)
    numbers_preserved, note = number_checker()
    notes.append(note)
    if skipped:
        notes.append(f"model-backed entries not measured here: {', '.join(skipped)}")
    print(f"  [fidelity] {len(specs)} entries x {len(corpus)} texts, seeds {seeds}", flush=True)
    rows = measure(specs, corpus, seeds, embedder, numbers_preserved)
    notes.append(judge_note)
    if judge is not None:
        run_judge(judge, rows, args.judge_pairs)
    measured = aggregate(specs, rows)
    data = {
        "corpus": {"texts": len(corpus), "kinds": sorted({i["kind"] for i in corpus})},
        "seeds": seeds,
        "notes": notes,
        "catalog_digest": perturber.catalog_digest(),
        **measured,
        "strict_json": args.strict_json,
        "synonym_yield": synonym_yield(corpus),
        "figure": None
        if args.fast
        else figure(measured["families"], measured["control"], paths.OUT / "fidelity_families.png"),
        "seconds": round(time.monotonic() - start, 1),
    }
    return data, rows


def write_samples(rows: list[dict]) -> None:
    with open(paths.OUT / "fidelity_samples.jsonl", "w", encoding="utf-8") as out:
        for r in rows:
            out.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")


def parse_args(argv):
    parser = cli.parser("fidelity", __doc__)
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
        default=settings.read("PERTURBER_EVAL_STRICT_JSON"),
        help="exit 1 when a non-exempt entry breaks a JSON region (also PERTURBER_EVAL_STRICT_JSON=1)",
    )
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.report_only:
        return rewrite_section()
    data, rows = run(args)
    sections.write_outputs("fidelity", data, section(data))
    write_samples(rows)
    failures = data["json_failures"]
    print(
        f"  [fidelity] in-scope median cosine {sections.fmt(data['in_scope']['cosine_median'])}, control "
        f"{sections.fmt(data['control']['cosine_median'])}; JSON failures in {len(failures)} entries; "
        f"{data['seconds']} s",
        flush=True,
    )
    if failures and args.strict_json:
        print(f"  [fidelity] FAILED: JSON regions broken by {', '.join(sorted(failures))}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
