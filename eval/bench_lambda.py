"""Lambda cold start and per-request overhead, this tree against another, side by side in one run.

    git worktree add --detach /tmp/prev <commit>
    python eval/bench_lambda.py --prev /tmp/prev [--runs 9] [--seconds 3] [--json OUT]

Figures (each alternating between the trees, so that load changes hit both alike):

* import: ``import functions.api.handler`` in fresh processes with bytecode cached, median (ms);
* INIT: the function built by each tree's recipe under awslambdaric against a local Runtime API,
  read-only task root, process start -> first ``/next``, median (eval/lambda_runtime.py);
* zip: each tree's ``infra/Makefile build-ApiFunction`` for arm64/python3.12 (what ``sam build``
  ships), zipped at deflate level 9 like infra/ci-checks.sh, and its .pyc count;
* HTTP: ``eval/bench_service.py`` of each tree (uvicorn, 1 worker), single-text requests: req/s,
  p50, p99 per perturbation.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "eval"))
import lambda_runtime as lr  # noqa: E402

IMPORT = ("import time; t = time.perf_counter(); import functions.api.handler; "
          "print((time.perf_counter() - t) * 1000)")


def import_ms(tree: pathlib.Path) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(tree), NLTK_DATA=str(ROOT / "build" / "nltk_data"))
    out = subprocess.run([sys.executable, "-c", IMPORT], cwd=tree, env=env, check=True,
                         capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1])


def python312() -> str | None:
    for cand in [shutil.which("python3.12"),
                 *sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.12*/bin/python3.12")))]:
        if cand and subprocess.run([cand, "-c", "import sys; assert sys.version_info[:2] == (3, 12)"],
                                   capture_output=True).returncode == 0:
            return cand
    return None


def zip_figures(tree: pathlib.Path, work: pathlib.Path, py312: str) -> dict:
    dest = work / f"zip-{tree.name}"
    env = {**os.environ, "PATH": f"{os.path.dirname(py312)}:{os.environ['PATH']}"}
    subprocess.run(["make", "-s", "-f", str(tree / "infra" / "Makefile"), "build-ApiFunction",
                    f"ARTIFACTS_DIR={dest}"], cwd=tree, env=env, check=True, capture_output=True)
    archive = work / f"{tree.name}.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for root, dirs, files in os.walk(dest):
            dirs.sort()
            for name in sorted(files):
                path = os.path.join(root, name)
                zf.write(path, os.path.relpath(path, dest))
    return {"zip_bytes": archive.stat().st_size, "unzipped_bytes": lr.tree_bytes(dest),
            "pyc_files": sum(1 for _ in dest.rglob("*.pyc"))}


def http_figures(tree: pathlib.Path, seconds: float, work: pathlib.Path) -> list[dict]:
    out = work / f"http-{tree.name}.json"
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run([sys.executable, str(tree / "eval" / "bench_service.py"), "--seconds", str(seconds),
                    "--json", str(out)], cwd=tree, env=env, check=True, capture_output=True)
    return [r for r in json.loads(out.read_text()) if r["batch"] == 1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--prev", type=pathlib.Path, required=True, help="the tree to compare with")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--seconds", type=float, default=3.0, help="HTTP: per scenario")
    parser.add_argument("--skip-http", action="store_true")
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args(argv)
    trees = {"before": args.prev.resolve(), "after": ROOT}
    report: dict = {k: {"tree": str(v)} for k, v in trees.items()}
    work = pathlib.Path(tempfile.mkdtemp(prefix="perturber-bench-lambda-"))
    try:
        for tree in trees.values():  # bytecode cached for the import figure
            subprocess.run([sys.executable, "-m", "compileall", "-q", "perturber", "functions"],
                           cwd=tree, check=True, capture_output=True)
        samples: dict = {k: [] for k in trees}
        for _ in range(args.runs):
            for key, tree in trees.items():
                samples[key].append(import_ms(tree))
        runtime = lr.runtime_dir(work / "runtime")
        builds = {k: lr.build_function(work / f"task-{k}", t) for k, t in trees.items()}
        nltk = ROOT / "build" / "nltk_data"
        inits: dict = {k: [] for k in trees}
        for _ in range(args.runs):
            for key in trees:
                inits[key].append(lr.init_ms(builds[key], runtime, nltk if nltk.is_dir() else None))
        for key in trees:
            report[key]["import_ms"] = round(statistics.median(samples[key]), 1)
            report[key]["init_ms"] = round(statistics.median(inits[key]), 1)
        py312 = python312()
        for key, tree in trees.items():
            if py312:
                report[key].update(zip_figures(tree, work, py312))
            if not args.skip_http:
                report[key]["http_single"] = http_figures(tree, args.seconds, work)
    finally:
        for path in [work, *work.rglob("*")]:
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(work, ignore_errors=True)
    print(f"{'':8} {'import ms':>9} {'INIT ms':>8} {'zip MB':>7} {'unzipped MB':>11} {'.pyc':>5}")
    for key, row in report.items():
        print(f"{key:8} {row['import_ms']:9.0f} {row['init_ms']:8.0f} "
              f"{row.get('zip_bytes', 0) / 1e6:7.2f} {row.get('unzipped_bytes', 0) / 1e6:11.1f} "
              f"{row.get('pyc_files', 0):5d}")
    if not args.skip_http:
        print("\nsingle-text HTTP requests (req/s, p50 ms, p99 ms): before -> after")
        for old, new in zip(report["before"]["http_single"], report["after"]["http_single"]):
            print(f"{new['name']:14} {old['requests_per_s']:6.0f} -> {new['requests_per_s']:6.0f}   "
                  f"{old['p50_ms']:5.2f} -> {new['p50_ms']:5.2f}   {old['p99_ms']:5.2f} -> {new['p99_ms']:5.2f}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
