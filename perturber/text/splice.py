"""Assembly of a perturbed text from edits (G1)."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from operator import le

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
    if _JSON_UNSAFE.search("".join([r for _s, _e, r in edits])):  # one scan of them all
        edits = _json_safe(text, edits)
    if not edits:
        return text
    starts, ends, replacements = zip(*edits)
    if not (
        starts[0] >= 0
        and ends[-1] <= len(text)
        and all(map(le, starts, ends))
        and all(map(le, ends[:-1], starts[1:]))
    ):
        raise ValueError(f"edits {edits} out of order, overlapping or out of range")
    return splice_at(text, starts, ends, replacements)


def splice_at(
    text: str, starts: Sequence[int], ends: Sequence[int] | None, replacements: Iterable[str]
) -> str:
    """``text`` with ``text[starts[i]:ends[i]]`` replaced by ``replacements[i]``; ``ends=None``
    replaces the one code point at each start (``ends = starts`` inserts). The spans must be
    ascending and non-overlapping, and the caller vouches that no replacement is JSON-unsafe:
    this is :func:`splice` without its checks, for the hot paths.

    >>> splice_at("hello", [0, 4], None, ["J", "y"]), splice_at("abc", [1, 3], [1, 3], ["-", "!"])
    ('Jelly', 'a-bc!')
    """
    if 8 * len(starts) >= len(text):  # many edits: write them into the list of code points
        if ends is None:
            chars = list(text)
            for p, r in zip(starts, replacements):
                chars[p] = r
            return "".join(chars)
        if ends is starts:  # chars[p] ends just before offset p (chars[0] before the text)
            chars = [""]
            chars += text
            for p, r in zip(starts, replacements):
                chars[p] += r
            return "".join(chars)
    if ends is None:
        ends = map(_NEXT, starts)  # type: ignore[assignment]
    parts: list[str] = []  # few edits: slice around them
    append = parts.append
    pos = 0
    for s, e, r in zip(starts, ends, replacements):  # type: ignore[arg-type]
        append(text[pos:s])
        append(r)
        pos = e
    append(text[pos:])
    return "".join(parts)


_NEXT = (1).__add__


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
