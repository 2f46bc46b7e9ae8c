"""Before/after latency of two checkouts, measured side by side (:mod:`benchmarks.latency` alternating).

Runs this checkout's ``bench`` tool (``--skip-megabyte --json``) on the library of the previous
tree (first on its ``PYTHONPATH``) and of this one in turns,
``--rounds`` times each (noise on a shared machine hits both alike), and prints per entry the
median over rounds of each tree's per-entry medians (20-word sentence and 2 KB paragraph), the
ratio, the overall median of medians and ``baseline``. Optionally writes the table as Markdown.

    python eval/run_all.py run bench-compare /tmp/perf-prev [--rounds 3] [--quick] [--cold] [--markdown OUT]
"""

from __future__ import annotations

import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

from evalkit import cli
from evalkit.paths import ROOT


def run_bench(tree: pathlib.Path, quick: bool, cold: bool) -> dict:
    """This checkout's :mod:`benchmarks.latency` timing the library of ``tree`` (same inputs for both)."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = pathlib.Path(f.name)
    cmd = [sys.executable, "-m", "benchmarks.latency", "--skip-megabyte", "--json", str(out)]
    cmd += ["--quick"] if quick else []
    cmd += [] if cold else ["--skip-cold"]
    # run from the tree (first on sys.path for ``-m``), this checkout's benchmarks after it
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), str(ROOT / "eval")])}
    subprocess.run(cmd, check=True, cwd=tree, capture_output=True, env=env)
    data = json.loads(out.read_text())
    out.unlink()
    rows = {r["name"]: r for r in data["rows"]}
    rows["__slow_ok__"] = data["slow_ok"]
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = cli.parser("bench-compare", __doc__)
    parser.add_argument("previous", help="checkout of the previous commit (git worktree add ...)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--markdown", help="write the per-entry table here")
    parser.add_argument("--json", help="write all figures here")
    parser.add_argument("--cold", action="store_true", help="also the first-call-on-a-new-text figures")
    args = parser.parse_args(argv)
    trees = {"before": pathlib.Path(args.previous).resolve(), "after": ROOT}
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    for i in range(args.rounds):
        for label, tree in trees.items():
            print(f"round {i + 1}: {label} ({tree})", file=sys.stderr)
            runs[label].append(run_bench(tree, args.quick, args.cold))
    slow_ok = set(runs["after"][0].pop("__slow_ok__"))
    for run in runs["before"] + runs["after"]:
        run.pop("__slow_ok__", None)
    names = [n for n in runs["after"][0] if n in runs["before"][0]]

    def med(label: str, name: str, key: str) -> float:
        return statistics.median(r[name][key] for r in runs[label])

    rows = []
    for name in names:
        row = {"name": name, "family": runs["after"][0][name]["family"]}
        for label in trees:
            row[label] = med(label, name, "short_median")
            row[label + "_2kb"] = med(label, name, "long_median")
            for key in ("short_cold", "long_cold"):
                have = [r[name].get(key) for r in runs[label] if r[name].get(key) is not None]
                row[f"{label}_{key}"] = statistics.median(have) if have else None
        rows.append(row)
    text_rows = [r for r in rows if r["family"] != "schema"]
    summary = {
        label: {
            "overall_median_of_medians_us": statistics.median(r[label] for r in text_rows),
            "baseline_us": next(r[label] for r in rows if r["name"] == "baseline"),
            "max_2kb_us": max(r[label + "_2kb"] for r in text_rows),
            "max_2kb_entry": max(text_rows, key=lambda r: r[label + "_2kb"])["name"],
            "over_15us": [r["name"] for r in text_rows if r[label] > 15 and r["name"] not in slow_ok],
            "over_150us_2kb": [
                r["name"] for r in text_rows if r[label + "_2kb"] > 150 and r["name"] != "synonym"
            ],
        }
        for label in trees
    }
    header = "| entry | 20 words before (µs) | after | ratio | 2 KB before | 2 KB after |"
    if args.cold:
        header += " cold 20 words before | after | cold 2 KB before | after |"
    lines = [header, "|---" + "|---:" * (header.count("|") - 2) + "|"]
    for r in rows:
        label = r["name"] + (" (1 KB schema)" if r["family"] == "schema" else "")
        line = (
            f"| {label} | {r['before']:.1f} | {r['after']:.1f} | "
            f"{r['before'] / r['after']:.1f}× | {r['before_2kb']:.1f} | {r['after_2kb']:.1f} |"
        )
        if args.cold:
            keys = ("before_short_cold", "after_short_cold", "before_long_cold", "after_long_cold")
            line += "".join(f" {r[k]:.1f} |" if r[k] is not None else " – |" for k in keys)
        lines.append(line)
    print("\n".join(lines))
    for label, s in summary.items():
        print(
            f"{label}: overall median of medians {s['overall_median_of_medians_us']:.1f} µs, "
            f"baseline {s['baseline_us']:.2f} µs, 2 KB max {s['max_2kb_us']:.0f} µs ({s['max_2kb_entry']}); "
            f"above 15 µs (20 words): {', '.join(s['over_15us']) or 'none'}; "
            f"above 150 µs (2 KB, synonym aside): {', '.join(s['over_150us_2kb']) or 'none'}"
        )
    if args.markdown:
        pathlib.Path(args.markdown).write_text("\n".join(lines) + "\n")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"rows": rows, "summary": summary}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
