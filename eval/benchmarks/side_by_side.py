"""perturber side by side with the reference implementation, then docs/performance.md (`make bench`).

    python eval/run_all.py run bench-side [--ref PYTHON] [--tool SIDE_BY_SIDE.py] [--texts DIR]
                                          [--rounds 5] [--modes study,cold-questions,cold-paragraphs,warm]

The comparison needs three things outside this repository, found by default next to it (or given
by flag or environment variable):

* the side-by-side tool, ``../shared/bench/side_by_side.py`` (``PERTURBER_SIDE_BY_SIDE``), which
  runs both libraries in alternation, each (interpreter, entry, round) in a fresh process;
* its texts, ``../shared/bench/texts/`` (``PERTURBER_BENCH_TEXTS``): GSM8K questions and 2 KB
  paragraphs;
* an interpreter with the reference installed (``PERTURBER_REF_PYTHON``, default
  ``../ref-venv/bin/python``), made outside the repository::

      python3.11 -m venv ../ref-venv
      ../ref-venv/bin/pip install ../shared/anchors/ibm_perturber

When one is missing, this runs :mod:`benchmarks.latency` (our own figures) instead. Either way it
then measures memory (:mod:`benchmarks.memory`) and writes ``docs/performance.md`` with
:mod:`benchmarks.performance_report`. Figures go to ``eval/out/bench_*.json``.

The side-by-side tool starts both interpreters with the environment it was given, so it runs
without ``PYTHONPATH`` (else the reference's interpreter would import this checkout): "ours" is
the package this interpreter imports on its own, which must be this checkout (an editable
install, as ``make venv`` makes).

Before the side-by-side runs, this package is compiled to bytecode (``compileall``), as the
reference's installation compiled its own.

The study mode runs every entry with seeds 0, 1 and 2 on each text; texts on which the reference
raises for one of those calls (question 159: its ``confusable_words`` raises ``KeyError`` with
seed 1) are left out of the study for both libraries, and the report says how many.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

from evalkit import cli
from evalkit.paths import OUT, ROOT
from perturber.settings import read

SHARED = ROOT.parent / "shared" / "bench"
QUESTIONS = "gsm8k_test_questions.json"
PARAGRAPHS = "gsm8k_test_paragraphs_2kb.json"
# mode name -> (side_by_side mode, texts file)
MODES = {
    "study": ("study", QUESTIONS),
    "cold-questions": ("cold", QUESTIONS),
    "cold-paragraphs": ("cold", PARAGRAPHS),
    "warm": ("warm", QUESTIONS),
}

# Runs under the reference interpreter: the indices of the texts on which one of its entries
# (the ones both catalogs share) raises with seed 0, 1 or 2.
PROBE = r"""
import json, sys, perturber
names, path = json.loads(sys.argv[1]), sys.argv[2]
bad = []
for i, text in enumerate(json.load(open(path, encoding="utf-8"))):
    for name in names:
        try:
            for seed in (0, 1, 2):
                perturber.perturb(text, name, seed=seed)
        except Exception:
            bad.append(i)
            break
print(json.dumps(bad))
"""


# Runs under either interpreter: its native, deterministic entries without a model (as the tool
# selects them).
LIST = r"""
import json, perturber
def get(e, k, d=None):
    return e.get(k, d) if isinstance(e, dict) else getattr(e, k, d)
print(json.dumps(sorted(get(e, "name") for e in perturber.list_perturbations()
      if get(e, "category", "native") == "native" and not get(e, "model_backed", False)
      and get(e, "kind", "deterministic") in ("deterministic", None) and "model" not in (get(e, "params") or {}))))
"""


def shared_entries(ours: str, ref: str) -> list[str]:
    """The entries the tool compares: those of both catalogs, minus ``synonym`` (the reference
    downloads data for it)."""
    names = [set(json.loads(_run(py, LIST))) for py in (ours, ref)]
    return sorted(names[0] & names[1] - {"synonym"})


def bare_environment() -> dict[str, str]:
    """This environment without ``PYTHONPATH``: each interpreter imports its own installed package."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def _run(python: str, code: str, *args: str) -> str:
    out = subprocess.run(
        [python, "-P", "-c", code, *args], capture_output=True, text=True, cwd="/tmp", env=bare_environment()
    )
    if out.returncode != 0:
        raise SystemExit(f"{python} failed:\n{out.stderr[-2000:]}")
    return out.stdout


