"""Lambda cold start and per-request overhead, this tree against another, side by side in one run.

    git worktree add --detach /tmp/prev <commit>
    python eval/run_all.py run bench-lambda --prev /tmp/prev [--runs 9] [--seconds 3] [--before-h11] [--json OUT]

Figures (each alternating between the trees, so that load changes hit both alike):

* import: ``import functions.api.handler`` in fresh processes with bytecode cached, median (ms,
  wall and CPU: on a loaded machine the CPU figure is the steadier one);
* INIT: the function built by each tree's recipe under awslambdaric against a local Runtime API,
  read-only task root, process start -> first ``/next``, median (:mod:`benchmarks.lambda_runtime`), on this
  interpreter and, when pyenv has it, on python3.12 (the Lambda runtime's version);
* zip: each tree's ``infra/Makefile build-ApiFunction`` for arm64/python3.12 (what ``sam build``
  ships), zipped at deflate level 9 like infra/ci-checks.sh, and its .pyc count;
* HTTP: both trees' services up at once (uvicorn, 1 worker), :mod:`benchmarks.service`'s client,
  single-text requests alternating per scenario and round: median req/s, p50, p99 (``--before-h11``:
  the previous tree's server on h11 + asyncio, as before the service extra added httptools + uvloop);
* Lambda requests: the handler called in-process with an HTTP API event per single-text request
  (Mangum and the app, no network), per scenario: median µs per invocation.
"""

from __future__ import annotations

import glob
import http.client
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import time
import zipfile

from benchmarks import lambda_runtime as lr
from benchmarks import service as bench_service
from evalkit import cli
from evalkit.paths import ROOT

IMPORT = (
    "import time; t, c = time.perf_counter(), time.process_time(); "
    "import functions.api.handler; "
    "print((time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000)"
)


def import_ms(tree: pathlib.Path) -> tuple[float, float]:
    """Wall and CPU ms of ``import functions.api.handler`` in a fresh process."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(tree), NLTK_DATA=str(ROOT / "build" / "nltk_data"))
    out = subprocess.run(
        [sys.executable, "-c", IMPORT], cwd=tree, env=env, check=True, capture_output=True, text=True
    ).stdout
    wall, cpu = out.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


# run in the tree measured, with this tree's scenarios and sentence as its argument
LAMBDA_REQUESTS = """
import json, statistics, sys, time
from functions.api.events import LocalContext, http_api_event
from functions.api.handler import handler
scenarios, sentence = json.loads(sys.argv[1])
out = {}
for name, params in scenarios:
    body = json.dumps({"texts": [sentence], "seed": 7, **params}).encode()
    event = http_api_event("POST", f"/perturb/native/{name}", headers={"content-type": "application/json"}, body=body)
    context = LocalContext()
    assert handler(event, context)["statusCode"] == 200
    batches = []
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(200):
            handler(event, context)
        batches.append((time.perf_counter() - start) / 200 * 1e6)
    out[name] = statistics.median(batches)
