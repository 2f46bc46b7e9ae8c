"""Library limits, read once from the environment at import (never at call time).

| variable | default | meaning |
|---|---|---|
| ``PERTURBER_MAX_TEXT_CHARS`` | 100000 | longest accepted text, in code points (upper limit 1,000,000) |
| ``PERTURBER_MAGNITUDE_MAX_CHARS`` | 20000 | above this ``len(in) + len(out)``, ``magnitude`` is null |

>>> LIMITS.max_text_chars <= HARD_MAX_TEXT_CHARS
True
"""

from __future__ import annotations

import os
from dataclasses import dataclass

HARD_MAX_TEXT_CHARS = 1_000_000


def env_int(name: str, default: int, low: int, high: int, environ=None) -> int:
    """An integer setting from the environment, checked against ``[low, high]``."""
    raw = (os.environ if environ is None else environ).get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name} must be an integer, got {raw!r}") from None
    if not low <= value <= high:
        raise ValueError(f"{name} must be in [{low}, {high}], got {value}")
    return value


@dataclass
class Limits:
    """Mutable on purpose, through ``perturber.configure`` only (tests, the service)."""

    max_text_chars: int = 100_000
    magnitude_max_chars: int = 20_000


LIMITS = Limits(
    max_text_chars=env_int("PERTURBER_MAX_TEXT_CHARS", 100_000, 1, HARD_MAX_TEXT_CHARS),
    magnitude_max_chars=env_int("PERTURBER_MAGNITUDE_MAX_CHARS", 20_000, 0, 10**9),
)


def configure(*, max_text_chars: int | None = None, magnitude_max_chars: int | None = None) -> Limits:
    """Change the library limits for this process and return them.

    >>> configure(max_text_chars=100_000).max_text_chars
    100000
    """
    if max_text_chars is not None:
        if type(max_text_chars) is not int or not 1 <= max_text_chars <= HARD_MAX_TEXT_CHARS:
            raise ValueError(f"max_text_chars must be an int in [1, {HARD_MAX_TEXT_CHARS}]")
        LIMITS.max_text_chars = max_text_chars
    if magnitude_max_chars is not None:
        if type(magnitude_max_chars) is not int or magnitude_max_chars < 0:
            raise ValueError("magnitude_max_chars must be a non-negative int")
        LIMITS.magnitude_max_chars = magnitude_max_chars
    return LIMITS
