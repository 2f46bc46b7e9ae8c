"""Validity gates: a perturbed test is kept only if it still tests what it claims to.

Gates, in order (the first that fails names the ``reason``):

1. ``not_applied:<reason>`` - the library did not change the text (its own reason);
2. ``numbers_changed`` - an invariant case whose original states numbers must state the same
   sequence of numbers (digits and spelled-out numbers, ``perturber.number_words``);
3. ``ratio_outside_band`` - ``context_load`` must achieve an expansion ratio inside its level's band;
4. ``model_numbers_changed`` - a model-backed rewrite must report ``details.numbers_preserved``;
5. ``judge_rejected`` - optional LLM entailment judge: the perturbed problem has the same answer.

>>> check_gate(original="Buy four eggs", perturbed="Buy fr eggs", applied=True, reason=None,
...            expectation="invariant", name="disemvowel", details={})
'numbers_changed'
>>> check_gate(original="Buy four eggs", perturbed="BUY FOUR EGGS", applied=True, reason=None,
...            expectation="invariant", name="upper_case", details={}) is None
True
"""

from __future__ import annotations

from ..number_words import numbers_in


def check_gate(
    *,
    original: str,
    perturbed: str,
    applied: bool,
    reason: str | None,
    expectation: str,
    name: str,
    details: dict,
    original_numbers=None,
    ratio_band: tuple[float, float] | None = None,
) -> str | None:
    """The reason a case is rejected, or None when it passes every (non-judge) gate."""
    if not applied:
        return f"not_applied:{reason or 'no_change'}"
    if expectation == "invariant":
        before = numbers_in(original) if original_numbers is None else original_numbers
        if before and numbers_in(perturbed) != before:
            return "numbers_changed"
    if ratio_band is not None:
        lo, hi = ratio_band
        achieved = len(perturbed) / max(len(original), 1)
        if not lo < achieved <= hi + 1e-9:
            return "ratio_outside_band"
    if details.get("numbers_preserved") is False:
        return "model_numbers_changed"
    return None


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
