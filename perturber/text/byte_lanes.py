"""Word tokens of a plain text (§1.6, the rules of ``bits.py``) as masks with a byte lane per code
point: the lane of ``p`` holds bits ``8 * (n - 1 - p)`` to ``8 * (n - 1 - p) + 7``, so one
``bytes.translate`` of the view and ``int.from_bytes`` give every class of every lane at once
(a lane of ``bits.py`` holds four flags, and each more costs a parse of hex digits). The masks
are twice as wide: this pays off for an entry that needs more than four classes.
tests/test_bits.py compares the masks with the token model of ``tokens.py``.

>>> t = byte_tokens(b"Dr. Li's file.txt, ok?", class_table({}), ())
>>> list(Flags(t.start, t.n)), list(Flags(free_starts(t, 0), t.n))
([0, 4, 9, 14, 19], [0, 4, 19])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import accumulate
from operator import add
from typing import NamedTuple

from ..rng import pick
from .bits import FlagSequence, letters_at_least
from .chars import BINDERS, new_tuple

__all__ = [
    "ByteTokens",
    "Flags",
    "byte_tokens",
    "class_table",
    "fill_left",
    "free_starts",
    "token_any",
    "with_letters",
]


def class_table(extra: Mapping[str, int]) -> bytes:
    """The ``bytes.translate`` table of a view byte to its lane: bit 0 a word character, 1 a
    joiner, 2 a binder, 3 ``.`` or ``:``, or'ed with ``extra`` (the caller's bits, by ASCII
    character). A word character may reuse bits 1 to 3: :func:`byte_tokens` reads them only
    where no word character can be.

    >>> class_table({"a": 16})[ord("a")], class_table({})[ord("-")]
    (17, 2)
    """
    lanes = []
    for byte in range(256):
        c = chr(byte)
        classes = (byte < 0x80 and c.isalnum()) | (c in "'-") << 1 | (c in BINDERS) << 2 | (c in ".:") << 3
        lanes.append(classes | extra.get(c, 0))
    return bytes(lanes)


class ByteTokens(NamedTuple):
    """The byte-lane token masks of a plain text of ``n`` code points (each holds 0 or 1 a lane,
    except ``x`` and ``full``)."""

    n: int
    x: int  # each lane's classes (the table's bits)
    ones: int  # every lane
    tok: int  # code points inside a token
    link: int  # a token's code points after its first
    start: int  # the first code point of each token
    end: int  # the last code point of each token
    full: int  # 0xFF in each token lane (:func:`fill_left` adds to it)
    bound: int  # in each bound token: a start or end lane that a neighbour binds, or a protected lane


#: Texts up to this many code points take their lanes of ones from a shift of one kept constant.
_ONES_KEPT = 4096
_MANY_ONES = int.from_bytes(b"\x01" * _ONES_KEPT, "big")


def _ones(n: int) -> int:
    """A 1 in each of ``n`` byte lanes."""
    return _MANY_ONES >> 8 * (_ONES_KEPT - n) if n <= _ONES_KEPT else int.from_bytes(b"\x01" * n, "big")


def byte_tokens(v: bytes, table: bytes, spans: Sequence[tuple[int, int]]) -> ByteTokens:
    """The token masks of the view ``v`` (``bits.view``) of a plain text, whose lanes ``table``
    (from :func:`class_table`) gives; ``spans``: its protected spans (the caller finds them
    when ``may_protect(v)``)."""
    n = len(v)
    ones = _ones(n)
    x = int.from_bytes(v.translate(table), "big")
    word = x & ones
    after_word, before_word = word >> 8, word << 8  # lanes after / before a word character
    tok = word | x >> 1 & after_word & before_word  # (bit 0 is all the word lanes keep)
    link = tok & tok >> 8
    start = tok ^ link
    end = tok ^ link << 8  # no link next
    binder, dot = x >> 2, x >> 3  # at bit 0 (start and end clear the other bits)
    bound = start & (binder | dot & after_word) >> 8 | end & (binder | dot & before_word) << 8
    for s, e in spans:
        bound |= tok & _ones(e - s) << 8 * (n - e)
    return new_tuple(ByteTokens, (n, x, ones, tok, link, start, end, tok * 255, bound))


def fill_left(flags: int, t: ByteTokens) -> int:
    """The lanes of each token from its start to its last flag (``flags`` inside tokens): adding
    1 at a flag of a run of 0xFF token lanes carries up to the token's start (``bits.fill_left``)."""
    return t.tok ^ ((t.full + flags) >> 7 & t.ones)


def token_any(flags: int, t: ByteTokens) -> int:
    """The start lanes of the tokens that hold a flag."""
    return fill_left(flags, t) & t.start


def free_starts(t: ByteTokens, flags: int) -> int:
    """The start lanes of the free tokens (none bound) that hold none of ``flags``."""
    flags |= t.bound
    return t.start ^ token_any(flags, t) if flags else t.start


def with_letters(t: ByteTokens, v: bytes, starts: int, k: int) -> int:
    """The start lanes of ``starts`` whose token in the view ``v`` holds at least ``k`` word
    characters (``bits.with_letters`` in byte lanes).

    >>> v = b"it's don't co-op-ed ab"
    >>> t = byte_tokens(v, class_table({}), ())
    >>> list(Flags(with_letters(t, v, t.start, 4), t.n))
    [5, 11]
    """
    joiners = t.tok ^ (t.tok & t.x)  # the token lanes without a word character (bit 0)
    with_joiner = token_any(joiners, t) if joiners else 0
    return letters_at_least(v, starts, k, t.link, joiners, with_joiner, 8, Flags)


class Flags(FlagSequence):
    """The flags of a byte-lane mask: ``flags[i]`` is the first flagged lane left in the mask's
    bytes once the ``i`` before it are cleared (two C-level passes: ``bytes.replace`` with a
    count, ``bytes.find``).

    >>> flags = Flags(0x010001, 3)
    >>> len(flags), flags[1], list(flags)
    (2, 2, [0, 2])
    """

    __slots__ = ()

    @classmethod
    def of_bytes(cls, lanes: bytes) -> Flags:
        """The flags of the lanes ``lanes`` (a byte each, 1 or 0).

        >>> list(Flags.of_bytes(b"\\x00\\x01\\x01"))
        [1, 2]
        """
        flags = cls(int.from_bytes(lanes, "big"), len(lanes))
        flags._encoded = lanes
        return flags

    def _bytes(self) -> bytes:
        lanes = self._encoded
        if lanes is None:
            lanes = self._encoded = self.mask.to_bytes(self.n, "big")
        return lanes  # type: ignore[return-value]

    def _locate(self, i: int) -> int:
        return self._bytes().replace(b"\x01", b"\x00", i).find(1)

    def _list(self) -> list[int]:
        return list(map(add, self._before(self.size), range(self.size)))

    def _before(self, k: int) -> list[int]:
        """The lengths of the gaps before each of the first ``k`` flags, summed (flag ``i`` is
        this plus ``i``)."""
        return list(accumulate(map(len, self._bytes().split(b"\x01", k))))

    def pick(self, indices: Sequence[int]) -> Sequence[int]:
        """The flags at the ascending ``indices``: a few located one by one, more from the gaps
        before them (or from the list of every flag, once made).

        >>> Flags(0x01010001, 4).pick([0, 2])
        [0, 3]
        """
        if self._listed is not None:
            return pick(self._listed, indices)
        if len(indices) <= self._LOOKUPS:
            lanes = self._bytes()
            return [lanes.replace(b"\x01", b"\x00", i).find(1) for i in indices]
        return list(map(add, pick(self._before(indices[-1] + 1), indices), indices))
