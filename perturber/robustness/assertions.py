"""``assert_invariant``: robustness checks inside a pytest suite.

>>> def shouty(text):                      # a model that breaks on zero-width characters
...     return "?" if "\\u200b" in text else text.upper()
>>> assert_invariant(shouty, ["two cats"], perturbations=["upper_case"])
>>> try:
...     assert_invariant(shouty, ["two cats"], perturbations=[("zero_width", {"rate": 1.0})])
... except AssertionError as err:
...     print(str(err).splitlines()[0])
1 of 1 perturbed inputs changed the model's answer (max allowed rate 0.0):
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from .. import core
from .checking import Checker
from .text import diff


def assert_invariant(
    model: Callable[[str], str],
    inputs: Iterable[str],
    *,
    perturbations: Sequence[str | tuple[str, dict]] | None = None,
    seeds: Iterable[int] = (0,),
    max_failure_rate: float = 0.0,
    checker: Checker | None = None,
    category: str = "native",
) -> None:
    """Assert that ``model`` gives the same answer on every applied perturbation of every input as
    on the input itself. Failures are grouped by perturbation in the ``AssertionError`` message.

    ``perturbations``: names or ``(name, params)`` pairs (default: every in-scope, deterministic,
    invariant entry outside the control and schema families). Answers are compared by ``checker``
    (default: exact, stripped, case-insensitive)."""
    checker = checker or Checker(mode="exact")
    if perturbations is None:
        perturbations = [
            e["name"]
            for e in core.list_perturbations(in_scope=True, expectation="invariant", model_backed=False)
            if e["family"] not in ("control", "schema")
        ]
    specs = [(p, {}) if isinstance(p, str) else (p[0], dict(p[1])) for p in perturbations]
    seeds = list(seeds)
    groups: dict[str, list[str]] = {}
    counts: dict[str, int] = {}
    total = failed = 0
    for text in inputs:
        expected = checker.extract(model(text))
        for name, params in specs:
            info = core.describe(name, category)
            for seed in seeds if info["seed_sensitive"] else seeds[:1]:
                result = core.apply(text, name, params, seed, category)
                if not result.applied:
                    continue
                total += 1
                counts[name] = counts.get(name, 0) + 1
                got = checker.extract(model(result.text))
                if not checker.same(got, expected):
                    failed += 1
                    groups.setdefault(name, []).append(
                        f"    {diff(text, result.text, 120)}: {expected!r} -> {got!r}"
                    )
    rate = failed / total if total else 0.0
    if rate > max_failure_rate:
        lines = [
            f"{failed} of {total} perturbed inputs changed the model's answer "
            f"(max allowed rate {max_failure_rate}):"
        ]
        for name, rows in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            lines.append(f"  {name}: {len(rows)}/{counts[name]} failing")
            lines.extend(rows[:3])
        raise AssertionError("\n".join(lines))
