"""``perturber report --fail-if``: thresholds on one run's report, e.g. ``"broken_rate>0.05"``,
``"collapse_point<=2"``, ``"broken_rate[zero_width]>0.2"``.

An expression is ``METRIC[QUALIFIER] OP NUMBER`` with OP one of ``< <= > >= == !=``; a threshold
*fails* (the report exits 1) when the condition holds. Metrics:

* ``accuracy``: accuracy of the unperturbed originals;
* ``broken_rate``: broken cases (original right, perturbed wrong) / answer-scored cases; with
  ``[NAME]``, of that perturbation only;
* ``flip_rate``: broken / cases whose original was right; with ``[NAME]``, of that perturbation;
* ``collapse_point``: the paired Collapse Point of each family (a family that never collapses has
  none and never fails); with ``[FAMILY]``, of that family only;
* ``relative_stability``: each family's relative Stability; with ``[FAMILY]``, of that family;
* ``breaking``: how many perturbations significantly break answers;
* ``errors``: errors still standing.

>>> t = parse("broken_rate[zero_width] > 0.05")
>>> (t.metric, t.qualifier, t.op, t.value)
('broken_rate', 'zero_width', '>', 0.05)
>>> check([parse("collapse_point<=2")], {"families": [{"name": "Context Load", "scoring": "answer",
...        "paired_collapse_point": 2}], "perturbations": []})
['collapse_point<=2: Context Load has 2']
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass

from ..errors import InvalidParams

OPS = {
    "<=": operator.le,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    ">": operator.gt,
}
_EXPR = re.compile(r"^\s*([a-z_]+)\s*(?:\[([^\]]+)\])?\s*(<=|>=|==|!=|<|>)\s*(-?[0-9.]+(?:e-?\d+)?)\s*$")
METRICS = (
    "accuracy",
    "broken_rate",
    "flip_rate",
    "collapse_point",
    "relative_stability",
    "breaking",
    "errors",
)


@dataclass(frozen=True)
class Threshold:
    metric: str
    qualifier: str | None
    op: str
    value: float
    text: str


def parse(text: str) -> Threshold:
    """A threshold from its expression (a clear error for a bad one)."""
    m = _EXPR.match(text)
    if not m or m.group(1) not in METRICS:
        raise InvalidParams(
            f"--fail-if {text!r}: expected METRIC[QUALIFIER] OP NUMBER, e.g. 'broken_rate>0.05', with "
            f"METRIC one of {', '.join(METRICS)}",
            field="fail_if",
        )
    try:
        value = float(m.group(4))
    except ValueError:
        raise InvalidParams(f"--fail-if {text!r}: {m.group(4)!r} is not a number", field="fail_if") from None
    return Threshold(m.group(1), m.group(2), m.group(3), value, text.replace(" ", ""))


def _values(t: Threshold, d: dict) -> list[tuple[str, float]]:
    """(what, value) pairs the threshold is checked on, in one model's report data."""
    answer = [p for p in d["perturbations"] if p["scoring"] == "answer"]
    families = [f for f in d["families"] if f["scoring"] == "answer"]
    if t.metric == "accuracy":
        return [("the originals", d["baseline_accuracy"])] if d.get("baseline_accuracy") is not None else []
    if t.metric in ("broken_rate", "flip_rate"):
        rows = [p for p in answer if t.qualifier in (None, p["name"])]
        if t.qualifier and not rows:
            raise InvalidParams(
                f"--fail-if {t.text}: no perturbation {t.qualifier!r} in the results", field="fail_if"
            )
        broken = sum(p["broken"] for p in rows)
        base = sum(p["n"] if t.metric == "broken_rate" else p["original_correct"] for p in rows)
        return [(t.qualifier or "all perturbations", broken / base)] if base else []
    if t.metric in ("collapse_point", "relative_stability"):
        key = "paired_collapse_point" if t.metric == "collapse_point" else "relative_stability"
        rows = [f for f in families if t.qualifier in (None, f["name"])]
        if t.qualifier and not rows:
            raise InvalidParams(
                f"--fail-if {t.text}: no family {t.qualifier!r} in the results", field="fail_if"
            )
        return [(f["name"], f[key]) for f in rows if f[key] is not None]
    if t.metric == "breaking":
        return [("perturbations breaking answers", sum(p.get("status") == "breaks answers" for p in answer))]
    return [("errors standing", sum(d.get("errors", {}).values()))]


def check(thresholds: list[Threshold], d: dict) -> list[str]:
    """The thresholds that fail on one model's report data, each with what failed it."""
    failed = []
    for t in thresholds:
        hits = [(what, v) for what, v in _values(t, d) if OPS[t.op](v, t.value)]
        if hits:
            failed.append(f"{t.text}: " + ", ".join(f"{what} has {_show(v)}" for what, v in hits))
    return failed


def _show(value: float) -> str:
    return f"{value:g}" if float(value).is_integer() else f"{value:.4f}"
