"""The one-command evaluation: regenerate every measured figure into eval/out/.

    python eval/run_all.py [--quick]

1. correctness and determinism: the golden files, the property tests (arbitrary Unicode, other
   PYTHONHASHSEEDs in subprocesses, threads) and the transport-identity test (library = typed
   route = generic route = CLI = Lambda handler), run with pytest;
2. in-process latency per entry (`eval/bench.py`), 1 MB included;
3. HTTP throughput of one uvicorn worker (`eval/bench_service.py`);
4. Lambda cost per call, local model (`eval/cost.py --local`);
5. native entries vs their brittlebench-tier counterparts (`eval/brittlebench_compare.py`).

Each step's output goes to `eval/out/<step>.txt` (and JSON/PNG where the step writes them);
`eval/out/summary.md` lists the steps with their exit status and duration. The exit status is
non-zero when any step failed. Model-backed fidelity figures need the model tier (not built yet).
"""

from __future__ import annotations

import argparse
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "eval" / "out"


def steps(quick: bool) -> list[tuple[str, list[str]]]:
    py = sys.executable
    return [
        ("correctness", [py, "-m", "pytest", "-p", "no:xdist", "-q", "-s",
                         "tests/test_golden.py", "tests/test_properties.py",
                         "tests/test_transport_identity.py"]),
        ("latency", [py, "eval/bench.py", "--json", str(OUT / "bench.json")]
         + (["--quick", "--skip-megabyte"] if quick else [])),
        ("throughput", [py, "eval/bench_service.py", "--json", str(OUT / "service.json")]
         + (["--seconds", "1"] if quick else [])),
        ("cost", [py, "eval/cost.py", "--local", "--out", str(OUT)]
         + (["--repeats", "3", "--lengths", "20w", "--batches", "1"] if quick else [])),
    ]


def brittlebench_step() -> tuple[str, list[str]]:
    """Native entries vs their brittlebench-tier counterparts on the vectors' inputs (§17.6)."""
    return ("brittlebench", [sys.executable, "eval/brittlebench_compare.py",
                             "--json", str(OUT / "brittlebench.json")])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller runs (noisier figures)")
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    rows, failed = [], 0
    todo = steps(args.quick) + [brittlebench_step()]
    for n, (name, cmd) in enumerate(todo, 1):
        print(f"[{n}/{len(todo)}] {name}: {' '.join(cmd[1:])}", flush=True)
        start = time.monotonic()
        with open(OUT / f"{name}.txt", "w", encoding="utf-8") as log:
            code = subprocess.run(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT).returncode
        took = time.monotonic() - start
        failed += code != 0
        rows.append(f"| {name} | {'ok' if code == 0 else f'FAILED (exit {code})'} | {took:.0f} s "
                    f"| eval/out/{name}.txt |")
        print(f"    {'ok' if code == 0 else 'FAILED'} in {took:.0f} s -> eval/out/{name}.txt", flush=True)
    (OUT / "summary.md").write_text("| step | status | time | output |\n|---|---|---|---|\n"
                                    + "\n".join(rows) + "\n", encoding="utf-8")
    print(f"summary: {OUT / 'summary.md'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
