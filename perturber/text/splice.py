"""Assembly of a perturbed text from edits (G1)."""

from __future__ import annotations

from collections.abc import Iterable

# --------------------------------------------------------------------------------------------
# Assembly (G1)
# --------------------------------------------------------------------------------------------

def splice(text: str, edits: Iterable[tuple[int, int, str]]) -> str:
    """Rebuild ``text`` from untouched slices plus replacements.  ``edits`` are
    ``(start, end, replacement)``, ascending and non-overlapping (insertions have
    ``start == end``); a violation raises ``ValueError``.

    >>> splice("hello world", [(0, 1, "H"), (5, 5, ","), (6, 11, "there")])
    'Hello, there'
    """
    parts = []
    pos = 0
    for s, e, r in edits:
        if s < pos or e < s or e > len(text):
            raise ValueError(f"edit ({s}, {e}) out of order, overlapping or out of range")
        parts.append(text[pos:s])
        parts.append(r)
        pos = e
    if not parts:
        return text
    parts.append(text[pos:])
    return "".join(parts)
