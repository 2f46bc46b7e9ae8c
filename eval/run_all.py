"""The one entry point of the evaluation: regenerate every measured figure into eval/out/, or run
one tool with its own arguments.

    python eval/run_all.py [--quick] [--stage NAME ...] [--fast [--strict-json]]
    python eval/run_all.py run TOOL [ARGS ...]          (python eval/run_all.py run TOOL --help)

The stages:

1. correctness and determinism: the golden files, the property tests (arbitrary Unicode, other
   PYTHONHASHSEEDs in subprocesses, threads) and the transport-identity test (library = typed
   route = generic route = CLI = Lambda handler), run with pytest;
2. in-process latency per entry (tool `bench`), 1 MB included;
3. HTTP throughput of one uvicorn worker (`bench-service`);
4. Lambda cost per call, local model (`cost --local`);
5. catalog counts and digest (`catalog`);
6. fidelity on `eval/corpus/` (`fidelity`: applied rate, magnitude, numbers and JSON preserved,
   embedding similarity, optional LLM judge, negative control, figure);
7. peers: per-call latency vs glitchlings and nlpaug (`peers`);
8. native entries vs their brittlebench-tier counterparts (`brittlebench`).

`--stage NAME` (repeatable) runs only those steps. `--fast` runs the CI subset: catalog,
determinism (golden files, other hash seeds, threads), transport identity and a reduced fidelity
run without the embedding model; `--strict-json` (or PERTURBER_EVAL_STRICT_JSON=1, which the
fidelity stage reads) makes a JSON-validity failure fail it. `eval/out/REPORT.md` maps the
README's claims to these artifacts and collects every stage's section (tool `report`).

Each step's output goes to `eval/out/<step>.txt` (and JSON/PNG where the step writes them);
`eval/out/summary.md` lists the steps with their exit status and duration (a `--stage` run
keeps the rows of the other steps from earlier runs). The exit status is non-zero when any step
failed. `run TOOL` runs one tool in the current folder and exits with its status.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from evalkit import paths, report, tools

ROOT, OUT = paths.ROOT, paths.OUT


def pytest_command(*options: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "-p", "no:xdist", *options, "-q", "-s"]


def steps(quick: bool) -> list[tuple[str, list[str]]]:
    """Every stage of the full run, in order."""
    return [
        (
            "correctness",
            pytest_command()
            + ["tests/test_golden.py", "tests/test_properties.py", "tests/test_transport_identity.py"],
        ),
        (
            "latency",
            tools.command(
                "bench",
                ["--json", str(OUT / "bench.json")] + (["--quick", "--skip-megabyte"] if quick else []),
            ),
        ),
        (
            "throughput",
            tools.command(
                "bench-service", ["--json", str(OUT / "service.json")] + (["--seconds", "1"] if quick else [])
            ),
        ),
        (
            "cost",
            tools.command(
                "cost",
                ["--local", "--out", str(OUT)]
                + (["--repeats", "3", "--lengths", "20w", "--batches", "1"] if quick else []),
            ),
        ),
        ("catalog", tools.command("catalog", [])),
        ("fidelity", tools.command("fidelity", ["--seeds", "0", "1"] if quick else [])),
        (
            "peers",
            tools.command("peers", ["--calls", "100", "--repeats", "3"] if quick else [], peers_python()),
        ),
        ("brittlebench", tools.command("brittlebench", ["--json", str(OUT / "brittlebench.json")])),
    ]


def peers_python() -> str:
    """``.venv-peers``'s interpreter when it exists (``make eval`` builds it: the peers' nlpaug pin
    differs from the brittlebench tier's), else this one."""
    peers = ROOT / ".venv-peers" / "bin" / "python"
    return str(peers) if peers.exists() else sys.executable


def fast_steps(strict_json: bool) -> list[tuple[str, list[str]]]:
    """The CI subset (well under 3 minutes); any determinism or transport mismatch fails it."""
    pytest = pytest_command("-p", "no:randomly")
    return [
        ("catalog", tools.command("catalog", [])),
        (
            "determinism",
            pytest
            + [
                "tests/test_golden.py",
                "tests/test_properties.py::test_same_bytes_in_subprocesses_with_other_hash_seeds",
                "tests/test_properties.py::test_eight_threads_give_the_sequential_bytes",
            ],
        ),
        ("transport", pytest + ["tests/test_transport_identity.py"]),
        ("fidelity", tools.command("fidelity", ["--fast"] + (["--strict-json"] if strict_json else []))),
    ]


