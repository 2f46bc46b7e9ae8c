"""character: case, leet, vowels, diacritics, look-alikes and invisible characters (docs/spec/catalog.md §6).

Shared rules of the family: positions are clusters (§1.5); protected spans are skipped by every
entry except ``full_width``; an edit of a letter changes only its cluster's base and keeps the
marks; the table-driven entries (``leetspeak``, ``homoglyph``, ``ocr_noise``) and the vowel
entries only consider letters that are a cluster of one code point.

>>> from perturber.rng import Draws
>>> upper_case("see https://ex.com/Path", Draws(0)).text
'SEE https://ex.com/Path'
"""

from __future__ import annotations

import re
import string
import unicodedata
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Collection, Iterator, Mapping, Sequence
from functools import cache, partial
from itertools import compress
from types import MappingProxyType

import regex

from .. import native
from .. import text as tm
from ..data import load_table, unit_symbols
from ..memo import loaded_once, per_text
from ..registry import Outcome, choice, perturbation, rate, unchanged
from ..rng import Draws, chosen
from ..text.bits import (
    Bits,
    bits,
    case_lanes,
    char_lanes,
    char_table,
    count,
    free_lanes,
    may_protect,
    positions,
    shift_code_points,
    spread_right,
    token_any,
    token_end,
    view,
    whole,
    with_letters,
)
from ..text.byte_lanes import byte_tokens, class_table, free_starts
from ..text.byte_lanes import token_any as byte_token_any
from ..text.chars import non_ascii

__all__ = [
    "random_case",
    "upper_case",
    "lower_case",
    "title_case",
    "leetspeak",
    "disemvowel",
    "diacritics_add",
    "diacritics_strip",
    "homoglyph",
    "full_width",
    "zero_width",
    "bidi_override",
    "ocr_noise",
]

_FAMILY = "character"

# ---------------------------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------------------------

# Every letter and a few other alphanumerics (``re``'s Unicode \w minus digits and "_"): a
# superset filter; the exact §6 "cased letter" test is applied to the non-ASCII matches.
_ALPHA_RE = re.compile(r"[^\W\d_]")
_ASCII_ALPHA_RE = re.compile(r"[A-Za-z]")
_VOWELS = "aeiouAEIOU"
_VOWEL_RE = re.compile(r"[aeiouAEIOU]")
_HYPHENS_RE = re.compile(r"[\-‐‑]")
_ACUTE = "\u0301"


def _spans(text: str) -> tm.Spans:
    return tm.Spans(tm.protected_spans(text))


def _starts_mask(text: str) -> bytearray | None:
    """``None`` when every letter and every in-token position is a one-code-point cluster
    (always so for ASCII text); else ``m`` with ``m[i] == 1`` where a cluster starts and
    ``m[len(text)] == 1``."""
    if text.isascii() or tm.single_clusters(text):
        return None
    starts = tm.clusters(text)
    n = len(text)
    mask = bytearray(n + 1)
    for s in starts:
        mask[s] = 1
    mask[n] = 1
    return mask


def _all_single(mask: bytearray | None, start: int, end: int) -> bool:
    """True when every code point of ``[start, end)`` is a cluster of its own."""
    return mask is None or mask.find(0, start, end + 1) == -1


def _by_token(starts: list[int], tokens) -> Iterator[tuple[tm.Token, int, int]]:
    """For each token holding hits, ``(token, i, j)`` with ``starts[i:j]`` inside it.
    ``starts`` are ascending hit positions found by one scan of the whole text."""
    i, n = 0, len(starts)
    for tok in tokens:
        i = bisect_left(starts, tok.start, i)
        if i == n:
            return
        j = bisect_left(starts, tok.end, i)
        if j > i:
            yield tok, i, j
            i = j


def _single(found: list[int], mask: bytearray | None, tok: tm.Token) -> list[int]:
    """The positions of ``found`` (inside ``tok``) that are a cluster of one code point."""
    if mask is None or _all_single(mask, tok.start, tok.end):
        return found
    return [p for p in found if mask[p] and mask[p + 1]]


def _letters_and_alpha(word: str) -> tuple[int, bool]:
    """(number of L* code points, True when the token holds no N* code point)."""
    if word.isalpha():
        return len(word), True
    letters = sum(map(str.isalpha, word))
    return letters, letters == sum(map(str.isalnum, word))


def _segments(text: str, sp: tm.Spans) -> list[tuple[int, int]]:
    return sp.gaps(0, len(text)) if sp else [(0, len(text))]


def _map_outside(text: str, fn) -> str:
    """Apply ``fn`` to every maximal segment outside protected spans."""
    sp = _spans(text)
    if not sp:
        return fn(text)
    parts = []
    pos = 0
    for s, e in sp:
        parts.append(fn(text[pos:s]))
        parts.append(text[s:e])
        pos = e
    parts.append(fn(text[pos:]))
    return "".join(parts)


@cache
def _pairs(table: str) -> MappingProxyType:
    """A table's ``map`` as a read-only dict (lookups only; never iterated to decide anything)."""
    return MappingProxyType({a: b for a, b in load_table(table)["map"]})


@cache
def _leet() -> tuple:
    """(source -> replacement for both cases, pattern matching any source)."""
    out = {}
    for a, b in load_table("a08a_leet")["map"]:
        out[a] = b
        out[a.upper()] = b
    pattern = re.compile("[" + "".join(re.escape(a) for a in out) + "]")
    return MappingProxyType(out), pattern


@cache
def _homoglyphs() -> tuple:
    """(Latin letter -> look-alike, pattern matching any Latin source letter)."""
    rows = load_table("a08b_homoglyphs")["map"]
    pattern = re.compile("[" + "".join(re.escape(a) for a, _ in rows) + "]")
    return _pairs("a08b_homoglyphs"), pattern


@cache
def _ocr() -> tuple:
    """(compiled scan pattern, sources in priority order, {source: (target, letter delta)})."""
    rows = list(load_table("a08c_ocr_confusions")["map"])
    rows.sort(key=lambda r: -len(r[0]))  # stable: longest first, then printed order
    info = {}
    for src, dst in rows:
        info[src] = (dst, sum(map(str.isalpha, dst)) - sum(map(str.isalpha, src)))
    pattern = re.compile("|".join(re.escape(src) for src, _ in rows))
    return pattern, tuple(src for src, _ in rows), MappingProxyType(info)