def study_texts(ref: str, names: list[str], texts: pathlib.Path) -> tuple[pathlib.Path, list[int]]:
    """The questions the reference answers for every entry and seed 0-2, in a file of their own
    (``eval/out``), and the indices left out."""
    bad = json.loads(_run(ref, PROBE, json.dumps(names), str(texts)))
    kept = [t for i, t in enumerate(json.loads(texts.read_text(encoding="utf-8"))) if i not in set(bad)]
    path = OUT / "study_texts.json"
    path.write_text(json.dumps(kept), encoding="utf-8")
    return path, bad


def side_by_side(
    tool: pathlib.Path, ref: str, mode: str, texts: pathlib.Path, rounds: int, out: pathlib.Path
) -> None:
    cmd = [sys.executable, str(tool), sys.executable, ref, "--mode", mode, "--texts", str(texts)]
    cmd += ["--rounds", str(rounds), "--json", str(out)]
    print("+", " ".join(cmd[1:]), flush=True)
    subprocess.run(cmd, check=True, env=bare_environment())


def ours_is_this_checkout() -> None:
    """Stop with a clear message unless this interpreter, without ``PYTHONPATH``, imports this
    checkout's package (the one the figures are published for)."""
    found = _run(sys.executable, "import perturber; print(perturber.__file__)").strip()
    if pathlib.Path(found).resolve().parent != ROOT / "perturber":
        raise SystemExit(
            f"{sys.executable} imports perturber from {found}, not from this checkout ({ROOT}): "
            "run it from this checkout's virtualenv (make venv), whose install is editable"
        )


def compile_bytecode() -> None:
    """Compile this package's modules to bytecode, as installing the reference did for its own:
    an editable checkout run with ``PYTHONDONTWRITEBYTECODE`` would otherwise compile every
    module again in each of the tool's fresh processes, and charge it to the first call."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "perturber")], check=True)


def main(argv: list[str] | None = None) -> int:
    ap = cli.parser("bench-side", __doc__)
    ap.add_argument("--ref", default=read("PERTURBER_REF_PYTHON") or str(ROOT.parent / "ref-venv/bin/python"))
    ap.add_argument("--tool", default=read("PERTURBER_SIDE_BY_SIDE") or str(SHARED / "side_by_side.py"))
    ap.add_argument("--texts", default=read("PERTURBER_BENCH_TEXTS") or str(SHARED / "texts"))
    ap.add_argument(
        "--rounds",
        type=int,
        default=5,
        help="rounds per entry (each figure: the smallest per-round median; more rounds, less of a shared machine's noise)",
    )
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--docs", default=str(ROOT / "docs" / "performance.md"))
    a = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    tool, texts = pathlib.Path(a.tool), pathlib.Path(a.texts)
    missing = [
        str(p) for p in (tool, texts / QUESTIONS, texts / PARAGRAPHS, pathlib.Path(a.ref)) if not p.exists()
    ]
    inputs = []
    if missing:
        print(f"no side-by-side run (missing: {', '.join(missing)}); our own figures only", flush=True)
        subprocess.run(
            [sys.executable, "-m", "benchmarks.latency", "--json", str(OUT / "bench.json")], check=True
        )
        inputs.append(OUT / "bench.json")
    else:
        ours_is_this_checkout()
        compile_bytecode()
        names = shared_entries(sys.executable, a.ref)
        for mode in a.modes.split(","):
            kind, file = MODES[mode]
            source = texts / file
            meta = {"mode": mode, "texts": file}
            if kind == "study":
                source, bad = study_texts(a.ref, names, source)
                meta["left_out"] = bad
            out = OUT / f"bench_{mode}.json"
            side_by_side(tool, a.ref, kind, source, a.rounds, out)
            figures = json.loads(out.read_text(encoding="utf-8"))
            out.write_text(json.dumps({**figures, **meta}, indent=1), encoding="utf-8")
            inputs.append(out)
    memory = OUT / "bench_memory.json"
    subprocess.run([sys.executable, "-m", "benchmarks.memory", "--json", str(memory)], check=True)
    inputs.append(memory)
    report = [sys.executable, "-m", "benchmarks.performance_report", "--out", a.docs, *map(str, inputs)]
    subprocess.run(report, check=True)
    print(f"wrote {a.docs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
