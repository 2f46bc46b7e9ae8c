"""The one-command evaluation: regenerate every measured figure into eval/out/.

    python eval/run_all.py [--quick] [--stage NAME ...] [--fast [--strict-json]]

1. correctness and determinism: the golden files, the property tests (arbitrary Unicode, other
   PYTHONHASHSEEDs in subprocesses, threads) and the transport-identity test (library = typed
   route = generic route = CLI = Lambda handler), run with pytest;
2. in-process latency per entry (`eval/bench.py`), 1 MB included;
3. HTTP throughput of one uvicorn worker (`eval/bench_service.py`);
4. Lambda cost per call, local model (`eval/cost.py --local`);
5. native entries vs their brittlebench-tier counterparts (`eval/brittlebench_compare.py`);
6. catalog counts and digest (`eval/catalog_stage.py`);
7. fidelity on `eval/corpus/` (`eval/fidelity.py`: applied rate, magnitude, numbers and JSON
   preserved, embedding similarity, optional LLM judge, negative control, figure);
8. peers: per-call latency vs glitchlings and nlpaug (`eval/peers.py`).

`--stage NAME` (repeatable) runs only those steps. `--fast` runs the CI subset: catalog,
determinism (golden files, other hash seeds, threads), transport identity and a reduced fidelity
run without the embedding model; `--strict-json` (or PERTURBER_EVAL_STRICT_JSON=1) makes a
JSON-validity failure fail it. `eval/out/REPORT.md` maps the README's claims to these artifacts
and collects every stage's section (`eval/report.py`).

Each step's output goes to `eval/out/<step>.txt` (and JSON/PNG where the step writes them);
`eval/out/summary.md` lists the steps with their exit status and duration (a `--stage` run
keeps the rows of the other steps from earlier runs). The exit status is
non-zero when any step failed.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "eval" / "out"


def steps(quick: bool) -> list[tuple[str, list[str]]]:
    py = sys.executable
    return [
        (
            "correctness",
            [
                py,
                "-m",
                "pytest",
                "-p",
                "no:xdist",
                "-q",
                "-s",
                "tests/test_golden.py",
                "tests/test_properties.py",
                "tests/test_transport_identity.py",
            ],
        ),
        (
            "latency",
            [py, "eval/bench.py", "--json", str(OUT / "bench.json")]
            + (["--quick", "--skip-megabyte"] if quick else []),
        ),
        (
            "throughput",
            [py, "eval/bench_service.py", "--json", str(OUT / "service.json")]
            + (["--seconds", "1"] if quick else []),
        ),
        (
            "cost",
            [py, "eval/cost.py", "--local", "--out", str(OUT)]
            + (["--repeats", "3", "--lengths", "20w", "--batches", "1"] if quick else []),
        ),
        ("catalog", [py, "eval/catalog_stage.py"]),
        ("fidelity", [py, "eval/fidelity.py"] + (["--seeds", "0", "1"] if quick else [])),
        (
            "peers",
            [peers_python(), "eval/peers.py"] + (["--calls", "100", "--repeats", "3"] if quick else []),
        ),
    ]


def peers_python() -> str:
    """``.venv-peers``'s interpreter when it exists (``make eval`` builds it: the peers' nlpaug pin
    differs from the brittlebench tier's), else this one."""
    peers = ROOT / ".venv-peers" / "bin" / "python"
    return str(peers) if peers.exists() else sys.executable


def brittlebench_step() -> tuple[str, list[str]]:
    """Native entries vs their brittlebench-tier counterparts on the vectors' inputs (§17.6)."""
    return (
        "brittlebench",
        [sys.executable, "eval/brittlebench_compare.py", "--json", str(OUT / "brittlebench.json")],
    )


def fast_steps(strict_json: bool) -> list[tuple[str, list[str]]]:
    """The CI subset (well under 3 minutes); any determinism or transport mismatch fails it."""
    py = sys.executable
    pytest = [py, "-m", "pytest", "-p", "no:xdist", "-p", "no:randomly", "-q", "-s"]
    return [
        ("catalog", [py, "eval/catalog_stage.py"]),
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
        ("fidelity", [py, "eval/fidelity.py", "--fast"] + (["--strict-json"] if strict_json else [])),
    ]


def merge_summary(path: pathlib.Path, rows: list[str]) -> list[str]:
    """This run's rows, after the rows of earlier runs for steps not run this time (``--stage``)."""
    ran = {row.split("|")[1].strip() for row in rows}
    old = path.read_text(encoding="utf-8").splitlines()[2:] if path.exists() else []
    return [r for r in old if r.startswith("| ") and r.split("|")[1].strip() not in ran] + rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="smaller runs (noisier figures)")
    parser.add_argument(
        "--fast", action="store_true", help="CI subset: catalog, determinism, transport, reduced fidelity"
    )
    parser.add_argument(
        "--strict-json",
        action="store_true",
        default=os.environ.get("PERTURBER_EVAL_STRICT_JSON") == "1",
        help="with --fast: fail on a JSON-validity failure",
    )
    parser.add_argument(
        "--stage",
        action="append",
        metavar="NAME",
        help="run only this step (repeatable): "
        + ", ".join(dict.fromkeys(n for n, _ in steps(False) + fast_steps(False))),
    )
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    rows, failed = [], 0
    todo = fast_steps(args.strict_json) if args.fast else steps(args.quick) + [brittlebench_step()]
    if args.stage:
        known = dict(fast_steps(args.strict_json))
        if not args.fast:
            known.update(steps(args.quick) + [brittlebench_step()])
        unknown = [n for n in args.stage if n not in known]
        if unknown:
            parser.error(f"unknown stage(s) {', '.join(unknown)}; stages: {', '.join(known)}")
        todo = [(n, known[n]) for n in dict.fromkeys(args.stage)]
    for n, (name, cmd) in enumerate(todo, 1):
        print(f"[{n}/{len(todo)}] {name}: {' '.join(cmd[1:])}", flush=True)
        start = time.monotonic()
        with open(OUT / f"{name}.txt", "w", encoding="utf-8") as log:
            code = subprocess.run(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT).returncode
        took = time.monotonic() - start
        failed += code != 0
        rows.append(
            f"| {name} | {'ok' if code == 0 else f'FAILED (exit {code})'} | {took:.0f} s "
            f"| eval/out/{name}.txt |"
        )
        print(f"    {'ok' if code == 0 else 'FAILED'} in {took:.0f} s -> eval/out/{name}.txt", flush=True)
    rows = merge_summary(OUT / "summary.md", rows)
    (OUT / "summary.md").write_text(
        "| step | status | time | output |\n|---|---|---|---|\n" + "\n".join(rows) + "\n", encoding="utf-8"
    )
    print(f"summary: {OUT / 'summary.md'}")
    sys.path.insert(0, str(ROOT / "eval"))
    from report import build

    print(f"report: {build(OUT)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
