#!/usr/bin/env python3
"""Cost per call of the Lambda deployment: a local model (no AWS) or a real memory sweep.

    python eval/cost.py --local [--arch arm64] [--gateway http|rest|url] [--cold-start-rate 0.01]
                                [--init-ms MS] [--perturbations a,b] [--lengths 20w,2KB,20KB]
                                [--batches 1,10,100] [--memory 128,256,...] [--repeats 7]
    python eval/cost.py --function-name NAME [--invocations 20] [--region us-east-1] [...]

Both modes write ``eval/out/cost-<local|NAME>.{md,csv,png}`` (table + $ per million calls vs
memory, one line per scenario).

``--local`` invokes ``functions.api.handler.handler`` in-process with HTTP API v2 events (the
typed route ``POST /perturb/<category>/<name>``, body ``{"texts": [...batch...], "seed": 0}``) for
perturbations x text lengths x batch sizes, records the median of ``--repeats`` warm calls, and
models the Lambda duration at memory M as::

    duration(M) = local_ms * max(1, 1769 / M)

i.e. Lambda's CPU share is proportional to memory up to 1,769 MB (= one vCPU) and this
single-threaded code gets no faster above that; one local core is taken as one Lambda vCPU. The
INIT duration (default: the cold import of ``functions.api.handler`` measured in fresh
subprocesses, median of 5, WordNet not loaded) is priced at M without scaling and amortized at
``--cold-start-rate``.

``--function-name`` does the sweep on a deployed function with boto3 (as AWS Lambda Power Tuning
does): for each memory size ``update_function_configuration(MemorySize=M)``, wait until updated,
invoke ``--invocations`` times with ``LogType="Tail"`` and an API-Gateway-shaped payload, parse
the REPORT lines of the log tails (Duration, Billed Duration, Init Duration, Max Memory Used),
take the trimmed mean of the warm calls (top and bottom 20 % dropped) and the mean Init Duration
of the cold ones; the original memory size is restored at the end.

Price per call (AWS public price lists for Lambda and API Gateway, us-east-1)::

    P_request (0.20e-6)
    + P_GBs[arch] * M/1024 * billed_ms/1000           arm64 0.0000133334, x86_64 0.0000166667
    + P_gateway * units                               HTTP API 1.00e-6 per 512 KB, REST 3.50e-6, URL 0
    + cold_start_rate * P_GBs[arch] * M/1024 * billed_init_ms/1000

with 1 ms billing granularity (rounded up). HTTP API units are metered on the larger of the
request and response payloads, in 512 KB increments. Not included: free tiers, data transfer out,
CloudWatch Logs ingestion.

SnapStart (python3.12+; template parameter ``SnapStart``, ``PERTURBER_SNAPSTART=true`` for osls),
``--snapstart COLD_STARTS_PER_MONTH`` prints the monthly comparison::

    cache    0.0000015046 $ per GB-s of memory, per published version, while it exists (>= 3 h)
    restore  0.0001397998 $ per GB restored (each new execution environment)
             + the duration of runtime hooks (none here), instead of the billed INIT

A restore costs as much as ``0.0001397998 / P_GBs`` seconds of billed INIT: 10.5 s on arm64,
8.4 s on x86_64, whatever the memory. This function's INIT is well under that (even with WordNet
warmed), so SnapStart never pays off in dollars here: it buys latency (no import or WordNet load
on a cold start) for the cache (~$1.95/month per version at 512 MB) plus ~$7e-5 per cold start.
"""

from __future__ import annotations

import argparse
import base64
import csv
import json
import math
import os
import pathlib
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

from functions import aws

ROOT = pathlib.Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

