"""The shell interface: ``perturber list | describe | NAME | batch | serve``.

Examples::

    perturber list --family padding
    perturber describe typos
    perturber docs --out docs/perturbations.md
    echo "What is the capital of France?" | perturber typos --count 2 --seed 7
    perturber quotes --text "Hi there" --n 3 --json
    perturber batch typos --input in.jsonl --field question --output out.jsonl

The perturbed text goes to stdout verbatim, with no newline added; with stdin input exactly one
trailing newline is removed first. Errors are one line on stderr, with exit codes 2 (bad name,
parameters or input), 3 (data or extra missing), 4 (model backend failed).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

from . import __version__, core, registry
from .errors import InvalidParams, PerturberError
from .settings import parse_bool

COMMANDS = ("list", "describe", "docs", "batch", "serve", "suite", "evaluate", "report")


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of printing usage and exiting."""

    def error(self, message: str):
        raise InvalidParams(f"{self.prog}: {message} (see --help)")


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _convert(param: registry.Param, raw: str) -> Any:
    """CLI strings to typed values before validation (docs/spec/catalog.md §1.3)."""
    try:
        if param.type is int:
            return int(raw)
        if param.type is float:
            return float(raw)
        if param.type is bool:
            return parse_bool(raw, param.name)
    except (ValueError, KeyError):
        raise InvalidParams(
            f"parameter '{param.name}' = {raw!r} is invalid; allowed: {param.describe_range()}",
            field=param.name,
            allowed=param.describe_range(),
        ) from None
    return raw


def _add_params(parser: argparse.ArgumentParser, spec: registry.Perturbation) -> None:
    for p in spec.params:
        flags = dict.fromkeys([_flag(p.name), f"--{p.name}"])
        parser.add_argument(
            *flags,
            dest=f"param_{p.name}",
            metavar="VALUE",
            help=f"{p.description}; {p.describe_range()} (default {p.default!r})",
        )


def _collect_params(args: argparse.Namespace, spec: registry.Perturbation) -> dict:
    params = {}
    for p in spec.params:
        raw = getattr(args, f"param_{p.name}")
        if raw is not None:
            params[p.name] = _convert(p, raw)
    return params


def _write(text: str) -> None:
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.flush()


def _read_stdin() -> str:
    if sys.stdin is None or sys.stdin.isatty():
        raise InvalidParams("no input: give --text or pipe the text on stdin", field="text")
    data = sys.stdin.buffer.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InvalidParams(f"stdin is not valid UTF-8 (byte {err.start})", field="text") from None
    if text.endswith("\r\n"):
        return text[:-2]
    return text[:-1] if text.endswith("\n") else text


def _json_line(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False) + "\n"