print(json.dumps(out))
"""


def lambda_request_us(tree: pathlib.Path) -> dict:
    """µs per in-process handler invocation of a single-text request event, per scenario."""
    env = {**os.environ, "PYTHONPATH": str(tree), "NLTK_DATA": str(ROOT / "build" / "nltk_data")}
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            LAMBDA_REQUESTS,
            json.dumps([bench_service.SCENARIOS, bench_service.SENTENCE]),
        ],
        cwd=tree,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def python312() -> str | None:
    for cand in [
        shutil.which("python3.12"),
        *sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.12*/bin/python3.12"))),
    ]:
        if (
            cand
            and subprocess.run(
                [cand, "-c", "import sys; assert sys.version_info[:2] == (3, 12)"], capture_output=True
            ).returncode
            == 0
        ):
            return cand
    return None


def zip_figures(tree: pathlib.Path, work: pathlib.Path, py312: str) -> dict:
    dest = work / f"zip-{tree.name}"
    env = {**os.environ, "PATH": f"{os.path.dirname(py312)}:{os.environ['PATH']}"}
    subprocess.run(
        ["make", "-s", "-f", str(tree / "infra" / "Makefile"), "build-ApiFunction", f"ARTIFACTS_DIR={dest}"],
        cwd=tree,
        env=env,
        check=True,
        capture_output=True,
    )
    archive = work / f"{tree.name}.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for root, dirs, files in os.walk(dest):
            dirs.sort()
            for name in sorted(files):
                path = os.path.join(root, name)
                zf.write(path, os.path.relpath(path, dest))
    return {
        "zip_bytes": archive.stat().st_size,
        "unzipped_bytes": lr.tree_bytes(dest),
        "pyc_files": sum(1 for _ in dest.rglob("*.pyc")),
    }


def start_server(tree: pathlib.Path, pure: bool = False) -> tuple[subprocess.Popen, int]:
    """``perturber serve`` of ``tree``; ``pure``: uvicorn on h11 + asyncio instead of what it picks
    (httptools + uvloop since the service extra installs them), as before they were installed."""
    port = bench_service.free_port()
    cmd = [sys.executable, "-m", "perturber.cli", "serve", "--port", str(port)]
    if pure:
        cmd = [
            sys.executable,
            "-c",
            "import uvicorn; from perturber.service import Settings, create_app; "
            f"uvicorn.run(create_app(Settings.from_env()), host='127.0.0.1', port={port}, "
            "log_level='warning', http='h11', loop='asyncio')",
        ]
    proc = subprocess.Popen(
        cmd,
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(300):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            conn.request("GET", "/health")
            if conn.getresponse().status == 200:
                return proc, port
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"the service of {tree} did not start")


def http_figures(trees: dict, seconds: float, rounds: int, pure_before: bool = False) -> dict:
    """Single-text requests (:mod:`benchmarks.service`'s client), both servers up, alternating per
    scenario and round; the median over rounds of req/s, p50 and p99."""
    servers = {key: start_server(tree, pure_before and key == "before") for key, tree in trees.items()}
    runs: dict = {key: {} for key in trees}
    try:
        for _ in range(rounds):
            for name, params in bench_service.SCENARIOS:
                for key, (_, port) in servers.items():
                    row = bench_service.run(port, name, params, 1, seconds, 4)
                    runs[key].setdefault(name, []).append(row)
    finally:
        for proc, _ in servers.values():
            proc.terminate()
            proc.wait(10)
    return {
        key: [
            {
                "name": name,
                **{
                    f: round(statistics.median(r[f] for r in rows), 2)
                    for f in ("requests_per_s", "p50_ms", "p99_ms")
                },
            }
            for name, rows in by_name.items()
        ]
        for key, by_name in runs.items()
    }


def medians(samples: list[tuple[float, float]]) -> tuple[float, float]:
    """The medians of (wall, CPU) samples, rounded to 0.1 ms."""
    return (
        round(statistics.median(w for w, _ in samples), 1),
        round(statistics.median(c for _, c in samples), 1),
    )


def import_figures(trees: dict, runs: int) -> dict:
    """``import functions.api.handler`` of each tree, bytecode cached, alternating: medians."""
    for tree in trees.values():
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", "perturber", "functions"],
            cwd=tree,
            check=True,
            capture_output=True,
        )
    samples: dict = {k: [] for k in trees}
    for _ in range(runs):
        for key, tree in trees.items():
            samples[key].append(import_ms(tree))
    return {key: medians(samples[key]) for key in trees}


def init_figures(trees: dict, runs: int, work: pathlib.Path, python: str | None = None) -> dict:
    """INIT of each tree's function under awslambdaric (``python``: default this one), alternating:
    medians of (wall, CPU)."""
    suffix = "" if python is None else "312"
    runtime = lr.runtime_dir(work / f"runtime{suffix}", python)
    builds = {k: lr.build_function(work / f"task{suffix}-{k}", t, python) for k, t in trees.items()}
    samples: dict = {k: [] for k in trees}
    for _ in range(runs):
        for key in trees:
            samples[key].append(lr.init_ms(builds[key], runtime, lr.nltk_layer(), True, python))
    return {key: medians(samples[key]) for key in trees}


def lambda_figures(trees: dict) -> dict:
    """µs per in-process handler invocation per scenario, median of three runs per tree."""
    runs: dict = {k: [] for k in trees}
    for _ in range(3):
        for key, tree in trees.items():
            runs[key].append(lambda_request_us(tree))
    return {
        key: {name: round(statistics.median(run[name] for run in runs[key]), 1) for name in runs[key][0]}
        for key in trees
    }


def measure(trees: dict, args, work: pathlib.Path) -> dict:
    """Every figure of each tree (``"before"``, ``"after"``), in the order they are taken."""
    report: dict = {k: {"tree": str(v)} for k, v in trees.items()}
    imports = import_figures(trees, args.runs)
    inits = init_figures(trees, args.runs, work)
    py312 = python312()
    if py312:
        for key, (wall, cpu) in init_figures(trees, args.runs, work, py312).items():
            report[key].update(init312_ms=wall, init312_cpu_ms=cpu)
    for key, figures in lambda_figures(trees).items():
        report[key]["lambda_single_us"] = figures
    for key in trees:
        report[key]["import_ms"], report[key]["import_cpu_ms"] = imports[key]
        report[key]["init_ms"], report[key]["init_cpu_ms"] = inits[key]
    if py312:
        for key, tree in trees.items():
            report[key].update(zip_figures(tree, work, py312))
    if not args.skip_http:
        for key, rows in http_figures(trees, args.seconds, args.rounds, args.before_h11).items():
            report[key]["http_single"] = rows
    return report


def print_report(report: dict, skip_http: bool) -> None:
    print(
        f"{'':8} {'import ms (CPU)':>15} {'INIT ms (CPU)':>14} {'INIT 3.12 (CPU)':>15} {'zip MB':>7} "
        f"{'unzipped MB':>11} {'.pyc':>5}"
    )
    for key, row in report.items():
        print(
            f"{key:8} {row['import_ms']:7.0f} ({row['import_cpu_ms']:4.0f}) "
            f"{row['init_ms']:6.0f} ({row['init_cpu_ms']:4.0f}) "
            f"{row.get('init312_ms', 0):7.0f} ({row.get('init312_cpu_ms', 0):4.0f}) "
            f"{row.get('zip_bytes', 0) / 1e6:7.2f} {row.get('unzipped_bytes', 0) / 1e6:11.1f} "
            f"{row.get('pyc_files', 0):5d}"
        )
    print("\nLambda handler in-process, single-text request events (µs per invocation): before -> after")
    for name, old in report["before"]["lambda_single_us"].items():
        print(f"{name:14} {old:8.0f} -> {report['after']['lambda_single_us'][name]:8.0f}")
    if not skip_http:
        print("\nsingle-text HTTP requests (req/s, p50 ms, p99 ms): before -> after")
        for old, new in zip(report["before"]["http_single"], report["after"]["http_single"]):
            print(
                f"{new['name']:14} {old['requests_per_s']:6.0f} -> {new['requests_per_s']:6.0f}   "
                f"{old['p50_ms']:5.2f} -> {new['p50_ms']:5.2f}   {old['p99_ms']:5.2f} -> {new['p99_ms']:5.2f}"
            )


def main(argv: list[str] | None = None) -> int:
    parser = cli.parser("bench-lambda", __doc__)
    parser.add_argument("--prev", type=pathlib.Path, required=True, help="the tree to compare with")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--seconds", type=float, default=2.0, help="HTTP: per scenario and round")
    parser.add_argument("--rounds", type=int, default=3, help="HTTP: alternating rounds")
    parser.add_argument("--skip-http", action="store_true")
    parser.add_argument(
        "--before-h11",
        action="store_true",
        help="HTTP: run the previous tree's server on h11 + asyncio (a tree from before the service "
        "extra added httptools + uvloop)",
    )
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args(argv)
    trees = {"before": args.prev.resolve(), "after": ROOT}
    with lr.scratch("perturber-bench-lambda-") as work:
        report = measure(trees, args, work)
    print_report(report, args.skip_http)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