OUT_DIR = ROOT / "eval" / "out"
MEMORY_SIZES = (128, 256, 512, 1024, 1769, 2048, 3008)
FULL_VCPU_MB = 1769
PRICE_GB_S = {"arm64": 0.0000133334, "x86_64": 0.0000166667}
PRICE_REQUEST = 0.20e-6
PRICE_GATEWAY = {"http": 1.00e-6, "rest": 3.50e-6, "url": 0.0}
HTTP_API_METER_BYTES = 512 * 1024
DEFAULT_PERTURBATIONS = ("baseline", "typos", "zero_width", "quotes", "reorder_properties")
LENGTHS = {"20w": None, "2KB": 2048, "20KB": 20480}
BATCHES = (1, 10, 100)
COLD_START_RATE = 0.01
MODEL_TEXT = (
    "Lambda duration at memory M = local_ms x max(1, 1769/M): CPU share is proportional to "
    "memory up to 1,769 MB (= 1 vCPU) and this single-threaded code gets no faster above; "
    "one local core is taken as one Lambda vCPU."
)

SENTENCE_20W = (
    "Please tell me quickly which famous European city hosted the summer games in 1992 "
    "and why it mattered so much."
)
PARAGRAPH = (
    "The committee reviewed the proposal on Tuesday and agreed that the new library would "
    "open in the spring. Residents asked whether the reading room could stay open late, "
    "and the director said it would, at least on weekdays. Funding comes from the city and "
    "from a private donor who prefers to remain anonymous. "
)


# -- prices -----------------------------------------------------------------------------------


def billed_ms(duration_ms: float) -> int:
    """Lambda bills in 1 ms steps, rounded up (at least 1 ms)."""
    return max(1, math.ceil(round(duration_ms, 6)))


def gateway_units(gateway: str, payload_bytes: int = 0) -> int:
    if gateway == "url":
        return 0
    if gateway == "http":
        return max(1, math.ceil(payload_bytes / HTTP_API_METER_BYTES))
    return 1


@dataclass
class CallCost:
    compute: float
    request: float
    gateway: float
    init: float

    @property
    def total(self) -> float:
        return self.compute + self.request + self.gateway + self.init

    @property
    def per_million(self) -> float:
        return self.total * 1e6


def call_cost(
    duration_ms: float,
    memory_mb: int,
    arch: str = "arm64",
    gateway: str = "http",
    payload_bytes: int = 0,
    cold_start_rate: float = 0.0,
    init_ms: float = 0.0,
    already_billed: bool = False,
) -> CallCost:
    """Cost of one call. ``already_billed``: ``duration_ms`` is a (mean of) Billed Duration."""
    if arch not in PRICE_GB_S:
        raise ValueError(f"arch must be one of {sorted(PRICE_GB_S)}")
    if gateway not in PRICE_GATEWAY:
        raise ValueError(f"gateway must be one of {sorted(PRICE_GATEWAY)}")
    gb = memory_mb / 1024
    ms = duration_ms if already_billed else billed_ms(duration_ms)
    init = cold_start_rate * PRICE_GB_S[arch] * gb * billed_ms(init_ms) / 1000 if init_ms > 0 else 0.0
    return CallCost(
        compute=PRICE_GB_S[arch] * gb * ms / 1000,
        request=PRICE_REQUEST,
        gateway=PRICE_GATEWAY[gateway] * gateway_units(gateway, payload_bytes),
        init=init,
    )


PRICE_SNAPSTART_CACHE_GB_S = 0.0000015046
PRICE_SNAPSTART_RESTORE_GB = 0.0001397998
SNAPSTART_MIN_CACHE_S = 3 * 3600
SECONDS_PER_MONTH = 30 * 24 * 3600


def snapstart_monthly(
    memory_mb: int,
    cold_starts: float,
    init_ms: float,
    arch: str = "arm64",
    versions: int = 1,
    hook_ms: float = 0.0,
    cached_s: float = SECONDS_PER_MONTH,
) -> dict:
    """Monthly $ of cold starts without and with SnapStart (cache + restores).

    >>> row = snapstart_monthly(512, 0, 400)
    >>> round(row["with_snapstart"], 2), row["without"]
    (1.95, 0.0)
    """
    gb = memory_mb / 1024
    without = cold_starts * PRICE_GB_S[arch] * gb * billed_ms(init_ms) / 1000
    hooks = PRICE_GB_S[arch] * gb * billed_ms(hook_ms) / 1000 if hook_ms > 0 else 0.0
    cache = versions * PRICE_SNAPSTART_CACHE_GB_S * gb * max(cached_s, SNAPSTART_MIN_CACHE_S)
    restores = cold_starts * (PRICE_SNAPSTART_RESTORE_GB * gb + hooks)
    return {
        "memory_mb": memory_mb,
        "cold_starts": cold_starts,
        "init_ms": init_ms,
        "without": without,
        "cache": cache,
        "restores": restores,
        "with_snapstart": cache + restores,
        "extra": cache + restores - without,
    }


