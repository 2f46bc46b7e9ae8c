"""control: the reference condition every other entry is compared against."""

from __future__ import annotations

from ..registry import Outcome, perturbation, unchanged
from ..rng import Draws


@perturbation(
    "baseline", family="control", description="Return the input unchanged (the control).", skip_empty=False
)
def baseline(text: str, rng: Draws) -> Outcome:
    """The input, unchanged, with reason ``control``.

    >>> baseline("What is 2+2?", None).text
    'What is 2+2?'
    """
    return unchanged(text, "control")
