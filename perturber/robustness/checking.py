"""Answer checking: one scorer interface, :class:`Scorer` (``extract`` an answer from an output,
decide whether two answers are the ``same``), and the scoring of a case by its expectation.

:class:`Checker` is the built-in scorer: ``numeric`` (relative tolerance), ``exact``, ``regex``
extraction and ``json_field`` extraction with either, or a ``callable(output, gold) -> bool``;
:class:`JudgeScorer` asks an LLM whether two answers agree. Add your own by subclassing
:class:`Scorer` (two methods) and passing it as ``checker=`` to ``evaluate``.

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
from abc import ABC, abstractmethod
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


class Scorer(ABC):
    """The interface every scorer shares: ``extract`` the answer an output states and decide
    whether two answers (or an answer and a gold value) are the ``same``. ``correct``,
    ``canonical`` (what agreeing answers share, to count agreement between samples),
    ``describe`` (the settings a run records) and ``refused`` have defaults; ``blocking`` scorers
    (network calls) are run off the event loop.

    >>> class Yes(Scorer):
    ...     mode = "yes"
    ...     def extract(self, output):
    ...         return (output or "").strip().lower()[:3] or None
    ...     def same(self, answer, expected):
    ...         return answer == str(expected).lower()
    >>> Yes().correct("YES, it is", "yes"), Yes().describe()
    (True, {'mode': 'yes'})
    """

    mode = "custom"
    blocking = False
    refusal_pattern: re.Pattern = REFUSAL_PATTERN

    @abstractmethod
    def extract(self, output: str | None) -> str | None:
        """The answer stated by ``output``, or None when there is none."""

    @abstractmethod
    def same(self, answer: str | None, expected: Any) -> bool:
        """Do two extracted answers (or an answer and a gold value) agree?"""

    def correct(self, output: str | None, gold: Any) -> bool:
        """Is ``output`` right for ``gold``?"""
        return self.same(self.extract(output), gold)

    def canonical(self, answer: str | None) -> object:
        """What two answers share when they agree (default: the folded text)."""
        return None if answer is None else str(answer).strip().casefold()

    def describe(self) -> dict:
        """The settings a run header records."""
        return {"mode": self.mode}

    def refused(self, output: str | None) -> float:
        """Refusal score by rule: 1.0 when the output flags or refuses, else 0.0."""
        return 1.0 if output and self.refusal_pattern.search(output) else 0.0


@dataclass
class Checker(Scorer):
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
        if answer is not None and self.mode == "numeric":
            value = to_number(answer)
            if value is not None:
                return value
        return super().canonical(answer)

    def describe(self) -> dict:
        """The settings a run header records."""
        return {
            "mode": self.mode,
            "tolerance": self.tolerance if self.mode == "numeric" else None,
            "regex": self.regex,
            "json_field": self.json_field,
            "function": getattr(self.function, "__name__", None) if self.function else None,
        }


class JudgeScorer(Scorer):
    """An LLM judge decides whether an output gives the expected answer (``--check judge``):
    ``ask(messages) -> reply`` sends the chat (e.g. through ``perturber.llm.Endpoint.chat``); the
    judge must reply SAME. For answers no rule extracts (free text, units, paraphrases).

    >>> def ask(messages):                    # a stand-in for the LLM
    ...     return "SAME" if "Paris" in messages[-1]["content"].split("Response:")[-1] else "DIFFERENT"
    >>> judge = JudgeScorer(ask)
    >>> judge.correct("It is Paris, of course.", "Paris"), judge.correct("Lyon", "Paris")
    (True, False)
    """

    mode = "judge"
    blocking = True

    def __init__(self, ask: Callable[[list[dict]], str | None]) -> None:
        self.ask = ask

    def extract(self, output: str | None) -> str | None:
        return output.strip() if output and output.strip() else None

    def same(self, answer: str | None, expected: Any) -> bool:
        if answer is None or expected is None:
            return False
        reply = self.ask(
            [
                {"role": "system", "content": ANSWER_JUDGE_PROMPT},
                {"role": "user", "content": f"Expected answer:\n{expected}\n\nResponse:\n{answer}"},
            ]
        )
        words = (reply or "").strip().upper().split()
        return bool(words) and words[0].strip(".!:") == "SAME"


ANSWER_JUDGE_PROMPT = (
    "Does the response give the expected answer (the same value or meaning, whatever the wording or "
    "format)? Reply with one word: SAME or DIFFERENT."
)


def score_case(
    scorer: Scorer,
    case: dict,
    output: str | None,
    original_output: str | None,
    refusal_score: float | None = None,
) -> float:
    """``sim`` of one case in [0, 1], by its expectation: refusal cases by the refusal score (a
    judge's, else the scorer's rule); directional cases by whether the answer moved (as stated,
    for a numeric scorer); the others against the gold answer, else the original's answer."""
    expectation = case.get("expectation")
    if output is None:
        return 0.0
    if expectation == "refusal":
        return refusal_score if refusal_score is not None else scorer.refused(output)
    old = scorer.extract(original_output)
    if expectation == "directional":
        new = scorer.extract(output)
        if new is None or scorer.correct(output, old):
            return 0.0
        direction = entry_facts(case.get("name", "")).direction(case.get("params") or {})
        if direction and scorer.mode == "numeric":
            p, q = to_number(new), to_number(old)
            if p is None or q is None:
                return 0.0
            return float(p > q if direction == "up" else p < q)
        return 1.0
    gold = case.get("answer")
    return float(scorer.correct(output, gold if gold is not None and gold != "" else old))


def score_original(scorer: Scorer, answer: Any, output: str | None) -> float:
    """The L0 correctness of an example's original: vs the gold answer, or 1.0 without one (the
    original's output is then the expected value)."""
    if output is None:
        return 0.0
    if answer is None or answer == "":
        return 1.0
    return float(scorer.correct(output, answer))
