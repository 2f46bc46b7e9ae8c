"""HTTP throughput of the service: uvicorn, one worker, on 127.0.0.1 (part of `make bench`).

For a few representative perturbations, sends single-text requests and 100-text batches over
keep-alive connections from client threads in this process, and reports requests/s,
perturbations/s and p50/p99 latency. Client and server share the machine's cores, so the figures
are a lower bound for the server alone.

    python eval/run_all.py run bench-service [--seconds 5] [--connections 4] [--json OUT]
"""

from __future__ import annotations

import http.client
import json
import pathlib
import socket
import statistics
import subprocess
import sys
import threading
import time

from evalkit import cli
from evalkit.paths import ROOT

SENTENCE = (
    "Please tell me quickly which famous European city hosted the summer games in 1992, "
    "and why it mattered so much?"
)
SCENARIOS = [
    ("baseline", {}),
    ("quotes", {}),
    ("typos", {"count": 2}),
    ("zero_width", {"rate": 0.3}),
    ("contractions", {}),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, env: dict | None = None) -> subprocess.Popen:
    """``perturber serve`` on ``port`` (environment ``env``, default this one), once it answers
    ``GET /health``."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "perturber.cli", "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            conn.request("GET", "/health")
            if conn.getresponse().status == 200:
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the service did not start")


def run(port: int, name: str, params: dict, batch: int, seconds: float, connections: int) -> dict:
    body = json.dumps({"texts": [SENTENCE] * batch, "seed": 7, **params}).encode()
    path = f"/perturb/native/{name}"
    latencies: list[float] = []
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine = []
        while time.monotonic() < stop:
            start = time.perf_counter()
            conn.request("POST", path, body, {"content-type": "application/json"})
            resp = conn.getresponse()
            resp.read()
            if resp.status != 200:
                raise SystemExit(f"{path}: HTTP {resp.status}")
            mine.append(time.perf_counter() - start)
        with lock:
            latencies.extend(mine)

    began = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - began
    ordered = sorted(latencies)
    return {
        "name": name,
        "batch": batch,
        "requests": len(ordered),
        "requests_per_s": len(ordered) / elapsed,
        "perturbations_per_s": len(ordered) * batch / elapsed,
        "p50_ms": statistics.median(ordered) * 1000,
        "p99_ms": ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1000,
    }


def main(argv: list[str] | None = None) -> int:
    parser = cli.parser("bench-service", __doc__)
    parser.add_argument("--seconds", type=float, default=4.0, help="per scenario (default 4)")
    parser.add_argument("--connections", type=int, default=4, help="keep-alive client connections")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    port = free_port()
    server = start_server(port)
    rows = []
    try:
        print(
            f"service on 127.0.0.1:{port} (uvicorn, 1 worker); {args.connections} connections, "
            f"{args.seconds:g} s per scenario, 20-word texts"
        )
        print(f"{'perturbation':14} {'batch':>5} {'req/s':>9} {'pert/s':>10} {'p50 ms':>8} {'p99 ms':>8}")
        for name, params in SCENARIOS:
            for batch in (1, 100):
                row = run(port, name, params, batch, args.seconds, args.connections)
                rows.append(row)
                print(
                    f"{name:14} {batch:5d} {row['requests_per_s']:9.0f} "
                    f"{row['perturbations_per_s']:10.0f} {row['p50_ms']:8.2f} {row['p99_ms']:8.2f}"
                )
    finally:
        server.terminate()
        server.wait(10)
    batched = [r["perturbations_per_s"] for r in rows if r["batch"] == 100]
    print(
        f"\nmedian perturbations/s with 100-text batches: {statistics.median(batched):,.0f} (target ≥ 20,000)"
    )
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
