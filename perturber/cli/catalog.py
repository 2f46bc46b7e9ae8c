"""``perturber list | describe | docs``: the catalog and its reference on the command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from .. import core, registry
from ..errors import InvalidParams
from .parser import Parser, write


def cmd_list(argv: Sequence[str]) -> int:
    parser = Parser(prog="perturber list", description="List the catalog.")
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
        write(json.dumps(found, ensure_ascii=False, indent=1) + "\n")
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
    write("".join("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[5] + "\n" for r in rows))
    return 0


def cmd_describe(argv: Sequence[str]) -> int:
    parser = Parser(
        prog="perturber describe",
        description="Show one catalog entry with a worked example (Markdown, as in "
        "docs/perturbations.md), or as JSON with --json.",
    )
    parser.add_argument("name")
    parser.add_argument("--category", default="native")
    parser.add_argument("--json", action="store_true", help="the catalog entry as JSON")
    args = parser.parse_args(argv)
    if args.json:
        write(json.dumps(core.describe(args.name, args.category), ensure_ascii=False, indent=1) + "\n")
        return 0
    from .. import reference

    write(reference.entry_section(registry.get(args.name, args.category)))
    return 0


def cmd_docs(argv: Sequence[str]) -> int:
    """Write, print or check the perturbation reference; 1 when ``--check`` finds it stale."""
    from .. import reference

    parser = Parser(
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
