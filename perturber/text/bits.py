"""Word tokens of a plain text as bit-parallel masks: whole-text scans in a few big-integer
operations instead of a Python object per token.

A text is *plain* when every word character (§1.6) is ASCII and it holds no combining mark and no
cluster extender (ZWJ, variation selector, emoji modifier, tag): then every code point of a token
is a cluster of its own, and a token is a maximal run of ``[A-Za-z0-9]`` characters and joiners
that have such a character on both sides. ``bits(text)`` gives, for a plain text, one integer per
character class with a 4-bit *lane* per code point: the lane of code point ``p`` holds bit
``4 * (n - 1 - p)``, so ``m >> 4`` moves every flag to the next code point and ``m << 4`` to the
previous one. tests/test_bits.py compares every mask with the token model of ``tokens.py``.

>>> b = bits("Dr. Li's file.txt, ok?")
>>> positions(b.start, b.n), positions(b.free_start, b.n)
([0, 4, 9, 14, 19], [0, 4, 19])
>>> bits("café") is None
True
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import compress
from typing import NamedTuple

import regex

from .. import native
from ..memo import per_text
from ..rng import positions as _all_positions
from .chars import BINDERS, non_ascii
from .spans import may_protect, view_spans

__all__ = [
    "Bits",
    "Lanes",
    "bits",
    "case_lanes",
    "char_lanes",
    "char_table",
    "count",
    "fill_left",
    "flagged",
    "free_lanes",
    "free_word_finder",
    "free_word_spans",
    "lowered_words",
    "may_protect",
    "positions",
    "shift_code_points",
    "WordFinder",
    "WordTable",
    "word_spans",
    "word_table",
    "lanes_at",
    "spread_right",
    "token_any",
    "token_bounds",
    "token_end",
    "token_letters",
    "view",
    "whole",
    "letters_at_least",
    "with_letters",
]

_HEX = "0123456789abcdef"


def _class_digit(byte: int) -> str:
    """The hex digit of a view byte's classes: 1 word character, 2 joiner, 4 binder, 8 ``.``/``:``."""
    c = chr(byte)
    return _HEX[(byte < 0x80 and c.isalnum()) | (c in "'-") << 1 | (c in BINDERS) << 2 | (c in ".:") << 3]


def _case_digit(byte: int) -> str:
    """The hex digit of a view byte's case classes: 1 ``a-z``, 2 ``A-Z``, 4 ``0-9``, 8 ``'``."""
    c = chr(byte)
    return _HEX[("a" <= c <= "z") | ("A" <= c <= "Z") << 1 | ("0" <= c <= "9") << 2 | (c == "'") << 3]


_CLASSES = bytes(ord(_class_digit(b)) for b in range(256))
# a view byte's hex digit: 1 for U+0020, 2 for whitespace (str.isspace; a view's non-ASCII
# whitespace is \x0b)
_SPACES = bytes(ord(_HEX[(b == 32) | chr(b).isspace() << 1]) if b < 128 else ord("0") for b in range(256))
_CASES = bytes(ord(_case_digit(b)) for b in range(256))
# Non-ASCII joiners and their ASCII stand-ins in the view (the other non-ASCII characters of a
# plain text are punctuation, symbols or spaces: outside every token, like "?").
_STAND_INS = {"’": "'", "‐": "-", "‑": "-"}
# A word character (the token pattern's own \p{L}\p{N}, whose Unicode version may differ from
# str.isalnum's), a combining mark or a cluster extender: a text with one of these is not plain.
_NOT_PLAIN = regex.compile(
    r"[\p{L}\p{N}\p{M}\u200d\uFE00-\uFE0F\U000E0100-\U000E01EF\U0001F3FB-\U0001F3FF\U000E0020-\U000E007F]"
)