def snapstart_break_even_init_ms(arch: str = "arm64", hook_ms: float = 0.0) -> float:
    """INIT (ms) above which a restore is cheaper than a billed INIT (cache not counted).

    >>> round(snapstart_break_even_init_ms("arm64")), round(snapstart_break_even_init_ms("x86_64"))
    (10485, 8388)
    """
    return PRICE_SNAPSTART_RESTORE_GB / PRICE_GB_S[arch] * 1000 + hook_ms


def modeled_ms(local_ms: float, memory_mb: int) -> float:
    return local_ms * max(1.0, FULL_VCPU_MB / memory_mb)


# -- REPORT lines -----------------------------------------------------------------------------

_REPORT_FIELDS = {
    "Duration": "duration_ms",
    "Billed Duration": "billed_ms",
    "Memory Size": "memory_mb",
    "Max Memory Used": "max_memory_mb",
    "Init Duration": "init_ms",
    "Restore Duration": "restore_ms",
    "Billed Restore Duration": "billed_restore_ms",
}
_FIELD_RE = re.compile(
    r"(Billed Restore Duration|Restore Duration|Billed Duration|Init Duration|"
    r"Max Memory Used|Memory Size|Duration): ([0-9.]+) (ms|MB)"
)


def parse_report(line: str) -> dict | None:
    """``REPORT RequestId: ... Duration: 12.34 ms ...`` -> dict (None for other lines)."""
    line = line.strip()
    if not line.startswith("REPORT "):
        return None
    found = re.search(r"RequestId: (\S+)", line)
    report: dict = {"request_id": found.group(1) if found else None, "init_ms": None}
    for name, value, _unit in _FIELD_RE.findall(line):
        report[_REPORT_FIELDS[name]] = float(value)
    if "duration_ms" not in report or "billed_ms" not in report:
        return None
    return report


def parse_log_tail(text: str) -> list[dict]:
    return [r for r in (parse_report(line) for line in text.splitlines()) if r is not None]


