"""Assembly of a perturbed text from edits (G1)."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable

#: What a JSON prose interior must never receive unescaped (§1.8 kind 5).
_JSON_UNSAFE = re.compile(r'["\\\x00-\x1f]')

# --------------------------------------------------------------------------------------------
# Assembly (G1)
# --------------------------------------------------------------------------------------------


def splice(text: str, edits: Iterable[tuple[int, int, str]]) -> str:
    """Rebuild ``text`` from untouched slices plus replacements.  ``edits`` are
    ``(start, end, replacement)``, ascending and non-overlapping (insertions have
    ``start == end``); a violation raises ``ValueError``.

    >>> splice("hello world", [(0, 1, "H"), (5, 5, ","), (6, 11, "there")])
    'Hello, there'

    An edit that would put an unescaped ``"``, ``\\`` or a character below U+0020 inside the
    interior of a JSON prose string value (§1.8 kind 5) is skipped:

    >>> splice('{"a": "b c"}', [(8, 8, '"'), (9, 10, 'C')])
    '{"a": "b C"}'
    """
    edits = list(edits)
    if any(_JSON_UNSAFE.search(r) for _s, _e, r in edits):
        edits = _json_safe(text, edits)
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


def _json_safe(text: str, edits: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """``edits`` without those that put a JSON-unsafe character into a prose interior."""
    from .spans import prose_interiors

    inner = prose_interiors(text)
    if not inner:
        return edits
    starts = [s for s, _ in inner]
    out = []
    for s, e, r in edits:
        i = bisect_right(starts, s) - 1
        if i >= 0 and s <= inner[i][1] and _JSON_UNSAFE.search(r):
            continue  # touches the interior (a, b): a <= s <= b
        out.append((s, e, r))
    return out
