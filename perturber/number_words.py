"""The numbers a text states, digits and spelled-out words alike, for validity gates.

A perturbation that turns ``with four`` into ``wth fr`` (typos, ``disemvowel``) changed the problem,
even though no digit moved. ``numbers_in`` lists the numbers of a text in reading order, with
spelled-out cardinals, ordinals and decimals normalised by the maintained ``text2num`` parser
(``alpha2digit``; the ``robustness`` extra) and digit literals canonicalised (``1,250`` -> ``1250``,
``2.50`` -> ``2.5``, full-width digits folded).

>>> numbers_in("Sam has four apples and buys 1,200 more; half of them are red.")
('4', '1200', '0.5')
>>> numbers_preserved("She walks with four dogs.", "She wlaks with four dgos.")
True
>>> numbers_preserved("She walks with four dogs.", "She walks wth fr dogs.")
False
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, InvalidOperation

from .errors import ResourceUnavailable

# The literal of docs/spec/catalog.md §1.10: grouped thousands first, then plain digit runs.
_LITERAL = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+(?![0-9])(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?")

# Quantity words that alpha2digit leaves alone (it parses cardinals, ordinals and decimals only):
# multiplicative and fractional words. Replaced before parsing, as whole words, case-insensitively.
_QUANTITY_WORDS = {"half": "0.5", "halves": "0.5", "twice": "2", "thrice": "3", "dozen": "12", "dozens": "12"}
_QUANTITY = re.compile(r"\b(?:an?\s+)?(" + "|".join(_QUANTITY_WORDS) + r")\b", re.IGNORECASE)

_alpha2digit = None


def _parser():
    """``text_to_num.alpha2digit``, imported on first use."""
    global _alpha2digit
    if _alpha2digit is None:
        try:
            from text_to_num import alpha2digit
        except ImportError:
            raise ResourceUnavailable(
                "counting spelled-out numbers needs the 'text2num' package: "
                "pip install 'perturber[robustness]'",
                extra="robustness",
            ) from None
        _alpha2digit = alpha2digit
    return _alpha2digit


def _visible(text: str) -> str:
    """Fold what a reader does not see as a different number: compatibility forms (full-width
    digits), format characters (zero-width, bidi controls) and combining marks."""
    decomposed = unicodedata.normalize("NFKD", text)
    kept = "".join(ch for ch in decomposed if unicodedata.category(ch) not in ("Cf", "Mn"))
    return unicodedata.normalize("NFKC", kept)


def _canonical(literal: str) -> str:
    try:
        value = Decimal(literal.replace(",", ""))
    except InvalidOperation:  # pragma: no cover - the regex only yields decimal literals
        return literal
    text = format(value.normalize(), "f")
    return text


def numbers_in(text: str) -> tuple[str, ...]:
    """The numbers of ``text`` in reading order, as canonical decimal strings.

    >>> numbers_in("Twenty-one cows, a dozen eggs and twice as many ducks")
    ('21', '12', '2')
    >>> numbers_in("no numbers here")
    ()
    """
    parse = _parser()
    plain = _visible(text)
    plain = _QUANTITY.sub(lambda m: f" {_QUANTITY_WORDS[m.group(1).lower()]} ", plain)
    # threshold=0: also "one" and "two", which alpha2digit leaves as words by default.
    digits = parse(plain, "en", threshold=0)
    return tuple(_canonical(m.group()) for m in _LITERAL.finditer(digits))


def numbers_preserved(original: str, perturbed: str) -> bool:
    """True when ``perturbed`` states the same sequence of numbers as ``original``.

    >>> numbers_preserved("It costs 1500 dollars", "It costs 1,500 dollars")
    True
    >>> numbers_preserved("three cats", "3 cats")
    True
    """
    return numbers_in(original) == numbers_in(perturbed)
