"""padding: surround or end the text with repeated characters (docs/spec/catalog.md §10)."""

from __future__ import annotations

from ..registry import Outcome, Param, perturbation
from ..rng import Draws
from ..text import newline_style


def _n(default: int, maximum: int = 1000) -> Param:
    return Param("n", int, default, "number of padding characters on each side", 1, maximum)


def _pad(text: str, char: str, n: int) -> Outcome:
    pad = char * n
    return Outcome(pad + " " + text + " " + pad, 1)


@perturbation(
    "quotes",
    family="padding",
    params=[_n(5)],
    intensity="n",
    description="Pad with n double quotes and one space on each side.",
    fix_at="input_normalisation",
)
def quotes(text: str, rng: Draws, *, n: int) -> Outcome:
    """``n`` double quotes, a space, the text, a space, ``n`` double quotes.

    >>> quotes("Hi there", None, n=3).text == '\"\"\" Hi there \"\"\"'
    True
    """
    return _pad(text, '"', n)


@perturbation(
    "spaces",
    family="padding",
    params=[_n(5)],
    intensity="n",
    description="Pad with n spaces plus one space on each side.",
    fix_at="input_normalisation",
)
def spaces(text: str, rng: Draws, *, n: int) -> Outcome:
    """``n + 1`` spaces on each side.

    >>> spaces("Hi", None, n=2).text
    '   Hi   '
    """
    return _pad(text, " ", n)


@perturbation(
    "new_lines",
    family="padding",
    params=[_n(5)],
    intensity="n",
    description="Pad with n line feeds and one space on each side.",
    fix_at="input_normalisation",
)
def new_lines(text: str, rng: Draws, *, n: int) -> Outcome:
    """``n`` line feeds and a space on each side (always LF, for tier parity).

    >>> new_lines("Hi", None, n=2).text
    '\\n\\n Hi \\n\\n'
    """
    return _pad(text, "\n", n)


@perturbation(
    "trailing_newline",
    family="padding",
    params=[Param("n", int, 1, "number of line breaks appended", 1, 100)],
    intensity="n",
    description="Append n line breaks in the text's own style.",
    fix_at="input_normalisation",
)
def trailing_newline(text: str, rng: Draws, *, n: int) -> Outcome:
    """The text's line-break style, ``n`` times, at the end.

    >>> trailing_newline("What is 2+2?", None, n=1).text
    'What is 2+2?\\n'
    """
    return Outcome(text + newline_style(text) * n, 1)