def _draw(rng: Draws, rate_: float, n: int) -> Collection[int] | None:
    """The indices of the candidates that ``select(candidates, rng, rate=rate_)`` chooses out
    of ``n``, with the same draws, in draw order rather than ascending; ``None`` when ``n == 0``.

    >>> from perturber.rng import select
    >>> sorted(_draw(Draws(0), 0.5, 4)), select(range(4), Draws(0), rate=0.5)
    ([2, 3], [2, 3])
    """
    return chosen(n, rng, rate=rate_) if n else None


def _put(text: str, idx: Collection[int], sites: Sequence[int], new: Sequence[str], prefix: str = "") -> str:
    """``text`` with the code point at ``sites[i]`` replaced by ``prefix + new[i]`` for every
    ``i`` of ``idx`` (distinct, in any order).

    >>> _put("abcd", [2, 0], (0, 1, 3), "XYZ", "_")
    '_Xbc_Z'
    """
    replacements = list(map(new.__getitem__, idx))
    if prefix:
        replacements = list(map(prefix.__add__, replacements))
    return _put_points(text, list(map(sites.__getitem__, idx)), replacements)


def _put_ascii(text: str, idx: Collection[int], sites: Sequence[int], new: bytes | None) -> str:
    """``_put`` for an ASCII ``text`` and one ASCII byte per site (a bytearray is written in
    place); ``new=None`` deletes the chosen sites instead.

    >>> _put_ascii("abcd", [2, 0], (0, 1, 3), b"XYZ"), _put_ascii("abcd", [1], (0, 2), None)
    ('XbcZ', 'abd')
    """
    buf = bytearray(text, "ascii")
    if new is None:
        for i in idx:
            buf[sites[i]] = 0x80  # marks a deletion (an ASCII text holds none)
        return buf.translate(None, b"\x80").decode("ascii")
    for i in idx:
        buf[sites[i]] = new[i]
    return buf.decode("ascii")


def _put_mapped(
    text: str, idx: Collection[int], sites: Sequence[int], table: Mapping[str, str] | None, prefix: str = ""
) -> str:
    """``text`` with the code point ``c`` at ``sites[i]`` replaced by ``prefix + table[c]``
    (``prefix + c`` without a table) for every ``i`` of ``idx`` (distinct, in any order): only
    the chosen sites are looked up, in C-level passes.

    >>> _put_mapped("abcd", [2, 0], (0, 1, 3), {"a": "A", "d": "D"}, "_")
    '_Abc_D'
    """
    points = list(map(sites.__getitem__, idx))
    new = map(text.__getitem__, points)
    if table is not None:
        new = map(table.__getitem__, new)
    if prefix:
        new = map(prefix.__add__, new)
    return _put_points(text, points, list(new))


def _put_points(text: str, points: list[int], new: list[str]) -> str:
    """``text`` with the code point at each of ``points`` (distinct, in any order) replaced by
    the matching string of ``new``.

    >>> _put_points("abcd", [3, 0], ["D", ""])
    'bcD'
    """
    if len(points) * 8 < len(text) or len(points) < 2:  # few edits in a long text: slice around them
        order = sorted(range(len(points)), key=points.__getitem__)
        return tm.splice_at(text, [points[k] for k in order], None, [new[k] for k in order])
    chars = list(text)
    deque(map(chars.__setitem__, points, new), maxlen=0)
    return "".join(chars)


def _put_ascii_mapped(text: str, idx: Collection[int], sites: Sequence[int], table: bytes) -> str:
    """:func:`_put_mapped` for an ASCII ``text`` and a one-byte ``bytes.translate`` ``table``:
    the whole text is translated once and the chosen bytes copied into a bytearray.

    >>> _put_ascii_mapped("abcd", [2, 0], (0, 1, 3), bytes.maketrans(b"ad", b"AD"))
    'AbcD'
    """
    buf = bytearray(text, "ascii")
    mapped = buf.translate(table)
    points = list(map(sites.__getitem__, idx))
    deque(map(buf.__setitem__, points, map(mapped.__getitem__, points)), maxlen=0)
    return buf.decode("ascii")


def _put_any(text: str, idx: Collection[int], sites: Sequence[int], new: bytes | str) -> str:
    """``_put_ascii`` when ``new`` is bytes (an ASCII text), else ``_put``."""
    if isinstance(new, bytes):
        return _put_ascii(text, idx, sites, new)
    return _put(text, idx, sites, new)


def _ascii_or_str(text: str, new: str) -> bytes | str:
    """The per-site replacements ``new`` (one code point each) as bytes when they and the text
    are ASCII (for ``_put_ascii``), else as they are."""
    return new.encode("ascii") if text.isascii() and new.isascii() else new


def _chars_at(text: str, sites: Sequence[int]) -> str:
    """The code points at ``sites``, as one string."""
    return "".join(map(text.__getitem__, sites))


# ---------------------------------------------------------------------------------------------
# 6.1 - 6.4 case
# ---------------------------------------------------------------------------------------------


@perturbation(
    "random_case",
    version=2,
    family=_FAMILY,
    seed_sensitive=True,
    params=[rate(0.5)],
    description="Flip the case of a fraction of the cased letters.",
    reasons=("no_candidates",),
    fix_at="input_normalisation",
)
def random_case(text: str, rng: Draws, *, rate: float) -> Outcome:
    """Flip the case of ``rate`` of the cased letters outside protected spans (§6.1).

    >>> random_case("hello `code` world", Draws(0), rate=1.0).text
    'HELLO `code` WORLD'
    """
    sites, new = _case_sites(text)
    idx = _draw(rng, rate, len(sites))
    if idx is None:
        return unchanged(text, "no_candidates")
    return Outcome(_put_any(text, idx, sites, new), len(idx))


# 1 for an ASCII letter, else 0 (``bytes.translate`` table for the ASCII fast path).
_ASCII_LETTER_FLAGS = bytes(int(chr(b).isascii() and chr(b).isalpha()) for b in range(256))


@per_text
def _case_sites(text: str) -> tuple[tuple[int, ...], bytes | str]:
    """(cased letters (one-code-point cluster bases) outside protected spans, their
    swapcase: bytes for an ASCII text, else a string of one code point per site)."""
    sp = _spans(text)
    data = view(text)  # for a plain text: ASCII letters only, each a cluster of its own
    if data is not None:
        flags = data.translate(_ASCII_LETTER_FLAGS)
        if not sp:
            sites = tuple(compress(range(len(text)), flags))
        else:
            sites = tuple(p for s, e in _segments(text, sp) for p in compress(range(s, e), flags[s:e]))
        if text.isascii():
            swapped = data.swapcase()
            return sites, bytes(map(swapped.__getitem__, sites))
        return sites, _chars_at(text, sites).swapcase()  # ASCII letters: no final sigma
    return _case_sites_general(text, sp)


