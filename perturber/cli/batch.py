"""``perturber batch``: perturb one field of every record of a JSONL file.

Each output record is the input record plus ``FIELD_perturbed`` (the perturbed text) and
``perturber`` (the result without its text). All records are read and checked, then perturbed,
then written atomically: on any error nothing is written.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence

from .. import core, registry
from ..errors import InvalidParams, PerturberError
from ..records import AtomicJsonl, Progress, dumps, iter_jsonl, read_records
from .parser import Parser, convert, parse_seed


def _parser() -> Parser:
    parser = Parser(
        prog="perturber batch",
        description="Perturb one field of every JSON object of a JSONL file. Each output record is "
        "the input record plus OUTPUT_FIELD (the perturbed text) and 'perturber' "
        "(applied, reason, edits, magnitude, version, seed, params). The output file "
        "is written atomically: on any error nothing is written.",
    )
    parser.add_argument("name")
    parser.add_argument("--input", required=True, help="JSONL file ('-' for stdin)")
    parser.add_argument("--output", required=True, help="JSONL file ('-' for stdout)")
    parser.add_argument("--field", default="text", help="field holding the text (default: text)")
    parser.add_argument("--output-field", help="field for the result (default: FIELD_perturbed)")
    parser.add_argument("--seed", default="0")
    parser.add_argument("--category", default="native")
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: when stderr is a terminal)",
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a parameter of the perturbation (repeatable)",
    )
    return parser


def _params(spec: registry.Perturbation, items: list[str]) -> dict:
    """``--param NAME=VALUE`` items as typed, validated parameters."""
    by_name = {p.name: p for p in spec.params}
    params = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or key not in by_name:
            raise InvalidParams(
                f"--param {item!r}: expected NAME=VALUE with NAME in {sorted(by_name) or 'no parameters'}",
                field=key,
            )
        params[key] = convert(by_name[key], raw)
    spec.resolve(params)
    return params


def _records(path: str, field: str) -> list[dict]:
    """Every record of ``path`` ('-': stdin), each with a string ``field``."""
    if path == "-":
        source = iter_jsonl(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8"), "<stdin>")
    else:
        source = read_records(path)
    records = []
    for number, record in enumerate(source, 1):
        if not isinstance(record.get(field), str):
            raise InvalidParams(f"{path}: record {number}: no string field {field!r}", record=number)
        records.append(record)
    return records


def _perturb(
    spec, texts: list[str], params: dict, seed: int, progress: Progress, source: str
) -> list[core.Result]:
    """The results in input order; an error names the file and record it happened on."""
    if spec.model_backed:  # one batch: requests run concurrently through the endpoint's pool
        try:
            results = core.apply_many(
                texts, spec.name, params, seed, spec.category, on_done=lambda i, r: progress.update()
            )
        except PerturberError as err:
            index = err.details.get("index")
            if isinstance(index, int):
                err.message = f"{source}: record {index + 1}: {err.message.split(': ', 1)[-1]}"
            raise
        progress.update(len(texts) - progress.done)
        return results
    results = []
    for number, text in enumerate(texts, 1):
        try:
            results.append(core.apply(text, spec.name, params, seed, spec.category))
        except PerturberError as err:
            err.message = f"{source}: record {number}: {err.message}"
            raise
        progress.update()
    return results


def cmd_batch(argv: Sequence[str]) -> int:
    args = _parser().parse_args(argv)
    spec = registry.get(args.name, args.category)
    params = _params(spec, args.param)
    seed = core.check_seed(parse_seed(args.seed))
    out_field = args.output_field or f"{args.field}_perturbed"
    records = _records(args.input, args.field)
    progress = Progress(len(records), sys.stderr.isatty() if args.progress is None else args.progress)
    results = _perturb(spec, [r[args.field] for r in records], params, seed, progress, args.input)
    out = [
        {
            **record,
            out_field: result.text,
            "perturber": {k: v for k, v in result.to_dict().items() if k != "text"},
        }
        for record, result in zip(records, results)
    ]
    if args.output == "-":
        sys.stdout.buffer.write("".join(dumps(r) + "\n" for r in out).encode("utf-8"))
        return 0
    with AtomicJsonl(args.output) as writer:
        for record in out:
            writer.write(record)
    sys.stderr.write(f"perturber: wrote {len(out)} records to {args.output}\n")
    return 0
