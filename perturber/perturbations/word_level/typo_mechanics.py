"""The word model and the positional typo mechanisms shared by ``realistic_typos`` and ``typos``
(docs/spec/catalog.md §5.1, §5.2): a token as clusters with keys and run limits (``Word``), the position
producers of each mechanism, and the edits they realise."""

from __future__ import annotations

import re
import string
from bisect import bisect_left
from collections.abc import Sequence
from itertools import accumulate
from typing import NamedTuple

import regex

from ... import native
from ... import text as tm
from ...memo import per_text
from ...text.bits import token_end, view
from ...text.byte_lanes import (
    ByteTokens,
    Flags,
    byte_tokens,
    class_table,
    free_starts,
    with_letters,
)
from ...text.spans import Spans
from .typo_tables import qwerty_table

# --------------------------------------------------------------------------------------------
# Token helpers
# --------------------------------------------------------------------------------------------

_HAS_NUMBER = regex.compile(r"\p{N}")
_LETTER = regex.compile(r"\p{L}")
_HAS_MARK = regex.compile(r"\p{M}")
_RUN3 = re.compile(r"(.)\1{2,}", re.S)
_LEAD_RUN = re.compile(r"(.)\1*", re.S)
VOWELS = "aeiou"
VOWEL_SET = frozenset(VOWELS)
_ZWJ = "\u200d"


def alpha_letters(word: str) -> int:
    """Number of letters of an alpha token, or -1 when the token holds a number (N*)."""
    if word.isalpha():
        return len(word)
    if word.isascii():  # the other characters are digits or the joiners ' and -
        bare = word.replace("'", "").replace("-", "")
        return len(bare) if bare.isalpha() else -1
    if _HAS_NUMBER.search(word):
        return -1
    return len(_LETTER.findall(word))


def lower_or_title(word: str) -> bool:
    """Case class ``lower`` or ``title`` (§1.6) of a token that starts with a letter."""
    if word.isascii():
        return word.islower() or (word[0].isupper() and word[1:].islower())
    cls = tm.case_class(word)
    return cls == "lower" or cls == "title"


def glued(text: str, tok: tm.Token) -> bool:
    """True when a token edge falls inside a cluster (§1.5): the token follows a ZWJ, or is
    followed by a ZWJ, an emoji modifier or a tag character.  Such tokens are never edited,
    so that no edit can split a cluster."""
    if tok.start > 0 and text[tok.start - 1] == _ZWJ:
        return True
    if tok.end < len(text):
        c = text[tok.end]
        return c == _ZWJ or "\U0001f3fb" <= c <= "\U0001f3ff" or "\U000e0020" <= c <= "\U000e007f"
    return False


def _candidate(word: str, min_letters: int) -> bool:
    """An alpha token with at least ``min_letters`` letters, case class lower or title."""
    return len(word) >= min_letters and alpha_letters(word) >= min_letters and lower_or_title(word)


def _typo_starts_general(text: str, min_letters: int) -> tuple[int, ...]:
    """Starts of the typo candidates, one free token at a time (any text)."""
    return tuple(
        tok.start
        for tok in tm.free_tokens(text)
        if _candidate(tok.text, min_letters) and not glued(text, tok)
    )


class TypoLanes(NamedTuple):
    """A plain text's view (``bits.view``), its byte-lane token masks, whose classes add a
    digit (bit 4) and an upper-case letter (bit 5), and the start lanes of its free tokens."""

    view: bytes
    tokens: ByteTokens
    free: int


_DIGIT, _UPPER = 16, 32
_TYPO_CLASSES = class_table(
    {**dict.fromkeys(string.digits, _DIGIT), **dict.fromkeys(string.ascii_uppercase, _UPPER)}
)


@per_text
def typo_lanes(text: str) -> TypoLanes | None:
    """The :class:`TypoLanes` of a plain text, None for any other (memoised: both typo entries
    read them).

    >>> typo_lanes("a2U").tokens.x.to_bytes(3, "big").hex(), typo_lanes("café")
    ('011121', None)
    """
    v = view(text)
    if v is None:
        return None
    t = byte_tokens(v, _TYPO_CLASSES, tm.view_spans(text, v))
    return TypoLanes(v, t, free_starts(t, 0))