def _case_sites_general(text: str, sp: tm.Spans) -> tuple[tuple[int, ...], str]:
    """:func:`_case_sites` of any non-ASCII text, letter by letter."""
    mask = _starts_mask(text)
    cased = tm.is_cased_letter
    cands: list[int] = []
    for s, e in _segments(text, sp):
        for m in _ALPHA_RE.finditer(text, s, e):
            p = m.start()
            if (text[p] < "\x80" or cased(text[p])) and (mask is None or mask[p]):
                cands.append(p)
    # one letter at a time (a whole-string swapcase would apply the final-sigma rule); a
    # cased letter's swapcase is one code point
    return tuple(cands), "".join([text[p].swapcase() for p in cands])


@perturbation(
    "upper_case",
    version=2,
    family=_FAMILY,
    description="Upper-case the text (full Unicode mapping) outside URLs and code.",
    fix_at="input_normalisation",
)
def upper_case(text: str, rng: Draws) -> Outcome:
    """``str.upper()`` on every maximal segment outside protected spans (§6.2).

    >>> upper_case("Call me at 9am, see https://ex.com/Path", None).text
    'CALL ME AT 9AM, SEE https://ex.com/Path'
    >>> upper_case("straße", None).text
    'STRASSE'
    """
    out = _map_outside(text, str.upper)
    return Outcome(out, 1) if out != text else unchanged(text, "no_change")


@perturbation(
    "lower_case",
    version=2,
    family=_FAMILY,
    description="Lower-case the text (full Unicode mapping) outside URLs and code.",
    fix_at="input_normalisation",
)
def lower_case(text: str, rng: Draws) -> Outcome:
    """``str.lower()`` on every maximal segment outside protected spans (§6.3).

    >>> lower_case("Is NASA's Budget PUBLIC?", None).text
    "is nasa's budget public?"
    """
    out = _map_outside(text, str.lower)
    return Outcome(out, 1) if out != text else unchanged(text, "no_change")


@perturbation(
    "title_case",
    version=2,
    family=_FAMILY,
    description="Capitalise every lower-case or title-case word, hyphen parts included.",
    fix_at="input_normalisation",
    memoise_outcome=True,
)
def title_case(text: str, rng: Draws) -> Outcome:
    """Capitalise free ``lower``/``title`` tokens that start with a letter, except unit symbols
    (§6.4). Acronyms, mixed-case names and text after apostrophes stay as they are.

    >>> title_case("don't convert 5km or the iPhone price in km", None).text
    "Don't Convert 5km Or The iPhone Price In km"
    >>> title_case("a well-known o'neil", None).text
    "A Well-Known O'neil"
    """
    plain = (text.encode("ascii"), []) if text.isascii() else _few_non_ascii_view(text)
    if plain is not None and native.c is not None:  # the C walk over the view's tokens
        v, non_ascii_at = plain
        spans = tm.view_spans(text, v)
        out, edited = native.c.title_case(v, spans, _title_units()[0])
        if not edited:
            return unchanged(text, "no_change")
        return Outcome(_with_non_ascii(out.decode("ascii"), text, non_ascii_at), edited)
    if plain is not None and not may_protect(plain[0]):
        return _title_view(text, *plain)
    b = bits(text)
    if b is not None:
        letters, edited = _title_plain(b)
        if not letters:
            return unchanged(text, "no_change")
        return Outcome(shift_code_points(text, b, letters, -32), edited)
    points, edited, new = _title_sites(text)
    if not points:
        return unchanged(text, "no_change")
    return Outcome(_put_any(text, range(len(points)), points, new), edited)


# The letters of English from the most frequent (for :func:`_title_units`).
_LETTERS_BY_FREQUENCY = "etaoinshrdlcumwfgypbvkjxqz"


@loaded_once
def _title_units() -> tuple[frozenset[bytes], bytes, bytes]:
    """The unit symbols ``title_case`` leaves as they are among the tokens it would capitalise
    (lower-case ASCII words of at most 3 letters: ``mL`` is a mixed token, never capitalised
    anyway), and the ``char_lanes`` table of
    :func:`_title_plain`. A lower-case letter has bit 0, plus bit 2 when it starts a unit,
    bit 3 when it is a unit's second letter and bit 1 when it is *unpaired*: no unit has two
    unpaired letters in a row (they are chosen among the frequent letters first, so that
    ``he``, ``his`` or ``get`` are no candidates). An upper-case letter is 2, a hyphen 4.
    Last, the ``bytes.translate`` table of :func:`_title_view`, a byte of bits: 0 a word
    character, 1 a joiner, 2 a binder, 3 ``.`` or ``:``, 4 an upper-case letter, 5 a lower-case
    letter, 6 a hyphen, 7 an unpaired letter; bits 1 and 2 of a lower-case letter tell that it
    starts a unit and that it is a unit's second letter."""
    units = {u for u in unit_symbols() if u.isascii() and u.isalpha() and u.islower()}
    assert max(map(len, units)) <= 3  # the masks test three letters
    pairs = {frozenset(pair) for u in units for pair in zip(u, u[1:])}
    unpaired = ""
    for c in _LETTERS_BY_FREQUENCY:
        if all(frozenset((c, d)) not in pairs for d in unpaired + c):
            unpaired += c
    digits = [0] * 256
    for c in string.ascii_lowercase:
        digits[ord(c)] = 1 | (c in unpaired) << 1
    for u in units:
        digits[ord(u[0])] |= 4
        if len(u) > 1:
            digits[ord(u[1])] |= 8
    for c in string.ascii_uppercase:
        digits[ord(c)] = 2
    digits[ord("-")] = 4
    extra = dict.fromkeys(string.ascii_uppercase, 16)  # the byte lanes of _title_view
    for c in string.ascii_lowercase:
        extra[c] = 32 | (c in unpaired) << 7 | (digits[ord(c)] & 12) >> 1
    extra["-"] = 64
    return (
        frozenset(u.encode("ascii") for u in units),
        bytes(b"0123456789abcdef"[d] for d in digits),
        class_table(extra),
    )


_ASCII_WORD_RE = re.compile(rb"[A-Za-z0-9]+")