def view(text: str, chars: Iterable[str] | None = None) -> bytes | None:
    """``text`` as ASCII bytes of the same length that keep its token structure and its
    whitespace (a non-ASCII space becomes ``\\x0b``), or None when it is not plain
    (``chars``: its distinct non-ASCII code points, when the caller has them).

    >>> view("It’s 5\\u00a0€."), view("naïve")
    (b"It's 5\\x0b?.", None)
    """
    if text.isascii():
        return text.encode("ascii")
    for c in non_ascii(text) if chars is None else chars:
        if _NOT_PLAIN.match(c):
            return None
        if c in _STAND_INS:
            text = text.replace(c, _STAND_INS[c])
        elif c.isspace():
            text = text.replace(c, "\x0b")
    return text.encode("ascii", "replace")


class Bits(NamedTuple):
    """The token masks of a plain text of ``n`` code points (``view``: see :func:`view`)."""

    n: int
    view: bytes
    ones: int  # every lane
    word: int  # word characters
    tok: int  # code points inside a token
    start: int  # the first code point of each token
    end: int  # the last code point of each token
    link: int  # a token's code points after its first (each linked to the one before)
    full: int  # 0xF in each token lane (``fill_left`` adds to it)
    free_start: int  # the first code point of each free token: not bound, not touching a protected span


def _parse(v: bytes, table: bytes) -> int:
    """The lanes that ``table`` gives the view's bytes (hex digits), as one integer (through
    ``bytes.fromhex``: faster than ``int(digits, 16)``).

    >>> hex(_parse(b"ab", bytes.maketrans(b"ab", b"12")))
    '0x12'
    """
    digits = v.translate(table).decode("ascii")
    return int.from_bytes(bytes.fromhex(digits if len(v) % 2 == 0 else "0" + digits), "big")