def _typo_starts_plain(lanes: TypoLanes, min_letters: int) -> Flags:
    """:func:`_typo_starts_general` of a plain text, from its byte-lane token masks: the free
    tokens with no digit, no upper-case letter after their first code point and at least
    ``min_letters`` letters (a plain text has no glued token)."""
    t = lanes.tokens
    x = t.x
    kept = free_starts(t, x >> 4 & t.tok | x >> 5 & t.link)  # the digit and upper-case bits, at bit 0
    return Flags(with_letters(t, lanes.view, kept, min_letters), t.n)


@per_text
def typo_starts(text: str, min_letters: int) -> Sequence[int]:
    """Starts of the typo candidates of ``text``, ascending: the free alpha tokens with at least
    ``min_letters`` letters, case class lower or title, not glued (memoised like the text
    model's tokens; in a plain text, a list from the C scan of ``perturber._native``, or without
    it :class:`Flags` that locate only the starts a draw picks).

    >>> list(typo_starts("The cat sat on 3 mats, Bob.", 3)), typo_starts("Café au lait", 3)
    ([0, 4, 8, 17, 23], (0, 8))
    """
    if native.c is not None:  # the C scan of the view: a list of the starts
        v = view(text)
        if v is None:
            return _typo_starts_general(text, min_letters)
        return native.c.typo_starts(v, tm.view_spans(text, v), min_letters)
    lanes = typo_lanes(text)
    if lanes is None:
        return _typo_starts_general(text, min_letters)
    return _typo_starts_plain(lanes, min_letters)


def _free_starts(text: str) -> tuple[bytes | None, bytes]:
    """A plain text's view and a byte per code point, 1 at the start of each free token (the C
    scan, else :func:`typo_lanes`); None and no bytes for any other text."""
    if native.c is not None:
        v = view(text)
        if v is None:
            return None, b""
        return v, native.c.free_starts(v, tm.view_spans(text, v))
    lanes = typo_lanes(text)
    if lanes is None:
        return None, b""
    return lanes.view, lanes.free.to_bytes(len(lanes.view), "big")


class Tokens:
    """The word tokens of one text looked up by their start, for one call: in a plain text,
    in its view, and free when flagged at the start of a free token (:func:`_free_starts`); in any
    other, by the token pattern, the protected spans found once.

    >>> tokens = Tokens("say don't go")
    >>> tokens.at(4), tokens.next_free(tokens.at(4))
    (Token(start=4, end=9, text="don't"), Token(start=10, end=12, text='go'))
    """

    __slots__ = ("text", "view", "free", "_spans")

    def __init__(self, text: str) -> None:
        self.text = text
        self.view, self.free = _free_starts(text)
        self._spans: Spans | None = None

    def at(self, start: int) -> tm.Token:
        """The token that starts at ``start``."""
        text = self.text
        if self.view is not None:
            end = token_end(self.view, start)
            return tm.Token(start, end, text[start:end])
        return tm.token_at(text, start)

    def is_free(self, start: int) -> bool:
        """A token of a plain text that starts at ``start`` is free."""
        return self.free[start] == 1

    def next_free(self, tok: tm.Token) -> tm.Token | None:
        """The next free token when it starts right after one U+0020 behind ``tok``, else None."""
        text = self.text
        s = tok.end + 1
        if s >= len(text) or text[tok.end] != " " or not text[s].isalnum():
            return None
        nxt = self.at(s)
        if self.view is not None:
            return nxt if self.is_free(s) else None
        if self._spans is None:
            self._spans = Spans(tm.protected_spans(text))
        return None if tm.is_bound(text, nxt) or self._spans.overlaps(nxt.start, nxt.end) else nxt


def unfiltered(word: str) -> bool:
    """ASCII letters only, none equal (ignoring case) to either of the next two: no swap,
    deletion, doubling or substitution of one letter can then create a run of three equal
    letters, so the typo option filter keeps every such option.

    >>> unfiltered("people"), unfiltered("letter"), unfiltered("banana"), unfiltered("it's")
    (True, False, False, False)
    """
    return word.isascii() and word.isalpha() and _NEAR_REPEAT.search(word) is None