def _few_non_ascii_view(text: str) -> tuple[bytes, list[int]] | None:
    """The view of a plain text (``view`` of ``text/bits.py``) and where its code points that
    are not ASCII are, ascending, when at most one in ``_FEW_NON_ASCII`` is (each is put back
    one by one), else None."""
    points: list[int] = []
    chars = non_ascii(text)
    for c in chars:
        p = text.find(c)
        while p >= 0:
            points.append(p)
            if _FEW_NON_ASCII * len(points) > len(text):
                return None
            p = text.find(c, p + 1)
    plain = view(text, chars)
    if plain is None:
        return None
    points.sort()
    return plain, points


_FEW_NON_ASCII = 32


def _title_view(text: str, view: bytes, non_ascii_at: list[int]) -> Outcome:
    """:func:`_title_case` of a plain text with no lead of a protected span (``view``: its
    view, ASCII; ``non_ascii_at``: where the text is not), in byte lanes
    (:mod:`perturber.text.byte_lanes`): one ``bytes.translate`` gives every class
    (:func:`_title_units`), and the letters to upper-case are subtracted from the text's bytes
    at once. The classes of a lower-case letter reuse the bits of the joiner (a unit's first
    letter), the binder (its second) and bit 7 (unpaired): joiners count only between word
    characters, binders only next to a token, where no letter can be."""
    units, _table, classes = _title_units()
    t = byte_tokens(view, classes, ())
    n, x, link = t.n, t.x, t.link
    upper, lower = x >> 4, x >> 5  # at bit 0
    # the free tokens that start with a letter and have no upper-case letter after it
    ok = free_starts(t, link & upper) & (upper | lower)
    first = ok & lower
    could = first & x >> 1  # may start a unit; then one's second letter, no two unpaired letters
    unpaired = x >> 7 & x << 1
    longer = could & x << 6
    longer ^= longer & (link << 24 | unpaired | unpaired << 8)  # no 4th code point either
    candidates = could & t.end | longer
    if candidates:
        flags = candidates.to_bytes(n, "big")
        s = flags.find(1)
        while s >= 0:
            token = _ASCII_WORD_RE.match(view, s)  # a candidate's token has no joiner
            if token and token.group() in units:
                first ^= 1 << 8 * (n - 1 - s)
            s = flags.find(1, s + 1)
    after_hyphen = link & lower & x >> 14 if b"-" in view else 0  # bit 6 of the lane before
    if after_hyphen:
        hyphenated = byte_token_any(after_hyphen, t)
        not_ok = hyphenated ^ hyphenated & ok
        if not_ok:
            after_hyphen ^= after_hyphen & spread_right(not_ok, link, 8)
        edited = (first | hyphenated ^ not_ok).bit_count()
        first |= after_hyphen
    else:
        edited = first.bit_count()
    if not first:
        return unchanged(text, "no_change")
    out = (int.from_bytes(view, "big") - (first << 5)).to_bytes(n, "big").decode("ascii")
    return Outcome(_with_non_ascii(out, text, non_ascii_at), edited)


def _with_non_ascii(out: str, text: str, non_ascii_at: list[int]) -> str:
    """``out``, made from the view of ``text``, with the view's stand-ins at ``non_ascii_at``
    giving way to the text's own code points."""
    if not non_ascii_at:
        return out
    return tm.splice_at(out, non_ascii_at, None, map(text.__getitem__, non_ascii_at))


def _title_plain(b: Bits) -> tuple[int, int]:
    """:func:`_title_sites` of a plain text as masks: the letters to upper-case (the lower-case
    first letters of the free tokens that start with a letter, have no upper-case letter after
    it and are not unit symbols, and the lower-case letters after their hyphens), and the number
    of tokens that change. (Shifts and ``~`` cost as much as three ``&``: few are used.)"""
    units, table, _classes = _title_units()
    x = char_lanes(b, table)
    x1 = x >> 1
    ok = b.free_start & (x | x1)  # the tokens that start with a letter
    inner_upper = b.link & (x1 ^ x1 & x)  # bit 1 without bit 0: an upper-case letter
    if inner_upper:
        ok ^= ok & token_any(inner_upper, b)
    first = ok & x
    x2 = x >> 2
    units_at = _unit_starts(b, x, x1, first & x2, units)
    if units_at:
        first ^= units_at
    after_hyphen = b.link & x & (x2 ^ x2 & x) >> 4 if b"-" in b.view else 0
    if not after_hyphen:  # a token changes at its first letter or not at all
        return first, count(first)
    hyphenated = token_any(after_hyphen, b)
    not_ok = hyphenated ^ hyphenated & ok
    if not_ok:
        after_hyphen ^= after_hyphen & whole(not_ok, b)
    return first | after_hyphen, count(first | hyphenated ^ not_ok)


def _unit_starts(b: Bits, x: int, x1: int, could: int, units: frozenset[bytes]) -> int:
    """The lanes of ``could`` (starts of tokens with no upper-case letter after the first
    letter, which may start a unit) whose token is one of ``units``: the tokens of 1 to 3
    letters whose letters could be a unit's (``x``: the lanes of :func:`_title_plain`, ``x1``:
    ``x >> 1``) are looked up one by one."""
    unpaired = x1 & x << 3  # this letter and the next are unpaired
    longer = could & x << 1  # a unit's second letter next
    longer ^= longer & (b.link << 12 | unpaired | unpaired << 4)  # no 4th code point either
    n, view = b.n, b.view
    found = 0
    for s in positions(could & b.end | longer, n):
        if view[s : token_end(view, s)] in units:
            found |= 1 << 4 * (n - 1 - s)
    return found


def _title_sites(text: str) -> tuple[tuple[int, ...], int, bytes | str]:
    """(part-initial lower-case cased letters of the edited tokens, number of edited tokens,
    the upper case of each letter (see ``_ascii_or_str``))."""
    units = unit_symbols()
    mask = _starts_mask(text)
    case_class = tm.case_class
    cased = tm.is_cased_letter
    points: list[int] = []  # part-initial lower-case cased letters of the edited tokens
    edited = 0
    any_hyphen = "-" in text or "‐" in text or "‑" in text
    for start, _, word in tm.free_tokens(text):
        first = word[0]
        hyphenated = any_hyphen and ("-" in word or "‐" in word or "‑" in word)
        if not hyphenated and not first.islower():
            continue  # nothing could change: only part-initial lower-case letters are edited
        if not first.isalpha() or word in units or (mask is not None and not mask[start]):
            continue
        # islower(): every cased letter is lower case, so the class is lower (or none, where
        # no part starts with a cased letter and nothing changes anyway).
        if not word.islower() and case_class(word) not in ("lower", "title"):
            continue
        if not hyphenated:  # the common case: only the first letter can change
            if first < "\x80" or cased(first):  # an ASCII lower-case letter is cased
                points.append(start)
                edited += 1
            continue
        before = len(points)
        if first.islower() and cased(first):
            points.append(start)
        for m in _HYPHENS_RE.finditer(word):  # the code point after a hyphen starts a part
            c = word[m.end() : m.end() + 1]
            if c.islower() and cased(c):
                points.append(start + m.end())
        edited += len(points) > before
    # a cased letter's swapcase is one other code point, so each edit changes its token
    new = "".join([text[p].swapcase() for p in points])
    return tuple(points), edited, _ascii_or_str(text, new)


