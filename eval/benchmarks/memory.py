"""Memory of one process under the deterministic entries: hostile long words, ordinary texts, and
the Lambda handler in-process (`make bench`).

    python eval/run_all.py run bench-memory [--scenario adversarial,steady,lambda] [--texts N] [--json OUT]

The library measured is the one the tool's ``PYTHONPATH`` finds first: this checkout, or another
tree's given as ``PYTHONPATH=/tmp/prev python eval/run_all.py run bench-memory``.

Each scenario runs in a fresh interpreter and reports its resident set size (RSS, MB) after the
imports, after each tenth of its texts, and its peak (``VmHWM``: what Lambda reports as "Max
Memory Used"), plus how full the memos are (``perturber.memo.memo_usage``):

  adversarial  texts of ``"Please <20,000 random letters> now."`` and texts of 500 distinct
               39-letter words (the longest a per-word memo keeps), every native deterministic
               entry on each, seed = text index;
  steady       ordinary ~4,000-character texts (word problems and filler sentences, shuffled),
               every entry on each;
  lambda       the Lambda handler (functions/api/handler.py) in-process: one API Gateway event
               per (text, entry) through ``POST /perturb/native/{name}``, half the texts
               adversarial and half ordinary.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import subprocess
import sys

from evalkit import cli
from evalkit.paths import ROOT

SCENARIOS = ("adversarial", "steady", "lambda")
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def rss_mb() -> tuple[float, float]:
    """(current RSS, peak RSS) of this process in MB, from /proc/self/status."""
    fields = {}
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0]) / 1024
    return fields["VmRSS"], fields["VmHWM"]


def long_word_text(rnd: random.Random) -> str:
    """``"Please <20,000 random letters> now."``"""
    return "Please " + "".join(rnd.choices(LETTERS, k=20_000)) + " now."


def many_words_text(rnd: random.Random) -> str:
    """500 distinct random 39-letter words (each one just short of the per-word memo limit)."""
    return " ".join("".join(rnd.choices(LETTERS, k=39)) for _ in range(500)) + "."


def adversarial_texts(count: int) -> list[str]:
    rnd = random.Random(19)
    return [long_word_text(rnd) if i % 2 == 0 else many_words_text(rnd) for i in range(count)]


def ordinary_texts(count: int, chars: int = 4000) -> list[str]:
    """Distinct texts of about ``chars`` characters: shuffled word problems and filler sentences."""
    from perturber.data import load_table

    problems = []
    with open(ROOT / "examples" / "word_problems.jsonl", encoding="utf-8") as fh:
        for line in fh:
            problems.append(json.loads(line)["question"])
    pool = problems + list(load_table("b02_filler")["sentences"])
    rnd = random.Random(4000)
    out = []
    for _ in range(count):
        parts: list[str] = []
        while sum(map(len, parts)) < chars:
            parts.append(rnd.choice(pool))
        out.append(" ".join(parts)[:chars])
    return out


def entry_names(with_synonym: bool) -> list[str]:
    import perturber

    return [
        e["name"]
        for e in perturber.list_perturbations(category="native", model_backed=False)
        if with_synonym or e["name"] != "synonym"
    ]


def has_nltk_data() -> bool:
    from perturber.resources import nltk_data

    try:
        nltk_data.tagger()
        nltk_data.wordnet()
    except Exception:
        return False
    return True


def run_library(texts: list[str], names: list[str]) -> list[float]:
    """Every entry on every text in-process; the RSS after each tenth of the texts."""
    import perturber

    samples = []
    step = max(1, len(texts) // 10)
    for i, text in enumerate(texts):
        for name in names:
            perturber.perturb(text, name, seed=i)
        if (i + 1) % step == 0:
            samples.append(rss_mb()[0])
    return samples


def run_lambda(texts: list[str], names: list[str]) -> list[float]:
    """One ``POST /perturb/native/{name}`` event per (text, entry) through the Lambda handler."""
    os.environ.setdefault("NLTK_DATA", str(ROOT / "build" / "nltk_data"))
    from functions.api.events import LocalContext, http_api_event
    from functions.api.handler import handler

    samples = []
    step = max(1, len(texts) // 10)
    for i, text in enumerate(texts):
        for name in names:
            body = json.dumps({"texts": [text], "seed": i}).encode()
            event = http_api_event(
                "POST", f"/perturb/native/{name}", headers={"content-type": "application/json"}, body=body
            )
            response = handler(event, LocalContext())
            if response["statusCode"] != 200:
                raise SystemExit(f"{name}: HTTP {response['statusCode']}: {response.get('body', '')[:300]}")
        if (i + 1) % step == 0:
            samples.append(rss_mb()[0])
    return samples


def child(scenario: str, count: int) -> dict:
    """Run one scenario in this process and return its figures."""
    import perturber

    try:
        from perturber.memo import memo_usage
    except ImportError:  # a tree from before the memo registry
        memo_usage = dict
    names = entry_names(with_synonym=has_nltk_data())
    if scenario == "adversarial":
        texts = adversarial_texts(count)
    elif scenario == "steady":
        texts = ordinary_texts(count)
    else:
        half = count // 2
        texts = [t for pair in zip(adversarial_texts(half), ordinary_texts(half)) for t in pair]
    perturber.perturb("warm up the imports and tables.", "baseline")
    start = rss_mb()[0]
    samples = (run_lambda if scenario == "lambda" else run_library)(texts, names)
    now, peak = rss_mb()
    usage = memo_usage()
    return {
        "scenario": scenario,
        "texts": len(texts),
        "entries": len(names),
        "rss_start_mb": round(start, 1),
        "rss_samples_mb": [round(x, 1) for x in samples],
        "rss_end_mb": round(now, 1),
        "peak_mb": round(peak, 1),
        "memo_entries": sum(u[0] for u in usage.values()),
        "memo_key_chars": sum(u[1] for u in usage.values()),
    }


def measure(scenario: str, count: int) -> dict:
    """``child(scenario, count)`` in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.memory", "--child", scenario, "--texts", str(count)],
        capture_output=True,
        text=True,
        cwd=ROOT / "eval",  # first on sys.path for ``-m``: the caller's PYTHONPATH picks the library
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"{scenario} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout)


def main(argv: list[str] | None = None) -> None:
    ap = cli.parser("bench-memory", __doc__)
    ap.add_argument("--scenario", default=",".join(SCENARIOS))
    ap.add_argument("--texts", type=int, default=100)
    ap.add_argument("--json")
    ap.add_argument("--child", choices=SCENARIOS, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        print(json.dumps(child(a.child, a.texts)))
        return
    rows = [measure(s, a.texts) for s in a.scenario.split(",")]
    print(f"{'scenario':12} {'texts':>5} {'start MB':>8} {'end MB':>7} {'peak MB':>7}  RSS per tenth")
    for r in rows:
        tenths = " ".join(f"{x:.0f}" for x in r["rss_samples_mb"])
        print(
            f"{r['scenario']:12} {r['texts']:5} {r['rss_start_mb']:8.1f} {r['rss_end_mb']:7.1f}"
            f" {r['peak_mb']:7.1f}  {tenths}"
        )
    if a.json:
        pathlib.Path(a.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
