"""The shell interface: ``perturber list | describe | docs | NAME | batch | serve | suite | evaluate |
report``, one module per command group; ``python -m perturber`` is the same command line.

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

import sys
from collections.abc import Callable, Sequence

from .. import __version__, native, registry
from ..errors import PerturberError
from .apply import cmd_apply
from .parser import write

__all__ = ["main"]


def _command(name: str) -> Callable[[Sequence[str]], int] | None:
    """The function of a named command (its module imported on use), or None for an entry name."""
    if name in ("list", "describe", "docs"):
        from . import catalog

        return getattr(catalog, f"cmd_{name}")
    if name == "batch":
        from .batch import cmd_batch

        return cmd_batch
    if name == "serve":
        from .serve import cmd_serve

        return cmd_serve
    if name in ("suite", "evaluate", "report", "compare"):
        from . import harness

        return harness.COMMANDS[name]
    return None


USAGE = """usage: perturber [-h] [--version] {list,describe,docs,batch,serve,suite,evaluate,report,compare,NAME} ...

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
  report results.jsonl [...] -o report/ [--export-failures F] [--fail-if EXPR ...]
                                                              robustness report (exit 1: a threshold holds)
  compare BASELINE.jsonl CANDIDATE.jsonl -o compare/ [--fail-on-regression]
                                                              regression gate (exit 1: a regression)

`perturber NAME --help` lists the parameters of NAME with their ranges; add
`--category brittlebench` to reach the compatibility tier's entry of that name.
exit codes: 0 ok, 2 bad name/parameters/input, 3 data or extra missing, 4 model backend failed
"""


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if not argv or argv[0] in ("-h", "--help"):
            write(USAGE)
            return 0 if argv else 2
        if argv[0] == "--version":
            build = "C module" if native.c is not None else "pure Python"
            write(f"perturber {__version__} (catalog {registry.catalog_digest()[:12]}, {build})\n")
            return 0
        command, rest = argv[0], argv[1:]
        run = _command(command)
        return run(rest) if run is not None else cmd_apply(command, rest)
    except PerturberError as err:
        sys.stderr.write(f"perturber: {err.code}: {err.message}\n")
        return err.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("perturber: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
