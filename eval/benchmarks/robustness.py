"""Measurements of the robustness harness (docs/robustness.md "Measured").

    python eval/run_all.py run bench-robustness suite --examples 10000 [--ladder]   # cases/s, peak RSS
    python eval/run_all.py run bench-robustness evaluate --cases 320 --concurrency 8  # 200 ms server latency
    python eval/run_all.py run bench-robustness report --results 100000               # report rendering time
    python eval/run_all.py run bench-robustness scripted [--questions FILE] [--out DIR]  # the documented run
    python eval/run_all.py run bench-robustness cost [--seeds 0,1,2]    # duplicates, the plan vs actual usage, 2nd run
    python eval/run_all.py run bench-robustness samples                 # --samples 5 against a random endpoint
    python eval/run_all.py run bench-robustness rankings                # two models with opposite weak spots
    python eval/run_all.py run bench-robustness gate                    # the CI example: clean and planted candidates

Each prints one JSON line. Peak memory is the process's max RSS (ru_maxrss), measured in a fresh
process per run so runs do not mix. ``scripted`` is the end-to-end run the docs quote: the
GSM8K-style problems of ``examples/`` (or, with ``--questions``, a JSON list of questions without
gold answers, e.g. the GSM8K test questions: invariance mode) through ``suite --preset
graded-reasoning --ladder``, ``evaluate`` against ``examples/scripted_endpoint.py`` (1 % garbage
replies), interrupted with SIGINT part-way and resumed, and ``report``; it prints the top of the
failures table, the flagged entries, the collapse points, the errors and the duplicate calls.
Every run gets a reply cache of its own (``XDG_CACHE_HOME`` in the output directory).
"""

from __future__ import annotations

import json
import os
import pathlib
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter

from evalkit import cli
from evalkit.paths import ROOT

ENDPOINT = ROOT / "examples" / "scripted_endpoint.py"

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


def _serve(*options: str) -> tuple[subprocess.Popen, str]:
    """The scripted endpoint in its own process (its own interpreter and GIL), as a real one would."""
    child = subprocess.Popen([sys.executable, str(ENDPOINT), *options], stdout=subprocess.PIPE, text=True)
    line = child.stdout.readline()  # "serving URL (^C stops)"
    return child, line.split()[1]


def bench_evaluate(args) -> dict:
    from perturber.robustness.evaluate import EndpointModel, evaluate

    child, base_url = _serve("--delay", str(args.latency))
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
    child.terminate()
    child.wait()
    return {
        "bench": "evaluate",
        "latency_s": args.latency,
        "concurrency": args.concurrency,
        "calls": summary.calls,
        "seconds": round(dt, 2),
        "calls_per_s": round(summary.calls / dt, 1),
        "ideal_calls_per_s": round(args.concurrency / args.latency, 1),
        "errors": dict(summary.errors),
    }


def bench_report(args) -> dict:
    from perturber.records import write_jsonl
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


def _examples_from_questions(questions: str, path: pathlib.Path) -> None:
    """A JSON list of questions as an eval set without gold answers (``id``, ``question``)."""
    rows = json.loads(pathlib.Path(questions).read_text(encoding="utf-8"))
    with open(path, "w", encoding="utf-8") as fh:
        for i, question in enumerate(rows, 1):
            fh.write(json.dumps({"id": str(i), "question": question}) + "\n")


def _duplicates(log: pathlib.Path, cases: pathlib.Path) -> int:
    """Calls answered 'ok' beyond one per key: a reply the harness received (or let fall) and
    asked for again. Keys per text: the passing cases with that text, plus its original."""
    keys: Counter = Counter()
    originals = set()
    for line in cases.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        keys[case["perturbed"]] += 1
        originals.add(case["original"])
    for text in originals:
        keys[text] += 1
    ok = Counter(json.loads(line)["text"] for line in log.read_text().splitlines() if '"reply": "ok"' in line)
    return sum(max(0, n - keys[text]) for text, n in ok.items())


