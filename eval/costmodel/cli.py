"""Cost per call of the Lambda deployment: a local model (no AWS) or a real memory sweep.

    python eval/run_all.py run cost --local [--arch arm64] [--gateway http|rest|url]
        [--cold-start-rate 0.01] [--init-ms MS] [--perturbations a,b] [--lengths 20w,2KB,20KB]
        [--batches 1,10,100] [--memory 128,256,...] [--repeats 7]
    python eval/run_all.py run cost --function-name NAME [--invocations 20] [--region us-east-1] [...]

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

``--snapstart COLD_STARTS_PER_MONTH`` also prints SnapStart's monthly cost against billed INITs.
"""

from __future__ import annotations

import pathlib
import re
import sys

from costmodel import prices, snapstart
from costmodel.local import local_sweep, measure_init_ms, price_local
from costmodel.prices import COLD_START_RATE, MEMORY_SIZES, MODEL_TEXT, PRICE_GATEWAY, PRICE_GB_S
from costmodel.remote import function_sweep, price_measured
from costmodel.render import print_headline, print_snapstart, write_outputs
from costmodel.scenarios import BATCHES, DEFAULT_PERTURBATIONS, LENGTHS, catalog_entry, scenario_event
from evalkit import cli, paths
from functions import aws

LOCAL_COLUMNS = [
    "scenario",
    "memory_mb",
    "local_ms",
    "duration_ms",
    "billed_ms",
    "request_bytes",
    "usd_per_million_calls",
    "usd_per_million_texts",
]
MEASURED_COLUMNS = [
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


def _csv_list(text: str, kind=str) -> list:
    return [kind(part.strip()) for part in text.split(",") if part.strip()]


def build_parser():
    parser = cli.parser("cost", "\n\n".join([__doc__, prices.__doc__, snapstart.__doc__]))
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
    parser.add_argument("--out", default=str(paths.OUT), help="output directory (default eval/out)")
    parser.add_argument(
        "--snapstart",
        type=float,
        metavar="COLD_STARTS_PER_MONTH",
        help="also print SnapStart's monthly cost against billed INITs",
    )
    return parser


def parse_args(argv):
    """The options, checked, with ``memories``, ``lengths`` and ``batches`` as lists."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.snapstart is not None and args.snapstart < 0:
        parser.error("--snapstart: cold starts per month must be >= 0")
    args.memories = _csv_list(args.memory, int)
    args.lengths = _csv_list(args.lengths)
    args.batches = _csv_list(args.batches, int)
    if not args.memories or any(not 128 <= m <= 10240 for m in args.memories):
        parser.error("--memory: sizes must be 128..10240 MB")
    if any(length not in LENGTHS for length in args.lengths):
        parser.error(f"--lengths: choose from {', '.join(LENGTHS)}")
    if not 0 <= args.cold_start_rate <= 1:
        parser.error("--cold-start-rate must be within 0..1")
    return args


def run_local(args) -> tuple[dict, float, str] | None:
    """The local sweep, priced and written: ``(paths, init_ms, arch)``; None when nothing ran."""
    arch = args.arch or "arm64"
    init_ms, init_note = args.init_ms, "given"
    if init_ms is None:
        init_ms = measure_init_ms()
        init_note = "measured: cold import of functions.api.handler, fresh process, median of 5"
    rows = local_sweep(_csv_list(args.perturbations), args.lengths, args.batches, args.repeats)
    if not rows:
        print("cost: nothing measured", file=sys.stderr)
        return None
    priced = price_local(rows, args.memories, arch, args.gateway, args.cold_start_rate, init_ms)
    header = [
        f"local model, {arch}, gateway {args.gateway}, cold-start rate {args.cold_start_rate}, "
        f"init {init_ms:.0f} ms ({init_note})",
        "",
        f"Model: {MODEL_TEXT} INIT is priced at M without scaling.",
        "Price: $0.20/M requests + GB-s (arm64 $0.0000133334, x86_64 $0.0000166667) x billed ms "
        "(1 ms, rounded up) + API Gateway (HTTP $1.00/M per 512 KB, REST $3.50/M, URL $0) "
        "+ cold-start rate x INIT GB-s.",
    ]
    written = write_outputs(priced, pathlib.Path(args.out), "cost-local", header, LOCAL_COLUMNS)
    print_headline(priced, arch, args.gateway)
    return written, init_ms, arch


def lambda_client(args):
    """``(client, configuration)`` of the deployed function; None (reported) when unreadable."""
    try:
        import boto3

        client = boto3.client("lambda", region_name=aws.region(args.region))
        return client, client.get_function_configuration(FunctionName=args.function_name)
    except Exception as err:
        print(f"cost: error: cannot read {args.function_name}: {type(err).__name__}: {err}", file=sys.stderr)
        return None


def run_remote(args) -> tuple[dict, float, str] | None:
    """The sweep on the deployed function, priced and written: ``(paths, init_ms, arch)``."""
    found = lambda_client(args)
    if found is None:
        return None
    client, config = found
    arch = args.arch or (config.get("Architectures") or ["x86_64"])[0]
    name = _csv_list(args.perturbations)[0]
    length, batch = args.lengths[0], args.batches[0]
    event, request_bytes = scenario_event(name, *catalog_entry(name), length, batch)
    rows = function_sweep(
        client, args.function_name, args.memories, event, args.invocations, restore=not args.no_restore
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
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", args.function_name)
    written = write_outputs(priced, pathlib.Path(args.out), f"cost-{safe}", header, MEASURED_COLUMNS)
    print_headline(priced, arch, args.gateway)
    return written, args.init_ms or 0, arch


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    outcome = run_local(args) if args.local else run_remote(args)
    if outcome is None:
        return 1
    written, init_ms, arch = outcome
    print("cost: wrote " + ", ".join(str(p) for p in written.values()))
    if args.snapstart is not None:
        print_snapstart(args.memories, args.snapstart, init_ms, arch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
