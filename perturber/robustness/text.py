"""Texts as a report shows them: invisible characters made visible, character diffs.

>>> diff("two  cats", "two cats\\u200b")
'two[-␠-] cats{+⟨U+200B⟩+}'
"""

from __future__ import annotations

import difflib
import unicodedata


def visible(text: str | None) -> str:
    """Invisible and ambiguous characters made visible.

    >>> visible("a\\u200bb\\tc  d\\n")
    'a⟨U+200B⟩b⟨TAB⟩c␠␠d⟨LF⟩'
    """
    if text is None:
        return ""
    out = []
    for ch in text:
        if ch == "\t":
            out.append("⟨TAB⟩")
        elif ch == "\n":
            out.append("⟨LF⟩")
        elif ch == " ":
            out.append("␠")
        elif unicodedata.category(ch) in ("Cf", "Cc", "Zs", "Zl", "Zp", "Co", "Mn"):
            out.append(f"⟨U+{ord(ch):04X}⟩")
        else:
            out.append(ch)
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
