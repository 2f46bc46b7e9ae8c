"""The one table of markers for invisible or confusable characters, shared by the perturbation
reference, the robustness report and the playground (served to it as ``/static/markers.js``).

>>> marker("\\u200b"), marker("\\U000e0041"), marker("\\x07"), marker("\\u2028"), marker("a")
('ZWSP', 'TAG A', 'U+0007', 'U+2028', None)
"""

from __future__ import annotations

import json
import unicodedata

#: Named markers; any other format, control, separator or private-use character is ``U+XXXX``.
MARKERS = {
    "\u200b": "ZWSP",
    "\u200c": "ZWNJ",
    "\u200d": "ZWJ",
    "\u2060": "WJ",
    "\ufeff": "BOM",
    "\u00a0": "NBSP",
    "\u202f": "NNBSP",
    "\u3000": "IDSP",
    "\t": "TAB",
    "\r": "CR",
    "\u200e": "LRM",
    "\u200f": "RLM",
    "\u202a": "LRE",
    "\u202b": "RLE",
    "\u202c": "PDF",
    "\u202d": "LRO",
    "\u202e": "RLO",
    "\u2066": "LRI",
    "\u2067": "RLI",
    "\u2068": "FSI",
    "\u2069": "PDI",
    "\u00ad": "SHY",
}
_UNSEEN = ("Cf", "Cc", "Co", "Zl", "Zp", "Zs")


def marker(ch: str, marks: bool = False) -> str | None:
    """The marker of one character (without the ``⟨⟩``), or None when it shows as itself: the
    named ones, ``TAG x`` for a Unicode tag character, ``U+XXXX`` for any other format, control,
    separator or private-use character except the line feed and the space (and, with ``marks``,
    for a combining mark, which shown alone would sit on whatever precedes it).

    >>> marker("\\u0301"), marker("\\u0301", marks=True)
    (None, 'U+0301')
    """
    named = MARKERS.get(ch)
    if named is not None:
        return named
    cp = ord(ch)
    if 0xE0000 <= cp <= 0xE007F:
        return "TAG " + (chr(cp - 0xE0000) if 0xE0020 <= cp <= 0xE007E else f"<{cp:x}>")
    category = unicodedata.category(ch)
    if ch in "\n " or not (category in _UNSEEN or (marks and category == "Mn")):
        return None
    return f"U+{cp:04X}"


def script() -> str:
    """The table as the playground's ``markers.js`` (``const INVISIBLE = {...};``)."""
    return "// generated from perturber.visible.MARKERS\nconst INVISIBLE = " + json.dumps(MARKERS) + ";\n"
