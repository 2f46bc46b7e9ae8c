"""The model-backed tier under batches: the service (uvicorn subprocess) calls a local
OpenAI-compatible server (:mod:`evalkit.chat_server`) that adds a fixed delay per completion.

Reports, per batch size, the median wall time of a POST /perturb/native/simplification with that
many texts (bearer-authenticated, server key), the max in-flight requests seen upstream, and the
ideal time ceil(n / concurrency) * delay. Also the import cost of the client (openai).

    python eval/run_all.py run bench-llm [--delay 0.2] [--sizes 1,50,1000] [--repeat 3] [--json OUT]
"""

from __future__ import annotations

import hashlib
import http.client
import json
import math
import os
import pathlib
import statistics
import subprocess
import sys
import time

from benchmarks.service import free_port, start_server
from evalkit import cli
from evalkit.chat_server import ChatServer, Reply

TOKEN = "bench-token"


def import_cost(module: str, runs: int = 5) -> float:
    """Median wall time (ms) of ``import module`` in a fresh interpreter."""
    code = f"import time; t = time.perf_counter(); import {module}; print((time.perf_counter() - t) * 1000)"
    times = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
        for _ in range(runs)
    ]
    return round(statistics.median(times), 1)


def rewriter(delay: float):
    """The upstream's answer: the text to rewrite, marked, after ``delay`` seconds."""
    return lambda body: Reply(content=body["messages"][1]["content"] + " (rewritten)", delay=delay)


def service_environment(upstream: ChatServer) -> dict:
    """The service's environment: the model tier on ``upstream``, bearer-authenticated callers."""
    return {
        **os.environ,
        "PERTURBER_LLM_BASE_URL": upstream.base_url,
        "PERTURBER_LLM_DEFAULT_MODEL": "bench",
        "PERTURBER_LLM_BEARER_SHA256": hashlib.sha256(TOKEN.encode()).hexdigest(),
        "PERTURBER_LLM_API_KEY": "sk-bench",
    }


def time_batch(port: int, n: int) -> float:
    """Seconds of one ``POST /perturb/native/simplification`` with ``n`` texts."""
    body = json.dumps({"texts": [f"Question number {i}: what is {i} plus {i}?" for i in range(n)]})
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    start = time.perf_counter()
    conn.request(
        "POST",
        "/perturb/native/simplification",
        body,
        {"content-type": "application/json", "authorization": f"Bearer {TOKEN}"},
    )
    resp = conn.getresponse()
    data = resp.read()
    took = time.perf_counter() - start
    assert resp.status == 200, data[:300]
    assert len(json.loads(data)["results"]) == n
    return took


def batch_row(upstream: ChatServer, port: int, n: int, args, concurrency: int) -> dict:
    """The median of ``args.repeat`` batches of ``n`` texts, against the ideal, and what the
    upstream saw (of the last one)."""
    times = []
    for _ in range(args.repeat):
        upstream.reset()
        upstream.script(default=rewriter(args.delay))
        times.append(time_batch(port, n))
    return {
        "texts": n,
        "median_s": round(statistics.median(times), 3),
        "ideal_s": round(math.ceil(n / concurrency) * args.delay, 3),
        "max_in_flight": upstream.max_in_flight,
        "upstream_requests": len(upstream.requests),
    }


def main(argv=None) -> int:
    ap = cli.parser("bench-llm", __doc__)
    ap.add_argument("--delay", type=float, default=0.2)
    ap.add_argument("--sizes", default="1,50,1000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    from perturber.llm import LLMSettings

    upstream = ChatServer().start()
    env = service_environment(upstream)
    concurrency = LLMSettings.from_env(env).concurrency
    report = {"delay_s": args.delay, "concurrency": concurrency, "batches": []}
    port = free_port()
    proc = start_server(port, env)
    try:
        for n in (int(x) for x in args.sizes.split(",")):
            row = batch_row(upstream, port, n, args, concurrency)
            report["batches"].append(row)
            print(json.dumps(row), flush=True)
    finally:
        proc.terminate()
        proc.wait(10)
        upstream.stop()
    report["import_ms"] = {
        "openai": import_cost("openai"),
        "perturber.llm": import_cost("perturber.llm"),
        "httpx": import_cost("httpx"),
    }
    print(json.dumps(report["import_ms"]))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
