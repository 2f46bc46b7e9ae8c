"""In-process latency of every deterministic perturbation (`make bench`).

Prints, per entry, the median and p90 microseconds per call on a 20-word sentence and on a 2 KB
paragraph (schema entries: on a 1 KB JSON Schema), the same text with 50 seeds as a study
applies it (per-text memos warm), and the cold cost: the mean over 300 distinct texts of those
sizes, each call on a text no memo holds; per-family medians, the overall median of
medians, `baseline` as the fixed overhead, `import perturber` time, and the time of one call on
1 MB at maximum parameters. Timings are medians of repeated runs; compare ratios, not absolutes.

    python eval/run_all.py run bench [--quick] [--json OUT] [--skip-megabyte] [--skip-cold] [--only NAME,NAME]

The library timed is the one the tool's ``PYTHONPATH`` finds first: this checkout, or another
tree's (``bench-compare`` runs this module on two trees).
"""

from __future__ import annotations

import json
import pathlib
import statistics
import subprocess
import sys
import time

import perturber
from evalkit import cli
from perturber import registry

SENTENCE = (
    "Please tell me quickly which famous European city hosted the summer games in 1992, "
    "and why it mattered so much?"
)
PARAGRAPH_SEED = (
    "The committee reviewed the proposal on Tuesday and agreed that the new library "
    "would open in the spring. Residents asked whether the reading room could stay "
    "open late, and the director said it would, at least on weekdays. Funding comes "
    "from the city and from a private donor who prefers to remain anonymous. "
)
PARAGRAPH = (PARAGRAPH_SEED * 8)[:2048]
# The in-process latency goals: <= 15 µs per entry on 20 words except these (realistic_typos: 25 µs).
SLOW_OK = {"synonym", "realistic_typos"}
SCHEMA_1K = json.dumps(
    {
        "type": "object",
        "title": "Booking",
        "properties": {
            "id": {"type": "integer", "minimum": 1},
            "guest": {"$ref": "#/$defs/person"},
            "room": {"enum": ["single", "double", "suite", "family"]},
            "nights": {"type": "integer", "minimum": 1, "maximum": 30},
            "extras": {"type": "array", "items": {"enum": ["breakfast", "parking", "late_checkout"]}},
            "payment": {"anyOf": [{"$ref": "#/$defs/card"}, {"type": "null"}]},
            "notes": {"type": ["string", "null"], "maxLength": 500},
        },
        "required": ["id", "guest", "room", "nights"],
        "$defs": {
            "person": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "email": {"type": "string", "format": "email"},
                    "phone": {"type": "string"},
                },
                "required": ["name"],
            },
            "card": {
                "type": "object",
                "properties": {
                    "number": {"type": "string", "pattern": "^[0-9]{16}$"},
                    "expiry": {"type": "string"},
                    "holder": {"type": "string"},
                },
                "required": ["number", "expiry"],
            },
        },
    },
    indent=2,
)


def time_calls(text: str, name: str, params: dict, seeds: range, rounds: int) -> list[float]:
    """Per-call microseconds: each sample is the mean of one pass over `seeds`."""
    samples = []
    perturb = perturber.perturb
    for _ in range(rounds):
        start = time.perf_counter()
        for seed in seeds:
            perturb(text, name, params, seed)
        samples.append((time.perf_counter() - start) / len(seeds) * 1e6)
    return samples


# Distinct texts for the cold figures: more characters than a per-text memo keeps
# (perturber.memo.TEXT_BUDGET), taken in turn, so each call misses every memo (the first call on a
# new text, as a study sees it).
COLD_TEXTS = 300


def cold_texts(text: str) -> list[str]:
    """``COLD_TEXTS`` variants of ``text``: a short reference number prepended."""
    return [f"Ref {i}. {text}" for i in range(COLD_TEXTS)]


