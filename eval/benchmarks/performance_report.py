"""docs/performance.md from the figures of `make bench` (the ``bench-side`` tool writes them).

    python eval/run_all.py run bench-report --out docs/performance.md eval/out/bench_*.json

Inputs: side-by-side runs (``bench_study.json``, ``bench_cold-questions.json``,
``bench_cold-paragraphs.json``, ``bench_warm.json``), or ``bench.json`` (our figures alone, when no
reference was available), and ``bench_memory.json``. The memo table comes from the registry
itself (``perturber.memo``), the reasons for entries above the reference from ``REASONS``.
"""

from __future__ import annotations

import datetime
import json
import os
import pathlib
import platform
import re
import statistics

from evalkit import cli
from evalkit.paths import ROOT
from perturber import native

# Why an entry is still slower than the reference, by the mechanism at fault (shared by entries).
_TOKEN_MODEL = (
    "the reference splits on spaces; this entry applies the §1.6 token model (joiners, bound "
    "tokens, protected spans) and finds its sites with a whole-text class scan "
    "(`perturber/text/bits.py`, or the byte lanes of `perturber/text/byte_lanes.py`) that costs "
    "a fair part of the reference's whole call on a new text"
)
_SENTENCES = (
    "it needs the §1.9 sentence splitter (Table A13 abbreviations, one-letter tokens, decimals, "
    "protected spans): Python work per terminator that the reference, which splits on `. `, does not do"
)
_DRAWS = (
    "at its default rate it draws hundreds of sites with the frozen partial Fisher-Yates of "
    "docs/spec/catalog.md §1.4, about 0.2 µs a draw in Python; the reference draws about as many"
)
_SEEDING = (
    "a new seed costs about 4 µs (`random.Random(seed)` of §1.4 and its first words), which the "
    "reference pays inside its fixed cost of about 18 µs a call"
)
REASONS = {
    "title_case": "its token walk runs in `perturber._native`, but the reference is one "
    "`str.title()`; keeping the outcome for the next seeds (`memoise_outcome`: hashing and storing "
    "the text) adds about 1 µs, which a study gets back on its second seed",
    "typos": "its scan, each word's §5.2 plan and draws, and the splice run in `perturber._native`; "
    + _SEEDING
    + ", and the choice of the words (the frozen §1.4 sample) runs there too",
    "realistic_typos": "its candidates and free tokens come from `perturber._native`; "
    + _SEEDING
    + "; then the eleven §5.1 mechanisms of each chosen word, in Python",
    "repeated_chars": "its sites, the frozen §1.4 sample of them, the repeat counts and the splice "
    "run in `perturber._native`; for a `!`/`?` run " + _SENTENCES,
    "drop_stop_words": "on an ASCII text its stop words, the sentence guard and the whitespace rule of "
    "§5.10 run in `perturber._native`; on other text " + _SENTENCES + " (the sentence guard)",
    "punctuation_drop": _SENTENCES,
    "sequence_spaces": "at its default rate it widens about half of the ~400 space runs of a 2 KB "
    "paragraph: about 200 draws of the §1.4 sample (in `perturber._native`), 200 more for the "
    "widths, and a splice of 200 insertions",
    "line_wrap": "it wraps by display width per line and keeps fences, lists and protected spans (§7.3)",
    "number_format": "it applies the nine §1.10 exclusions to every numeric literal",
    "spelling_uk": _TOKEN_MODEL + "; plus the after-a-number rule of Table A7",
    "date_unit": "it parses every date form of Table A19 and checks it against the calendar",
    "tabs_for_spaces": "it keeps protected spans and glued clusters out (§7.2)",
    "zero_width": _DRAWS,
    "leetspeak": _DRAWS,
    "disemvowel": _DRAWS,
    "diacritics_add": _DRAWS,
    "random_case": _DRAWS,
    "homoglyph": _DRAWS,
    "upper_case": "it keeps protected spans (URLs, code) as they are",
    "strip_markdown": "it parses the inline Markdown grammar (§7.5) instead of deleting characters",
}
TITLES = {
    "study": "Study: every entry, seeds 0, 1 and 2, on each GSM8K question",
    "cold-questions": "Cold: each GSM8K question once, a new seed each call",
    "cold-paragraphs": "Cold: each 2 KB paragraph once, a new seed each call",
    "warm": "Warm: one question, 500 seeds (the per-text memos answer)",
}


def load(paths: list[str]) -> tuple[dict, dict | None, list | None]:
    runs: dict = {}
    ours_alone = memory = None
    for p in paths:
        data = json.loads(pathlib.Path(p).read_text(encoding="utf-8"))
        if isinstance(data, list):
            memory = data
        elif "summary" in data:
            ours_alone = data
        else:
            runs[data["mode"]] = data
    return runs, ours_alone, memory