# ---------------------------------------------------------------------------------------------
# 6.5 leetspeak, 6.6 disemvowel
# ---------------------------------------------------------------------------------------------


@perturbation(
    "leetspeak",
    version=2,
    family=_FAMILY,
    seed_sensitive=True,
    params=[rate(0.5)],
    description="Replace a fraction of the letters with leet digits and symbols.",
    reasons=("no_candidates",),
    fix_at="input_normalisation",
)
def leetspeak(text: str, rng: Draws, *, rate: float) -> Outcome:
    """Replace letters of Table A8a inside free alpha tokens of at least 2 letters (§6.5).
    A token whose every letter is chosen keeps its last chosen letter.

    >>> leetspeak("to I", Draws(0), rate=1.0).text
    '7o I'
    """
    cands, full = _leet_sites(text)
    n = len(cands)
    idx = _draw(rng, rate, n)
    if idx is None:
        return unchanged(text, "no_candidates")
    if full and idx:
        # Guard: a token whose every letter is chosen drops its highest chosen position (which
        # is then its last candidate).
        chosen = set(idx)
        drop = [j - 1 for i, j in full if chosen.issuperset(range(i, j))]
        if drop:
            chosen.difference_update(drop)
            idx = chosen
    if text.isascii():
        return Outcome(_put_ascii_mapped(text, idx, cands, _leet_bytes()), len(idx))
    return Outcome(_put_mapped(text, idx, cands, _leet()[0]), len(idx))


@per_text
def _leet_sites(text: str) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
    """(candidate letters, ``(i, j)`` of each token whose every letter is a candidate, with
    ``cands[i:j]`` its letters)."""
    b = bits(text)
    cands, full = _leet_general(text) if b is None else _leet_plain(b)
    return tuple(cands), tuple(full)


@loaded_once
def _leet_bytes() -> bytes:
    """Table A8a as a ``bytes.translate`` table (its sources and replacements are ASCII)."""
    table = _leet()[0]
    return bytes.maketrans("".join(table).encode("ascii"), "".join(table.values()).encode("ascii"))


def _leet_general(text: str) -> tuple[list[int], list[tuple[int, int]]]:
    """The candidates and fully-candidate tokens of :func:`_leet_sites`, token by token."""
    _table, pattern = _leet()
    hits = [m.start() for m in pattern.finditer(text)]
    if not hits:
        return [], []
    mask = _starts_mask(text)
    cands: list[int] = []
    full: list[tuple[int, int]] = []
    for tok, i, j in _by_token(hits, tm.free_tokens(text)):
        letters, alpha = _letters_and_alpha(tok.text)
        if alpha and letters >= 2:
            found = _single(hits[i:j], mask, tok)
            cands.extend(found)
            if len(found) == letters:
                full.append((len(cands) - letters, len(cands)))
    return cands, full


def _leet_plain(b: Bits) -> tuple[list[int], list[tuple[int, int]]]:
    """:func:`_leet_general` of a plain text: the Table A8a letters of the free tokens without a
    digit and of at least 2 letters, and the tokens with no other letter."""
    digit = case_lanes(b)[2]
    ok = b.free_start & ~token_any(digit & b.tok, b) & b.link << 4
    lanes = whole(ok, b)
    hits = lanes & char_lanes(b, _leet_table())
    cands = positions(hits, b.n)
    return cands, _ranges(cands, ok & ~token_any(lanes & b.word & ~hits, b), b)


@loaded_once
def _leet_table() -> bytes:
    """:func:`char_table` of the Table A8a letters."""
    return char_table("".join(_leet()[0]))


def _ranges(cands: list[int], starts: int, b: Bits) -> list[tuple[int, int]]:
    """``(i, j)`` per token whose start lane is flagged: ``cands[i:j]`` are its candidates."""
    first = positions(starts, b.n)
    last = positions(whole(starts, b) & b.end, b.n)
    return list(zip(map(partial(bisect_left, cands), first), map(partial(bisect_right, cands), last)))


@perturbation(
    "disemvowel",
    version=2,
    family=_FAMILY,
    seed_sensitive=True,
    params=[rate(0.5)],
    description="Delete a fraction of the non-initial vowels of longer words.",
    reasons=("no_candidates",),
)
def disemvowel(text: str, rng: Draws, *, rate: float) -> Outcome:
    """Delete ASCII vowels (not first letters) in free alpha tokens of at least 3 letters (§6.6);
    every token keeps its first letter and at least 2 letters.

    >>> disemvowel("a cat eats", Draws(0), rate=1.0).text
    'a ct ets'
    """
    cands, capped = _disemvowel_sites(text)
    n = len(cands)
    idx = _draw(rng, rate, n)
    if idx is None:
        return unchanged(text, "no_candidates")
    if capped and idx:
        # Guard: at most (letters - 2) deletions per token; its highest chosen vowels are dropped.
        chosen = set(idx)
        for i, j, allowed in capped:
            mine = chosen.intersection(range(i, j))
            if len(mine) > allowed:
                chosen.difference_update(sorted(mine)[allowed:])
                idx = chosen
    if text.isascii():
        return Outcome(_put_ascii(text, idx, cands, None), len(idx))
    return Outcome(_put(text, idx, cands, ("",) * n), len(idx))


@per_text
def _disemvowel_sites(text: str) -> tuple[tuple[int, ...], tuple[tuple[int, int, int], ...]]:
    """(candidate vowels, ``(i, j, allowed)`` of the tokens that may lose too many, with
    ``cands[i:j]`` the token's vowels)."""
    b = bits(text)
    return _disemvowel_general(text) if b is None else _disemvowel_plain(b)


_VOWEL_TABLE = char_table(_VOWELS)


