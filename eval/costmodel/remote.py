"""The sweep on a deployed function with boto3, as AWS Lambda Power Tuning does it.

For each memory size: ``update_function_configuration(MemorySize=M)``, wait until updated, invoke
``invocations`` times with ``LogType="Tail"`` and an API-Gateway-shaped payload, parse the REPORT
lines of the log tails (:mod:`costmodel.lambda_logs`), take the trimmed mean of the warm calls
(top and bottom 20 % dropped) and the mean Init Duration of the cold ones. The original memory
size is restored at the end.
"""

from __future__ import annotations

import base64
import json
import statistics

from costmodel.lambda_logs import parse_log_tail, trimmed_mean
from costmodel.prices import call_cost, cost_columns
from functions import aws


def _ok_proxy_response(body: bytes) -> bool:
    try:
        return json.loads(body).get("statusCode") == 200
    except (ValueError, AttributeError):
        return False


def invoke_with_reports(client, function_name: str, payload: bytes, invocations: int) -> dict:
    """``invocations`` calls: their REPORT lines, errors, calls without a REPORT line and the
    largest response."""
    calls: dict = {"reports": [], "errors": 0, "missing": 0, "response_bytes": 0}
    for _ in range(invocations):
        resp = client.invoke(
            FunctionName=function_name, InvocationType="RequestResponse", LogType="Tail", Payload=payload
        )
        body = resp["Payload"].read()
        calls["response_bytes"] = max(calls["response_bytes"], len(body))
        if resp.get("FunctionError") or not _ok_proxy_response(body):
            calls["errors"] += 1
        found = parse_log_tail(base64.b64decode(resp.get("LogResult") or "").decode("utf-8", "replace"))
        if found:
            calls["reports"].append(found[-1])
        else:
            calls["missing"] += 1
    return calls


def memory_row(memory: int, invocations: int, calls: dict, discard: float) -> dict:
    """One memory size's figures from its calls."""
    reports = calls["reports"]
    warm = [r for r in reports if r.get("init_ms") is None]
    cold = [r for r in reports if r.get("init_ms") is not None]
    return {
        "memory_mb": memory,
        "invocations": invocations,
        "reports": len(reports),
        "missing_reports": calls["missing"],
        "errors": calls["errors"],
        "cold_starts": len(cold),
        "duration_ms": trimmed_mean([r["duration_ms"] for r in warm], discard) if warm else None,
        "billed_ms": trimmed_mean([r["billed_ms"] for r in warm], discard) if warm else None,
        "init_ms": statistics.mean(r["init_ms"] for r in cold) if cold else None,
        "max_memory_used_mb": max((r.get("max_memory_mb") or 0) for r in reports) if reports else None,
        "response_bytes": calls["response_bytes"],
    }


def function_sweep(
    client,
    function_name: str,
    memories,
    event: dict,
    invocations: int = 20,
    discard: float = 0.2,
    restore: bool = True,
    log=print,
) -> list[dict]:
    """Measure ``function_name`` at each memory size from the REPORT lines of invoke log tails."""
    original = client.get_function_configuration(FunctionName=function_name)
    payload = json.dumps(event).encode("utf-8")
    results = []
    try:
        for memory in memories:
            client.update_function_configuration(FunctionName=function_name, MemorySize=memory)
            aws.wait_updated(client, function_name)
            calls = invoke_with_reports(client, function_name, payload, invocations)
            row = memory_row(memory, invocations, calls, discard)
            results.append(row)
            log(
                f"cost: {function_name} @ {memory} MB: {row['reports'] - row['cold_starts']} warm, "
                f"{row['cold_starts']} cold, billed {row['billed_ms']} ms (trimmed mean), init "
                f"{row['init_ms']} ms, {row['errors']} errors, {row['missing_reports']} without REPORT"
            )
    finally:
        before = original.get("MemorySize")
        if restore and memories and before is not None and before != memories[-1]:
            client.update_function_configuration(FunctionName=function_name, MemorySize=before)
            aws.wait_updated(client, function_name)
    return results


def price_measured(rows, arch, gateway, cold_start_rate, init_ms, request_bytes, label, batch=1):
    """The measured rows priced (rows without a warm call are left out); ``init_ms`` None: each
    row's measured INIT."""
    priced = []
    for row in rows:
        if row["billed_ms"] is None:
            continue
        init = init_ms if init_ms is not None else (row["init_ms"] or 0.0)
        cost = call_cost(
            row["billed_ms"],
            row["memory_mb"],
            arch,
            gateway,
            max(request_bytes, row["response_bytes"]),
            cold_start_rate,
            init,
            already_billed=True,
        )
        priced.append({**row, "scenario": label, "init_ms_priced": init, **cost_columns(cost, batch)})
    return priced