# A letter equal (ignoring case) to the next one or to the one after it.
_NEAR_REPEAT = re.compile(r"(.).?\1", re.IGNORECASE | re.DOTALL)


def _split(word: str) -> list[str]:
    """Clusters (§1.5) of a token's text."""
    if word.isascii() or not _HAS_MARK.search(word):
        return list(word)
    return [word[s:e] for s, e in tm.cluster_spans(word)]


def _key(cluster: str) -> str | None:
    """Case-insensitive identity of a letter cluster; None for a non-letter (a joiner)."""
    return cluster.lower() if cluster[0].isalpha() else None


def _simple(word: str, low: str) -> bool:
    """One code point per cluster, and lower-casing maps each code point to one code point."""
    return len(low) == len(word) and (word.isascii() or not _HAS_MARK.search(word))


def run_profile(word: str) -> tuple[str | None, int, int]:
    """(key of the first letter, length of the leading run, longest run) of a token."""
    low = word.lower()
    if _simple(word, low):
        lead_run = _LEAD_RUN.match(low)
        assert lead_run is not None  # a simple word starts with a letter
        lead = lead_run.end()
        longest = max((m.end() - m.start() for m in _RUN3.finditer(low)), default=1)
        return low[0], lead, max(longest, lead)
    keys = [_key(c) for c in _split(word)]
    lead = 1
    while lead < len(keys) and keys[lead] == keys[0]:
        lead += 1
    return keys[0], lead, _longest_run(keys)


def _longest_run(keys: list) -> int:
    best = cur = 0
    prev = None
    for k in keys:
        cur = cur + 1 if (k is not None and k == prev) else (1 if k is not None else 0)
        prev = k
        if cur > best:
            best = cur
    return best


def _with_case(letter: str, source: str) -> str:
    return letter.upper() if source.isupper() else letter


def shift_letter(letter: str, d: int) -> str:
    return chr((ord(letter) - 97 + d) % 26 + 97)