def trimmed_mean(values, discard: float = 0.2) -> float:
    """Mean after dropping ``floor(n * discard)`` values at each end (Lambda Power Tuning)."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("no values")
    k = int(len(ordered) * discard)
    kept = ordered[k : len(ordered) - k] or ordered
    return sum(kept) / len(kept)


# -- events -----------------------------------------------------------------------------------


def sample_text(length: str, family: str) -> str:
    """The input for one scenario: 20 words, or ~2 KB / ~20 KB (a JSON Schema for schema entries)."""
    target = LENGTHS[length]
    if family == "schema":
        props, i = {}, 0
        limit = 160 if target is None else target
        while True:
            props[f"field_{i}"] = {"type": "string", "description": f"value number {i}", "maxLength": 80}
            text = json.dumps({"type": "object", "properties": props, "required": sorted(props)[:3]})
            if len(text) >= limit:
                return text
            i += 1
    if target is None:
        return SENTENCE_20W
    return (PARAGRAPH * (target // len(PARAGRAPH) + 1))[:target]


def catalog_entry(name: str) -> tuple[str, str]:
    """(category, family) of ``name`` from the local library (native/text if unknown)."""
    try:
        import perturber

        for entry in perturber.list_perturbations():
            if entry["name"] == name:
                return entry["category"], entry["family"]
    except ImportError:
        pass
    return "native", "text"


def api_event(path: str, body: dict) -> dict:
    from functions.api.events import http_api_event

    return http_api_event(
        "POST", path, headers={"content-type": "application/json"}, body=json.dumps(body).encode("utf-8")
    )


def scenario_event(name: str, category: str, family: str, length: str, batch: int) -> tuple[dict, int]:
    body = {"texts": [sample_text(length, family)] * batch, "seed": 0}
    raw = json.dumps(body).encode("utf-8")
    return api_event(f"/perturb/{category}/{name}", body), len(raw)


# -- local sweep ------------------------------------------------------------------------------


def measure_init_ms(runs: int = 5, warm_synonym: bool = False) -> float:
    """Median cold import time of functions.api.handler in fresh interpreters (ms)."""
    code = (
        "import time; t = time.perf_counter(); import functions.api.handler; "
        "print((time.perf_counter() - t) * 1000)"
    )
    env = {k: v for k, v in os.environ.items() if k != "PERTURBER_WARM_SYNONYM"}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    if warm_synonym:
        env["PERTURBER_WARM_SYNONYM"] = "1"
    samples = []
    for _ in range(runs):
        proc = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
        )
        if proc.returncode != 0:
            raise RuntimeError(f"import functions.api.handler failed: {proc.stderr.strip()[-500:]}")
        samples.append(float(proc.stdout.strip().splitlines()[-1]))
    return statistics.median(samples)


def local_sweep(
    perturbations, lengths, batches, repeats: int = 7, budget_s: float = 20.0, log=print
) -> list[dict]:
    """Median in-process handler time per (perturbation, length, batch)."""
    import perturber
    from functions.api.events import LocalContext, response_body
    from functions.api.handler import handler

    catalog = {e["name"]: e for e in perturber.list_perturbations()}
    rows = []
    for name in perturbations:
        entry = catalog.get(name)
        if entry is None:
            log(f"cost: {name}: not in this catalog, skipped")
            continue
        for length in lengths:
            for batch in batches:
                event, request_bytes = scenario_event(name, entry["category"], entry["family"], length, batch)
                response = handler(event, LocalContext())  # warm-up (and check)
                if response["statusCode"] != 200:
                    log(
                        f"cost: {name} {length} x{batch}: HTTP {response['statusCode']} "
                        f"{response_body(response)[:200]!r}, skipped"
                    )
                    continue
                response_bytes = len(response_body(response))
                samples, started = [], time.perf_counter()
                while len(samples) < repeats:
                    t = time.perf_counter()
                    handler(event, LocalContext())
                    samples.append((time.perf_counter() - t) * 1000)
                    if len(samples) >= 3 and time.perf_counter() - started > budget_s:
                        break
                rows.append(
                    {
                        "perturbation": name,
                        "category": entry["category"],
                        "length": length,
                        "batch": batch,
                        "request_bytes": request_bytes,
                        "response_bytes": response_bytes,
                        "runs": len(samples),
                        "local_ms": statistics.median(samples),
                    }
                )
                log(
                    f"cost: {name:20s} {length:>5s} x{batch:<4d} median {rows[-1]['local_ms']:9.2f} ms "
                    f"({len(samples)} runs)"
                )
    return rows


def price_local(rows, memories, arch, gateway, cold_start_rate, init_ms) -> list[dict]:
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
                    **_cost_columns(cost, row["batch"]),
                }
            )
    return priced


def _cost_columns(cost: CallCost, batch: int) -> dict:
    return {
        "usd_compute": cost.compute,
        "usd_request": cost.request,
        "usd_gateway": cost.gateway,
        "usd_init": cost.init,
        "usd_per_call": cost.total,
        "usd_per_million_calls": round(cost.per_million, 4),
        "usd_per_million_texts": round(cost.per_million / batch, 4),
    }


# -- real sweep -------------------------------------------------------------------------------


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
            reports, errors, missing, response_bytes = [], 0, 0, 0
            for _ in range(invocations):
                resp = client.invoke(
                    FunctionName=function_name,
                    InvocationType="RequestResponse",
                    LogType="Tail",
                    Payload=payload,
                )
                body = resp["Payload"].read()
                response_bytes = max(response_bytes, len(body))
                if resp.get("FunctionError") or not _ok_proxy_response(body):
                    errors += 1
                tail = base64.b64decode(resp.get("LogResult") or "").decode("utf-8", "replace")
                found = parse_log_tail(tail)
                if found:
                    reports.append(found[-1])
                else:
                    missing += 1
            warm = [r for r in reports if r.get("init_ms") is None]
            cold = [r for r in reports if r.get("init_ms") is not None]
            row = {
                "memory_mb": memory,
                "invocations": invocations,
                "reports": len(reports),
                "missing_reports": missing,
                "errors": errors,
                "cold_starts": len(cold),
                "duration_ms": trimmed_mean([r["duration_ms"] for r in warm], discard) if warm else None,
                "billed_ms": trimmed_mean([r["billed_ms"] for r in warm], discard) if warm else None,
                "init_ms": statistics.mean(r["init_ms"] for r in cold) if cold else None,
                "max_memory_used_mb": max((r.get("max_memory_mb") or 0) for r in reports)
                if reports
                else None,
                "response_bytes": response_bytes,
            }
            results.append(row)
            log(
                f"cost: {function_name} @ {memory} MB: {len(warm)} warm, {len(cold)} cold, "
                f"billed {row['billed_ms']} ms (trimmed mean), init {row['init_ms']} ms, "
                f"{errors} errors, {missing} without REPORT"
            )
    finally:
        before = original.get("MemorySize")
        if restore and memories and before is not None and before != memories[-1]:
            client.update_function_configuration(FunctionName=function_name, MemorySize=before)
            aws.wait_updated(client, function_name)
    return results


def _ok_proxy_response(body: bytes) -> bool:
    try:
        return json.loads(body).get("statusCode") == 200
    except (ValueError, AttributeError):
        return False


def price_measured(rows, arch, gateway, cold_start_rate, init_ms, request_bytes, label, batch=1):
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
        priced.append({**row, "scenario": label, "init_ms_priced": init, **_cost_columns(cost, batch)})
    return priced


# -- output -----------------------------------------------------------------------------------


def write_outputs(
    priced: list[dict], out_dir: pathlib.Path, stem: str, header: list[str], columns: list[str]
) -> dict[str, pathlib.Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {ext: out_dir / f"{stem}.{ext}" for ext in ("csv", "md", "png")}
    with paths["csv"].open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(priced[0]) if priced else columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(priced)
    lines = [
        f"# {stem}",
        "",
        *header,
        "",
        "| " + " | ".join(columns) + " |",
        "|" + "|".join("---" for _ in columns) + "|",
    ]
    for row in priced:
        lines.append("| " + " | ".join(_fmt(row.get(c)) for c in columns) + " |")
    paths["md"].write_text("\n".join(lines) + "\n", encoding="utf-8")
    _plot(priced, paths["png"], stem, header[0] if header else "")
    return paths


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) < 1e-3 and value else f"{value:,.4f}".rstrip("0").rstrip(".")
    return "" if value is None else str(value)


def _plot(priced: list[dict], path: pathlib.Path, title: str, subtitle: str) -> None:
    """$ per million calls vs memory; colour = perturbation, line style = length, marker = batch."""
    import textwrap

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series: dict[str, list[tuple[int, float]]] = {}
    for row in priced:
        series.setdefault(row["scenario"], []).append((row["memory_mb"], row["usd_per_million_calls"]))
    parts = {label: (label.split() + ["", "", ""])[:3] for label in series}
    colours = {
        name: plt.get_cmap("tab10")(i % 10)
        for i, name in enumerate(dict.fromkeys(p[0] for p in parts.values()))
    }
    styles = dict(zip(dict.fromkeys(p[1] for p in parts.values()), ["-", "--", ":", "-."] * 4))
    markers = dict(zip(dict.fromkeys(p[2] for p in parts.values()), ["o", "s", "^", "D", "v"] * 4))
    fig, ax = plt.subplots(figsize=(11, 6.5))
    for label, points in series.items():
        name, length, batch = parts[label]
        points.sort()
        ax.plot(
            [p[0] for p in points],
            [p[1] for p in points],
            color=colours[name],
            linestyle=styles[length],
            marker=markers[batch],
            markersize=4,
            linewidth=1.2,
            label=label,
        )
    memories = sorted({row["memory_mb"] for row in priced})
    ax.set_xscale("log", base=2)
    ax.set_xticks(memories, [str(m) for m in memories], fontsize=8, rotation=45)
    ax.minorticks_off()
    ax.set_yscale("log")
    ax.set_xlabel("memory (MB)")
    ax.set_ylabel("$ per million calls")
    ax.set_title(title + "\n" + "\n".join(textwrap.wrap(subtitle, 110)), fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    if series:
        ax.legend(
            fontsize=6, ncol=1 if len(series) <= 20 else 2, loc="center left", bbox_to_anchor=(1.01, 0.5)
        )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# -- CLI --------------------------------------------------------------------------------------


def _csv_list(text: str, kind=str) -> list:
    return [kind(part.strip()) for part in text.split(",") if part.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python eval/cost.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--local", action="store_true", help="in-process handler + duration model")
    mode.add_argument("--function-name", help="measure this deployed function (boto3)")
    parser.add_argument(
        "--arch",
        choices=sorted(PRICE_GB_S),
        help="price architecture (default: arm64 locally, the function's otherwise)",
    )
    parser.add_argument("--gateway", choices=sorted(PRICE_GATEWAY), default="http")
    parser.add_argument(
        "--cold-start-rate",
        type=float,
        default=COLD_START_RATE,
        help=f"fraction of calls that start a new environment (default {COLD_START_RATE})",
    )
    parser.add_argument("--init-ms", type=float, help="INIT duration to price (default: measured)")
    parser.add_argument("--memory", default=",".join(map(str, MEMORY_SIZES)), help="memory sizes, MB")
    parser.add_argument("--perturbations", default=",".join(DEFAULT_PERTURBATIONS))
    parser.add_argument("--lengths", default=",".join(LENGTHS), help=f"subset of {','.join(LENGTHS)}")
    parser.add_argument("--batches", default=",".join(map(str, BATCHES)))
    parser.add_argument("--repeats", type=int, default=7, help="local: timed calls per scenario (median)")
    parser.add_argument("--invocations", type=int, default=20, help="remote: invocations per memory size")
    parser.add_argument("--region", help="remote: AWS region (default AWS_REGION or us-east-1)")
    parser.add_argument("--no-restore", action="store_true", help="remote: keep the last memory size")
    parser.add_argument("--out", default=str(OUT_DIR), help="output directory (default eval/out)")
    parser.add_argument(
        "--snapstart",
        type=float,
        metavar="COLD_STARTS_PER_MONTH",
        help="also print SnapStart's monthly cost against billed INITs",
    )
    args = parser.parse_args(argv)
    if args.snapstart is not None and args.snapstart < 0:
        parser.error("--snapstart: cold starts per month must be >= 0")

    memories = _csv_list(args.memory, int)
    lengths = _csv_list(args.lengths)
    if not memories or any(not 128 <= m <= 10240 for m in memories):
        parser.error("--memory: sizes must be 128..10240 MB")
    if any(length not in LENGTHS for length in lengths):
        parser.error(f"--lengths: choose from {', '.join(LENGTHS)}")
    if not 0 <= args.cold_start_rate <= 1:
        parser.error("--cold-start-rate must be within 0..1")
    out_dir = pathlib.Path(args.out)

    if args.local:
        arch = args.arch or "arm64"
        init_ms = args.init_ms
        init_note = "given"
        if init_ms is None:
            init_ms = measure_init_ms()
            init_note = "measured: cold import of functions.api.handler, fresh process, median of 5"
        rows = local_sweep(_csv_list(args.perturbations), lengths, _csv_list(args.batches, int), args.repeats)
        if not rows:
            print("cost: nothing measured", file=sys.stderr)
            return 1
        priced = price_local(rows, memories, arch, args.gateway, args.cold_start_rate, init_ms)
        header = [
            f"local model, {arch}, gateway {args.gateway}, cold-start rate {args.cold_start_rate}, "
            f"init {init_ms:.0f} ms ({init_note})",
            "",
            f"Model: {MODEL_TEXT} INIT is priced at M without scaling.",
            "Price: $0.20/M requests + GB-s (arm64 $0.0000133334, x86_64 $0.0000166667) x billed ms "
            "(1 ms, rounded up) + API Gateway (HTTP $1.00/M per 512 KB, REST $3.50/M, URL $0) "
            "+ cold-start rate x INIT GB-s.",
        ]
        columns = [
            "scenario",
            "memory_mb",
            "local_ms",
            "duration_ms",
            "billed_ms",
            "request_bytes",
            "usd_per_million_calls",
            "usd_per_million_texts",
        ]
        paths = write_outputs(priced, out_dir, "cost-local", header, columns)
        _print_headline(priced, arch, args.gateway)
    else:
        try:
            import boto3

            region = aws.region(args.region)
            client = boto3.client("lambda", region_name=region)
            config = client.get_function_configuration(FunctionName=args.function_name)
        except Exception as err:
            print(
                f"cost: error: cannot read {args.function_name}: {type(err).__name__}: {err}", file=sys.stderr
            )
            return 1
        arch = args.arch or (config.get("Architectures") or ["x86_64"])[0]
        name = _csv_list(args.perturbations)[0]
        length, batch = lengths[0], _csv_list(args.batches, int)[0]
        category, family = catalog_entry(name)
        event, request_bytes = scenario_event(name, category, family, length, batch)
        rows = function_sweep(
            client, args.function_name, memories, event, args.invocations, restore=not args.no_restore
        )
        label = f"{name} {length} x{batch} (measured)"
        priced = price_measured(
            rows, arch, args.gateway, args.cold_start_rate, args.init_ms, request_bytes, label, batch
        )
        header = [
            f"{args.function_name}: measured, {arch}, gateway {args.gateway}, cold-start rate "
            f"{args.cold_start_rate}",
            "",
            "Durations: trimmed mean (top/bottom 20 % dropped) of warm REPORT lines; INIT: mean "
            "Init Duration of cold calls (or --init-ms).",
        ]
        columns = [
            "scenario",
            "memory_mb",
            "reports",
            "cold_starts",
            "errors",
            "duration_ms",
            "billed_ms",
            "init_ms",
            "max_memory_used_mb",
            "usd_per_million_calls",
        ]
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", args.function_name)
        paths = write_outputs(priced, out_dir, f"cost-{safe}", header, columns)
        _print_headline(priced, arch, args.gateway)
    print("cost: wrote " + ", ".join(str(p) for p in paths.values()))
    if args.snapstart is not None:
        _print_snapstart(memories, args.snapstart, init_ms if args.local else (args.init_ms or 0), arch)
    return 0


def _print_snapstart(memories, cold_starts: float, init_ms: float, arch: str) -> None:
    print(
        f"snapstart: {cold_starts:g} cold starts/month, INIT {init_ms:.0f} ms, {arch}; a restore "
        f"pays off only above {snapstart_break_even_init_ms(arch) / 1000:.1f} s of INIT"
    )
    for memory in memories:
        row = snapstart_monthly(memory, cold_starts, init_ms, arch)
        print(
            f"snapstart: {memory} MB: INIT billed ${row['without']:.4f}/month; SnapStart "
            f"${row['with_snapstart']:.4f}/month (cache ${row['cache']:.4f} + restores "
            f"${row['restores']:.4f}): {'+' if row['extra'] >= 0 else '-'}${abs(row['extra']):.4f}"
        )


def _print_headline(priced: list[dict], arch: str, gateway: str) -> None:
    for row in priced:
        if row["memory_mb"] == 512 and row.get("batch", 1) == 1 and row.get("length", "20w") == "20w":
            print(
                f"cost: {row['scenario']} @ 512 MB {arch}, {gateway}: "
                f"${row['usd_per_million_calls']:.4f} per million calls"
            )


if __name__ == "__main__":
    sys.exit(main())
