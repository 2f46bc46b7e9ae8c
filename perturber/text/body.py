"""Answer cue, body and append / prepend of material (§1.9)."""

from __future__ import annotations

from typing import NamedTuple

from ..memo import per_text
from .lines import cue_line, fenced_blocks, line_bounds, newline_style
from .units import lstrip_start, rstrip_end

# --------------------------------------------------------------------------------------------
# Answer cue, body, append / prepend (§1.9)
# --------------------------------------------------------------------------------------------


def answer_cue(text: str) -> tuple[int, int] | None:
    """Span of the answer cue (stripped of surrounding whitespace), or None.

    >>> t = "What is 2+2?\\nAnswer:\\n"
    >>> answer_cue(t), answer_cue("Answer:")
    ((13, 20), None)
    """
    if ":" not in text:
        return None
    lb = line_bounds(text)
    i = cue_line(text, lb, fenced_blocks(text, lb))
    if i is None:
        return None
    s, e, _ = lb[i]
    s = lstrip_start(text, s, e)
    return s, rstrip_end(text, s, e)


class Body(NamedTuple):
    """``text == lead + body + cue_gap + cue + trail`` (L, body, W, cue, T of §1.9)."""

    lead: str
    body: str
    cue_gap: str
    cue: str
    trail: str
    sep: str


@per_text
def split_body(text: str) -> Body:
    """Split ``text`` into L, body, W, cue, T and the separator ``sep`` of §1.9.
    A whitespace-only text is all ``lead``.

    >>> split_body("\\nQ?\\r\\n\\r\\nAnswer: \\n")
    Body(lead='\\n', body='Q?', cue_gap='\\r\\n\\r\\n', cue='Answer:', trail=' \\n', sep=' ')
    """
    stripped_end = len(text.rstrip())
    if stripped_end == 0:
        return Body(text, "", "", "", "", " ")
    ls = len(text) - len(text.lstrip())
    cue = answer_cue(text)
    if cue is None:
        body = text[ls:stripped_end]
        gap = cue_text = ""
    else:
        be = rstrip_end(text, ls, cue[0])
        body = text[ls:be]
        gap = text[be : cue[0]]
        cue_text = text[cue[0] : cue[1]]
    nl = newline_style(text)
    sep = nl + nl if ("\n" in body or "\r" in body) else " "
    return Body(text[:ls], body, gap, cue_text, text[stripped_end:], sep)


def append_material(text: str, material: str, sep: str | None = None) -> str:
    """Append rule of §1.9: ``L + body + sep + material + (W + cue) + T``; ``sep`` may be forced.

    >>> append_material("What is 7 × 8?\\nAnswer:", "Thanks.")
    'What is 7 × 8? Thanks.\\nAnswer:'
    """
    b = split_body(text)
    if not b.body:
        return material + text
    return b.lead + b.body + (b.sep if sep is None else sep) + material + b.cue_gap + b.cue + b.trail


def prepend_material(text: str, material: str, sep: str | None = None) -> str:
    """Prepend rule of §1.9: ``L + material + sep + rest``; ``sep`` may be forced.

    >>> prepend_material("  Hi there.\\n", "Hello!")
    '  Hello! Hi there.\\n'
    """
    b = split_body(text)
    if not b.body:
        return material + text
    return b.lead + material + (b.sep if sep is None else sep) + text[len(b.lead) :]
