"""Validity gates: a perturbed test is kept only if it still tests what it claims to.

Gates, in order (the first that fails names the ``reason``; ``detail`` says what it saw):

1. ``not_applied:<reason>`` - the library did not change the text (its own reason);
2. ``boundary_not_met`` - a knowledge-boundary rewrite (``entry_facts(...).gate == "boundary"``)
   must differ the way its boundary type says: ``missing_information`` removes a number the
   original states (a content word when it states none); every other type adds content words.
   Such a rewrite changes the problem on purpose, so the number gates below do not apply to it;
3. ``numbers_changed`` - an invariant case whose original states numbers must keep each of them at
   its aligned position (``numbers.numbers_kept``), or, for entries that move sentences, keep
   their values (a multiset); a number it adds must lie in inserted text;
4. ``ratio_outside_band`` - ``context_load`` must achieve an expansion ratio inside its level's band;
5. ``model_numbers_changed`` - a model-backed rewrite must report ``details.numbers_preserved``;
6. ``judge_rejected`` - optional LLM judge: the perturbed problem has the same answer (for a
   refusal case: it must NOT have the same answer).

>>> check_gate(original="Buy four eggs", perturbed="Buy fr eggs", applied=True, reason=None,
...            expectation="invariant", name="disemvowel", details={})
Verdict(reason='numbers_changed', detail="'four' (4) is not where it stood")
>>> check_gate(original="Buy four eggs", perturbed="BUY FOUR EGGS", applied=True, reason=None,
...            expectation="invariant", name="upper_case", details={}).reason is None
True
"""

from __future__ import annotations

import re
from collections import Counter
from typing import NamedTuple

from .facts import entry_facts
from .numbers import fold, numbers_kept, numbers_with_spans

_CONTENT_WORD = re.compile(r"[a-z]{4,}")


class Verdict(NamedTuple):
    """The gate's verdict: ``reason`` None when the case passes."""

    reason: str | None
    detail: str | None = None


PASS = Verdict(None)


def check_gate(
    *,
    original: str,
    perturbed: str,
    applied: bool,
    reason: str | None,
    expectation: str,
    name: str,
    details: dict,
    category: str = "native",
    params: dict | None = None,
    ratio_band: tuple[float, float] | None = None,
) -> Verdict:
    """The verdict of every (non-judge) gate on one perturbed text."""
    if not applied:
        return Verdict(f"not_applied:{reason or 'no_change'}")
    facts = entry_facts(name, category)
    if facts.gate == "boundary":
        detail = boundary_unmet(original, perturbed, (params or {}).get("boundary", ""))
        return Verdict("boundary_not_met", detail) if detail else PASS
    if expectation == "invariant":
        detail = numbers_kept(original, perturbed, facts.numbers)
        if detail:
            return Verdict("numbers_changed", detail)
    if ratio_band is not None:
        lo, hi = ratio_band
        achieved = len(perturbed) / max(len(original), 1)
        if not lo < achieved <= hi + 1e-9:
            return Verdict("ratio_outside_band", f"ratio {achieved:.2f} outside ({lo:g}, {hi:g}]")
    if details.get("numbers_preserved") is False:
        return Verdict("model_numbers_changed")
    return PASS


def boundary_unmet(original: str, perturbed: str, boundary: str) -> str | None:
    """Why a knowledge-boundary rewrite does not differ as its ``boundary`` type says, or None.

    >>> boundary_unmet("Sell 12 per hour for 5 hours.", "Sell some per hour for 5 hours.",
    ...                "missing_information") is None
    True
    >>> boundary_unmet("Sell 12 per hour.", "Sell 12 per hour.", "fabricated_entity")
    'fabricated_entity: no content was added'
    """
    if boundary == "missing_information":
        lost = Counter(n.value for n in numbers_with_spans(original)) - Counter(
            n.value for n in numbers_with_spans(perturbed)
        )
        if lost or (not numbers_with_spans(original) and _words(original) - _words(perturbed)):
            return None
        return "missing_information: no stated number (or word) was removed"
    if _words(perturbed) - _words(original):
        return None
    return f"{boundary}: no content was added"


def _words(text: str) -> set[str]:
    return set(_CONTENT_WORD.findall(fold(text)))


JUDGE_PROMPT = (
    "You compare two versions of a problem. Answer with exactly one word: SAME if the second "
    "version has exactly the same correct answer as the first, DIFFERENT otherwise."
)


def judge_messages(original: str, perturbed: str) -> list[dict]:
    """The chat messages of the entailment judge (``--gate-judge``)."""
    return [
        {"role": "system", "content": JUDGE_PROMPT},
        {"role": "user", "content": f"First version:\n{original}\n\nSecond version:\n{perturbed}"},
    ]


def judge_says_same(text: str | None) -> bool:
    """Read the judge's verdict: SAME passes; anything else (DIFFERENT, empty, unclear) rejects.

    >>> judge_says_same("SAME"), judge_says_same("different"), judge_says_same(None)
    (True, False, False)
    """
    words = (text or "").strip().upper().split()
    return bool(words) and words[0].strip(".!:") == "SAME"
