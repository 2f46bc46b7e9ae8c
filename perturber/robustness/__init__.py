"""The robustness harness: suites from eval sets, runs against a model, graded reports.

>>> from perturber.robustness import assert_invariant
>>> assert_invariant(str.lower, ["What is 2+2?"], perturbations=["upper_case"])

Modules: ``suite`` (build_suite, write_suite), ``gates`` and ``numbers`` (validity gates),
``evaluate`` (evaluate: a run), ``models`` (EndpointModel, callables), ``planning`` and ``budget``
(the plan of a run: requests, tokens, cost, limits), ``cache`` (the reply cache), ``schema`` (the
typed records), ``results`` (results into per-example sums), ``analysis`` (the statistics of a
run), ``provenance`` (the runs behind a report, sampling), ``rankings`` (across models),
``compare`` and ``compare_report`` (the regression gate), ``thresholds`` (``--fail-if``),
``stats`` (Wilson, McNemar, Holm/BH, bootstrap), ``report`` (write_report, export_failures),
``blocks``, ``document``, ``runs_doc`` and ``render`` (Markdown and HTML from one document),
``plots``, ``metrics``, ``checking`` (the Scorer interface and the built-in scorers), ``ladder``,
``select``, ``facts`` (what the harness knows about entries), ``text``. Heavy imports (matplotlib,
NumPy, the model client) happen on first use. The guide: docs/robustness.md.
"""

from __future__ import annotations

from .assertions import assert_invariant

__all__ = ["assert_invariant", "build_suite", "write_report", "export_failures", "write_suite", "Checker"]


def __getattr__(name: str):
    if name in ("build_suite", "write_suite"):
        from . import suite

        return getattr(suite, name)
    if name in ("write_report", "export_failures"):
        from . import report

        return getattr(report, name)
    if name == "Checker":
        from .checking import Checker

        return Checker
    raise AttributeError(name)
