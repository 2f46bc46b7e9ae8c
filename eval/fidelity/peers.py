"""Peers stage: per-call latency of perturber vs glitchlings and nlpaug on the same inputs.

    python eval/run_all.py run peers [--calls 300] [--repeats 7]      (python -m fidelity.peers)

For each operation the libraries share (keyboard typos, zero-width characters, homoglyphs,
character elongation, OCR noise, word split), one 20-word sentence is perturbed ``calls`` times
per repeat; the median over repeats of the per-call time is reported, and the ratio peer /
perturber (above 1: perturber is faster). The fixed overhead is the same measurement on the
empty text (each library returns it unchanged at once). Operations a peer lacks are listed as
such. Peers are optional (``peers`` extra): a missing one is reported, never installed or
downloaded.

Writes eval/out/peers.json and eval/out/sections/peers.md.
"""

from __future__ import annotations

import importlib.metadata
import statistics
import sys
import time

import perturber
from evalkit import cli, sections

SENTENCE = (
    "The quick brown fox jumps over the lazy dog while seven small children watch "
    "from the old wooden bridge today."
)
EMPTY = ""  # the fixed overhead: every library returns at once, so this is the call's cost
SEED = 7
ROWS = (  # operation, (perturber entry, params), glitchlings factory, nlpaug factory
    (
        "keyboard typos",
        ("typos", {"count": 3}),
        lambda g: g.Typogre(rate=0.03, seed=SEED),
        lambda na: na["char"].KeyboardAug(aug_word_p=0.15, aug_char_max=1),
    ),
    ("zero-width characters", ("zero_width", {"rate": 0.1}), lambda g: g.Zeedub(rate=0.1, seed=SEED), None),
    ("homoglyphs", ("homoglyph", {"rate": 0.1}), lambda g: g.Mim1c(rate=0.1, seed=SEED), None),
    ("character elongation", ("repeated_chars", {"rate": 0.3}), lambda g: g.Hokey(seed=SEED), None),
    (
        "OCR noise",
        ("ocr_noise", {"rate": 0.1}),
        lambda g: g.Scannequin(rate=0.1, seed=SEED),
        lambda na: na["char"].OcrAug(aug_word_p=0.15),
    ),
    ("word split", ("word_split", {"count": 3}), None, lambda na: na["word"].SplitAug(aug_max=3)),
    ("character case", ("random_case", {"rate": 0.3}), None, None),
    ("whitespace", ("extra_whitespace", {"rate": 0.3}), None, None),
    ("word merge", ("word_merge", {"count": 3}), None, None),
)


def per_call_us(fn, text: str, calls: int, repeats: int) -> float:
    """Median over ``repeats`` of the mean per-call time in microseconds (after one warm-up)."""
    fn(text)
    times = []
    for _ in range(repeats):
        start = time.perf_counter_ns()
        for _ in range(calls):
            fn(text)
        times.append((time.perf_counter_ns() - start) / calls / 1000)
    return statistics.median(times)


def peers() -> tuple[dict, dict]:
    """Imported peer modules and their versions (missing ones map to None)."""
    found, versions = {}, {}
    try:
        import glitchlings

        found["glitchlings"], versions["glitchlings"] = glitchlings, importlib.metadata.version("glitchlings")
    except ImportError:
        found["glitchlings"] = versions["glitchlings"] = None
    try:
        import nlpaug.augmenter.char as nac
        import nlpaug.augmenter.word as naw

        found["nlpaug"] = {"char": nac, "word": naw}
        versions["nlpaug"] = importlib.metadata.version("nlpaug")
    except ImportError:
        found["nlpaug"] = versions["nlpaug"] = None
    return found, versions


def adapt(name: str, obj):
    if name == "glitchlings":
        return obj.corrupt
    return lambda text: obj.augment(text)


def main(argv=None) -> int:
    parser = cli.parser("peers", __doc__)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    found, versions = peers()
    assert len(SENTENCE.split()) == 20
    rows = []
    for n, (operation, (entry, params), g_make, n_make) in enumerate(ROWS, 1):

        def ours(text, entry=entry, params=params):
            return perturber.perturb(text, entry, params, SEED)

        row = {
            "operation": operation,
            "perturber_entry": entry,
            "params": params,
            "perturber_us": per_call_us(ours, SENTENCE, args.calls, args.repeats),
            "perturber_overhead_us": per_call_us(ours, EMPTY, args.calls, args.repeats),
        }
        for peer, make in (("glitchlings", g_make), ("nlpaug", n_make)):
            if make is None or found[peer] is None:
                row[peer] = None if make is None else "not installed"
                continue
            fn = adapt(peer, make(found[peer]))
            us = per_call_us(fn, SENTENCE, args.calls, args.repeats)
            overhead = per_call_us(fn, EMPTY, args.calls, args.repeats)
            row[peer] = {
                "us": us,
                "overhead_us": overhead,
                "ratio": us / row["perturber_us"],
                "overhead_ratio": overhead / row["perturber_overhead_us"],
            }
        rows.append(row)
        sections.progress("peers", n, len(ROWS), every=len(ROWS))
    data = {
        "sentence": SENTENCE,
        "overhead_text": EMPTY,
        "calls": args.calls,
        "repeats": args.repeats,
        "versions": versions,
        "rows": rows,
        "perturber_version": importlib.metadata.version("perturber"),
    }
    sections.write_outputs("peers", data, report(data))
    return 0


def cell(value) -> str:
    if value is None:
        return "no equivalent"
    if isinstance(value, str):
        return value
    return (
        f"{value['us']:.0f} µs (**×{value['ratio']:.1f}**) · overhead {value['overhead_us']:.0f} µs "
        f"(×{value['overhead_ratio']:.1f})"
    )


def report(data: dict) -> str:
    v = data["versions"]
    lines = [
        "## Peers",
        "",
        f"Per-call latency in one process, same machine, same run: perturber "
        f"{data['perturber_version']}, glitchlings {v['glitchlings'] or 'not installed'}, "
        f"nlpaug {v['nlpaug'] or 'not installed'}. Sentence (20 words): "
        f"`{data['sentence']}`; overhead = the same call on the empty text (the fixed cost of a "
        "call: every library returns it unchanged at once). "
        f"Median of {data['repeats']} repeats of {data['calls']} calls. "
        "Ratio = peer time / perturber time (above 1: perturber is faster). The rates differ "
        "in meaning between libraries; they were set to edit a few words of the sentence.",
        "",
        "| operation | perturber entry | perturber | glitchlings | nlpaug |",
        "|---|---|---|---|---|",
    ]
    for r in data["rows"]:
        lines.append(
            f"| {r['operation']} | `{r['perturber_entry']}` | {r['perturber_us']:.0f} µs · "
            f"overhead {r['perturber_overhead_us']:.0f} µs | {cell(r['glitchlings'])} "
            f"| {cell(r['nlpaug'])} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