def cmd_list(argv: Sequence[str]) -> int:
    parser = _Parser(prog="perturber list", description="List the catalog.")
    parser.add_argument("--family", choices=registry.FAMILIES)
    parser.add_argument("--category", choices=registry.CATEGORIES)
    parser.add_argument("--in-scope", action="store_true", help="hide out-of-scope entries")
    parser.add_argument("--expectation", choices=registry.EXPECTATIONS)
    parser.add_argument(
        "--model-backed",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="only the model-backed entries (--no-model-backed: only deterministic)",
    )
    parser.add_argument("--json", action="store_true", help="one JSON array of catalog entries")
    args = parser.parse_args(argv)
    found = core.list_perturbations(
        category=args.category,
        family=args.family,
        in_scope=True if args.in_scope else None,
        expectation=args.expectation,
        model_backed=args.model_backed,
    )
    if args.json:
        _write(json.dumps(found, ensure_ascii=False, indent=1) + "\n")
        return 0
    rows = [
        (
            e["category"] + "/" + e["name"],
            e["family"],
            "in" if e["in_scope"] else "out",
            e["expectation"],
            "seeded" if e["seed_sensitive"] else "-",
            e["description"],
        )
        for e in found
    ]
    widths = [max([len(r[i]) for r in rows] + [0]) for i in range(5)]
    _write("".join("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[5] + "\n" for r in rows))
    return 0


def cmd_describe(argv: Sequence[str]) -> int:
    parser = _Parser(
        prog="perturber describe",
        description="Show one catalog entry with a worked example (Markdown, as in "
        "docs/perturbations.md), or as JSON with --json.",
    )
    parser.add_argument("name")
    parser.add_argument("--category", default="native")
    parser.add_argument("--json", action="store_true", help="the catalog entry as JSON")
    args = parser.parse_args(argv)
    if args.json:
        _write(json.dumps(core.describe(args.name, args.category), ensure_ascii=False, indent=1) + "\n")
        return 0
    from . import reference

    _write(reference.entry_section(registry.get(args.name, args.category)))
    return 0


def cmd_docs(argv: Sequence[str]) -> int:
    """Write, print or check the perturbation reference; 1 when ``--check`` finds it stale."""
    from . import reference

    parser = _Parser(
        prog="perturber docs",
        description="Generate the perturbation reference (Markdown) from the registry. The output "
        "is the same in every environment and configuration.",
    )
    parser.add_argument("--out", help="write to this file (default: stdout)")
    parser.add_argument("--check", metavar="FILE", help="exit 1 if FILE differs from the output")
    args = parser.parse_args(argv)
    text = reference.generate()
    if args.check:
        try:
            with open(args.check, encoding="utf-8") as fh:
                current = fh.read()
        except OSError as err:
            raise InvalidParams(f"cannot read {args.check}: {err}", field="check") from None
        if current != text:
            sys.stderr.write(
                f"perturber docs: {args.check} is stale; regenerate it with "
                f"`perturber docs --out {args.check}`\n"
            )
            return 1
        return 0
    if args.out:
        try:
            with open(args.out, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
        except OSError as err:
            raise InvalidParams(f"cannot write {args.out}: {err}", field="out") from None
        sys.stderr.write(f"perturber docs: wrote {args.out}\n")
    else:
        sys.stdout.buffer.write(text.encode("utf-8"))
    return 0


def _entry_parser(spec: registry.Perturbation) -> _Parser:
    parser = _Parser(
        prog=f"perturber {spec.name}",
        description=f"{spec.description} [{spec.family}, {spec.kind}, "
        f"{'seeded' if spec.seed_sensitive else 'not seeded'}, v{spec.version}]",
        epilog="Reads stdin when --text is not given (one trailing newline removed); writes "
        "the perturbed text to stdout verbatim.",
    )
    parser.add_argument("--text", help="input text (default: stdin)")
    parser.add_argument("--seed", default="0", help="int in [0, 2**63-1] (default 0)")
    parser.add_argument("--category", default=spec.category, help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    _add_params(parser, spec)
    return parser


def _seed(raw: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise InvalidParams(
            f"seed must be an int in [0, {core.MAX_SEED}], got {raw!r}", field="seed"
        ) from None


def cmd_apply(name: str, argv: Sequence[str]) -> int:
    category = "native"
    if "--category" in argv:
        i = list(argv).index("--category")
        category = argv[i + 1] if i + 1 < len(argv) else category
    spec = registry.get(name, category)
    args = _entry_parser(spec).parse_args(argv)
    params = _collect_params(args, spec)
    text = args.text if args.text is not None else _read_stdin()
    result = core.apply(text, spec.name, params, _seed(args.seed), spec.category)
    _write(_json_line(result.to_dict()) if args.json else result.text)
    return 0


class Progress:
    """A one-line progress bar on stderr (only drawn when stderr is a terminal or forced)."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.enabled, self.done, self.start, self.last = total, enabled, 0, time.monotonic(), 0.0

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if self.enabled and (now - self.last > 0.1 or self.done == self.total):
            self.last = now
            frac = self.done / self.total if self.total else 1.0
            bar = "#" * int(30 * frac)
            rate = self.done / max(now - self.start, 1e-9)
            sys.stderr.write(f"\r[{bar:<30}] {self.done}/{self.total} ({rate:,.0f}/s)")
            if self.done == self.total:
                sys.stderr.write("\n")
            sys.stderr.flush()


def cmd_batch(argv: Sequence[str]) -> int:
    parser = _Parser(
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
    args = parser.parse_args(argv)
    spec = registry.get(args.name, args.category)
    by_name = {p.name: p for p in spec.params}
    params = {}
    for item in args.param:
        key, sep, raw = item.partition("=")
        if not sep or key not in by_name:
            raise InvalidParams(
                f"--param {item!r}: expected NAME=VALUE with NAME in {sorted(by_name) or 'no parameters'}",
                field=key,
            )
        params[key] = _convert(by_name[key], raw)
    spec.resolve(params)
    seed = core.check_seed(_seed(args.seed))
    out_field = args.output_field or f"{args.field}_perturbed"
    if args.input == "-":
        lines = sys.stdin.buffer.read().decode("utf-8").splitlines()
    else:
        try:
            with open(args.input, encoding="utf-8") as fh:
                lines = fh.read().splitlines()
        except (OSError, UnicodeDecodeError) as err:
            raise InvalidParams(f"cannot read {args.input}: {err}", field="input") from None
    records = [(i, line) for i, line in enumerate(lines, 1) if line.strip()]
    progress = Progress(len(records), sys.stderr.isatty() if args.progress is None else args.progress)
    parsed = []
    for lineno, line in records:
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise InvalidParams(f"{args.input}:{lineno}: not JSON ({err.msg})", line=lineno) from None
        if not isinstance(record, dict) or not isinstance(record.get(args.field), str):
            raise InvalidParams(f"{args.input}:{lineno}: no string field {args.field!r}", line=lineno)
        parsed.append((lineno, record))
    if spec.model_backed:  # one batch: requests run concurrently through the endpoint's pool
        texts = [record[args.field] for _, record in parsed]
        try:
            results = core.apply_many(
                texts, spec.name, params, seed, spec.category, on_done=lambda i, r: progress.update()
            )
        except PerturberError as err:
            i = err.details.get("index")
            if isinstance(i, int):
                err.message = f"{args.input}:{parsed[i][0]}: {err.message.split(': ', 1)[-1]}"
            raise
        progress.update(len(parsed) - progress.done)
    else:
        results = []
        for lineno, record in parsed:
            try:
                results.append(core.apply(record[args.field], spec.name, params, seed, spec.category))
            except PerturberError as err:
                err.message = f"{args.input}:{lineno}: {err.message}"
                raise
            progress.update()
    out = []
    for (_lineno, record), result in zip(parsed, results):
        meta = {k: v for k, v in result.to_dict().items() if k != "text"}
        out.append(_json_line({**record, out_field: result.text, "perturber": meta}))
    blob = "".join(out).encode("utf-8")
    if args.output == "-":
        sys.stdout.buffer.write(blob)
    else:
        tmp = f"{args.output}.tmp-{os.getpid()}"
        try:
            with open(tmp, "wb") as fh:
                fh.write(blob)
            os.replace(tmp, args.output)
        except OSError as err:
            raise InvalidParams(f"cannot write {args.output}: {err}", field="output") from None
    if args.output != "-":
        sys.stderr.write(f"perturber: wrote {len(out)} records to {args.output}\n")
    return 0


def cmd_serve(argv: Sequence[str]) -> int:
    parser = _Parser(
        prog="perturber serve",
        description="Run the HTTP service and its playground (needs the 'service' extra). "
        "Limits come from PERTURBER_* environment variables (see README).",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args(argv)
    try:
        import uvicorn

        from .service import Settings, create_app
    except ImportError as err:
        from .errors import ResourceUnavailable

        raise ResourceUnavailable(
            f"the service needs the 'service' extra (pip install 'perturber[service]'): {err}",
            code="tier_unavailable",
        ) from None
    app = create_app(Settings.from_env())
    sys.stderr.write(
        f"perturber {__version__}: playground at http://{args.host}:{args.port}/ (API docs at /docs)\n"
    )
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


USAGE = """usage: perturber [-h] [--version] {list,describe,docs,batch,serve,NAME} ...

Apply exactly one named, meaning-preserving perturbation to a text.

commands:
  list [--family F] [--category C] [--in-scope] [--expectation E] [--json]
                                                              list the catalog
  describe NAME [--json]                                      one entry with a worked example
  docs [--out FILE] [--check FILE]                            the perturbation reference (Markdown)
  NAME [--text T | stdin] [--seed N] [--PARAM VALUE ...] [--json]
                                                              apply one perturbation
  batch NAME --input in.jsonl --field text --output out.jsonl  perturb a JSONL file
  serve [--host 127.0.0.1] [--port 8080]                      HTTP service + playground
  suite EXAMPLES --field F [--select S] [--ladder] -o cases.jsonl  build a robustness suite
  evaluate cases.jsonl (--base-url URL --model M | --callable mod:fn) -o results.jsonl
  report results.jsonl [...] -o report/ [--export-failures F]  robustness report

`perturber NAME --help` lists the parameters of NAME with their ranges; add
`--category brittlebench` to reach the compatibility tier's entry of that name.
exit codes: 0 ok, 2 bad name/parameters/input, 3 data or extra missing, 4 model backend failed
"""


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if not argv or argv[0] in ("-h", "--help"):
            _write(USAGE)
            return 0 if argv else 2
        if argv[0] == "--version":
            _write(f"perturber {__version__} (catalog {registry.catalog_digest()[:12]})\n")
            return 0
        command, rest = argv[0], argv[1:]
        if command == "list":
            return cmd_list(rest)
        if command == "describe":
            return cmd_describe(rest)
        if command == "docs":
            return cmd_docs(rest)
        if command == "batch":
            return cmd_batch(rest)
        if command == "serve":
            return cmd_serve(rest)
        if command in ("suite", "evaluate", "report"):
            from .robustness.cli import COMMANDS as ROBUSTNESS

            return ROBUSTNESS[command](rest)
        return cmd_apply(command, rest)
    except PerturberError as err:
        sys.stderr.write(f"perturber: {err.code}: {err.message}\n")
        return err.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("perturber: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
