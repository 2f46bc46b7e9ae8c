"""The command line of an eval tool: every tool runs as ``python eval/run_all.py run TOOL ...``.

>>> parser("cost", "Cost per call.").prog
'python eval/run_all.py run cost'
"""

from __future__ import annotations

import argparse

#: how a tool is run (``eval/run_all.py`` starts it as ``python -m MODULE``)
PROG = "python eval/run_all.py run"


def parser(tool: str, doc: str | None) -> argparse.ArgumentParser:
    """An argument parser for ``tool`` whose help shows ``doc`` as written."""
    return argparse.ArgumentParser(
        prog=f"{PROG} {tool}", description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
