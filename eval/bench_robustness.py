"""Measurements of the robustness harness (README "Robustness harness: measured").

    python eval/bench_robustness.py suite --examples 10000 [--ladder]   # cases/s, peak RSS
    python eval/bench_robustness.py evaluate --cases 320 --concurrency 8  # 200 ms server latency
    python eval/bench_robustness.py report --results 100000               # report rendering time

Each prints one JSON line. Peak memory is the process's max RSS (ru_maxrss), measured in a fresh
process per run so runs do not mix.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import random
import resource
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

# Twenty deterministic entries over five families (none model-backed).
TWENTY = (
    "typos,realistic_typos,repeated_chars,word_merge,word_split,random_case,upper_case,"
    "leetspeak,disemvowel,homoglyph,zero_width,ocr_noise,extra_whitespace,tabs_for_spaces,"
    "line_wrap,spaces,quotes,new_lines,question_to_end,irrelevant_trailer"
)


def _examples(n: int, path: pathlib.Path) -> None:
    rows = [json.loads(line) for line in (ROOT / "examples/word_problems.jsonl").read_text().splitlines()]
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            row = dict(rows[i % len(rows)], id=f"x{i}")
            fh.write(json.dumps(row) + "\n")


def bench_suite(args) -> dict:
    from perturber.robustness.suite import write_suite

    tmp = pathlib.Path(tempfile.mkdtemp())
    _examples(args.examples, tmp / "ex.jsonl")
    t0 = time.perf_counter()
    stats = write_suite(
        str(tmp / "ex.jsonl"),
        str(tmp / "cases.jsonl"),
        field="question",
        answer_field="answer",
        id_field="id",
        select=f"name={args.names}",
        ladder_scan=args.ladder,
    )
    dt = time.perf_counter() - t0
    return {
        "bench": "suite",
        "examples": args.examples,
        "perturbations": len(args.names.split(",")),
        "ladder": args.ladder,
        "cases": stats.cases,
        "passed": stats.passed,
        "seconds": round(dt, 1),
        "cases_per_s": round(stats.cases / dt),
        "peak_rss_mb": round(_rss_mb()),
    }


_SERVER = """
import sys, time
sys.path.insert(0, {tests!r})
from llm_server import LLMServer, Reply
server = LLMServer().start()
server.script(default=lambda body: Reply(content="#### 42", delay={latency!r}))
print(server.base_url, flush=True)
sys.stdin.read()
print(server.max_in_flight, flush=True)
"""


def bench_evaluate(args) -> dict:
    """The test server runs in its own process (its own interpreter and GIL), as a real one would."""
    import subprocess

    from perturber.robustness.evaluate import EndpointModel, evaluate

    child = subprocess.Popen(
        [sys.executable, "-c", _SERVER.format(tests=str(ROOT / "tests"), latency=args.latency)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    base_url = child.stdout.readline().strip()
    cases = [
        {
            "case_id": f"c{i}",
            "example_id": f"e{i % 10}",
            "original": f"q{i % 10}",
            "perturbed": f"q{i} perturbed",
            "expectation": "invariant",
            "answer": 42,
            "name": "x",
            "family": "f",
        }
        for i in range(args.cases)
    ]
    out = pathlib.Path(tempfile.mkdtemp()) / "r.jsonl"
    model = EndpointModel(base_url, "m", api_key="", concurrency=args.concurrency)
    t0 = time.perf_counter()
    summary = evaluate(cases, model, out, concurrency=args.concurrency)
    dt = time.perf_counter() - t0
    max_in_flight, _ = child.communicate("", timeout=30)
    return {
        "bench": "evaluate",
        "latency_s": args.latency,
        "concurrency": args.concurrency,
        "calls": summary.calls,
        "seconds": round(dt, 2),
        "calls_per_s": round(summary.calls / dt, 1),
        "ideal_calls_per_s": round(args.concurrency / args.latency, 1),
        "max_in_flight": int(max_in_flight.strip() or 0),
        "errors": dict(summary.errors),
    }


def bench_report(args) -> dict:
    from perturber.robustness.io import write_jsonl
    from perturber.robustness.report import write_report

    rng = random.Random(7)
    names = TWENTY.split(",")
    fams = ["Input Quality", "Structural/Format", "Context Load", "Context Interference"]
    tmp = pathlib.Path(tempfile.mkdtemp())

    def records():
        for e in range(args.results // 20):
            yield {
                "kind": "original",
                "key": f"orig:{e}",
                "example_id": str(e),
                "sim": 1.0,
                "output": "#### 4",
                "model": "m",
            }
        for i in range(args.results):
            level = rng.randint(1, 5)
            sim = float(rng.random() > 0.1 * level)
            yield {
                "kind": "case",
                "key": f"c{i}",
                "case_id": f"{i:016x}",
                "example_id": str(i % (args.results // 20)),
                "name": names[i % 20],
                "category": "native",
                "family": "character",
                "graded_family": fams[i % 4],
                "expectation": "invariant",
                "level": level,
                "magnitude": 0.04 * level * rng.random() * 2,
                "sim": sim,
                "original_sim": 1.0,
                "original": "Mia has 12 apples. How many?",
                "perturbed": "Mia has 12 ap\u200bples. How many?",
                "output": "#### 5",
                "original_output": "#### 4",
                "model": "m",
            }

    write_jsonl(tmp / "results.jsonl", records())
    t0 = time.perf_counter()
    write_report([str(tmp / "results.jsonl")], str(tmp / "report"))
    dt = time.perf_counter() - t0
    return {
        "bench": "report",
        "results": args.results,
        "seconds": round(dt, 2),
        "peak_rss_mb": round(_rss_mb()),
    }


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("suite")
    s.add_argument("--examples", type=int, default=10_000)
    s.add_argument("--ladder", action="store_true")
    s.add_argument("--names", default=TWENTY, help="comma-separated entries (default: twenty)")
    e = sub.add_parser("evaluate")
    e.add_argument("--cases", type=int, default=320)
    e.add_argument("--concurrency", type=int, default=8)
    e.add_argument("--latency", type=float, default=0.2)
    r = sub.add_parser("report")
    r.add_argument("--results", type=int, default=100_000)
    args = p.parse_args()
    fn = {"suite": bench_suite, "evaluate": bench_evaluate, "report": bench_report}[args.cmd]
    print(json.dumps(fn(args)))


if __name__ == "__main__":
    main()
