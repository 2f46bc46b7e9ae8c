"""The JSON regions of a text (docs/spec/catalog.md §1.8 kind 5) and whether a perturbation kept
them: equal except inside prose string values.

>>> json_equivalent(json_values('{"a": "some prose here", "n": 1}')[0],
...                 json_values('{"a": "some PROSE here!", "n": 1}')[0])
True
"""

from __future__ import annotations

import json

_DECODER = json.JSONDecoder(object_pairs_hook=lambda pairs: ("object", pairs))


def _has_string(value) -> bool:
    if isinstance(value, str):
        return True
    if isinstance(value, tuple):  # ("object", pairs): member names are strings
        return bool(value[1])
    if isinstance(value, list):
        return any(_has_string(v) for v in value)
    return False


def json_values(text: str) -> list:
    """The JSON regions of ``text`` (docs/spec/catalog.md §1.8 kind 5), decoded, left to right.

    The whole text when it is an object or array; otherwise each maximal segment starting at
    ``{`` or ``[`` that decodes to an object or array holding a member name or string. Objects
    decode to ``("object", [(name, value), ...])`` so order and duplicate names are kept.
    (A straightforward scanner for the evaluation, not the library's O(n) one.)
    """
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            return [_DECODER.decode(stripped)]
        except ValueError:
            pass
    values, i = [], 0
    while i < len(text):
        if text[i] in "{[":
            try:
                value, end = _DECODER.raw_decode(text, i)
            except ValueError:
                i += 1
                continue
            if _has_string(value):
                values.append(value)
                i = end
                continue
        i += 1
    return values


def is_prose(value: str) -> bool:
    """A prose string value: at least one whitespace character and one letter (§1.8)."""
    return any(c.isspace() for c in value) and any(c.isalpha() for c in value)


def json_equivalent(original, perturbed) -> bool:
    """Equal except inside prose string values (member names never count as prose)."""
    if isinstance(original, tuple):
        if not isinstance(perturbed, tuple) or len(original[1]) != len(perturbed[1]):
            return False
        return all(
            k1 == k2 and json_equivalent(v1, v2) for (k1, v1), (k2, v2) in zip(original[1], perturbed[1])
        )
    if isinstance(original, list):
        return (
            isinstance(perturbed, list)
            and len(original) == len(perturbed)
            and all(json_equivalent(a, b) for a, b in zip(original, perturbed))
        )
    if isinstance(original, str) and is_prose(original):
        return isinstance(perturbed, str)
    return type(original) is type(perturbed) and original == perturbed


def json_preserved(original_text: str, perturbed_text: str) -> bool | None:
    """None when the original holds no JSON region; else whether every region survived."""
    before = json_values(original_text)
    if not before:
        return None
    after = json_values(perturbed_text)
    return len(before) == len(after) and all(json_equivalent(a, b) for a, b in zip(before, after))