def bench_scripted(args) -> dict:
    out = pathlib.Path(args.out or tempfile.mkdtemp())
    out.mkdir(parents=True, exist_ok=True)
    examples, problems = ROOT / "examples" / "gsm8k_style.jsonl", []
    if args.questions:
        examples = out / "examples.jsonl"
        _examples_from_questions(args.questions, examples)
        problems = ["--problems", args.questions]
    cases, results, log = out / "cases.jsonl", out / "results.jsonl", out / "endpoint.log.jsonl"
    for stale in (results, log):
        stale.unlink(missing_ok=True)
    os.environ["XDG_CACHE_HOME"] = str(out / "reply-cache")
    shutil.rmtree(out / "reply-cache", ignore_errors=True)
    answer = [] if args.questions else ["--answer-field", "answer"]
    suite = [
        str(examples),
        "--field",
        "question",
        "--id-field",
        "id",
        *answer,
        "--preset",
        "graded-reasoning",
    ]
    subprocess.run(cli.perturber_argv("suite", *suite, "--ladder", "-o", str(cases)), check=True)
    child, base_url = _serve("--garbage", "0.01", "--log", str(log), *problems)
    run = cli.perturber_argv("evaluate", str(cases), "--base-url", base_url, "--model", "scripted",
                     "--concurrency", "16", "--no-progress", "-o", str(results))  # fmt: skip
    first = subprocess.Popen(run, stderr=subprocess.PIPE, text=True)
    while first.poll() is None and (not results.exists() or results.stat().st_size < args.interrupt_bytes):
        time.sleep(0.05)
    first.send_signal(signal.SIGINT)
    interrupted = first.communicate()[1].strip()
    resumed = subprocess.run(run, stderr=subprocess.PIPE, text=True).stderr.strip()
    again = subprocess.run(run, stderr=subprocess.PIPE, text=True).stderr.strip()  # garbage of new texts
    child.terminate()
    child.wait()
    report_dir = out / "report"
    subprocess.run(
        cli.perturber_argv("report", str(results), "--cases", str(cases), "-o", str(report_dir)), check=True
    )
    data = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
    summary = json.loads((out / "cases.summary.json").read_text(encoding="utf-8"))
    top = [
        {
            k: p[k]
            for k in (
                "name",
                "n",
                "broken",
                "repaired",
                "flip_rate",
                "flip_ci",
                "drop",
                "drop_ci",
                "status",
                "hint",
            )
        }
        | {"p_adjusted": p["test"]["p_adjusted"]}
        for p in data["perturbations"][: args.top]
    ]
    return {
        "bench": "scripted",
        "mode": data["mode"],
        "examples": summary["examples"],
        "cases": summary["passed"],
        "rejected": summary["cases"] - summary["passed"],
        "flagged": [f["message"] for f in summary["flagged"]],
        "baseline": [data["baseline_accuracy"], data["baseline_ci"]],
        "top": top,
        "hinted_with_zero_broken": [
            p["name"] for p in data["perturbations"] if p["hint"] and not p["broken"]
        ],
        "families": [
            {
                k: f[k]
                for k in (
                    "name",
                    "paired_collapse_label",
                    "collapse_label",
                    "paired_note",
                    "quadrant",
                    "relative_stability",
                    "relative_ci",
                    "relative_quadrant",
                )
            }  # fmt: skip
            for f in data["families"]
        ],
        "interrupted": interrupted,
        "resumed": resumed,
        "third_run": again,
        "errors_standing": data["errors"],
        "errors_superseded": data["errors_superseded"],
        "duplicate_calls": _duplicates(log, cases),
        "garbage_replies": dict(Counter(json.loads(line)["reply"] for line in log.read_text().splitlines())),
        "report": str(report_dir),
    }