def _ones(n: int) -> int:
    """A 1 in each of ``n`` lanes: a shift of ``_MANY_ONES`` (from repeated bytes: a big
    division is slower), or built for a longer text.

    >>> hex(_ones(3)), _ones(0), _ones(5000) == int("1" * 5000, 16)
    ('0x111', 0, True)
    """
    if n <= _ONES_KEPT:
        return _MANY_ONES >> 4 * (_ONES_KEPT - n)
    return int.from_bytes(b"\x11" * ((n + 1) // 2), "big") >> 4 * (n & 1)


_ONES_KEPT = 4096
_MANY_ONES = int.from_bytes(b"\x11" * (_ONES_KEPT // 2), "big")


@per_text
def bits(text: str) -> Bits | None:
    """The token masks of ``text``, or None when it is not plain (memoised like its tokens)."""
    v = view(text)
    if v is None:
        return None
    n = len(v)
    ones = _ones(n)
    x = _parse(v, _CLASSES)
    word = x & ones
    joiner = (x >> 1) & ones
    after_word, before_word = word >> 4, word << 4  # lanes after / before a word character
    tok = word | (joiner & after_word & before_word)
    link = tok & (tok >> 4)
    start = tok ^ link
    end = tok ^ (tok & (tok << 4))
    # §1.6: a binder next to the token, or a "." / ":" with a word character on its far side
    binder = (x >> 2) & ones
    dot = (x >> 3) & ones
    bound = start & (binder | dot & after_word) >> 4 | end & (binder | dot & before_word) << 4
    spans = view_spans(text, v)
    if spans:
        bound |= tok & _span_lanes(spans, n)
    full = tok * 15
    free_start = start ^ (start & _fill_left(bound, tok, full, ones)) if bound else start
    return Bits(n, v, ones, word, tok, start, end, link, full, free_start)


def _fill_left(flags: int, tok: int, full: int, ones: int) -> int:
    """:func:`fill_left` from the masks: adding 1 at a flag of a run of 0xF token lanes carries
    through every lane above it (the code points before it) up to the token's start, turning
    them to 0 or 1, while the lanes after the token's last flag keep their 0xF (bit 3)."""
    return tok ^ ((full + flags) >> 3 & ones)


def fill_left(flags: int, b: Bits) -> int:
    """The lanes of each token from its start to its last flag (``flags`` inside tokens), in a
    few operations whatever the token lengths.

    >>> b = bits("one two-three")
    >>> positions(fill_left(1 << 4 * (b.n - 6), b), b.n)  # a flag on the "o" of "two"
    [4, 5]
    """
    return _fill_left(flags, b.tok, b.full, b.ones)


def token_any(flags: int, b: Bits) -> int:
    """The start lanes of the tokens that hold a flag.

    >>> b = bits("one two-three")
    >>> positions(token_any(1 << 4 * (b.n - 10), b), b.n)  # a flag on the "h" of "three"
    [4]
    """
    return fill_left(flags, b) & b.start


def whole(starts: int, b: Bits) -> int:
    """Every lane of the tokens whose start lane is flagged."""
    return spread_right(starts, b.link)


_VIEW_TOKEN = re.compile(rb"[A-Za-z0-9]+(?:['\-][A-Za-z0-9]+)*")


def token_end(v: bytes, start: int) -> int:
    """The end offset of the token that starts at ``start`` in the view ``v`` (:func:`view`).

    >>> token_end(view("say don’t"), 4)
    9
    """
    m = _VIEW_TOKEN.match(v, start)
    assert m is not None  # a token starts there
    return m.end()


def with_letters(b: Bits, starts: int, k: int) -> int:
    """The start lanes of ``starts`` whose token holds at least ``k`` word characters.

    >>> b = bits("it's don't co-op-ed ab")
    >>> positions(with_letters(b, b.start, 4), b.n)
    [5, 11]
    """
    joiners = b.tok ^ (b.tok & b.word)
    return letters_at_least(b.view, starts, k, b.link, joiners, token_any(joiners, b), 4, positions)


def letters_at_least(
    v: bytes,
    starts: int,
    k: int,
    link: int,
    joiners: int,
    with_joiner: int,
    width: int,
    flagged: Callable[[int, int], Iterable[int]],
) -> int:
    """The start lanes of ``starts`` whose token in the view ``v`` holds at least ``k`` word
    characters, in lanes of ``width`` bits (4 here, 8 in ``byte_lanes``): a token of ``k`` of
    them has ``k`` code points plus one per joiner (``joiners``: the joiner lanes; ``with_joiner``:
    the start lanes of their tokens); when no token has two joiners that settles it, else the
    tokens with a joiner are counted one by one (``flagged(mask, n)`` lists a mask's lanes).

    >>> v = b"co-op-ed"
    >>> b = bits(v.decode())
    >>> j = b.tok ^ (b.tok & b.word)
    >>> letters_at_least(v, b.start, 6, b.link, j, token_any(j, b), 4, positions) == b.start
    True
    """
    out = starts
    for i in range(1, k):
        out &= link << width * i
    if joiners.bit_count() == with_joiner.bit_count():  # one joiner a token at most
        return out & (~with_joiner | link << width * k)
    out &= ~with_joiner
    n = len(v)
    for s in flagged(starts & with_joiner, n):
        if token_letters(v, s) >= k:
            out |= 1 << width * (n - 1 - s)
    return out


def token_letters(v: bytes, start: int) -> int:
    """The word characters of the token that starts at ``start`` in the view ``v``.

    >>> token_letters(b"co-op-ed", 0)
    6
    """
    e = token_end(v, start)
    return e - start - v.count(b"'", start, e) - v.count(b"-", start, e)


def token_bounds(b: Bits, starts: int) -> tuple[list[int], list[int]]:
    """The starts and ends of the tokens whose start lane is flagged, ascending.

    >>> b = bits("a bc, d")
    >>> token_bounds(b, b.start)
    ([0, 2, 6], [1, 4, 7])
    """
    first = positions(starts, b.n)
    last = positions(whole(starts, b) & b.end, b.n)
    return first, list(map(_NEXT, last))


def lowered_words(b: Bits, first: list[int], ends: list[int]) -> list[bytes]:
    """The lower-cased view of each token (``"’"`` read as ``"'"``), for look-ups in tables of
    lower-case words, in C-level passes.

    >>> b = bits("It’s OK")
    >>> lowered_words(b, *token_bounds(b, b.start))
    [b"it's", b'ok']
    """
    return list(map(b.view.lower().__getitem__, map(slice, first, ends)))


_NEXT = (1).__add__


def free_lanes(b: Bits) -> int:
    """Every code point of the free tokens."""
    return whole(b.free_start, b)


def _span_lanes(spans, n: int) -> int:
    """A 1 in the lanes of the code points inside ``spans``."""
    out = 0
    for s, e in spans:
        out |= _ones(e - s) << 4 * (n - e)
    return out


def char_table(chars: str) -> bytes:
    """A ``bytes.translate`` table that maps the ASCII ``chars`` to ``"1"``, every other byte to
    ``"0"`` (for :func:`char_lanes`).

    >>> char_table("ab")[97:100]
    b'110'
    """
    return bytes(ord("1") if chr(byte) in chars else ord("0") for byte in range(256))


def char_lanes(b: Bits, table: bytes) -> int:
    """The lanes of the view's bytes that ``table`` (from :func:`char_table`) flags.

    >>> b = bits("a b.")
    >>> positions(char_lanes(b, char_table(" .")), b.n)
    [1, 3]
    """
    return _parse(b.view, table)


def inner_space_run_ends(v: bytes) -> int:
    """The last space of each run of U+0020 in a view (:func:`view`) that has a non-whitespace
    character on both sides, as a mask (a run's first space comes after a solid character; its
    last one, before one).

    >>> v = b" a  b c\\n d "
    >>> positions(inner_space_run_ends(v), len(v))
    [3, 5]
    """
    n = len(v)
    ones = _ones(n)
    x = _parse(v, _SPACES)
    space = x & ones
    solid = ones & ~(x >> 1)  # not whitespace
    after_solid = space & ~(space >> 4) & solid >> 4  # a run's first space, after a solid one
    before_solid = space & ~(space << 4) & solid << 4  # a run's last space, before a solid one
    return spread_right(after_solid, space & space >> 4) & before_solid


def case_lanes(b: Bits) -> tuple[int, int, int, int]:
    """(``a-z``, ``A-Z``, ``0-9``, apostrophe) masks of a plain text's view."""
    x = _parse(b.view, _CASES)
    ones = b.ones
    return x & ones, (x >> 1) & ones, (x >> 2) & ones, (x >> 3) & ones


def spread_right(flags: int, link: int, lane: int = 4) -> int:
    """Every code point of a token from a flagged one to the token's end (lanes of ``lane`` bits:
    4 for the hex lanes, 8 for byte lanes).

    >>> b = bits("abc de")
    >>> positions(spread_right(1 << 4 * (b.n - 2), b.link), b.n)  # a flag on "b"
    [1, 2]
    """
    shift = lane
    while link and flags:
        flags |= (flags >> shift) & link
        link &= link >> shift
        shift *= 2
    return flags


def count(mask: int) -> int:
    """The number of flagged lanes."""
    return mask.bit_count()


_HEX_TO_FLAG = bytes.maketrans(b"0123456789abcdef", bytes([0, 1] * 8))


def positions(mask: int, n: int) -> list[int]:
    """The code points flagged in ``mask``, ascending (lanes hold 0 or 1).

    >>> positions(0x1001, 4), positions(0x10, 5)
    ([0, 3], [3])
    """
    h = format(mask, "x")
    off = n - len(h)  # the leading lanes without a flag
    if 12 * mask.bit_count() < len(h):  # sparse (measured crossover): find each flag
        out = []
        find = h.find
        p = find("1")
        while p >= 0:
            out.append(p + off)
            p = find("1", p + 1)
        return out
    return list(
        compress(
            _all_positions(n, off),
            h.encode("ascii").translate(_HEX_TO_FLAG),
        )
    )


class FlagSequence(Sequence[int]):
    """The code points flagged in a mask as an ascending read-only sequence, without listing
    them: ``len`` is a popcount and ``seq[i]`` is found by a subclass's ``_locate`` in an
    encoding of the mask made on the first look-up. After ``_LOOKUPS`` look-ups it lists the
    flags (``_list``) and reads the list: many draws are cheaper from it."""

    __slots__ = ("mask", "n", "size", "_encoded", "_lookups", "_listed")

    _LOOKUPS = 8  # look-ups before the flags are listed

    def __init__(self, mask: int, n: int) -> None:
        self.mask = mask
        self.n = n
        self.size = mask.bit_count()
        self._encoded: str | bytes | None = None  # the lanes as text or bytes, on the first look-up
        self._lookups = 0
        self._listed: list[int] | None = None  # every flag, once listed

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: int) -> int:  # type: ignore[override]  # no slices
        if self._listed is not None:
            return self._listed[i]
        if i < 0:
            i += self.size
        if not 0 <= i < self.size:
            raise IndexError(i)
        self._lookups += 1
        if self._lookups > self._LOOKUPS:
            self._listed = self._list()
            return self._listed[i]
        return self._locate(i)

    def __iter__(self) -> Iterator[int]:
        return iter(self._listed if self._listed is not None else self._list())

    def _locate(self, i: int) -> int:
        raise NotImplementedError

    def _list(self) -> list[int]:
        raise NotImplementedError


class Lanes(FlagSequence):
    """The flags of a mask of 4-bit lanes (``bits``): ``lanes[i]`` is the first flag left in the
    mask's hex digits once the ``i`` before it are blanked (two C-level passes: ``str.replace``
    with a count, ``str.find``).

    >>> lanes = Lanes(0x10110, 5)
    >>> len(lanes), lanes[0], lanes[2], list(lanes)
    (3, 0, 3, [0, 2, 3])
    """

    __slots__ = ()

    def _locate(self, i: int) -> int:
        h = self._encoded
        if h is None:
            h = self._encoded = format(self.mask, "x")  # the lanes after the leading ones without a flag
        return h.replace("1", "0", i).find("1") + self.n - len(h)  # type: ignore[arg-type]

    def _list(self) -> list[int]:
        return positions(self.mask, self.n)


#: Up to this many code points a text's flags are listed; above, ``Lanes`` finds them on demand.
_LIST_UP_TO = 512


def flagged(mask: int, n: int) -> Sequence[int]:
    """The code points flagged in ``mask`` as a sequence: a list for a short text, ``Lanes``
    for a long one (a selection then locates only the flags it draws).

    >>> flagged(0x1001, 4), len(flagged(1, 600))
    ([0, 3], 1)
    """
    return positions(mask, n) if n <= _LIST_UP_TO else Lanes(mask, n)


class WordTable(NamedTuple):
    """A set of ASCII words looked up among a plain text's tokens by :func:`word_spans`."""

    words: frozenset[bytes]  # as they are, or lower-cased when ``folded``
    table: bytes  # a byte's hex digit: bit k set when it is the k-th character (k < 4) of a word
    lengths: tuple[int, ...]  # the words' distinct lengths, ascending
    folded: bool  # matched in any case
    finder: WordFinder | None  # for the free tokens of a text that may hold no protected span


def word_table(words: frozenset[str] | set[str], folded: bool = False) -> WordTable:
    """The :class:`WordTable` of ``words`` (ASCII; ``folded``: matched in any ASCII case, and
    given in lower case).

    >>> word_table({"km", "kg"}).lengths
    (2,)
    """
    at = [0] * 256  # the positions (bits) at which each byte occurs in a word
    for w in words:
        for k, c in enumerate(w[:4]):
            for byte in {c, c.upper()} if folded else {c}:
                at[ord(byte)] |= 1 << k
    table = bytes(ord(_HEX[bits_set]) for bits_set in at)
    lengths = tuple(sorted({len(w) for w in words}))
    assert lengths[-1] < 16  # a lane holds a candidate's length (word_spans)
    # A few words of many lengths: a pattern finds the free ones faster than the masks filter
    # candidates of each length (measured); a large table stays with the masks.
    few_of_many_lengths = len(words) <= _FINDER_WORDS and len(lengths) >= _FINDER_LENGTHS
    finder = free_word_finder(words, folded) if few_of_many_lengths else None
    return WordTable(frozenset(w.encode("ascii") for w in words), table, lengths, folded, finder)


_FINDER_WORDS = 64
_FINDER_LENGTHS = 4


def word_spans(b: Bits, wt: WordTable, among: int) -> list[tuple[int, int]]:
    """``(start, end)``, ascending, of the tokens (starting at one of ``among``'s start lanes)
    whose text (lower-cased when the table is folded; ``’`` read as ``'``) is one of the
    table's words: the lanes whose token length and first characters could match are found in
    a few operations on the masks (each lane of the result holds its token's length), then
    each is checked.

    >>> b = bits("5 km, kilo km2 kg")
    >>> word_spans(b, word_table({"km", "kg"}), b.start)
    [(2, 4), (15, 17)]
    >>> b = bits("Their cat, there's THEIR")
    >>> word_spans(b, word_table({"their", "there's"}, folded=True), b.start)
    [(0, 5), (11, 18), (19, 24)]

    The free tokens of a text that may hold no protected span are found by the table's
    pattern, when it has one (:func:`free_word_finder`).
    """
    if wt.finder is not None and among == b.free_start and not may_protect(b.view):
        return free_word_spans(b.view, wt.finder)
    x = _parse(b.view, wt.table)
    link, ones = b.link, b.ones
    fits = among & x & ones  # tokens of at least k code points whose first (up to 4) match
    lengths = 0  # each candidate's lane holds its token's length
    k = 1
    for length in wt.lengths:
        while k < length and fits:
            fits &= (x >> k & link) << 4 * k if k < 4 else link << 4 * k  # link lanes hold 0 or 1
            k += 1
        if not fits:
            break
        lengths |= (fits & ~(link << 4 * length)) * length  # exactly ``length`` code points
    if not lengths:
        return []
    h = format(lengths, "x")
    flags = h.translate(_NONZERO)
    off = b.n - len(h)
    view, words = (b.view.lower() if wt.folded else b.view), wt.words
    out = []
    find = flags.find
    p = find("1")
    while p >= 0:
        s = p + off
        e = s + _HEX_VALUE[h[p]]
        if view[s:e] in words:
            out.append((s, e))
        p = find("1", p + 1)
    return out


_NONZERO = str.maketrans("23456789abcdef", "1" * 14)  # a hex digit that is not 0 -> "1"
_HEX_VALUE = {d: int(d, 16) for d in _HEX}


class WordFinder(NamedTuple):
    """The free tokens of a plain text that are some words, for :func:`free_word_spans`."""

    table: bytes  # ``bytes.translate``: a byte after which a token may start -> " " (lower-cased letters when folded)
    pattern: re.Pattern[bytes]  # " ", then one of the words as a whole token that nothing binds
    words: frozenset[bytes]  # the words (lower-cased when folded), for the C twin
    folded: bool
    longest: int  # the length of the longest word


def free_word_finder(words: Iterable[str], folded: bool = False) -> WordFinder:
    """The :class:`WordFinder` of the ASCII ``words`` (``folded``: matched in any ASCII case,
    and given in lower case). A byte that is no word character, binder, joiner, ``.`` or ``:``
    lets a token start after it and binds none (§1.6): the table turns it into ``" "``, so
    the pattern is led by a literal (the engine's fastest scan)."""
    word, binders = "A-Za-z0-9", re.escape(BINDERS)
    kept = (string.ascii_letters + string.digits + BINDERS + "'-.:").encode("ascii")
    table = bytes(byte if byte in kept else 32 for byte in range(256))
    if folded:
        table = table.translate(
            bytes.maketrans(string.ascii_uppercase.encode(), string.ascii_lowercase.encode())
        )
    tail = rf"(?![{word}{binders}])(?!['\-.:][{word}])"
    words = sorted(words)
    assert all(_ONE_TOKEN.fullmatch(w) for w in words)  # so a token walk finds them (the C twin)
    pattern = re.compile((" " + _alternation(words) + tail).encode("ascii"))
    return WordFinder(
        table, pattern, frozenset(w.encode("ascii") for w in words), folded, max(map(len, words))
    )


_ONE_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['\-][A-Za-z0-9]+)*")  # a word token of §1.6, ASCII


def _alternation(words: list[str]) -> str:
    """The sorted ``words`` as a pattern that branches one character at a time (a trie: the
    engine tries a handful of first characters, not every word).

    >>> _alternation(["a", "am", "an", "the"])
    '(?:a(?:m|n)?|the)'
    """
    heads: dict[str, list[str]] = {}
    for w in words:
        heads.setdefault(w[0], []).append(w[1:])
    branches = []
    for head, tails in heads.items():
        rest = [t for t in tails if t]
        inner = _alternation(rest) if rest else ""
        if rest and len(rest) < len(tails):  # the head alone is a word too
            inner = f"{inner}?" if inner.startswith("(?:") else f"(?:{inner})?"
        branches.append(re.escape(head) + inner)
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


def free_word_spans(v: bytes, finder: WordFinder) -> list[tuple[int, int]]:
    """``(start, end)``, ascending, of the free tokens of the view ``v`` of a plain text that
    may hold no protected span (``not may_protect(v)``) that are the finder's words: in the
    view translated by its table (a joiner, ``.`` or ``:`` after no word character lets a
    token start after it too, and becomes ``" "``), after a leading ``" "``; with the C module
    built, by its token walk (``free_words``) instead.

    >>> free_word_spans(b"The cat, a.b, the_x and -a", free_word_finder(["a", "the"], folded=True))
    [(0, 3), (25, 26)]
    """
    c = native.c
    if c is not None:
        return c.free_words(v, finder.words, finder.folded, finder.longest)
    return _free_word_spans_by_pattern(v, finder)


def _free_word_spans_by_pattern(v: bytes, finder: WordFinder) -> list[tuple[int, int]]:
    """:func:`free_word_spans` by the finder's pattern (the pure-Python twin of ``free_words``)."""
    t = b" " + v.translate(finder.table)
    if b"'" in t or b"-" in t or b"." in t or b":" in t:
        t = _LONE_JOINER.sub(b" ", t)
    return [(s, e - 1) for s, e in map(_SPAN, finder.pattern.finditer(t))]  # after the lead " "


# A joiner, "." or ":" after no word character (led by its class: a fast scan).
_LONE_JOINER = re.compile(rb"['\-.:](?<![A-Za-z0-9].)")
_SPAN = re.Match.span


def lanes_at(points: Sequence[int], n: int) -> int:
    """The mask with a flag at each of ``points`` (code points of a text of ``n``).

    >>> hex(lanes_at([0, 2], 3))
    '0x101'
    """
    digits = bytearray(b"0") * n
    for p in points:
        digits[p] = 49  # "1"
    return int(digits, 16) if n else 0


def shift_code_points(text: str, b: Bits, mask: int, delta: int) -> str:
    """``text`` with ``delta`` added to the code point at each flagged lane, in a few C-level
    operations on the whole text (a case change of ASCII letters: ``delta`` is 32 or -32, and no
    code point leaves its byte).

    >>> t = "say hi’"
    >>> shift_code_points(t, bits(t), 0x1000100, -32)
    'Say Hi’'
    """
    flags = format(mask, "x").rjust(b.n, "0").encode("ascii").translate(_HEX_TO_32)
    data, width, codec = _code_units(text)
    low = int.from_bytes(_in_low_bytes(flags, width), "big")
    moved = int.from_bytes(data, "big") + (low if delta > 0 else -low)
    return moved.to_bytes(len(data), "big").decode(codec)


def _code_units(text: str) -> tuple[bytes, int, str]:
    """``text`` encoded with one fixed-width unit per code point: the bytes, the width and the
    codec (ASCII, UTF-16 without surrogates, else UTF-32)."""
    if text.isascii():
        return text.encode("ascii"), 1, "ascii"
    data = text.encode("utf-16-be")
    if len(data) == 2 * len(text):
        return data, 2, "utf-16-be"
    return text.encode("utf-32-be"), 4, "utf-32-be"


def _in_low_bytes(flags: bytes, width: int) -> bytes:
    """One flag byte per code point, placed in the low byte of its code unit of ``width`` bytes."""
    if width == 1:
        return flags
    units = bytearray(len(flags) * width)
    units[width - 1 :: width] = flags
    return bytes(units)


_HEX_TO_32 = bytes.maketrans(b"0123456789abcdef", bytes([0, 32] * 8))
