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
from .select import select_entries
from .text import diff

# The default perturbations: native, deterministic, in-scope, invariant entries (not the control
# and schema families); model-backed entries run only when named.
DEFAULT_SELECT = "category=native;expectation=invariant;model_backed=false;in_scope=true"


def default_perturbations() -> list[str]:
    """The names ``assert_invariant`` applies by default, each once, in catalog order.

    >>> names = default_perturbations()
    >>> "upper_case" in names, "syntactic_paraphrasing" in names, len(names) == len(set(names))
    (True, False, True)
    """
    return [e["name"] for e in select_entries(DEFAULT_SELECT)]


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

    ``perturbations``: names or ``(name, params)`` pairs (default: :func:`default_perturbations`;
    a model-backed entry runs only when named, and needs an endpoint). Seeds apply to
    seed-sensitive entries only. Answers are compared by ``checker`` (default: exact, stripped,
    case-insensitive)."""
    checker = checker or Checker(mode="exact")
    names = default_perturbations() if perturbations is None else perturbations
    specs = [(p, {}) if isinstance(p, str) else (p[0], dict(p[1])) for p in names]
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