def _disemvowel_plain(b: Bits) -> tuple[tuple[int, ...], tuple[tuple[int, int, int], ...]]:
    """:func:`_disemvowel_general` of a plain text: the vowels after the first code point of the
    free tokens without a digit and of at least 3 letters, except a vowel alone between two
    joiners or a joiner and the token's end; a token may lose too many exactly when all its
    letters after the first are candidates (then ``allowed`` is their number less one)."""
    digit = case_lanes(b)[2]
    ok = with_letters(b, b.free_start & ~token_any(digit & b.tok, b), 3)
    lanes = whole(ok, b)
    joiners = lanes ^ (lanes & b.word)
    vowels = lanes & b.link & char_lanes(b, _VOWEL_TABLE)
    vowels &= ~(joiners >> 4 & (b.end | joiners << 4))
    cands = positions(vowels, b.n)
    capped = ok & token_any(vowels, b) & ~token_any(lanes & b.link & b.word & ~vowels, b)
    return tuple(cands), tuple((i, j, j - i - 1) for i, j in _ranges(cands, capped, b))


def _disemvowel_general(text: str) -> tuple[tuple[int, ...], tuple[tuple[int, int, int], ...]]:
    """:func:`_disemvowel_sites` token by token."""
    hits = [m.start() for m in _VOWEL_RE.finditer(text)]
    if not hits:
        return (), ()
    mask = _starts_mask(text)
    cands: list[int] = []
    capped: list[tuple[int, int, int]] = []
    for tok, i, j in _by_token(hits, tm.free_tokens(text)):
        word = tok.text
        letters, alpha = _letters_and_alpha(word)
        if not alpha or letters < 3:
            continue
        s, e = tok.start, tok.end
        found = hits[i:j]
        if found[0] == s:
            found = found[1:]  # never the first letter
        found = _single(found, mask, tok)
        if found and ("'" in word or "’" in word or "-" in word or "‐" in word or "‑" in word):
            # A vowel that is a whole part between joiners is a word of its own ("x-a-y").
            found = [
                p
                for p in found
                if not (text[p - 1] in tm.JOINERS and (p + 1 == e or text[p + 1] in tm.JOINERS))
            ]
        if found:
            cands.extend(found)
            if len(found) > letters - 2:
                capped.append((len(cands) - len(found), len(cands), letters - 2))
    return tuple(cands), tuple(capped)


# ---------------------------------------------------------------------------------------------
# 6.7 - 6.9 diacritics and look-alikes
# ---------------------------------------------------------------------------------------------

_PRECOMPOSED = {v: unicodedata.normalize("NFC", v + _ACUTE) for v in _VOWELS}
_COMBINING = {v: v + _ACUTE for v in _VOWELS}


@per_text
def _vowel_sites(text: str) -> tuple[int, ...]:
    """The ASCII vowels that are a cluster of their own inside free word tokens."""
    b = bits(text)
    out = (
        _in_free_tokens(text, _VOWEL_RE)
        if b is None
        else positions(free_lanes(b) & char_lanes(b, _VOWEL_TABLE), b.n)
    )
    return tuple(out)


@perturbation(
    "diacritics_add",
    version=2,
    family=_FAMILY,
    seed_sensitive=True,
    params=[
        rate(0.5),
        choice(
            "form",
            "combining",
            ("combining", "precomposed"),
            "combining U+0301 after the vowel, or the NFC letter",
        ),
    ],
    description="Put an acute accent on a fraction of the unmarked vowels.",
    reasons=("no_candidates",),
    fix_at="input_normalisation",
)
def diacritics_add(text: str, rng: Draws, *, rate: float, form: str) -> Outcome:
    """Mark ASCII vowels inside free word tokens with an acute accent (§6.7).

    >>> diacritics_add("Open", Draws(0), rate=1.0, form="precomposed").text
    'Ópén'
    >>> diacritics_add("Open", Draws(0), rate=1.0, form="combining").text == "O\\u0301pe\\u0301n"
    True
    """
    sites = _vowel_sites(text)
    idx = _draw(rng, rate, len(sites))
    if idx is None:
        return unchanged(text, "no_candidates")
    return Outcome(
        _put_mapped(text, idx, sites, _COMBINING if form == "combining" else _PRECOMPOSED), len(idx)
    )


# A code point that can start or sit in a strippable cluster: a canonically decomposable
# character (Hangul syllables excluded), a Table A11 letter, or a run of non-spacing marks.
_STRIP_HIT = regex.compile(r"(?![\uAC00-\uD7A3])[\p{dt=canonical}ØøŁłĐđĦħŦŧ]\p{Mn}*|\p{Mn}+")
_SCRIPT_WORDS = ("LATIN", "GREEK", "CYRILLIC")


def _strippable_base(ch: str) -> bool:
    if not ch.isalpha():
        return False
    words = unicodedata.name(ch, "").split()
    return any(w in words for w in _SCRIPT_WORDS)


def _strip_cluster(cluster: str, folds) -> str:
    """NFD, drop the Mn marks, fold the base by Table A11, NFC. A cluster without Mn marks
    (even after NFD) and without an A11 base is not a site and comes back as it is, so that
    singleton decompositions (U+1FBE -> U+03B9) are never applied on their own."""
    d = unicodedata.normalize("NFD", cluster)
    kept = "".join([c for c in d if unicodedata.category(c) != "Mn"])
    folded = kept[:1] in folds
    if len(kept) == len(d) and not folded:
        return cluster
    if folded:
        kept = folds[kept[0]] + kept[1:]
    return unicodedata.normalize("NFC", kept)


@perturbation(
    "diacritics_strip",
    family=_FAMILY,
    description="Remove the accents of Latin, Greek and Cyrillic letters.",
    version=2,
    reasons=("no_candidates",),
    fix_at="input_normalisation",
)
def diacritics_strip(text: str, rng: Draws) -> Outcome:
    """Per cluster with a Latin/Greek/Cyrillic base letter: NFD, drop Mn marks, NFC; plus the
    folds of Table A11 (§6.8). No compatibility folding.

    >>> diacritics_strip("Café crème in São Paulo, naïve Øresund, ﬁve ½", None).text
    'Cafe creme in Sao Paulo, naive Oresund, ﬁve ½'
    """
    if text.isascii():
        return unchanged(text, "no_candidates")
    sp = _spans(text)
    hits = [m.start() for s, e in _segments(text, sp) for m in _STRIP_HIT.finditer(text, s, e)]
    if not hits:
        return unchanged(text, "no_candidates")
    folds = _pairs("a11_strip_folds")
    mask = _starts_mask(text)
    done: dict[str, str | None] = {}  # cluster -> stripped form (None: not a site); lookups only
    edits = []
    last_end = 0
    for p in hits:
        if mask is None:
            cs, ce = p, p + 1
        else:
            cs = p
            while not mask[cs]:
                cs -= 1
            ce = p + 1
            while not mask[ce]:
                ce += 1
        if cs < last_end:
            continue
        last_end = ce
        if sp and sp.overlaps(cs, ce):
            continue
        cluster = text[cs:ce]
        if cluster in done:
            new = done[cluster]
        else:
            new = _strip_cluster(cluster, folds) if _strippable_base(cluster[0]) else None
            done[cluster] = new
        if new is not None and new != cluster:
            edits.append((cs, ce, new))
    if not edits:
        return unchanged(text, "no_candidates")
    return Outcome(tm.splice(text, edits), len(edits))


