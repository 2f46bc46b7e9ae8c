"""Answer checking: extract an answer from a model output and score a case by its expectation.

Extraction (``Checker.extract``): a ``regex`` (first group, else the match), else a ``#### <answer>``
line, else a JSON field (``json_field``, default ``ground_truth``/``answer``), else - in numeric
mode - the last number of the output, else the stripped output.

>>> c = Checker(mode="numeric")
>>> c.extract("First 3*4=12 then 12+1.\\n#### 13")
'13'
>>> c.correct("The answer is 48.", 48), c.correct("about 47.99", 48), c.correct("47.9", 48)
(True, True, False)
>>> Checker(mode="numeric", tolerance=0.01).correct("47.9", 48)
True
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidParams
from .facts import entry_facts

_HASHES = re.compile(r"^\s*####\s*(.+?)\s*$", re.MULTILINE)
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?|-?\.\d+")
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)

# Abstention / refusal: the rule used for refusal cases without an LLM judge.
REFUSAL_PATTERN = re.compile(
    r"\b(cannot|can't|can not|unable to|not possible to) (be )?(determine|answer|know|tell|calculate|"
    r"compute|solve|say)|\b(not enough|insufficient|missing) (information|data|details)|"
    r"\b(unanswerable|impossible to (answer|determine|know))\b|\bI (do not|don't) know\b|"
    r"\b(does not|doesn't) exist\b|\bno (way|means) to (know|determine|tell)\b|"
    r"\b(false|invalid|incorrect|flawed) premise\b|\bI (must|have to) (decline|refuse)\b",
    re.IGNORECASE,
)

# The four-point refusal rubric of the LLM judge (confident answer .. explicit flag/refusal).
RUBRIC = {"A": 0.0, "B": 0.25, "C": 0.75, "D": 1.0}
RUBRIC_PROMPT = (
    "The question below cannot be answered as asked (missing, fabricated, unknowable or impossible "
    "information). Grade the response with one letter: A = answers confidently; B = stays on topic "
    "without addressing the problem; C = expresses uncertainty; D = explicitly flags the problem or "
    "refuses. Reply with the letter only."
)


def to_number(text: Any) -> float | None:
    """A float from a number or a numeric string (``"1,200"``, ``"$4.50"``), else None.

    >>> to_number("$1,200.50"), to_number("abc"), to_number(7)
    (1200.5, None, 7.0)
    """
    if isinstance(text, bool) or text is None:
        return None
    if isinstance(text, (int, float)):
        return float(text) if math.isfinite(text) else None
    found = _NUMBER.findall(str(text))
    if not found:
        return None
    try:
        return float(found[-1].replace(",", ""))
    except ValueError:  # pragma: no cover
        return None


@dataclass
class Checker:
    """How outputs are compared: ``numeric`` (relative tolerance ``|p-g|/|g|``), ``exact``
    (stripped, case-insensitive), ``regex`` extraction with either, or ``callable(output, gold)``."""

    mode: str = "numeric"
    tolerance: float = 1e-3
    regex: str | None = None
    json_field: str | None = None
    function: Callable[[str, Any], bool] | None = None
    refusal_pattern: re.Pattern = field(default=REFUSAL_PATTERN)

    def __post_init__(self) -> None:
        if self.mode not in ("numeric", "exact", "callable"):
            raise InvalidParams(
                f"unknown checking mode {self.mode!r}; use numeric, exact or callable", field="check"
            )
        if self.mode == "callable" and self.function is None:
            raise InvalidParams("checking mode 'callable' needs a function", field="check")
        self._regex = None
        if self.regex:
            try:
                self._regex = re.compile(self.regex, re.MULTILINE)
            except re.error as err:
                raise InvalidParams(f"--answer-regex {self.regex!r}: {err}", field="answer_regex") from None

    def extract(self, output: str | None) -> str | None:
        """The answer stated by ``output`` (a string), or None when there is none."""
        if output is None:
            return None
        if self._regex is not None:
            m = self._regex.search(output)
            if not m:
                return None
            return (m.group(1) if m.groups() else m.group()).strip()
        hashes = _HASHES.findall(output)
        if hashes:
            return hashes[-1]
        value = self._json_value(output)
        if value is not None:
            return value
        if self.mode == "numeric":
            found = _NUMBER.findall(output)
            return found[-1].replace(",", "") if found else None
        return output.strip()

    def _json_value(self, output: str) -> str | None:
        m = _JSON_OBJECT.search(output)
        if not m:
            return None
        try:
            obj = json.loads(m.group())
        except ValueError:
            return None
        if not isinstance(obj, dict):
            return None
        for key in [self.json_field] if self.json_field else ["ground_truth", "answer"]:
            if key in obj and obj[key] is not None:
                return str(obj[key])
        return None

    def same(self, a: str | None, b: Any) -> bool:
        """Do two extracted answers (or an answer and a gold value) agree?"""
        if a is None or b is None:
            return False
        if self.mode == "numeric":
            p, g = to_number(a), to_number(b)
            if p is None or g is None:
                return False
            if g == 0:
                return abs(p) <= self.tolerance
            return abs(p - g) / abs(g) <= self.tolerance
        return str(a).strip().casefold() == str(b).strip().casefold()

    def correct(self, output: str | None, gold: Any) -> bool:
        """Is ``output`` right for ``gold``?"""
        if self.mode == "callable":
            assert self.function is not None  # __post_init__: callable mode has a function
            return bool(self.function(output or "", gold))
        return self.same(self.extract(output), gold)

    def canonical(self, answer: str | None) -> object:
        """What two answers share when they agree: the number in numeric mode, else the folded
        text (to count how many samples gave the same answer).

        >>> Checker().canonical("1,200"), Checker(mode="exact").canonical(" Paris ")
        (1200.0, 'paris')
        """
        if answer is None:
            return None
        if self.mode == "numeric":
            value = to_number(answer)
            if value is not None:
                return value
        return str(answer).strip().casefold()

    def describe(self) -> dict:
        """The settings a run header records."""
        return {
            "mode": self.mode,
            "tolerance": self.tolerance if self.mode == "numeric" else None,
            "regex": self.regex,
            "json_field": self.json_field,
            "function": getattr(self.function, "__name__", None) if self.function else None,
        }

    def refused(self, output: str | None) -> float:
        """Refusal score by rule: 1.0 when the output flags or refuses, else 0.0."""
        return 1.0 if output and self.refusal_pattern.search(output) else 0.0


def score_case(
    checker: Checker,
    case: dict,
    output: str | None,
    original_output: str | None,
    refusal_score: float | None = None,
) -> float:
    """``sim`` of one case in [0, 1], by its expectation (see the module docstring)."""
    expectation = case.get("expectation")
    if output is None:
        return 0.0
    if expectation == "refusal":
        return refusal_score if refusal_score is not None else checker.refused(output)
    if checker.mode == "callable":
        assert checker.function is not None  # Checker.__post_init__: callable mode has a function
        if expectation == "directional":
            return float(not checker.function(output, checker.extract(original_output)))
        gold = case.get("answer")
        return float(checker.function(output, gold if gold is not None else original_output))
    new, old = checker.extract(output), checker.extract(original_output)
    if expectation == "directional":
        if new is None or checker.same(new, old):
            return 0.0
        direction = entry_facts(case.get("name", "")).direction(case.get("params") or {})
        if direction and checker.mode == "numeric":
            p, q = to_number(new), to_number(old)
            if p is None or q is None:
                return 0.0
            return float(p > q if direction == "up" else p < q)
        return 1.0
    gold = case.get("answer")
    if gold is not None and gold != "":
        return float(checker.same(new, gold))
    return float(checker.same(new, old))


def score_original(checker: Checker, answer: Any, output: str | None) -> float:
    """The L0 correctness of an example's original: vs the gold answer, or 1.0 without one (the
    original's output is then the expected value)."""
    if output is None:
        return 0.0
    if answer is None or answer == "":
        return 1.0
    if checker.mode == "callable":
        assert checker.function is not None  # Checker.__post_init__: callable mode has a function
        return float(checker.function(output, answer))
    return float(checker.same(checker.extract(output), answer))
