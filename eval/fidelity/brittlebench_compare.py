"""Native entries versus their brittlebench-tier counterparts on the vectors' inputs (§17.6).

    python eval/run_all.py run brittlebench [--json OUT.json]      (python -m fidelity.brittlebench_compare)

Every native entry that has a tier counterpart is run, at its defaults, on the 17 distinct inputs
of ``shared/vectors/brittlebench`` under seeds 0, 1 and 7; the tier entry runs at its defaults
(padding: both sides at 10 characters). Each pair is either identical or put under the first
§17.6 reason that explains it; the table gives the counts.
"""

from __future__ import annotations

import json
import pathlib
import re
import sys

from evalkit import cli
from evalkit.paths import ROOT

VECTORS = ROOT.parent / "shared" / "vectors" / "brittlebench"
SEEDS = (0, 1, 7)
NATIVE_PARAMS = {"quotes": {"n": 10}, "spaces": {"n": 10}, "new_lines": {"n": 10}}
TIER_PARAMS: dict[str, dict] = {}


def inputs() -> list[str]:
    seen: dict[str, None] = {}
    for line in (VECTORS / "typos.jsonl").read_text(encoding="utf-8").splitlines():
        seen.setdefault(json.loads(line)["input"], None)
    return list(seen)


def reason(name: str, text: str, native: str, tier: str) -> str:
    """The §17.6 reason that explains a difference (first matching rule)."""
    if name in ("quotes", "spaces", "new_lines"):
        return "tier pads the empty input" if text == "" else "padding shape differs"
    if name == "sequence_spaces":
        if len(tier.split()) > len(text.split()):
            return "tier inserts spaces after any code point, inside words too (native widens gaps)"
        return "both widen gaps, but different ones (global vs private generator, prob vs rate)"
    if name == "punctuation_spaces":
        if re.search(r"\d \. \d|\w ' \w|\. \w \.", tier):
            return "tier splits numbers, contractions and abbreviations; native keeps them intact"
        return "tier spaces every ASCII punctuation mark; native detaches runs"
    if name == "drop_stop_words":
        if "\n" in text and "\n" not in tier:
            return "tier flattens line breaks (and uses the NLTK list minus 43)"
        return "different stop lists (NLTK minus 43 vs the 28-word first-party list)"
    if name == "typos":
        return "different typo models (augly/nlpaug + wordfreq filter vs first-party edit model)"
    if name in ("word_merge", "word_split"):
        if re.sub(r"[ \t]+", " ", text.strip()) != text or "\r" in text:
            return "tier collapses spacing / line endings and respaces punctuation (augly)"
        return "different choice of words and counts (augly ~30% per line vs native count)"
    return "other"


def compare() -> dict:
    import perturber
    from perturber import registry

    texts = inputs()
    table = {}
    for spec in registry.entries():
        if spec.category != "brittlebench":
            continue
        entry = {"pairs": 0, "identical": 0, "reasons": {}}
        try:
            native_spec = registry.get(spec.name)
        except perturber.UnknownPerturbation:
            entry["not_comparable"] = "no native entry of that name in this build"
            table[spec.name] = entry
            continue
        if native_spec.model_backed:
            entry["not_comparable"] = "native entry is model-backed (compose mode)"
            table[spec.name] = entry
            continue
        for seed in SEEDS:
            for text in texts:
                native = perturber.perturb(text, spec.name, NATIVE_PARAMS.get(spec.name), seed)
                tier = perturber.perturb(
                    text, spec.name, TIER_PARAMS.get(spec.name), seed, category="brittlebench"
                )
                entry["pairs"] += 1
                if native == tier:
                    entry["identical"] += 1
                else:
                    why = reason(spec.name, text, native, tier)
                    entry["reasons"][why] = entry["reasons"].get(why, 0) + 1
        table[spec.name] = entry
    return table


def markdown(table: dict) -> str:
    lines = ["| name | pairs | identical | differ | reasons (count) |", "|---|---|---|---|---|"]
    for name, e in table.items():
        if "not_comparable" in e:
            lines.append(f"| {name} | 0 | - | - | not compared: {e['not_comparable']} |")
            continue
        why = "; ".join(f"{r} ({n})" for r, n in sorted(e["reasons"].items(), key=lambda x: -x[1]))
        lines.append(
            f"| {name} | {e['pairs']} | {e['identical']} | {e['pairs'] - e['identical']} | {why or '-'} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = cli.parser("brittlebench", __doc__)
    parser.add_argument("--json", help="also write the counts as JSON")
    args = parser.parse_args(argv)
    if not VECTORS.is_dir():
        print(f"no vectors at {VECTORS}", file=sys.stderr)
        return 2
    table = compare()
    sys.stdout.write(markdown(table))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