def _run(*argv: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(cli.perturber_argv(*argv), capture_output=True, text=True, env=env)


def _endpoint_run(
    endpoint: list[str], argv: list[str], env: dict | None = None
) -> subprocess.CompletedProcess:
    """``perturber ARGV`` while examples/scripted_endpoint.py ENDPOINT serves ({base_url} in ARGV)."""
    command = [sys.executable, str(ENDPOINT), *endpoint, "--", *cli.perturber_argv(*argv)]
    return subprocess.run(command, capture_output=True, text=True, env=env)


def _suite(out: pathlib.Path, *options: str) -> pathlib.Path:
    cases = out / "cases.jsonl"
    examples = ROOT / "examples" / "gsm8k_style.jsonl"
    done = _run("suite", str(examples), "--field", "question", "--answer-field", "answer", "--id-field", "id",
                *options, "-o", str(cases))  # fmt: skip
    assert done.returncode == 0, done.stderr
    return cases


def _lines(path: pathlib.Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def bench_cost(args) -> dict:
    """The walkthrough's suite (with --seeds): --dry-run, a real run against the scripted endpoint
    (which reports usage by its own count), the plan against the actual usage, a second run."""
    out = pathlib.Path(args.out or tempfile.mkdtemp())
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "XDG_CACHE_HOME": str(out / "reply-cache")}
    shutil.rmtree(out / "reply-cache", ignore_errors=True)
    cases = _suite(out, "--preset", "graded-reasoning", "--ladder", "--seeds", args.seeds)
    price = ["--model", "gpt-4o-mini", "--output-tokens", str(args.output_tokens)]
    endpoint = ["--port", str(args.port)]
    evaluate = [
        "evaluate",
        str(cases),
        "--base-url",
        "{base_url}",
        *price,
        "--concurrency",
        "16",
        "--no-progress",
    ]
    runs = {}
    for name, target, extra in (("dry_run", "r1.jsonl", ["--dry-run"]), ("first", "r1.jsonl", []),
                                ("second", "r2.jsonl", [])):  # fmt: skip
        log = out / f"endpoint-{name}.jsonl"
        log.unlink(missing_ok=True)
        (out / target).unlink(missing_ok=True) if name != "first" else None
        done = _endpoint_run(
            [*endpoint, "--log", str(log)], [*evaluate, *extra, "-o", str(out / target)], env
        )
        assert done.returncode == 0, done.stderr
        runs[name] = {
            "stderr": done.stderr.strip().splitlines(),
            "endpoint_calls": len(log.read_text().splitlines()),
        }
    head, end = _lines(out / "r1.jsonl")[0], _lines(out / "r1.jsonl")[-1]
    plan = head["plan"]
    return {
        "bench": "cost",
        "seeds": args.seeds,
        "plan": plan,
        "actual_usage": end["usage"],
        "actual_cost": end["cost"],
        "input_ratio": round(end["usage"]["prompt_tokens"] / plan["input_tokens"], 3),
        "output_ratio": round(end["usage"]["completion_tokens"] / plan["output_tokens"], 3),
        "runs": runs,
    }


def bench_samples(args) -> dict:
    """--samples 5 against an endpoint answering a random digit (seeded per sample), and against
    the deterministic scripted endpoint."""
    out = pathlib.Path(args.out or tempfile.mkdtemp())
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "XDG_CACHE_HOME": str(out / "reply-cache")}
    cases = _suite(out, "--select", "name=upper_case,extra_whitespace,typos")
    result = {"bench": "samples"}
    for name, endpoint in (("random", ["--random"]), ("scripted", [])):
        target = out / f"{name}.jsonl"
        target.unlink(missing_ok=True)
        done = _endpoint_run(endpoint, ["evaluate", str(cases), "--base-url", "{base_url}", "--model", name,
                                        "--samples", "5", "--temperature", "1", "--no-progress", "-o", str(target)], env)  # fmt: skip
        assert done.returncode == 0, done.stderr
        report = out / f"report-{name}"
        assert _run("report", str(target), "-o", str(report), "--no-plots").returncode == 0
        result[name] = json.loads((report / "report.json").read_text(encoding="utf-8"))["sampling"]
    return result


