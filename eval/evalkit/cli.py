"""The command line of an eval tool: every tool runs as ``python eval/run_all.py run TOOL ...``.

>>> parser("cost", "Cost per call.").prog
'python eval/run_all.py run cost'
"""

from __future__ import annotations

import argparse
import sys

#: how a tool is run (``eval/run_all.py`` starts it as ``python -m MODULE``)
PROG = "python eval/run_all.py run"


def parser(tool: str, doc: str | None) -> argparse.ArgumentParser:
    """An argument parser for ``tool`` whose help shows ``doc`` as written."""
    return argparse.ArgumentParser(
        prog=f"{PROG} {tool}", description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )


def perturber_argv(*argv: str) -> list[str]:
    """The ``perturber`` command line with ``argv``, in this interpreter, for a child that is sent
    SIGINT: its ^C is a KeyboardInterrupt even when this process ignores SIGINT (a background job),
    which the child would inherit (Python then installs no handler of its own).

    >>> perturber_argv("list")[-1]
    'list'
    """
    entry = "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); from perturber.cli import main; sys.exit(main())"  # fmt: skip
    return [sys.executable, "-c", entry, *argv]
