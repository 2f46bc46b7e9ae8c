"""``perturber NAME``: apply one perturbation to a text from the command line or stdin."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from .. import core, registry
from .parser import Parser, add_params, collect_params, json_line, parse_seed, read_stdin, write


def _entry_parser(spec: registry.Perturbation) -> Parser:
    parser = Parser(
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
    add_params(parser, spec)
    return parser


def cmd_apply(name: str, argv: Sequence[str]) -> int:
    category = "native"
    if "--category" in argv:
        i = list(argv).index("--category")
        category = argv[i + 1] if i + 1 < len(argv) else category
    spec = registry.get(name, category)
    args = _entry_parser(spec).parse_args(argv)
    params = collect_params(args, spec)
    text = args.text if args.text is not None else read_stdin()
    result = core.apply(text, spec.name, params, parse_seed(args.seed), spec.category)
    write(json_line(result.to_dict()) if args.json else result.text)
    return 0