@perturbation(
    "homoglyph",
    version=2,
    family=_FAMILY,
    seed_sensitive=True,
    params=[rate(0.3)],
    description="Swap a fraction of the letters for Cyrillic or Greek look-alikes.",
    reasons=("no_candidates",),
    fix_at="input_normalisation",
)
def homoglyph(text: str, rng: Draws, *, rate: float) -> Outcome:
    """Replace letters of Table A8b (separate lower- and upper-case columns) inside free word
    tokens with their look-alike (§6.9).

    >>> [hex(ord(c)) for c in homoglyph("Hi", Draws(0), rate=1.0).text]
    ['0x41d', '0x456']
    """
    sites = _homoglyph_sites(text)
    idx = _draw(rng, rate, len(sites))
    if idx is None:
        return unchanged(text, "no_candidates")
    return Outcome(_put_mapped(text, idx, sites, _homoglyphs()[0]), len(idx))


@per_text
def _homoglyph_sites(text: str) -> tuple[int, ...]:
    """The Table A8b letters that are a cluster of their own inside free word tokens."""
    b = bits(text)
    if b is None:
        return tuple(_in_free_tokens(text, _homoglyphs()[1]))
    return tuple(positions(free_lanes(b) & char_lanes(b, _homoglyph_table()), b.n))


@loaded_once
def _homoglyph_table() -> bytes:
    """:func:`char_table` of the Table A8b letters."""
    return char_table("".join(_homoglyphs()[0]))


def _in_free_tokens(text: str, pattern: re.Pattern) -> list[int]:
    """The matches of a one-code-point ``pattern`` that are a cluster of their own inside a free
    word token, token by token (any text)."""
    hits = [m.start() for m in pattern.finditer(text)]
    if not hits:
        return []
    mask = _starts_mask(text)
    out: list[int] = []
    for tok, i, j in _by_token(hits, tm.free_tokens(text)):
        out.extend(_single(hits[i:j], mask, tok))
    return out


# ---------------------------------------------------------------------------------------------
# 6.10 - 6.12 encodings and invisible characters
# ---------------------------------------------------------------------------------------------

_FULL_WIDTH = {c: c + 0xFEE0 for c in range(0x21, 0x7F)}
_FULL_WIDTH[0x20] = 0x3000
# The low and high byte of each ASCII code point's UTF-16 code unit after ``_FULL_WIDTH``.
_FW_LOW = bytes(_FULL_WIDTH.get(c, c) & 0xFF for c in range(256))
_FW_HIGH = bytes(_FULL_WIDTH.get(c, c) >> 8 for c in range(256))
_PRINTABLE_ASCII = re.compile(r"[\x20-\x7e]")


@perturbation(
    "full_width",
    family=_FAMILY,
    description="Write every printable ASCII character in its full-width form.",
    reasons=("no_candidates",),
    fix_at="input_normalisation",
    memoise_outcome=True,
)
def full_width(text: str, rng: Draws) -> Outcome:
    """U+0021-U+007E move by 0xFEE0 and U+0020 becomes U+3000, everywhere (§6.10).

    >>> full_width("Hi 2 you!", None).text
    'Ｈｉ\\u3000２\\u3000ｙｏｕ！'
    """
    if _PRINTABLE_ASCII.search(text) is None:
        return unchanged(text, "no_candidates")
    if not text.isascii():
        return Outcome(text.translate(_FULL_WIDTH), 1)
    # ASCII: write the UTF-16 code units directly, low and high bytes by two byte tables
    data = text.encode("ascii")
    units = bytearray(2 * len(data))
    units[0::2] = data.translate(_FW_LOW)
    units[1::2] = data.translate(_FW_HIGH)
    return Outcome(units.decode("utf-16-le"), 1)


_ZERO_WIDTH = {"u200b": "\u200b", "u200c": "\u200c", "u2060": "\u2060"}


@perturbation(
    "zero_width",
    version=2,
    family=_FAMILY,
    seed_sensitive=True,
    params=[
        rate(0.3),
        choice(
            "char",
            "u200b",
            ("u200b", "u200c", "u2060"),
            "ZERO WIDTH SPACE, ZERO WIDTH NON-JOINER or WORD JOINER",
        ),
    ],
    description="Insert an invisible character at a fraction of the in-word boundaries.",
    reasons=("no_candidates",),
    fix_at="input_normalisation",
)
def zero_width(text: str, rng: Draws, *, rate: float, char: str) -> Outcome:
    """Insert ``char`` at chosen boundaries between two clusters inside free word tokens (§6.11).

    >>> zero_width("ab c", Draws(0), rate=1.0, char="u2060").text == "a\\u2060b c"
    True
    """
    sites = _in_word_boundaries(text)
    idx = _draw(rng, rate, len(sites))
    if idx is None:
        return unchanged(text, "no_candidates")
    # inserted before the code point at each chosen boundary
    return Outcome(_put_mapped(text, idx, sites, None, _ZERO_WIDTH[char]), len(idx))


@per_text
def _in_word_boundaries(text: str) -> tuple[int, ...]:
    """The cluster boundaries strictly inside free word tokens (offsets of the code point after
    each)."""
    b = bits(text)
    return tuple(_boundaries_general(text) if b is None else positions(free_lanes(b) & b.link, b.n))


def _boundaries_general(text: str) -> list[int]:
    """:func:`_in_word_boundaries` token by token (a plain text's are the lanes of its free
    tokens after their first: every code point of such a token is a cluster)."""
    mask = _starts_mask(text)
    cands: list[int] = []
    for tok in tm.free_tokens(text):
        if mask is None:
            cands.extend(range(tok.start + 1, tok.end))
        else:
            cands.extend([p for p in range(tok.start + 1, tok.end) if mask[p]])
    return cands


