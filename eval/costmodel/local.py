"""The local sweep: the Lambda handler invoked in-process, no AWS.

``functions.api.handler.handler`` gets the HTTP API v2 event of each scenario
(:mod:`costmodel.scenarios`); the median of ``repeats`` warm calls is the local duration, which
:func:`costmodel.prices.modeled_ms` scales to each memory size. The INIT duration is the cold
import of ``functions.api.handler`` in fresh interpreters.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

from costmodel.prices import billed_ms, call_cost, cost_columns, modeled_ms
from costmodel.scenarios import scenario_event
from evalkit.paths import ROOT

IMPORT_HANDLER = (
    "import time; t = time.perf_counter(); import functions.api.handler; "
    "print((time.perf_counter() - t) * 1000)"
)


def measure_init_ms(runs: int = 5, warm_synonym: bool = False) -> float:
    """Median cold import time of functions.api.handler in fresh interpreters (ms)."""
    env = {k: v for k, v in os.environ.items() if k != "PERTURBER_WARM_SYNONYM"}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    if warm_synonym:
        env["PERTURBER_WARM_SYNONYM"] = "1"
    samples = []
    for _ in range(runs):
        proc = subprocess.run(
            [sys.executable, "-c", IMPORT_HANDLER],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"import functions.api.handler failed: {proc.stderr.strip()[-500:]}")
        samples.append(float(proc.stdout.strip().splitlines()[-1]))
    return statistics.median(samples)


def time_calls(call, repeats: int, budget_s: float) -> list[float]:
    """Milliseconds of up to ``repeats`` calls (at least 3 once ``budget_s`` has passed)."""
    samples, started = [], time.perf_counter()
    while len(samples) < repeats:
        t = time.perf_counter()
        call()
        samples.append((time.perf_counter() - t) * 1000)
        if len(samples) >= 3 and time.perf_counter() - started > budget_s:
            break
    return samples


def measure_scenario(entry: dict, length: str, batch: int, repeats: int, budget_s: float, log) -> dict | None:
    """One row of the local sweep; None (logged) when the handler does not answer 200."""
    from functions.api.events import LocalContext, response_body
    from functions.api.handler import handler

    name = entry["name"]
    event, request_bytes = scenario_event(name, entry["category"], entry["family"], length, batch)
    response = handler(event, LocalContext())  # warm-up (and check)
    if response["statusCode"] != 200:
        log(
            f"cost: {name} {length} x{batch}: HTTP {response['statusCode']} "
            f"{response_body(response)[:200]!r}, skipped"
        )
        return None
    samples = time_calls(lambda: handler(event, LocalContext()), repeats, budget_s)
    row = {
        "perturbation": name,
        "category": entry["category"],
        "length": length,
        "batch": batch,
        "request_bytes": request_bytes,
        "response_bytes": len(response_body(response)),
        "runs": len(samples),
        "local_ms": statistics.median(samples),
    }
    log(f"cost: {name:20s} {length:>5s} x{batch:<4d} median {row['local_ms']:9.2f} ms ({len(samples)} runs)")
    return row


def local_sweep(
    perturbations, lengths, batches, repeats: int = 7, budget_s: float = 20.0, log=print
) -> list[dict]:
    """Median in-process handler time per (perturbation, length, batch)."""
    import perturber

    catalog = {e["name"]: e for e in perturber.list_perturbations()}
    rows = []
    for name in perturbations:
        entry = catalog.get(name)
        if entry is None:
            log(f"cost: {name}: not in this catalog, skipped")
            continue
        for length in lengths:
            for batch in batches:
                row = measure_scenario(entry, length, batch, repeats, budget_s, log)
                if row is not None:
                    rows.append(row)
    return rows


def price_local(rows, memories, arch, gateway, cold_start_rate, init_ms) -> list[dict]:
    """Each measured row priced at each memory size with the duration model."""
    priced = []
    for row in rows:
        for memory in memories:
            ms = modeled_ms(row["local_ms"], memory)
            cost = call_cost(
                ms,
                memory,
                arch,
                gateway,
                max(row["request_bytes"], row["response_bytes"]),
                cold_start_rate,
                init_ms,
            )
            priced.append(
                {
                    **row,
                    "scenario": f"{row['perturbation']} {row['length']} x{row['batch']}",
                    "memory_mb": memory,
                    "duration_ms": round(ms, 3),
                    "billed_ms": billed_ms(ms),
                    **cost_columns(cost, row["batch"]),
                }
            )
    return priced
