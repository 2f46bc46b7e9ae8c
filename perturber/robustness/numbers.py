"""The numbers a text states, with where they stand, and whether a perturbation kept them.

:func:`numbers_with_spans` reads digits (``1,250``, ``2.50``, ``3/5``, ``21st``), spelled-out
cardinals (``one hundred and five``), ordinals (``twenty-first``), fractions (``three-fifths``,
``one third``), the number inside a compound (``eight-hour``, ``six-inch``) and the quantity words
of :data:`QUANTITY_WORDS`. It works on a *folded* text: compatibility forms (full-width digits) and
invisible characters (zero-width, bidi controls, combining marks) are folded away and the text is
lower-cased, because a reader does not see those as different numbers. Values are strings:
``"1250"``, ``"2.5"``, ``"3/5"``, ``"ord:21"``, ``"x2"``, ``"%"``.

>>> [(n.value, n.text) for n in numbers_with_spans("Two-thirds of 1,200 pupils work an eight-hour day.")]
[('2/3', 'two-thirds'), ('1200', '1,200'), ('8', 'eight')]

:func:`numbers_kept` is the gate: every number of the original must survive **at its aligned
position** in the perturbed text (the texts are aligned character by character), and a number the
perturbed text adds must lie in inserted text, never in place of original text. So a digit elsewhere
does not stand in for a lost word:

>>> numbers_kept("make one full pen", "rnake onc ful1 pcn") is None
False
>>> numbers_kept("It costs 1500 dollars", "IT COSTS 1,500 DOLLARS") is None
True

With ``mode="multiset"`` (entries that move sentences) only the values count, in any order.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

from cydifflib import SequenceMatcher

from ..memo import per_text

# Quantity words: a word that states an amount without being a number word. Values that mean the
# same amount are equal strings, so a synonym swap (double -> twice) keeps the number.
QUANTITY_WORDS: dict[str, str] = {
    "half": "1/2",
    "halves": "1/2",
    "quarter": "1/4",
    "quarters": "1/4",
    "pair": "2",
    "pairs": "2",
    "dozen": "12",
    "dozens": "12",
    "twice": "x2",
    "double": "x2",
    "doubled": "x2",
    "thrice": "x3",
    "triple": "x3",
    "tripled": "x3",
    "percent": "%",
    "%": "%",
}

_UNITS = dict(zip("zero one two three four five six seven eight nine".split(), range(10)))
_TEENS = dict(
    zip(
        "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split(),
        range(10, 20),
    )
)
_TENS = dict(zip("twenty thirty forty fifty sixty seventy eighty ninety".split(), range(20, 100, 10)))
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_ORDINAL_UNITS = dict(zip("first second third fourth fifth sixth seventh eighth ninth".split(), range(1, 10)))
_ORDINALS = {
    **_ORDINAL_UNITS,
    **dict(
        zip(
            "tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth "
            "eighteenth nineteenth".split(),
            range(10, 20),
        )
    ),
    **{word[:-1] + "ieth": value for word, value in _TENS.items()},
    "hundredth": 100,
    "thousandth": 1_000,
    "millionth": 1_000_000,
}
# "one second" is a time, not a half; "first" is never a denominator.
_DENOMINATORS = {w: v for w, v in _ORDINALS.items() if v >= 3} | {
    w + "s": v for w, v in _ORDINALS.items() if v >= 3
}
_CARDINAL = _UNITS | _TEENS | _TENS

# Where a number starts: digits (with a fraction or an ordinal suffix), ``%``, or a whole word
# token (``[a-z]+``) that is a quantity word or starts a spelled-out number.
_START_WORDS = sorted({*QUANTITY_WORDS, *_CARDINAL, *_SCALES, *_ORDINALS} - {"%"}, key=lambda w: (-len(w), w))
_START = re.compile(
    r"(?P<num>[0-9]{1,3}(?:,[0-9]{3})+(?![0-9])(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?)"
    r"(?:(?P<frac>[/\u2044][0-9]+)|(?P<ord>st|nd|rd|th)(?![a-z]))?"
    rf"|(?P<pct>%)|(?<![a-z])(?P<word>{'|'.join(_START_WORDS)})(?![a-z])"
)


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


@dataclass(frozen=True)
class Number:
    """One number of a folded text: its value and its span ``[start, end)`` in that text."""

    value: str
    start: int
    end: int
    text: str


def fold(text: str) -> str:
    """The text as a reader compares numbers: compatibility forms, invisible characters and
    combining marks folded away, lower-cased.

    >>> fold("ＦＯ\u200bＵR １２")
    'four 12'
    """
    if text.isascii():  # no compatibility form, format character or mark: only the case folds
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    invisible = {
        ord(ch): None
        for ch in set(_NON_ASCII.findall(decomposed))
        if unicodedata.category(ch) in ("Cf", "Mn")
    }
    return unicodedata.normalize("NFKC", decomposed.translate(invisible)).lower()


def _decimal(literal: str) -> str:
    whole, _, frac = literal.replace(",", "").partition(".")
    whole = whole.lstrip("0") or "0"
    frac = frac.rstrip("0")
    return f"{whole}.{frac}" if frac else whole


def _digit_value(m: re.Match) -> str:
    value = _decimal(m.group("num"))
    if m.group("frac"):
        return f"{value}/{m.group('frac')[1:]}"
    if m.group("ord"):
        return f"ord:{value}"
    return value


class _Cardinal:
    """Accumulates one spelled-out cardinal (``two thousand three hundred and five``)."""

    def __init__(self) -> None:
        self.total = 0
        self.current = 0
        self.last = ""  # unit, teen, tens, hundred, scale

    def accepts(self, word: str) -> bool:
        if word in _UNITS:
            return self.last in ("", "tens", "hundred", "scale")
        if word in _TEENS or word in _TENS:
            return self.last in ("", "hundred", "scale")
        if word == "hundred":
            return self.last in ("", "unit", "teen", "tens")
        if word in _SCALES:
            return self.last in ("", "unit", "teen", "tens", "hundred")
        return False

    def add(self, word: str) -> None:
        if word in _CARDINAL:
            self.current += _CARDINAL[word]
            self.last = "unit" if word in _UNITS else "teen" if word in _TEENS else "tens"
        elif word == "hundred":
            self.current = (self.current or 1) * 100
            self.last = "hundred"
        else:
            self.total += (self.current or 1) * _SCALES[word]
            self.current = 0
            self.last = "scale"

    @property
    def value(self) -> int:
        return self.total + self.current


def numbers_with_spans(text: str, *, folded: bool = False) -> list[Number]:
    """The numbers of ``text`` in reading order, with spans in :func:`fold` ``(text)``.

    >>> [n.value for n in numbers_with_spans("the twenty-first of three-fifths, a dozen and 50 %")]
    ['ord:21', '3/5', '12', '50', '%']
    >>> [n.value for n in numbers_with_spans("one hundred and five sheep, one third, five point two")]
    ['105', '1/3', '5.2']
    """
    s = text if folded else fold(text)
    out: list[Number] = []
    m = _START.search(s)
    while m is not None:
        word = m.group("word")
        if word is not None and (word not in QUANTITY_WORDS or word in _CARDINAL):
            number = _spelled(s, word, m.start(), m.end())
        else:  # digits, or a quantity word or sign
            value = _digit_value(m) if m.group("num") is not None else QUANTITY_WORDS[m.group()]
            number = Number(value, m.start(), m.end(), m.group())
        out.append(number)
        m = _START.search(s, number.end)
    return out


# A word token (``[a-z]+``) after the end of the previous one, with only white space or one hyphen
# between them.
_NEXT_WORD = re.compile(r"(?:\s+|\s*-\s*)([a-z]+)")


def _next_word(s: str, end: int) -> tuple[int, int, str] | None:
    """``(start, end, word)`` of the word token after the token that ends at ``end``, when only
    white space or one hyphen separates them."""
    m = _NEXT_WORD.match(s, end)
    return None if m is None else (m.start(1), m.end(1), m.group(1))


def _spelled(s: str, word: str, start: int, end: int) -> Number:
    """The spelled-out number whose first word is ``word`` at ``[start, end)``: cardinal, ordinal,
    fraction or decimal."""
    if word in _ORDINALS and word not in _CARDINAL and word not in _SCALES:
        return Number(f"ord:{_ORDINALS[word]}", start, end, s[start:end])
    card = _Cardinal()
    card.add(word)
    while True:
        nxt = _next_word(s, end)
        if nxt is None:
            break
        _, k_end, w = nxt
        if w == "and" and card.last in ("hundred", "scale"):
            after = _next_word(s, k_end)
            if after and card.accepts(after[2]) and after[2] not in _SCALES:
                end = k_end
                continue
            break
        if card.accepts(w):
            card.add(w)
            end = k_end
            continue
        if w in _ORDINAL_UNITS and card.last == "tens":  # twenty-first: a compound ordinal
            return Number(f"ord:{card.value + _ORDINALS[w]}", start, k_end, s[start:k_end])
        if w in _DENOMINATORS and card.last in ("unit", "teen", "tens"):  # three-fifths
            return Number(f"{card.value}/{_DENOMINATORS[w]}", start, k_end, s[start:k_end])
        if w in ("half", "halves", "quarter", "quarters") and card.last in ("unit", "teen", "tens"):
            denominator = 2 if w.startswith("hal") else 4
            return Number(f"{card.value}/{denominator}", start, k_end, s[start:k_end])
        if w == "point" and card.last in ("unit", "teen", "tens", "hundred", "scale"):
            digits, digits_end = _decimal_digits(s, k_end)
            if digits:
                return Number(_decimal(f"{card.value}.{digits}"), start, digits_end, s[start:digits_end])
        break
    return Number(str(card.value), start, end, s[start:end])


def _decimal_digits(s: str, end: int) -> tuple[str, int]:
    """The digits spelled after ``point`` (which ends at ``end``), and where they end."""
    digits = ""
    while (nxt := _next_word(s, end)) is not None and nxt[2] in _UNITS:
        end = nxt[1]
        digits += str(_UNITS[nxt[2]])
    return digits, end


@per_text
def _folded_numbers(text: str) -> tuple[str, tuple[Number, ...]]:
    """The folded text and its numbers (an original is checked against each of its variants)."""
    folded = fold(text)
    return folded, tuple(numbers_with_spans(folded, folded=True))


def numbers_kept(original: str, perturbed: str, mode: str = "position") -> str | None:
    """None when ``perturbed`` keeps the numbers of ``original``, else what changed (one line).

    >>> numbers_kept("Two-thirds of the class", "Two-tihrds of the class")
    "'two-thirds' (2/3) is not where it stood"
    >>> numbers_kept("4 cats. 2 dogs.", "2 dogs. 4 cats.", mode="multiset") is None
    True
    >>> numbers_kept("Pay 4 dollars", "Pay 4 dollars, not 5") is None     # added, not replaced
    True
    """
    a, before = _folded_numbers(original)
    if not before:
        return None
    b = fold(perturbed)
    if b == a:  # a change of case, width or invisible characters only
        return None
    after = numbers_with_spans(b, folded=True)
    if mode == "multiset":
        if Counter(n.value for n in before) == Counter(n.value for n in after):
            return None
        lost = Counter(n.value for n in before) - Counter(n.value for n in after)
        added = Counter(n.value for n in after) - Counter(n.value for n in before)
        return f"values lost {sorted(lost)}, added {sorted(added)}"
    opcodes = SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    used: set[int] = set()
    for number in before:
        lo, hi = _image(opcodes, number.start, number.end)
        match = next(
            (
                idx
                for idx, cand in enumerate(after)
                if idx not in used and cand.value == number.value and cand.start < hi and cand.end > lo
            ),
            None,
        )
        if match is None:
            return f"{number.text!r} ({number.value}) is not where it stood"
        used.add(match)
    inserted = [(j1, j2) for tag, i1, i2, j1, j2 in opcodes if tag == "insert"]
    for idx, cand in enumerate(after):
        if idx not in used and not any(j1 <= cand.start and cand.end <= j2 for j1, j2 in inserted):
            return f"{cand.text!r} ({cand.value}) replaces original text"
    return None


def _image(opcodes: list, start: int, end: int) -> tuple[int, int]:
    """The span of the perturbed text that ``[start, end)`` of the original aligns with (empty
    when that text was deleted)."""
    spans = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "insert":
            if start < i1 < end:
                spans.append((j1, j2))
        elif i1 < end and i2 > start:
            spans.append((j1 + max(start, i1) - i1, j1 + min(end, i2) - i1) if tag == "equal" else (j1, j2))
    return min(lo for lo, _ in spans), max(hi for _, hi in spans)