def time_cold(texts: list[str], name: str, rounds: int) -> float:
    """Median over ``rounds`` of the mean µs per call, each text once per round (seed = index)."""
    perturb = perturber.perturb
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for seed, text in enumerate(texts):
            perturb(text, name, None, seed % 50)
        samples.append((time.perf_counter() - start) / len(texts) * 1e6)
    return statistics.median(samples)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def import_time_ms(runs: int = 7) -> float:
    code = "import time; t = time.perf_counter(); import perturber; print(time.perf_counter() - t)"
    times = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
        * 1000
        for _ in range(runs)
    ]
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = cli.parser("bench", __doc__)
    parser.add_argument("--quick", action="store_true", help="fewer rounds (noisier)")
    parser.add_argument("--skip-megabyte", action="store_true")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--only", help="comma-separated entry names (default: every entry)")
    parser.add_argument("--skip-cold", action="store_true", help="no first-call-on-a-new-text figures")
    args = parser.parse_args(argv)
    rounds, seeds = (7, range(20)) if args.quick else (21, range(50))
    specs = [s for s in registry.entries() if s.category == "native" and not s.model_backed]
    if args.only:
        wanted = set(args.only.split(",")) | {"baseline"}
        specs = [s for s in specs if s.name in wanted]
    # warm every entry (lazy tables, regexes, data) before timing
    for s in specs:
        perturber.perturb(SCHEMA_1K if s.family == "schema" else SENTENCE, s.name)
    rows = []
    cold_short, cold_long = cold_texts(SENTENCE), cold_texts(PARAGRAPH)
    print(
        f"{'entry':32} {'20w med':>9} {'20w p90':>9} {'2KB med':>9} {'2KB p90':>9}"
        f" {'20w cold':>9} {'2KB cold':>9}   (µs/call)"
    )
    for s in specs:
        if s.family == "schema":
            short = time_calls(SCHEMA_1K, s.name, {}, seeds, rounds)
            long_ = short
        else:
            short = time_calls(SENTENCE, s.name, {}, seeds, rounds)
            long_ = time_calls(PARAGRAPH, s.name, {}, range(seeds.stop // 5), rounds)
        row = {
            "name": s.name,
            "family": s.family,
            "short_median": statistics.median(short),
            "short_p90": pct(short, 0.9),
            "long_median": statistics.median(long_),
            "long_p90": pct(long_, 0.9),
            "short_cold": None,
            "long_cold": None,
        }
        if s.family != "schema" and not args.skip_cold:
            row["short_cold"] = time_cold(cold_short, s.name, 3 if args.quick else 5)
            row["long_cold"] = time_cold(cold_long, s.name, 1)
        rows.append(row)
        label = s.name + (" (1 KB schema)" if s.family == "schema" else "")
        cold = "".join(
            f" {v:9.1f}" if v is not None else f" {'-':>9}" for v in (row["short_cold"], row["long_cold"])
        )
        print(
            f"{label:32} {row['short_median']:9.1f} {row['short_p90']:9.1f} "
            f"{row['long_median']:9.1f} {row['long_p90']:9.1f}{cold}"
        )
    text_rows = [r for r in rows if r["family"] != "schema"]
    families = {}
    for r in text_rows:
        families.setdefault(r["family"], []).append(r["short_median"])
    print("\nper-family median of medians (20 words, µs):")
    for fam, vals in families.items():
        print(f"  {fam:14} {statistics.median(vals):8.1f}  ({len(vals)} entries)")
    overall = statistics.median(r["short_median"] for r in text_rows)
    slowest = max(text_rows, key=lambda r: r["short_median"])
    baseline = next(r for r in rows if r["name"] == "baseline")["short_median"]
    imp = import_time_ms()
    summary = {
        "overall_median_of_medians_us": overall,
        "baseline_us": baseline,
        "slowest": slowest["name"],
        "slowest_us": slowest["short_median"],
        "import_ms": imp,
        "entries": len(rows),
    }
    over = [r["name"] for r in text_rows if r["short_median"] > 15 and r["name"] not in SLOW_OK]
    long_max = max((r for r in text_rows if r["name"] not in SLOW_OK), key=lambda r: r["long_median"])
    summary["over_15us"] = over
    summary["paragraph_max"] = {"name": long_max["name"], "us": long_max["long_median"]}
    print(f"\noverall median of medians (20 words): {overall:.1f} µs   (goal ≤ 5)")
    print(f"baseline (fixed overhead):            {baseline:.2f} µs   (goal ≤ 1)")
    print(f"slowest on 20 words: {slowest['name']} {slowest['short_median']:.1f} µs")
    print(
        f"above 15 µs on 20 words (goal: none but {', '.join(sorted(SLOW_OK))}): {', '.join(over) or 'none'}"
    )
    print(f"slowest on 2 KB: {long_max['name']} {long_max['long_median']:.1f} µs   (goal ≤ 150)")
    print(f"import perturber:                     {imp:.0f} ms")
    return _finish(args, rows, summary, specs)


def _finish(args, rows, summary, specs) -> int:
    if not args.skip_megabyte:
        big = (PARAGRAPH * 500)[:1_000_000]
        print("\n1 MB input at maximum intensity (s per call):")
        mb = {}
        for s in specs:
            params = {}
            for p in s.params:
                if p.name == s.intensity and p.le is not None:
                    params = {p.name: p.le}
            start = time.perf_counter()
            perturber.perturb(big, s.name, params, 7, limits=perturber.Limits(max_text_chars=1_000_000))
            mb[s.name] = time.perf_counter() - start
        for name, secs in sorted(mb.items(), key=lambda kv: -kv[1])[:10]:
            print(f"  {name:30} {secs:7.3f}")
        print(f"  ... all {len(mb)} entries: total {sum(mb.values()):.1f} s, max {max(mb.values()):.2f} s")
        summary["megabyte_max_s"] = max(mb.values())
        summary["megabyte_s"] = mb
    if args.json:
        pathlib.Path(args.json).write_text(
            json.dumps({"rows": rows, "summary": summary, "slow_ok": sorted(SLOW_OK)}, indent=1)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