class Word:
    """A chosen token as clusters, with the typo option filter of §5 as local run checks.

    ``keys[i]`` is the lower-cased cluster for a letter and None for a joiner.  Runs of equal
    keys are found on demand and memoised.  ``ext`` is ``(key, length, limit)`` of the letter
    run the previous token brings in when ``missed_space`` deleted the space before this token.
    """

    __slots__ = (
        "tok",
        "texts",
        "keys",
        "n",
        "offs",
        "_rs",
        "_re",
        "letters",
        "limit",
        "ext_key",
        "ext_len",
        "first",
        "last",
    )

    def __init__(self, tok: tm.Token, ext: tuple | None = None) -> None:
        self.tok = tok
        word = tok.text
        low = word.lower()
        if _simple(word, low):
            n = len(word)
            self.texts: str | list[str] = word
            joiners = (
                word.count("'") + word.count("-")
                if word.isascii()
                else sum(word.count(j) for j in tm.JOINERS)
            )
            self.keys: list[str | None] = (
                [None if c in tm.JOINERS else c for c in low] if joiners else list(low)
            )
            self.offs = None
            self.letters = n - joiners
            self.first, self.last = 0, n - 1
            best = (
                max((m.end() - m.start() for m in _RUN3.finditer(low)), default=0) if _RUN3.search(low) else 0
            )
        else:
            texts = self.texts = _split(word)
            n = len(texts)
            keys = self.keys = [_key(c) for c in texts]
            self.offs = list(accumulate(map(len, texts), initial=tok.start))
            letter_idx = [i for i, k in enumerate(keys) if k is not None]
            self.letters = len(letter_idx)
            self.first, self.last = letter_idx[0], letter_idx[-1]
            best = _longest_run(keys)
        self.n = n
        self._rs: list[int] | None = None
        self._re: list[int] | None = None
        if ext is None:
            self.ext_key, self.ext_len = None, 0
            self.limit = max(2, best)
        else:
            self.ext_key, self.ext_len = ext[0], ext[1]
            self.limit = max(2, best, ext[2])

    def off(self, i: int) -> int:
        """Text offset of the start of cluster ``i`` (``i == n``: the token end)."""
        return self.tok.start + i if self.offs is None else self.offs[i]

    def index(self, pos: int) -> int:
        """Cluster index starting at token-relative code-point offset ``pos``."""
        return pos if self.offs is None else bisect_left(self.offs, self.tok.start + pos)

    def _bounds(self, i: int) -> tuple[int, int]:
        """First and last cluster of the run of equal letters through ``i``."""
        rs, re_ = self._rs, self._re
        if rs is None or re_ is None:
            rs = self._rs = [-1] * self.n
            re_ = self._re = [-1] * self.n
        s = rs[i]
        if s >= 0:
            return s, re_[i]
        keys, k = self.keys, self.keys[i]
        a = i
        while a > 0 and keys[a - 1] == k:
            a -= 1
        b = i
        last = self.n - 1
        while b < last and keys[b + 1] == k:
            b += 1
        rs[a : b + 1] = [a] * (b - a + 1)
        re_[a : b + 1] = [b] * (b - a + 1)
        return a, b

    def left(self, i: int, c: str) -> int:
        """Length of the run of letter ``c`` ending at cluster ``i`` (inclusive)."""
        if i < 0:
            return self.ext_len if c == self.ext_key else 0
        if self.keys[i] != c:
            return 0
        s = self._bounds(i)[0]
        r = i - s + 1
        if s == 0 and c == self.ext_key:
            r += self.ext_len
        return r

    def right(self, i: int, c: str) -> int:
        """Length of the run of letter ``c`` starting at cluster ``i``."""
        if i >= self.n or self.keys[i] != c:
            return 0
        return self._bounds(i)[1] - i + 1

    def before(self, i: int):
        """Key of the letter before cluster ``i`` (the inherited run at the token start)."""
        return self.keys[i - 1] if i > 0 else self.ext_key

    def ok(self, i: int, j: int, new: list) -> bool:
        """The run part of the typo option filter: replacing clusters ``[i, j)`` by clusters
        with keys ``new`` creates no run of 3+ equal letters longer than the longest run
        already there (and never a run of 3 where there was none)."""
        lim = self.limit
        if not new:
            a = self.before(i)
            if a is None or j >= self.n or self.keys[j] != a:
                return True
            return self.left(i - 1, a) + self.right(j, a) <= lim
        m = len(new)
        k = 0
        while k < m:
            c = new[k]
            e = k
            while e + 1 < m and new[e + 1] == c:
                e += 1
            if c is not None:
                r = e - k + 1
                if k == 0:
                    r += self.left(i - 1, c)
                if e == m - 1:
                    r += self.right(j, c)
                if r > lim:
                    return False
            k = e + 1
        return True

    def whole(self, out: str, min_letters: int) -> bool:
        """The typo option filter for a whole-token replacement ``out`` (a short word)."""
        keys = [_key(c) for c in _split(out)]
        return sum(k is not None for k in keys) >= min_letters and self.ok(0, self.n, keys)

    def is_ascii_letter(self, i: int) -> bool:
        c = self.texts[i]
        return len(c) == 1 and c < "\x80" and c.isalpha()

    # Options at one position, in table order, that pass the filter: a letter put in can only
    # make a run too long when it equals a neighbouring one, so only those are checked.
    def sub_options(self, i: int, letters) -> list[str]:
        near = (self.before(i), self.keys[i + 1] if i + 1 < self.n else None)
        return [c for c in letters if c not in near or self.ok(i, i + 1, [c])]

    def insert_options(self, i: int, letters) -> list[str]:
        near = (self.before(i), self.keys[i] if i < self.n else None)
        return [c for c in letters if c not in near or self.ok(i, i, [c])]

    def shift_options(self, i: int) -> list[int]:
        k = self.keys[i]
        return [d for d in (-1, 1) if self.ok(i, i + 1, [shift_letter(k, d)])]  # type: ignore[arg-type]  # a letter: key set


# Position producers shared by realistic_typos and typos.  Each yields, left to right, the
# positions that keep at least one option after the filter; the first item alone decides
# whether the mechanism applies.  A substitution or insertion of ``c`` can only be filtered
# when ``c`` equals a neighbouring letter, so positions with more options than neighbours are
# yielded without checking each option.


