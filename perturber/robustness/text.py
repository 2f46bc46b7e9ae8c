"""Texts as a report shows them: invisible characters made visible, character diffs.

>>> diff("two  cats", "two cats\\u200b")
'two[-␠-] cats{+⟨ZWSP⟩+}'
"""

from __future__ import annotations

import difflib

from ..visible import marker


def visible(text: str | None) -> str:
    """Every character of a changed part made visible: spaces as ``␠``, line feeds as ``⟨LF⟩``,
    invisible characters and combining marks as the markers of :mod:`perturber.visible`.

    >>> visible("a\\u200bb\\tc  d\\n\\u0301")
    'a⟨ZWSP⟩b⟨TAB⟩c␠␠d⟨LF⟩⟨U+0301⟩'
    """
    if text is None:
        return ""
    out = []
    for ch in text:
        if ch == " ":
            out.append("␠")
        elif ch == "\n":
            out.append("⟨LF⟩")
        else:
            mark = marker(ch, marks=True)
            out.append(ch if mark is None else f"⟨{mark}⟩")
    return "".join(out)


def diff(original: str, perturbed: str | None, limit: int = 600) -> str:
    """A character diff: ``[-removed-]{+inserted+}``, changed parts made visible, at most
    ``limit`` characters (then ``…``)."""
    perturbed = perturbed or ""
    sm = difflib.SequenceMatcher(None, original, perturbed, autojunk=False)
    out = []
    for op, a0, a1, b0, b1 in sm.get_opcodes():
        if op == "equal":
            out.append(original[a0:a1])
            continue
        if a1 > a0:
            out.append(f"[-{visible(original[a0:a1])}-]")
        if b1 > b0:
            out.append(f"{{+{visible(perturbed[b0:b1])}+}}")
    text = "".join(out)
    return text if len(text) <= limit else text[:limit] + "…"