def merge_summary(path, rows: list[str]) -> list[str]:
    """This run's rows, after the rows of earlier runs for steps not run this time (``--stage``)."""
    ran = {row.split("|")[1].strip() for row in rows}
    old = path.read_text(encoding="utf-8").splitlines()[2:] if path.exists() else []
    return [r for r in old if r.startswith("| ") and r.split("|")[1].strip() not in ran] + rows


def run_step(n: int, total: int, name: str, cmd: list[str]) -> tuple[int, str]:
    """Run one step with its output in ``eval/out/<name>.txt``: its exit status and summary row."""
    print(f"[{n}/{total}] {name}: {' '.join(cmd[1:])}", flush=True)
    start = time.monotonic()
    with open(OUT / f"{name}.txt", "w", encoding="utf-8") as log:
        code = subprocess.run(
            cmd, cwd=ROOT, env=tools.environment(), stdout=log, stderr=subprocess.STDOUT
        ).returncode
    took = time.monotonic() - start
    status = "ok" if code == 0 else f"FAILED (exit {code})"
    print(f"    {'ok' if code == 0 else 'FAILED'} in {took:.0f} s -> eval/out/{name}.txt", flush=True)
    return code, f"| {name} | {status} | {took:.0f} s | eval/out/{name}.txt |"


def run_stages(todo: list[tuple[str, list[str]]]) -> int:
    """Run the steps, then write ``summary.md`` and ``REPORT.md``; 1 when a step failed."""
    OUT.mkdir(parents=True, exist_ok=True)
    rows, failed = [], 0
    for n, (name, cmd) in enumerate(todo, 1):
        code, row = run_step(n, len(todo), name, cmd)
        failed += code != 0
        rows.append(row)
    rows = merge_summary(OUT / "summary.md", rows)
    (OUT / "summary.md").write_text(
        "| step | status | time | output |\n|---|---|---|---|\n" + "\n".join(rows) + "\n", encoding="utf-8"
    )
    print(f"summary: {OUT / 'summary.md'}")
    print(f"report: {report.build(OUT)}")
    return 1 if failed else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python eval/run_all.py",
        description=__doc__,
        epilog=tools.listing(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="smaller runs (noisier figures)")
    parser.add_argument(
        "--fast", action="store_true", help="CI subset: catalog, determinism, transport, reduced fidelity"
    )
    parser.add_argument(
        "--strict-json", action="store_true", help="with --fast: fail on a JSON-validity failure"
    )
    parser.add_argument(
        "--stage",
        action="append",
        metavar="NAME",
        help="run only this step (repeatable): "
        + ", ".join(dict.fromkeys(n for n, _ in steps(False) + fast_steps(False))),
    )
    sub = parser.add_subparsers(dest="command", metavar="run TOOL [ARGS ...]")
    run = sub.add_parser(
        "run",
        help="run one tool with its own arguments (run TOOL --help: its options)",
        description="Run one tool of eval/ with its own arguments, in this folder.",
        epilog=tools.listing(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("tool", choices=tools.TOOLS, metavar="TOOL", help="one of the tools below")
    run.add_argument("args", nargs=argparse.REMAINDER, help="the tool's arguments")
    return parser


def chosen_steps(parser, args) -> list[tuple[str, list[str]]]:
    """The steps ``--fast`` / ``--quick`` / ``--stage`` ask for."""
    if not args.stage:
        return fast_steps(args.strict_json) if args.fast else steps(args.quick)
    known = dict(fast_steps(args.strict_json))
    if not args.fast:
        known.update(steps(args.quick))
    unknown = [n for n in args.stage if n not in known]
    if unknown:
        parser.error(f"unknown stage(s) {', '.join(unknown)}; stages: {', '.join(known)}")
    return [(n, known[n]) for n in dict.fromkeys(args.stage)]


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "run":
        return tools.run(args.tool, args.args)
    return run_stages(chosen_steps(parser, args))


if __name__ == "__main__":
    sys.exit(main())
