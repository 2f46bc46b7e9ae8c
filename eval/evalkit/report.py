"""Assemble eval/out/REPORT.md: which artifact backs each README claim, then every stage's section.

Each stage writes ``eval/out/sections/<stage>.md``; this module only concatenates them (in
:data:`ORDER`, then any other section alphabetically) under a claims table and the run summary,
so a partial run (``--stage``) keeps the sections of earlier runs. Run by ``eval/run_all.py`` after
its stages (and as ``python eval/run_all.py run report``).
"""

from __future__ import annotations

import pathlib
import sys

from evalkit import cli, paths

ORDER = ("catalog", "fidelity", "peers")

#: (README claim, where it is backed). Anchors are GitHub's heading slugs of the sections.
CLAIMS = (
    (
        "Deterministic outputs: same bytes for the same input, seed and version, across hash seeds "
        "and threads",
        "`eval/out/correctness.txt` (golden files, property tests) and `determinism.txt` in the fast run",
    ),
    (
        "Library, HTTP routes, CLI and Lambda handler give identical bytes",
        "`eval/out/correctness.txt` / `transport.txt` (transport-identity test)",
    ),
    ("The catalog's entries and its digest", "[Catalog](#catalog), `eval/out/catalog.json`"),
    (
        "In-scope perturbations keep the meaning (embedding similarity, judge when run) and score "
        "higher than out-of-scope / directional ones",
        "[Fidelity](#fidelity), `eval/out/fidelity.json`, `eval/out/fidelity_families.png`",
    ),
    (
        "Numbers (digits and spelled-out) survive invariant perturbations",
        "[Fidelity](#fidelity) per-entry table, column *numbers preserved*",
    ),
    (
        "JSON inside prompts stays valid",
        "[JSON validity](#json-validity), `eval/out/fidelity.json` `json_failures`",
    ),
    ("`synonym` v2 yield vs v1", "[`synonym` candidate yield](#synonym-candidate-yield)"),
    ("Per-call latency vs glitchlings and nlpaug", "[Peers](#peers), `eval/out/peers.json`"),
    ("Per-entry latency, 1 MB inputs", "`eval/out/latency.txt`, `eval/out/bench.json`"),
    ("HTTP throughput of one worker", "`eval/out/throughput.txt`, `eval/out/service.json`"),
    ("Lambda cost per call", "`eval/out/cost.txt` and the cost table/plot in `eval/out/`"),
)


def build(out: pathlib.Path | None = None) -> pathlib.Path:
    """Write ``REPORT.md`` into ``out`` (default ``eval/out``) and return its path."""
    out = out or paths.OUT
    sections = out / "sections"
    found = {p.stem: p for p in sections.glob("*.md")} if sections.is_dir() else {}
    names = [n for n in ORDER if n in found] + sorted(n for n in found if n not in ORDER)
    lines = [
        "# perturber evaluation report",
        "",
        "Regenerate with `python eval/run_all.py` (one stage: `--stage NAME`; CI subset: "
        "`--fast`). Sections below come from the most recent run of each stage.",
        "",
        "## Claims and the artifacts that back them",
        "",
        "| README claim | backed by |",
        "|---|---|",
    ]
    lines += [f"| {claim} | {where} |" for claim, where in CLAIMS]
    summary = out / "summary.md"
    if summary.exists():
        lines += ["", "## Last run", "", summary.read_text(encoding="utf-8").rstrip()]
    for name in names:
        lines += ["", found[name].read_text(encoding="utf-8").rstrip()]
    path = out / "REPORT.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    cli.parser("report", __doc__).parse_args(argv)
    print(f"report: {build()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