def bench_rankings(args) -> dict:
    """Two scripted models with opposite planted weak spots (casing vs formatting)."""
    out = pathlib.Path(args.out or tempfile.mkdtemp())
    out.mkdir(parents=True, exist_ok=True)
    cases = _suite(out, "--select", "family=character,formatting,padding;expectation=invariant")
    outs = []
    for name in ("casing_weak", "formatting_weak"):
        outs.append(str(out / f"{name}.jsonl"))
        pathlib.Path(outs[-1]).unlink(missing_ok=True)
        done = _run("evaluate", str(cases), "--callable", f"{ROOT / 'examples' / 'scripted_model.py'}:{name}",
                    "--no-progress", "-o", outs[-1])  # fmt: skip
        assert done.returncode == 0, done.stderr
    assert _run("report", *outs, "--cases", str(cases), "-o", str(out / "report")).returncode == 0
    am = json.loads((out / "report" / "report.json").read_text(encoding="utf-8"))["across_models"]
    pair = am["pairs"][0]
    return {
        "bench": "rankings",
        "clean": am["clean_accuracy"],
        "perturbations": {
            k: pair["perturbations"][k] for k in ("compared", "reversed", "share", "significant")
        },
        "reversals": [
            {k: r[k] for k in ("name", "a", "b", "p_adjusted")} for r in pair["perturbations"]["reversals"]
        ],
        "levels": {k: pair["levels"][k] for k in ("compared", "reversed", "share", "significant")},
        "level_reversals": [r["name"] for r in pair["levels"]["reversals"]],
        "tau_below_1": [t["name"] for t in am["kendall_tau"] if t["tau"] is not None and t["tau"] < 1],
        "decomposition": am["decomposition"],
        "report": str(out / "report"),
    }


def bench_gate(args) -> dict:
    """The steps of examples/robustness-gate.yml, both jobs, each from a fresh directory and cache."""
    import yaml

    workflow = yaml.safe_load((ROOT / "examples" / "robustness-gate.yml").read_text(encoding="utf-8"))
    out = pathlib.Path(args.out or tempfile.mkdtemp())
    result: dict = {"bench": "gate"}
    for name, job in workflow["jobs"].items():
        work = out / name
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(ROOT / "examples", work / "examples")
        env = {**os.environ, **job.get("env", {}), "XDG_CACHE_HOME": str(work / "cache"),
               "GITHUB_STEP_SUMMARY": str(work / "summary.md"),
               "PATH": f"{pathlib.Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}  # fmt: skip
        codes = []
        for step in job["steps"]:
            if "run" in step and "pip install" not in step["run"]:
                codes.append(subprocess.run(["bash", "-e", "-c", step["run"]], cwd=work, env=env,
                                            capture_output=True, text=True).returncode)  # fmt: skip
        result[name] = {"exit_codes": codes, "summary": (work / "summary.md").read_text(encoding="utf-8")}
    return result


def main(argv: list[str] | None = None) -> int:
    p = cli.parser("bench-robustness", __doc__)
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
    sc = sub.add_parser("scripted")
    sc.add_argument("--questions", help="a JSON list of questions (no gold: invariance mode)")
    sc.add_argument("--out", help="directory for cases, results and the report (default: a temp dir)")
    sc.add_argument(
        "--interrupt-bytes", type=int, default=4_000_000, help="SIGINT once results reach this size"
    )
    sc.add_argument("--top", type=int, default=8, help="rows of the failures table to print")
    c = sub.add_parser("cost")
    c.add_argument("--seeds", default="0", help="the suite's --seeds (default 0)")
    c.add_argument("--output-tokens", type=int, default=12, help="expected tokens per reply")
    c.add_argument("--port", type=int, default=8765, help="the endpoint's port (part of the cache key)")
    for name in ("cost", "samples", "rankings", "gate"):
        (c if name == "cost" else sub.add_parser(name)).add_argument("--out", help="working directory")
    args = p.parse_args(argv)
    fn = {
        "suite": bench_suite,
        "evaluate": bench_evaluate,
        "report": bench_report,
        "scripted": bench_scripted,
        "cost": bench_cost,
        "samples": bench_samples,
        "rankings": bench_rankings,
        "gate": bench_gate,
    }[args.cmd]
    print(json.dumps(fn(args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