def summary_rows(runs: dict) -> list[str]:
    out = ["| workload | ours | reference | ratio | entries above 1.0× |", "|---|---|---|---|---|"]
    for mode in TITLES:
        run = runs.get(mode)
        if run is None:
            continue
        rows = run["rows"]
        slower = ", ".join(f"{r['name']} {r['ratio']:.2f}" for r in rows if r["ratio"] > 1) or "none"
        if mode == "study":
            ours = statistics.mean(r["ours_us"] for r in rows)
            ref = statistics.mean(r["ref_us"] for r in rows)
            out.append(
                f"| {TITLES[mode]} | {ours:.2f} µs a case | {ref:.2f} µs a case | "
                f"**{ours / ref:.2f}** (mean cost) | {slower} |"
            )
        else:
            median = statistics.median(r["ratio"] for r in rows)
            out.append(f"| {TITLES[mode]} | | | **{median:.2f}** (median) | {slower} |")
    return out


def entry_table(run: dict) -> list[str]:
    out = ["| entry | ours µs | reference µs | ratio |", "|---|---:|---:|---:|"]
    for r in sorted(run["rows"], key=lambda r: r["ratio"], reverse=True):
        ratio = f"**{r['ratio']:.2f}**" if r["ratio"] > 1 else f"{r['ratio']:.2f}"
        out.append(f"| {r['name']} | {r['ours_us']:.2f} | {r['ref_us']:.2f} | {ratio} |")
    return out


def reasons(runs: dict) -> list[str]:
    above: dict[str, list[str]] = {}
    for mode, run in runs.items():
        for r in run["rows"]:
            if r["ratio"] > 1:
                above.setdefault(r["name"], []).append(f"{mode} {r['ratio']:.2f}")
    if not above:
        return ["No entry is slower than the reference in any mode of this run."]
    return [
        f"* **{name}** ({'; '.join(modes)}): {REASONS.get(name, 'within the noise of this machine')}."
        for name, modes in sorted(above.items())
    ]


def memo_section(memory: list | None) -> list[str]:
    from perturber import core, memo, registry, rng

    for spec in registry.entries():  # every entry module imported, so every memo registered
        if spec.memoise_outcome:
            core.outcome_memo(spec)  # made on first use otherwise
    groups: dict[tuple, list[str]] = {}
    for m in memo._MEMOS:
        kind = "text" if m.sized and m.max_size == memo.TEXT_MAX_CHARS else "word" if m.sized else "value"
        groups.setdefault((kind, m.max_size, m.budget), []).append(m.name.removeprefix("perturber."))
    out = [
        "Every cache keyed by a text, a word or a small value is a *memo* of `perturber/memo.py`: it "
        "skips keys longer than its limit and evicts its oldest entries once its keys add up to its "
        "budget; `perturber.clear_caches()` empties them all. Tables loaded once (`loaded_once`, "
        "`data.load_table`: the catalog's data files as look-up structures) are not memos: their "
        "size is fixed by the package, and they stay.",
        "",
        "| memos | key | longest key kept | budget per memo |",
        "|---|---|---:|---:|",
    ]
    for (kind, limit, budget), names in sorted(groups.items()):
        key = {"text": "a text", "word": "a word", "value": "a small value (count, seed, character)"}[kind]
        unit = "entries" if kind == "value" else "characters"
        shown = ", ".join(f"`{n}`" for n in sorted(names))
        out.append(
            f"| {len(names)}: {shown} | {key} | {limit if kind != 'value' else '–'} | {budget:,} {unit} |"
        )
    text_memos = [m for m in memo._MEMOS if m.sized and m.max_size == memo.TEXT_MAX_CHARS]
    word_memos = [m for m in memo._MEMOS if m.sized and m.max_size != memo.TEXT_MAX_CHARS]
    out += [
        "",
        f"So the memos hold at most {len(text_memos)} × {memo.TEXT_BUDGET:,} characters of text and "
        f"{len(word_memos)} × {memo.WORD_BUDGET:,} characters of words, plus the small-value memos "
        f"(the largest: `rng.first_samples`, {rng._FIRST_SAMPLES.budget:,} samples of at most "
        f"{rng._CACHED_WORDS} indices kept as 4-byte integers; `rng.first_batches`, "
        f"{rng._FIRST_BATCHES.budget:,} seeds' first {rng._CACHED_WORDS} words; `rng.tails`, "
        f"{rng._TAILS.budget} seeds' next {rng._TAIL_WORDS:,} words: about 3.5 MB together when full).",
    ]
    if memory:
        out += [
            "",
            "Measured by the `bench-memory` tool (resident set size of one process, MB; every native "
            "deterministic entry on each text):",
            "",
            "| scenario | texts | after the imports | at the end | peak | per tenth of the run |",
            "|---|---:|---:|---:|---:|---|",
        ]
        for r in memory:
            tenths = " ".join(f"{x:.0f}" for x in r["rss_samples_mb"])
            out.append(
                f"| {r['scenario']} | {r['texts']} | {r['rss_start_mb']:.0f} | {r['rss_end_mb']:.0f} | "
                f"{r['peak_mb']:.0f} | {tenths} |"
            )
        lam = next((r for r in memory if r["scenario"] == "lambda"), None)
        configured = lambda_memory_mb()
        if lam and configured:
            headroom = 1 - lam["peak_mb"] / configured
            out += [
                "",
                f"The Lambda function is configured with {configured} MB (`MemorySize` in "
                f"`infra/template.yaml` and `serverless.yml`): its peak here, {lam['peak_mb']:.0f} MB, "
                f"leaves {headroom:.0%} of it free.",
            ]
        out += [
            "",
            "`adversarial`: texts of `Please <20,000 random letters> now.` and of 500 distinct "
            "39-letter words; `steady`: ordinary ~4,000-character texts; `lambda`: the Lambda handler "
            "in-process, one event per (text, entry), half of each. The start figure includes the "
            "NLTK data (WordNet and the tagger) when it is installed.",
        ]
    return out