def swaps(w: Word, min_letters: int):
    keys, n = w.keys, w.n
    for i in range(n - 1):
        a, b = keys[i], keys[i + 1]
        if a is None or b is None or a == b:
            continue
        # A run of 3 needs two equal letters next to the moved one.
        if (w.before(i) == b and (i < 2 or keys[i - 2] == b)) or (
            i + 3 < n and keys[i + 2] == a and keys[i + 3] == a
        ):
            if not w.ok(i, i + 2, [b, a]):
                continue
        yield i


def doubles(w: Word, min_letters: int):
    keys, n = w.keys, w.n
    for i in range(n):
        k = keys[i]
        if k is None or (i > 0 and keys[i - 1] == k) or (i + 1 < n and keys[i + 1] == k):
            continue
        if i == 0 and w.ext_key == k and not w.ok(1, 1, [k]):
            continue
        yield i


def drops(w: Word, min_letters: int):
    if w.letters - 1 < min_letters:
        return
    keys, n = w.keys, w.n
    for i in range(w.first + 1, n):
        k = keys[i]
        if k is None:
            continue
        a = keys[i - 1]
        if (
            a is not None
            and a != k
            and i + 1 < n
            and keys[i + 1] == a
            and ((i >= 2 and keys[i - 2] == a) or i == 1 or (i + 2 < n and keys[i + 2] == a))
            and not w.ok(i, i + 1, [])
        ):
            continue
        yield i


def _blockers(w: Word, i: int, j: int) -> tuple:
    return (w.before(i), w.keys[j] if j < w.n else None)


def key_subs(w: Word, min_letters: int):
    nb = qwerty_table()[0]
    for i in range(w.n):
        if w.is_ascii_letter(i):
            opts = nb[w.keys[i]]
            if len(opts) > 2 or w.sub_options(i, opts):
                yield i


def key_inserts(w: Word, min_letters: int):
    nb = qwerty_table()[0]
    for i in range(w.n):
        if w.is_ascii_letter(i):
            opts = nb[w.keys[i]]
            if len(opts) > 2 or w.insert_options(i, opts):
                yield i


def caps_slips(w: Word, min_letters: int):
    # Flipping a cased letter (§6: one-code-point, reversible swapcase) keeps its key, so the
    # filter never removes it.
    texts, keys, cased = w.texts, w.keys, tm.is_cased_letter
    for i in range(w.n):
        if keys[i] is not None and cased(texts[i][0]):
            yield i


def vowel_swaps(w: Word, min_letters: int):
    keys = w.keys
    for i in range(w.first + 1, w.last):
        if keys[i] in VOWEL_SET and w.is_ascii_letter(i):
            yield i  # four other vowels, at most two of them can be filtered


def consonant_doubles(w: Word, min_letters: int):
    cons = qwerty_table()[1]
    keys, n = w.keys, w.n
    for i in range(w.first + 1, n):
        k = keys[i]
        if k in cons and keys[i - 1] != k and (i + 1 >= n or keys[i + 1] != k) and w.is_ascii_letter(i):
            yield i


def substitutes(w: Word, min_letters: int):
    for i in range(w.n):
        if w.is_ascii_letter(i):
            k = w.keys[i]
            nbrs = _blockers(w, i, i + 1)
            if (shift_letter(k, -1) not in nbrs and shift_letter(k, 1) not in nbrs) or w.shift_options(i):  # type: ignore[arg-type]
                yield i


# Edits (absolute ``(start, end, replacement)``) for the positional mechanisms.


def edit_sub(w: Word, i: int, letter: str) -> tuple:
    return (w.off(i), w.off(i + 1), _with_case(letter, w.texts[i]))


def edit_insert(w: Word, i: int, letter: str) -> tuple:
    return (w.off(i), w.off(i), _with_case(letter, w.texts[i]))


def edit_swap(w: Word, i: int) -> tuple:
    return (w.off(i), w.off(i + 2), w.texts[i + 1] + w.texts[i])


def edit_double(w: Word, i: int) -> tuple:
    return (w.off(i + 1), w.off(i + 1), w.texts[i])


def edit_drop(w: Word, i: int) -> tuple:
    return (w.off(i), w.off(i + 1), "")


def edit_caps(w: Word, i: int) -> tuple:
    c = w.texts[i]
    return (w.off(i), w.off(i + 1), c[0].swapcase() + c[1:])