_RLO, _PDF = "\u202e", "\u202c"


@perturbation(
    "bidi_override",
    version=2,
    family=_FAMILY,
    description="Wrap every non-blank line in a right-to-left override.",
    reasons=("no_candidates",),
    fix_at="input_normalisation",
    memoise_outcome=True,
)
def bidi_override(text: str, rng: Draws) -> Outcome:
    """Each line with non-whitespace content, fenced code and lines inside a JSON region
    excepted, becomes RLO + line + PDF; line breaks stay outside (§6.12).

    >>> bidi_override("Hello\\nWorld", None).text == "\\u202eHello\\u202c\\n\\u202eWorld\\u202c"
    True
    """
    edits = []
    spans = _spans(text) if "{" in text or "[" in text else None
    for line in tm.lines(text):
        if line.cls != "blank" and line.cls != "code":
            if spans and (spans.overlaps(line.start, line.start) or spans.overlaps(line.end, line.end)):
                continue  # a line inside a JSON region (§1.8 kind 5)
            edits.append((line.start, line.start, _RLO))
            edits.append((line.end, line.end, _PDF))
    if not edits:
        return unchanged(text, "no_candidates")
    return Outcome(tm.splice(text, edits), len(edits) // 2)


# ---------------------------------------------------------------------------------------------
# 6.13 ocr_noise
# ---------------------------------------------------------------------------------------------


def _ocr_scan_slow(text: str, s: int, e: int, mask: bytearray, sources: tuple) -> list:
    """The left-to-right scan of §6.13 with the one-code-point-cluster condition."""
    out = []
    p = s
    while p < e:
        for src in sources:
            q = p + len(src)
            if q <= e and text.startswith(src, p) and all(mask[i] and mask[i + 1] for i in range(p, q)):
                out.append((p, q, src))
                p = q
                break
        else:
            p += 1
    return out


@perturbation(
    "ocr_noise",
    version=2,
    family=_FAMILY,
    seed_sensitive=True,
    params=[rate(0.2)],
    description="Introduce OCR confusions such as rn/m, cl/d and l/1.",
    reasons=("no_candidates",),
    fix_at="input_normalisation",
)
def ocr_noise(text: str, rng: Draws, *, rate: float) -> Outcome:
    """Replace chosen Table A8c sources in free alpha tokens of at least 3 letters (§6.13);
    every token keeps at least 2 letters.

    >>> ocr_noise("modern clinic", Draws(0), rate=1.0).text
    'rnoclcm dinie'
    """
    starts, ends, new, deltas, risky = _ocr_sites(text)
    n = len(starts)
    idx = _draw(rng, rate, n)
    if idx is None:
        return unchanged(text, "no_candidates")
    if risky and idx:
        # G3 guard: per token, drop the highest chosen candidates until it keeps 2 letters.
        chosen = set(idx)
        for i, j, letters in risky:
            mine = sorted(chosen.intersection(range(i, j)))
            after = letters + sum([deltas[x] for x in mine])
            while after < 2 and mine:
                x = mine.pop()
                chosen.discard(x)
                after -= deltas[x]
                idx = chosen
    return Outcome(_put_spans(text, idx, starts, ends, new), len(idx))


def _put_spans(
    text: str, idx: Collection[int], starts: Sequence[int], ends: Sequence[int], new: Sequence[str]
) -> str:
    """``text`` with ``text[starts[i]:ends[i]]`` (one or two code points, not overlapping)
    replaced by ``new[i]`` for every ``i`` of ``idx`` (distinct, in any order).

    >>> _put_spans("modern", [1, 0], (0, 3), (1, 5), ("rn", "x"))
    'rnodxn'
    """
    if len(idx) * 8 < len(text) or len(idx) < 2:  # few edits: slice around them in order
        parts = []
        pos = 0
        for i in sorted(idx):
            parts.append(text[pos : starts[i]])
            parts.append(new[i])
            pos = ends[i]
        parts.append(text[pos:])
        return "".join(parts)
    chars = list(text)
    for i in idx:
        # the last code point first: a one-code-point source then gets its new text
        chars[ends[i] - 1] = ""
        chars[starts[i]] = new[i]
    return "".join(chars)


_match_start = re.Match.start


@per_text
def _ocr_sites(
    text: str,
) -> tuple[
    tuple[int, ...], tuple[int, ...], tuple[str, ...], tuple[int, ...], tuple[tuple[int, int, int], ...]
]:
    """Per candidate: start, end, replacement and letter delta; and ``(i, j, letters)`` of each
    token whose candidates ``[i, j)`` could leave it with fewer than 2 letters (the G3 guard
    never applies to the others). The table's replacements hold no JSON-unsafe character, so
    ``text.splice`` would apply every edit (tests/test_perf_char.py checks both)."""
    pattern, sources, info = _ocr()
    # One scan of the whole text: a two-letter source never spans two tokens (adjacent
    # letters always belong to one token), so this equals scanning each token on its own.
    hits = list(map(_match_start, pattern.finditer(text)))
    if not hits:
        return (), (), (), (), ()
    found_src = pattern.findall(text)  # the same matches, in the same order
    mask = _starts_mask(text)
    keep: list[tuple[int, str]] = []  # (start, source) of the candidates
    tokens: list[tuple[int, int, int]] = []  # (i, j, letters): keep[i:j] are a token's
    for tok, i, j in _by_token(hits, tm.free_tokens(text)):
        letters, alpha = _letters_and_alpha(tok.text)
        if not alpha or letters < 3:
            continue
        if mask is None or _all_single(mask, tok.start, tok.end):
            found = list(zip(hits[i:j], found_src[i:j]))
        else:
            found = [(s, src) for s, _, src in _ocr_scan_slow(text, tok.start, tok.end, mask, sources)]
        if found:
            tokens.append((len(keep), len(keep) + len(found), letters))
            keep.extend(found)
    if not keep:
        return (), (), (), (), ()
    starts, srcs = zip(*keep)
    new = tuple([info[src][0] for src in srcs])
    deltas = tuple([info[src][1] for src in srcs])
    ends = tuple(map(int.__add__, starts, map(len, srcs)))
    # the lowest a token's letter count can fall: every negative delta applied
    risky = tuple(t for t in tokens if t[2] + sum([d for d in deltas[t[0] : t[1]] if d < 0]) < 2)
    return starts, ends, new, deltas, risky