def lambda_memory_mb() -> int | None:
    """The default ``MemorySize`` of the SAM template."""
    template = ROOT / "infra" / "template.yaml"
    found = re.search(
        r"MemorySize:\n(?:\s+\w+:.*\n)*?\s+Default: (\d+)", template.read_text(encoding="utf-8")
    )
    return int(found.group(1)) if found else None


def render(runs: dict, ours_alone: dict | None, memory: list | None) -> str:
    when = datetime.date.today().isoformat()
    machine = (
        f"{os.cpu_count()} CPUs, {platform.system()} {platform.machine()}, Python {platform.python_version()}"
    )
    lines = [
        "# Performance",
        "",
        f"Generated by `make bench` (`python eval/run_all.py run bench-side`, which ends with the `bench-report` tool) on {when}: "
        f"{machine}. Every figure is per call, in microseconds, measured in one run in which this "
        "library and the reference implementation (IBM/perturber, built from its public source) "
        "alternate entry by entry, each (interpreter, entry, round) in a fresh process "
        "(the team's side-by-side timing tool); a figure is the smallest of the per-round medians (study: "
        "of the per-round means), and the ratio is ours / reference. The machine is shared: read ratios "
        "between about 0.8 and 1.25 as ties. "
        + (
            "This library ran with `perturber._native`, its C module (the wheels for Linux x86_64 "
            "and aarch64 carry it; elsewhere its loops (token walks, word look-ups, the sample "
            "of k of n sites) run "
            "their pure-Python twins, slower on a new text, with the same outputs)."
            if native.c is not None
            else "This library ran without `perturber._native` (pure Python throughout)."
        ),
        "",
    ]
    if runs:
        lines += ["## Summary", "", *summary_rows(runs), ""]
        study = runs.get("study")
        if study and study.get("left_out"):
            lines += [
                f"The study leaves out {len(study['left_out'])} of the questions (indices "
                f"{', '.join(map(str, study['left_out']))}): the reference raises on them (its "
                "`confusable_words` with seed 1).",
                "",
            ]
        lines += ["## Entries still above 1.0×, and why", "", *reasons(runs), ""]
        for mode in TITLES:
            if mode in runs:
                lines += [f"## {TITLES[mode]}", "", *entry_table(runs[mode]), ""]
    elif ours_alone:
        s = ours_alone["summary"]
        lines += [
            "No reference was available for this run: our figures alone (the `bench` tool).",
            "",
            f"Median of the per-entry medians on 20 words: {s['overall_median_of_medians_us']:.1f} µs; "
            f"`baseline`: {s['baseline_us']:.2f} µs; `import perturber`: {s['import_ms']:.0f} ms.",
            "",
        ]
    lines += ["## What is cached, and the memory bound", "", *memo_section(memory), ""]
    lines += [
        "## Reproducing",
        "",
        "The side-by-side figures need three things this repository does not ship: the reference",
        "implementation installed in a virtualenv of its own (IBM/perturber, from its public source),",
        "the side-by-side timing tool and its GSM8K texts. The team keeps the last two, and the",
        "reference's source, in a `shared/` folder beside the repository, where `make bench` finds them;",
        "elsewhere, give their paths with `PERTURBER_SIDE_BY_SIDE`, `PERTURBER_BENCH_TEXTS` and",
        "`PERTURBER_REF_PYTHON` (or `REF_PYTHON=` on the `make` line).",
        "",
        "```bash",
        "make bench      # side by side when the reference is found, else this library's own figures",
        "```",
        "",
        "Without them, `make bench` times this library alone (the `bench` tool: warm and cold figures",
        "per entry, `baseline`, `import perturber`, 1 MB inputs), then memory, and writes this page.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = cli.parser("bench-report", __doc__)
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    pathlib.Path(a.out).write_text(render(*load(a.inputs)), encoding="utf-8")


if __name__ == "__main__":
    main()
