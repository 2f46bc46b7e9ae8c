"""The tools of eval/, by name: what ``python eval/run_all.py run TOOL ...`` starts.

A tool is a module run as ``python -m MODULE`` (with ``eval/`` and the repository's root on
``PYTHONPATH``).

>>> command("cost", ["--local"], python="python")[1:]
['-m', 'costmodel.cli', '--local']
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import NamedTuple

from evalkit.paths import ROOT


class Tool(NamedTuple):
    module: str  # run as ``python -m module`` (``costmodel.cli``)
    summary: str


TOOLS = {
    "bench": Tool("benchmarks.latency", "in-process latency per entry, 1 MB inputs included"),
    "bench-compare": Tool("benchmarks.latency_compare", "latency of two checkouts, side by side"),
    "bench-side": Tool("benchmarks.side_by_side", "side by side with the reference; docs/performance.md"),
    "bench-memory": Tool("benchmarks.memory", "resident memory per scenario"),
    "bench-report": Tool("benchmarks.performance_report", "docs/performance.md from the figures"),
    "bench-service": Tool("benchmarks.service", "HTTP throughput of one uvicorn worker"),
    "bench-lambda": Tool("benchmarks.lambda_compare", "Lambda import, INIT, zip and requests: two trees"),
    "lambda-init": Tool("benchmarks.lambda_runtime", "Lambda INIT under AWS's runtime client"),
    "bench-llm": Tool("benchmarks.llm", "the model-backed tier under batches"),
    "bench-robustness": Tool("benchmarks.robustness", "the robustness harness's figures"),
    "smoke": Tool("benchmarks.smoke", "smoke test of a running endpoint (deployed or local)"),
    "cost": Tool("costmodel.cli", "Lambda cost per call: local model or a deployed function's sweep"),
    "catalog": Tool("fidelity.catalog", "the catalog's counts and digest"),
    "fidelity": Tool("fidelity.stage", "meaning kept per entry on eval/corpus/"),
    "peers": Tool("fidelity.peers", "per-call latency against glitchlings and nlpaug"),
    "brittlebench": Tool("fidelity.brittlebench_compare", "native entries vs the brittlebench tier"),
    "report": Tool("evalkit.report", "eval/out/REPORT.md from the stages' sections"),
}


def listing() -> str:
    """The tools, one line each, for ``--help``."""
    width = max(map(len, TOOLS))
    return "tools:\n" + "\n".join(f"  {name:{width}}  {tool.summary}" for name, tool in TOOLS.items())


def command(name: str, args: list[str], python: str | None = None) -> list[str]:
    """The command line that runs tool ``name`` with ``args``."""
    return [python or sys.executable, "-m", TOOLS[name].module, *args]


def environment() -> dict[str, str]:
    """This environment with ``eval/`` (the tools' packages) first on ``PYTHONPATH`` and the root
    (``functions``) last, so that a ``PYTHONPATH`` given by the caller (another tree) comes before it."""
    path = [str(ROOT / "eval"), *filter(None, [os.environ.get("PYTHONPATH")]), str(ROOT)]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path)}


def run(name: str, args: list[str]) -> int:
    """Run tool ``name`` here (same folder, same terminal); its exit status."""
    return subprocess.run(command(name, args), env=environment()).returncode
