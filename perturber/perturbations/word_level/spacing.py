"""word_level, part B: stop words, spacing, punctuation and names (docs/spec/catalog.md §5.10–§5.16).

Entries: ``drop_stop_words``, ``word_merge``, ``word_split``, ``punctuation_spaces``,
``sequence_spaces``, ``punctuation_drop`` and ``name_swap``.  Every entry edits only the spans it
names and rebuilds the output from untouched slices (G1); protected spans are never touched (G4).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from itertools import compress
from operator import itemgetter, methodcaller, or_
from typing import Any

import regex

from ... import jsontext, native
from ... import text as tm
from ...data import load_table
from ...memo import loaded_once, per_text
from ...registry import Outcome, count, perturbation, rate, unchanged
from ...rng import Draws, below_many, select
from ...text.bits import (
    Bits,
    WordFinder,
    WordTable,
    bits,
    free_word_finder,
    free_word_spans,
    inner_space_run_ends,
    lanes_at,
    may_protect,
    positions,
    view,
    word_spans,
    word_table,
)
from ...text.byte_lanes import ByteTokens, Flags, byte_tokens, class_table, free_starts, token_any

# --------------------------------------------------------------------------------------------
# Shared helpers and tables
# --------------------------------------------------------------------------------------------

_HSPACE = frozenset(tm.HSPACE)
_HAS_NUMBER = regex.compile(r"\p{N}")
# One letter cluster inside a token (tokens hold only letters, numbers, marks and joiners).
_IN_TOKEN_CLUSTER = regex.compile(r"[^\p{M}]\p{M}*")

_TABLES: dict[str, Any] = {}


_STOP_MAX = 12  # no A6a word is longer (tests/test_word_level_spacing.py checks the table)


def _stop_words() -> frozenset:
    """A6a minus A6b (the two tables are disjoint; the subtraction only guards against drift)."""
    got = _TABLES.get("stop")
    if got is None:
        never = {w for g in load_table("a06b_never_dropped")["groups"] for w in g["words"]}
        got = frozenset(w for w in load_table("a06a_stop_words")["words"] if w not in never)
        _TABLES["stop"] = got
    return got  # membership tests only


def _starters() -> frozenset:
    got = _TABLES.get("starters")
    if got is None:
        got = frozenset(load_table("a12_sentence_starters")["words"])
        _TABLES["starters"] = got
    return got  # membership tests only


def _names() -> dict:
    """lower-cased name -> (group index, table spelling); groups keep the printed order."""
    got = _TABLES.get("names")
    if got is None:
        got = {
            name.lower(): (g, name)
            for g, group in enumerate(load_table("a10_first_names")["groups"])
            for name in group
        }
        _TABLES["names"] = got
    return got


def _name_hint():
    """A search for any lower-cased A10 name as a substring of the lower-cased text (a
    pre-filter only: a token whose lower-cased form is a name is such a substring)."""
    got = _TABLES.get("hint")
    if got is None:
        got = re.compile("|".join(re.escape(n) for n in _names()))
        _TABLES["hint"] = got
    return got


def _name_groups() -> tuple:
    return load_table("a10_first_names")["groups"]


def _is_alpha_token(tok: tm.Token) -> bool:
    return tok.text.isalpha() or _HAS_NUMBER.search(tok.text) is None


# --------------------------------------------------------------------------------------------
# 5.10 drop_stop_words
# --------------------------------------------------------------------------------------------


@perturbation(
    "drop_stop_words",
    version=2,
    family="word_level",
    description="Drop grammatical stop words (Table A6a) while keeping punctuation, "
    "line structure and every meaning-bearing word.",
    reasons=("no_candidates",),
    fix_at="prompt",
    memoise_outcome=True,
)
def drop_stop_words(text: str, rng: Draws) -> Outcome:
    """Remove free stop words (A6a) with one adjacent whitespace run; never empty a sentence.

    >>> drop_stop_words("What is the capital of France?", None).text
    'What capital France?'
    >>> drop_stop_words("The cat is here.\\nIt is asleep.", None).text
    'cat.\\nasleep.'
    """
    v = view(text)
    if v is not None and not may_protect(v) and b"\x00" not in v:
        spans = free_word_spans(v, _stop_finder())
        if not spans:
            return unchanged(text, "no_candidates")
        c = native.c
        if c is not None and text.isascii():  # the C twin of the three passes below (v is the text)
            kept = c.drop_groups(v, spans)
            if kept is not None:
                return Outcome(kept.decode("ascii"), len(spans))
        else:
            marked = _marked(text, spans)
            if not _exposed(marked):  # every stop word shares its unit with another token
                return Outcome(_without_marked(marked), len(spans))
    b = bits(text)
    spans = _dropped_general(text) if b is None else _dropped_plain(text, b)
    if not spans:
        return unchanged(text, "no_candidates")
    if "\x00" in text:
        return Outcome(tm.splice(text, _removal_edits(text, spans)), len(spans))
    return Outcome(_without_groups(text, spans), len(spans))


# A unit ends in a run of ". ! ? …" or at a line break (§1.9): a marked stop word (``_marked``)
# after such an end or the text's start, and before one or the text's end, with no word character
# (another token) on either side of it, may be in a unit of stop words only.
_UNIT_END = ".!?…\r\n"
_EXPOSED_REST = rf"[^A-Za-z0-9{_UNIT_END}\x00]*+\x00[^A-Za-z0-9{_UNIT_END}]*+(?:[{_UNIT_END}]|\Z)"
_EXPOSED_FIRST = re.compile(_EXPOSED_REST)  # matched at the start
_EXPOSED = re.compile(rf"[{_UNIT_END}]" + _EXPOSED_REST)  # led by a class: a fast scan


def _exposed(marked: str) -> bool:
    """True when a marked stop word may be in a unit of stop words only (then the units decide)."""
    return _EXPOSED_FIRST.match(marked) is not None or _EXPOSED.search(marked) is not None


@loaded_once
def _stop_finder() -> WordFinder:
    """The free stop words (A6a minus A6b) of a view, in any case (:func:`free_word_spans`)."""
    return free_word_finder(_stop_words(), folded=True)


def _dropped_general(text: str) -> list[tuple[int, int]]:
    """The free stop words that go (the sentence guard keeps a unit whose word tokens are all
    stop words), one token at a time."""
    starts, ends, flags = _stop_flags_general(text)
    if 1 not in flags:
        return []
    # A token outside every unit (none are expected) is never dropped.
    drop = bytearray(len(starts))
    tj = 0
    for u in tm.units(text):
        ti = bisect_left(starts, u.start, tj)  # the unit's tokens: [ti, tj)
        tj = bisect_left(starts, u.end, ti)
        block = flags[ti:tj]
        if 0 in block:  # some word token of the unit stays, so it is not emptied
            drop[ti:tj] = block
    return [(starts[i], ends[i]) for i in compress(range(len(drop)), drop)]


def _dropped_plain(text: str, b: Bits) -> list[tuple[int, int]]:
    """:func:`_dropped_general` of a plain text: the stop words found by ``word_spans``; a unit
    keeps its own when no other token starts in it (a look-up in the hex digits of the other
    tokens' starts)."""
    cands = word_spans(b, _stop_table(), b.free_start)
    if not cands:
        return []
    starts = [s for s, _ in cands]
    others = format(b.start & ~lanes_at(starts, b.n), "x")  # the lanes after its leading zeros
    off = b.n - len(others)
    out: list[tuple[int, int]] = []
    i = 0
    for u in tm.units(text):
        j = bisect_left(starts, u.end, i)  # the unit's candidates: [i, j)
        i = bisect_left(starts, u.start, i)
        if i < j and others.find("1", max(u.start - off, 0), max(u.end - off, 0)) >= 0:
            out += cands[i:j]
        i = j
    return out


@loaded_once
def _stop_table() -> WordTable:
    """The stop words (A6a minus A6b) as a folded :class:`WordTable`."""
    return word_table(_stop_words(), folded=True)


def _removal_edits(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """The deletions of §5.10: the dropped tokens separated only by horizontal whitespace form
    a group, removed with the run of horizontal whitespace before it (when the group does not
    start its line and has one), else the run after it (if any).

    >>> _removal_edits("the cat\\nis a dog", [(0, 3), (8, 10), (11, 12)])
    [(0, 4, ''), (8, 13, '')]
    """
    edits = []
    n = len(text)
    i = 0
    while i < len(spans):
        j = i
        while j + 1 < len(spans) and _HSPACE_RUN.fullmatch(text, spans[j][1], spans[j + 1][0]):
            j += 1
        gs, ge = spans[i][0], spans[j][1]
        rs = gs
        while rs > 0 and text[rs - 1] in _HSPACE:
            rs -= 1
        if rs < gs and rs > 0 and text[rs - 1] not in "\r\n":
            edits.append((rs, ge, ""))
        else:
            re_ = ge
            while re_ < n and text[re_] in _HSPACE:
                re_ += 1
            edits.append((gs, re_, ""))
        i = j + 1
    return edits


def _without_groups(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` after :func:`_removal_edits`, in C-level passes: each dropped token is marked
    with ``\\x00`` code points (the text holds none); the groups that lose the run before them
    are removed in the reversed text (the group, then a run, then a character that is not
    whitespace), the others with the run after them.

    >>> _without_groups("the cat\\nis a dog", [(0, 3), (8, 10), (11, 12)])
    'cat\\ndog'
    """
    return _without_marked(_marked(text, spans))


def _marked(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each code point of ``spans`` replaced by ``\\x00``."""
    parts = []
    pos = 0
    for s, e in spans:
        parts.append(text[pos:s])
        parts.append("\x00" * (e - s))
        pos = e
    parts.append(text[pos:])
    return "".join(parts)


def _without_marked(marked: str) -> str:
    """A marked text (:func:`_marked`) without its groups, as :func:`_without_groups` says."""
    return _GROUP_AND_RUN_AFTER.sub("", _GROUP_AND_RUN_AFTER_SOLID.sub("", marked[::-1])[::-1])


# marked tokens separated by horizontal whitespace only, led by a literal (a fast scan; a
# pattern led by a repeat is tried at every code point)
_GROUP = r"\x00\x00*(?:[^\S\r\n]+\x00+)*"
_GROUP_AND_RUN_AFTER_SOLID = re.compile(_GROUP + r"[^\S\r\n]+(?=[^\s\x00])")
_GROUP_AND_RUN_AFTER = re.compile(_GROUP + r"[^\S\r\n]*")


def _stop_flags_general(text: str) -> tuple[list[int], list[int], bytearray]:
    """The starts and ends of the word tokens, and 1 for each free stop word among them
    (A6a-A6b, lower-cased, ``’`` read as ``'``), for any text."""
    tokens = tm.word_tokens(text)
    stop = _stop_words()
    # Candidate flags in C-level passes: the lower-cased token, or with ’ read as ', is in A6a-A6b.
    lowered = list(map(str.lower, map(_TOKEN_TEXT, tokens)))
    flags = bytearray(map(stop.__contains__, lowered))
    if "’" in text:
        curly = map(stop.__contains__, map(methodcaller("replace", "’", "'"), lowered))
        flags = bytearray(map(or_, flags, curly))
    starts = list(map(_TOKEN_START, tokens))
    ends = [t.end for t in tokens]
    if 1 in flags:
        flagged = list(compress(range(len(tokens)), flags))
        free = {t.start for t in tm.free_tokens(text, [tokens[i] for i in flagged])}
        for i in flagged:
            if tokens[i].start not in free:
                flags[i] = 0
    return starts, ends, flags


_TOKEN_START = itemgetter(0)
_TOKEN_TEXT = itemgetter(2)
_HSPACE_RUN = re.compile("[" + "".join(map(re.escape, tm.HSPACE)) + "]+")


# --------------------------------------------------------------------------------------------
# 5.11 word_merge
# --------------------------------------------------------------------------------------------


@perturbation(
    "word_merge",
    family="word_level",
    graded_family="Input Quality",
    seed_sensitive=True,
    params=[count(1, description="number of single spaces between words to remove")],
    description="Remove single spaces between two words, merging them.",
    version=2,
    reasons=("no_candidates",),
)
def word_merge(text: str, rng: Draws, *, count: int) -> Outcome:
    """Delete ``count`` single U+0020 gaps between two free alpha tokens.

    >>> word_merge("Hello world", None, count=1).text
    'Helloworld'
    """
    lefts = _merge_lefts(text)
    if not lefts:
        return unchanged(text, "no_candidates")
    # a gap is the first space after the start of its first token
    gaps = [text.find(" ", start) for start in select(lefts, rng, count=count)]
    return Outcome(tm.splice_at(text, gaps, None, [""] * len(gaps)), len(gaps))


@per_text
def _merge_lefts(text: str) -> Sequence[int]:
    """Starts of the first tokens of the gaps ``word_merge`` may delete: the single U+0020
    gaps between two free alpha tokens."""
    if " " not in text:
        return ()
    found = _token_walk(text, "merge_lefts")  # the C twin of _merge_lefts_plain, when built
    if found is not None:
        return found
    lanes = _alpha_lanes(text)
    return _merge_lefts_general(text) if lanes is None else _merge_lefts_plain(*lanes)


# A view byte's lane for word_merge and word_split: its token classes, 16 a digit, 32 U+0020.
_DIGIT, _SPACE = 16, 32
_WORD_CLASSES = class_table({**dict.fromkeys("0123456789", _DIGIT), " ": _SPACE})


def _token_walk(text: str, name: str) -> list[int] | None:
    """``native.c.<name>(view, spans)`` of a plain text (a token walk of the C module), or None
    when the module is not built or the text is not plain."""
    c = native.c
    v = view(text) if c is not None else None
    return None if v is None else getattr(c, name)(v, tm.view_spans(text, v))


@per_text
def _alpha_lanes(text: str) -> tuple[ByteTokens, int] | None:
    """The byte-lane token masks of a plain text (:mod:`perturber.text.byte_lanes`, classes
    ``_WORD_CLASSES``) and the start lanes of its free alpha tokens (without a digit); None
    when the text is not plain."""
    v = view(text)
    if v is None:
        return None
    t = byte_tokens(v, _WORD_CLASSES, tm.view_spans(text, v))
    return t, free_starts(t, t.x >> 4 & t.tok)  # the digit bit, at bit 0


def _merge_lefts_plain(t: ByteTokens, alpha: int) -> Sequence[int]:
    """:func:`_merge_lefts_general` of a plain text, from its token masks: the first tokens of
    the spaces between the end of a free alpha token and the start of another (found from the
    gap's lane before it: a carry runs to a token's start, never to its end)."""
    gaps = t.x >> 5 & t.end >> 8 & alpha << 8  # the space bit, at bit 0
    return Flags(alpha & token_any(gaps << 8, t), t.n)  # a count draws a few


def _merge_lefts_general(text: str) -> tuple[int, ...]:
    """:func:`_merge_lefts` of any text, one token pair at a time."""
    tokens = tm.word_tokens(text)
    pairs = []
    for a, b in zip(tokens, tokens[1:]):
        if b.start == a.end + 1 and text[a.end] == " ":
            pairs.append((a, b))
    if not pairs:
        return ()
    involved = []
    seen = -1
    for a, b in pairs:
        if a.start != seen:
            involved.append(a)
        involved.append(b)
        seen = b.start
    free = {t.start for t in tm.free_tokens(text, involved)}
    return tuple(
        a.start
        for a, b in pairs
        if a.start in free and b.start in free and _is_alpha_token(a) and _is_alpha_token(b)
    )


# --------------------------------------------------------------------------------------------
# 5.12 word_split
# --------------------------------------------------------------------------------------------


def _split_points(tok: tm.Token) -> Sequence[int]:
    """Absolute offsets between two adjacent letters with >= 2 letters on each side."""
    w = tok.text
    if w.isascii() and w.isalpha():
        return range(tok.start + 2, tok.end - 1) if len(w) >= 4 else ()
    # clusters of the token: a base code point plus its combining marks
    cl = [(m.start(), m.group()[0].isalpha()) for m in _IN_TOKEN_CLUSTER.finditer(w)]
    total = sum(1 for _, letter in cl if letter)
    if total < 4:
        return []
    out = []
    before = 0
    for k in range(len(cl) - 1):
        if cl[k][1]:
            before += 1
            if cl[k + 1][1] and before >= 2 and total - before >= 2:
                out.append(tok.start + cl[k + 1][0])
    return out


def _is_json_key(text: str, tok: tm.Token) -> bool:
    """``"token":`` -- a whole JSON member name outside a JSON document."""
    s, e = tok.start, tok.end
    if s == 0 or text[s - 1] != '"' or e >= len(text) or text[e] != '"':
        return False
    k = e + 1
    while k < len(text) and text[k] in " \t":
        k += 1
    return k < len(text) and text[k] == ":"


@perturbation(
    "word_split",
    family="word_level",
    graded_family="Input Quality",
    seed_sensitive=True,
    params=[count(1, description="number of words to split")],
    description="Split words in two by inserting a space between two letters.",
    version=2,
    reasons=("no_candidates",),
)
def word_split(text: str, rng: Draws, *, count: int) -> Outcome:
    """Insert one space inside ``count`` free alpha tokens (>= 2 letters on each side).

    >>> from perturber.rng import Draws
    >>> word_split("abcd", Draws(0), count=1).text
    'ab cd'
    """
    starts = _split_starts(text)
    if not starts:
        return unchanged(text, "no_candidates")
    chosen = select(starts, rng, count=count)
    points = [rng.choice(_split_points(tm.token_at(text, start))) for start in chosen]
    return Outcome(tm.splice_at(text, points, points, [" "] * len(points)), len(points))


@per_text
def _split_starts(text: str) -> Sequence[int]:
    """Starts of the free alpha tokens that have a split point (none inside a JSON document)."""
    if '"' in text or "{" in text or "[" in text:  # maybe JSON
        return _split_starts_general(text)
    found = _token_walk(text, "split_starts")  # the C twin of _split_starts_plain, when built
    if found is not None:
        return found
    lanes = _alpha_lanes(text)
    return _split_starts_general(text) if lanes is None else _split_starts_plain(*lanes)


def _split_starts_plain(t: ByteTokens, alpha: int) -> Sequence[int]:
    """:func:`_split_starts_general` of a plain text, from its token masks. A split point of an
    alpha token (whose letters are its word characters, each a cluster): between two letters,
    the first not the token's start (so 2 letters before) and the second not its end (so 2
    after), wherever its joiners are."""
    word = t.x & t.ones
    letter = word ^ t.x >> 4 & word  # no digit bit
    points = letter & letter >> 8 & ~(t.start >> 8) & ~t.end
    return Flags(alpha & token_any(points, t), t.n)


def _split_starts_general(text: str) -> tuple[int, ...]:
    """:func:`_split_starts` of any text, one free token at a time."""
    tokens = [t for t in tm.word_tokens(text) if t.end - t.start >= 4]
    if not tokens or jsontext.is_container(text):
        return ()
    cands = []
    for tok in tm.free_tokens(text, tokens):
        w = tok.text
        if w.isascii() and w.isalpha():  # >= 4 letters, so it has a split point
            ok = True
        else:
            ok = _HAS_NUMBER.search(w) is None and bool(_split_points(tok))
        if ok and not _is_json_key(text, tok):
            cands.append(tok.start)
    return tuple(cands)


# --------------------------------------------------------------------------------------------
# 5.13 punctuation_spaces
# --------------------------------------------------------------------------------------------

# ASCII string.punctuation without "_", plus Pd, Ps, Pe, Pi, Pf and Po.
_PUNCT_RUN = regex.compile(r"[!-/:-@\[-^`{-~\p{Pd}\p{Ps}\p{Pe}\p{Pi}\p{Pf}\p{Po}]+")


# Exemptions of §5.13, as patterns over the whole text (each follows the normative token regex
# of §1.6 and the sign rule of §1.10 exactly):
# - a joiner inside a word token: after a word character (and its marks), before one;
_IN_TOKEN_JOINER = regex.compile(r"(?<=[\p{L}\p{N}]\p{M}*)['’\-‐‑](?=[\p{L}\p{N}])")
# - two or more one-letter word tokens, each directly followed by "." (e.g. p.m. U.S.);
_DOTTED = regex.compile(
    r"(?<![\p{L}\p{N}]\p{M}*)(?<![\p{L}\p{N}]\p{M}*['’\-‐‑])"
    r"(?:\p{L}\p{M}*\.){2,}"
)
# - the "-" sign of a numeric literal: not after a word character, directly before a digit.
_SIGN = regex.compile(r"(?<![\p{L}\p{N}])-(?=[0-9])")
# The same four patterns for an ASCII text, in ``re`` (where \p{L} is [A-Za-z], \p{N} is
# [0-9] and there are no marks), each starting with what it consumes so the scan skips ahead.
_ASCII_PUNCT_RUN = re.compile(r"[!-/:-@\[-^`{-~]+")
_ASCII_IN_TOKEN_JOINER = re.compile(r"['\-](?<=[A-Za-z0-9].)(?=[A-Za-z0-9])")
# (_ASCII_DOTTED is led by the "." after the first letter, which it checks behind: a pattern led by
# a letter class is tried at every letter; a match starts one code point before its span.)
_ASCII_DOTTED = re.compile(r"\.(?<=[A-Za-z]\.)(?<![A-Za-z0-9]..)(?<![A-Za-z0-9]['\-]..)(?:[A-Za-z]\.)+")
_ASCII_SIGN = re.compile(r"-(?<![A-Za-z0-9]-)(?=[0-9])")


def _punctuation_exempt(text: str, is_ascii: bool) -> bytearray:
    """1 for each code point of ``text`` that punctuation_spaces leaves alone: in a protected
    span, a joiner inside a word token, a dotted abbreviation, the sign of a number."""
    ex = bytearray(len(text))
    for s, e in tm.protected_spans(text):
        ex[s:e] = b"\x01" * (e - s)
    for m in (_ASCII_IN_TOKEN_JOINER if is_ascii else _IN_TOKEN_JOINER).finditer(text):
        ex[m.start()] = 1
    if "." in text:
        for s, e in _dotted_spans(text, is_ascii):
            ex[s:e] = b"\x01" * (e - s)
    if "-" in text:
        for m in (_ASCII_SIGN if is_ascii else _SIGN).finditer(text):
            ex[m.start()] = 1
    return ex


def _dotted_spans(text: str, is_ascii: bool) -> list[tuple[int, int]]:
    """The spans of ``_DOTTED`` (``_ASCII_DOTTED`` for an ASCII text, whose matches start at the
    first letter's ".").

    >>> _dotted_spans("at 5 p.m. in the U.S.A.", True)
    [(5, 9), (17, 23)]
    """
    if is_ascii:
        return [(m.start() - 1, m.end()) for m in _ASCII_DOTTED.finditer(text)]
    return [m.span() for m in _DOTTED.finditer(text)]


@perturbation(
    "punctuation_spaces",
    version=2,
    family="word_level",
    description="Insert a space between each punctuation run and an adjacent non-space character.",
    reasons=("no_candidates",),
    fix_at="input_normalisation",
    memoise_outcome=True,
)
def punctuation_spaces(text: str, rng: Draws) -> Outcome:
    """Surround punctuation runs with spaces; numbers, contractions, abbreviations and protected
    spans are exempt, and existing whitespace is kept.

    >>> punctuation_spaces("Wait... really?! It costs $12.50 (e.g. today).", None).text
    'Wait ... really ?! It costs $ 12.50 ( e.g. today ).'
    """
    is_ascii = text.isascii()
    c = native.c
    # the C twin of the loops below (an ASCII text has one cluster a code point)
    if is_ascii and c is not None:
        if _ASCII_PUNCT_RUN.search(text) is None:
            return unchanged(text, "no_candidates")
        spaced, edits = c.punct_spaces(text.encode("ascii"), _punctuation_exempt(text, True))
        return Outcome(spaced.decode("ascii"), edits) if edits else unchanged(text, "no_candidates")
    runs = [m.span() for m in (_ASCII_PUNCT_RUN if is_ascii else _PUNCT_RUN).finditer(text)]
    if not runs:
        return unchanged(text, "no_candidates")
    n = len(text)
    ex = _punctuation_exempt(text, is_ascii)
    positions = []
    for s, e in runs:
        if ex.find(1, s, e) == -1:
            # A character between two digits is a run of its own (its neighbours are digits).
            if e - s == 1 and 0 < s < n - 1 and text[s - 1].isdigit() and text[s + 1].isdigit():
                continue
            if s > 0 and not text[s - 1].isspace():
                positions.append(s)
            if e < n and not text[e].isspace():
                positions.append(e)
            continue
        a = s
        for i in range(s, e + 1):
            if i < e and not ex[i]:
                continue
            if a < i:  # a punctuation sub-run [a, i) between exempt (ordinary) characters
                if a > 0 and not text[a - 1].isspace():
                    positions.append(a)
                if i < n and not text[i].isspace():
                    positions.append(i)
            a = i + 1
    if not positions:
        return unchanged(text, "no_candidates")
    # Insert only at cluster boundaries (never between a base and its extenders).
    starts = None if text.isascii() or tm.single_clusters(text) else tm.clusters(text)
    edits = []
    last = -1
    for p in positions:
        if p == last:
            continue
        if starts is not None and p < n:
            k = bisect_left(starts, p)
            if k == len(starts) or starts[k] != p:
                continue
        edits.append((p, p, " "))
        last = p
    if not edits:
        return unchanged(text, "no_candidates")
    return Outcome(tm.splice(text, edits), len(edits))


# --------------------------------------------------------------------------------------------
# 5.14 sequence_spaces
# --------------------------------------------------------------------------------------------

# A run of U+0020 between two non-whitespace characters (``re``'s \\s is str.isspace()), found
# from its first space (a literal lead: a fast scan).
_INNER_SPACES = re.compile(r" (?<=\S.) *(?=\S)")


@perturbation(
    "sequence_spaces",
    version=2,
    family="word_level",
    seed_sensitive=True,
    params=[rate(0.5, "fraction of inner space runs to widen")],
    description="Widen a fraction of the inner space runs by 1-4 extra spaces each.",
    reasons=("no_candidates",),
    fix_at="input_normalisation",
)
def sequence_spaces(text: str, rng: Draws, *, rate: float) -> Outcome:
    """Append 1-4 spaces (``rng.randint(1, 4)``) to chosen runs of U+0020 between two
    non-whitespace characters on one line, outside protected spans.

    >>> sequence_spaces("one", None, rate=1.0).reason
    'no_candidates'
    """
    ends = _inner_run_ends(text)
    if not ends:
        return unchanged(text, "no_candidates")
    chosen = select(ends, rng, rate=rate)
    # one draw of rng.randint(1, 4) == 1 + rng.below(4) per chosen run, in order; the spaces go
    # before the non-whitespace character that ends each run
    widths = map(_WIDEN.__getitem__, below_many(rng, 4, len(chosen)))
    return Outcome(tm.splice_at(text, chosen, chosen, widths), len(chosen))


_WIDEN = (" ", "  ", "   ", "    ")  # 1 + r spaces for a draw r of below(4)


@per_text
def _inner_run_ends(text: str) -> Sequence[int]:
    """End offsets of the runs of U+0020 between two non-whitespace characters on one line,
    outside protected spans.

    >>> _inner_run_ends("a  b c `x y`")
    (3, 5, 7)
    """
    v = view(text)
    if v is not None and not may_protect(v):
        return tuple(positions(inner_space_run_ends(v) >> 4, len(v)))  # the code point after each run
    spans = tm.protected_spans(text)
    runs = [m.span() for m in _INNER_SPACES.finditer(text)]
    if spans:
        sp = tm.Spans(spans)
        runs = [r for r in runs if not sp.overlaps(r[0], r[1])]
    return tuple(e for _, e in runs)


_NEXT = (1).__add__


# --------------------------------------------------------------------------------------------
# 5.15 punctuation_drop
# --------------------------------------------------------------------------------------------


def _abbreviations() -> frozenset:
    """A13 entries that make a following single period a non-terminator by themselves.
    Dotted entries (``e.g``, ``i.e``) end in a one-letter token and are covered by that rule;
    ``no`` needs a following digit, which never happens at the end of a sentence."""
    got = _TABLES.get("a13")
    if got is None:
        table = load_table("a13_abbreviations")
        digit = set(table["digit_must_follow"])
        got = frozenset(a for a in table["abbreviations"] if a not in digit and "." not in a)
        _TABLES["a13"] = got
    return got  # membership tests only


def _one_letter(word: str) -> bool:
    return word[0].isalpha() and (len(word) == 1 or _IN_TOKEN_CLUSTER.fullmatch(word) is not None)


def _terminal_run(text: str, u: tm.Unit, spans: tm.Spans) -> tuple[int, int] | None:
    """The terminal run of a sentence unit, or None when the sentence has no terminator.

    Only the final sentence of a paragraph can lack one; it may still end in a run that the
    §1.9 splitter rejects: a run inside a protected span, or a single ``.`` directly after an
    A13 abbreviation or a one-letter word token (``... at 5 p.m.``, ``... met Dr.``)."""
    s, e = tm.trailing_run(text, u)
    if s == e or s == u.start or (spans and spans.contains(s)):
        return None  # no run; a sentence that is only a run is kept whole; protected
    if e - s == 1 and text[s] == "." and not (spans and spans.contains(s - 1)):
        w = _token_ending_at(text, s)
        if w is not None and (_one_letter(w) or w.lower() in _abbreviations()):
            return None
    return s, e


def _token_ending_at(text: str, e: int) -> str | None:
    """The text of the word token that ends at ``e`` when it holds no joiner, else None (a one
    letter or an abbreviation holds none). The classes are the token pattern's (§1.6).

    >>> _token_ending_at("at 5 p.m.", 8), _token_ending_at("Mary's.", 6), _token_ending_at("(.", 1)
    ('m', None, None)
    """
    if e < len(text) and (
        _WORD_OR_MARK.match(text, e) or (text[e] in tm.JOINERS and _WORD_CHAR.match(text, e + 1))
    ):
        return None  # a token goes on past e
    j = _first_word_char(text, e)
    if j == e:
        return None
    if j > 0 and text[j - 1] in tm.JOINERS and _first_word_char(text, j - 1) < j - 1:
        return None  # the token goes on to the left, through a joiner
    return text[j:e]


def _first_word_char(text: str, e: int) -> int:
    """The start of the run of word characters and marks that ends at ``e``, after its leading
    marks (``e`` when it holds no word character)."""
    j = _RUN_BACK.match(text, 0, e).start()  # type: ignore[union-attr]  # * always matches
    return _MARKS.match(text, j, e).end()  # type: ignore[union-attr]


_WORD_CHAR = regex.compile(r"[\p{L}\p{N}]")
_WORD_OR_MARK = regex.compile(r"[\p{L}\p{N}\p{M}]")
_RUN_BACK = regex.compile(r"(?r)[\p{L}\p{N}\p{M}]*")
_MARKS = regex.compile(r"\p{M}*")


@perturbation(
    "punctuation_drop",
    family="word_level",
    description="Drop sentence-final punctuation and lower-case function-word sentence starters.",
    version=2,
    reasons=("no_candidates",),
    memoise_outcome=True,
)
def punctuation_drop(text: str, rng: Draws) -> Outcome:
    """Delete plain terminal runs (``.``, ``!``, ``?``; not ellipses) and lower-case a first
    word of Table A12.

    >>> punctuation_drop("Dr. Smith left at 5 p.m. today. Is that late? I think so!", None).text
    'Dr. Smith left at 5 p.m. today is that late I think so'
    """
    if tm.ascii_words(text) and not tm.protected_spans(text):
        out, edits = _simple_drop(text)
        return Outcome(out, edits) if edits else unchanged(text, "no_candidates")
    found = _drop_edits(text)
    if not found:
        return unchanged(text, "no_candidates")
    return Outcome(tm.splice(text, found), len(found))


def _simple_drop(text: str) -> tuple[str, int]:
    """``punctuation_drop`` of a text whose word characters are ASCII and that holds no
    protected span, and its number of edits, from each paragraph split at its sentence ends:
    a sentence's run goes when the sentence has a body before it, and its body's first token
    becomes lower case when it is a free title-case Table A12 word (the capitalised spelling
    of one: the words are lower-case letters). A paragraph's final sentence without an end
    keeps its run, if any (a period that the splitter did not take as an end).
    :func:`_drop_edits` is the reference (tests/test_word_level_spacing.py compares them).

    >>> _simple_drop("Dr. Li left. Is it late? It is 5 p.m.")
    ('Dr. Li left is it late it is 5 p.m.', 4)
    """
    out: list[str] = []
    edits = 0
    pos = 0
    starter = _starter_at_start()
    for ps, pe in tm.plain_paragraphs(text):
        first = _NON_SPACE.search(text, ps, pe)
        if first is None:
            continue
        parts = tm.split_sentences(text[first.start() : pe])
        bodies, runs = parts[0::4], parts[1::4]
        gone = [
            bool(b) and (r in _PLAIN_RUNS or _PLAIN_RUN.fullmatch(r) is not None)
            for b, r in zip(bodies, runs)
        ]
        parts[1::4] = ["" if g else r for g, r in zip(gone, runs)]
        edits += sum(gone)
        for i, body in enumerate(bodies):  # a body that starts in lower case or a digit starts no starter
            if not body or body[0] in _LOWER_OR_DIGIT:
                continue
            if body[0] in _ASCII_UPPER:  # its first token starts it: one match decides
                if starter.match(body) is not None:
                    parts[4 * i] = body[0].lower() + body[1:]
                    edits += 1
                continue
            lowered = _lower_starter(body)
            if lowered is not None:
                parts[4 * i] = lowered
                edits += 1
        out.append(text[pos : first.start()])
        out += parts
        pos = pe
    out.append(text[pos:])
    return "".join(out), edits


def _lower_starter(body: str) -> str | None:
    """``body`` (a sentence before its run) with its first token lower-cased when that token
    is a free title-case Table A12 word; None when it is not. The body starts after whitespace
    or at a paragraph's start and ends before a run of ``. ! ? …``, so the token is bound only
    by what ``body`` holds."""
    m = _SIMPLE_TOKEN.match(body) or _SIMPLE_TOKEN.search(body)
    if m is None or m.group() not in _title_starters() or tm.is_bound(body, m.span()):
        return None
    s = m.start()
    return body[:s] + body[s].lower() + body[s + 1 :]


_NON_SPACE = re.compile(r"\S")
# A word token of a text whose word characters are ASCII (§1.6 with \p{L}\p{N} = [A-Za-z0-9]).
_SIMPLE_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’\-‐‑][A-Za-z0-9]+)*")
# A terminal run that punctuation_drop removes: ".", "!" and "?", no ".."; the common ones.
_PLAIN_RUN = re.compile(r"(?:\.(?!\.)|[!?])+")
_PLAIN_RUNS = frozenset([".", "?", "!", "?!", "!?", "!!", "??"])
_LOWER_OR_DIGIT = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


_ASCII_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


@loaded_once
def _starter_at_start() -> re.Pattern[str]:
    """:func:`_lower_starter` of a body that starts with its first token, as one match: a
    title-case Table A12 word that the next code point neither continues (§1.6) nor binds (a
    binder, or ``.`` / ``:`` before a letter or digit, as ``str.isalnum`` reads them)."""
    words = sorted(_title_starters(), key=lambda w: (-len(w), w))
    return re.compile(
        "(?:" + "|".join(words) + ")"
        rf"(?![A-Za-z0-9])(?![{re.escape(tm.JOINERS)}][A-Za-z0-9])"
        rf"(?![{re.escape(tm.BINDERS)}])(?![.:][^\W_])"
    )


@loaded_once
def _title_starters() -> frozenset[str]:
    """The Table A12 words capitalised (``the`` -> ``The``): with lower-case letters only, a
    word is one of them and title case exactly when its capitalised spelling is in this set."""
    assert all(w.isascii() and w.isalpha() and w.islower() for w in _starters())
    return frozenset(w.capitalize() for w in _starters())


def _drop_edits(text: str) -> list[tuple[int, int, str]]:
    """The edits of ``punctuation_drop`` for any text, one sentence at a time."""
    sents = tm.sentences(text)
    if not sents:
        return []
    spans = tm.Spans(tm.protected_spans(text))
    starters = _starters()
    edits = []
    for u in sents:
        m = tm.tokens.WORD_RE.search(text, u.start, u.end)  # the sentence's first token
        if m is not None and m.group().lower() in starters:
            tok = tm.Token(m.start(), m.end(), m.group())
            w = tok.text
            if (
                tm.case_class(w) == "title"
                and not tm.is_bound(text, tok)
                and not spans.overlaps(tok.start, tok.end)
            ):
                first = w[0].lower()
                if first != w[0]:
                    edits.append((tok.start, tok.start + 1, first))
        run = _terminal_run(text, u, spans)
        if run is not None:
            s, e = run
            chunk = text[s:e]
            if "…" not in chunk and ".." not in chunk:
                edits.append((s, e, ""))
    return edits


# --------------------------------------------------------------------------------------------
# 5.16 name_swap
# --------------------------------------------------------------------------------------------

_POSSESSIVE = ("'s", "’s")
_NAME_MAX = 14  # longer than any A10 name plus a possessive; a cheap pre-filter


def _name_part(word: str) -> tuple[str, str]:
    """Split a possessive ``'s``/``’s`` (any case) off a token: (name, suffix)."""
    if len(word) > 2 and word[-2:].lower() in _POSSESSIVE:
        return word[:-2], word[-2:]
    return word, ""


@perturbation(
    "name_swap",
    family="word_level",
    in_scope=False,
    seed_sensitive=True,
    params=[rate(1.0, "fraction of distinct first names to swap")],
    description="Replace first names (Table A10) with unused names of the same group.",
    version=2,
    reasons=("no_candidates",),
)
def name_swap(text: str, rng: Draws, *, rate: float) -> Outcome:
    """Swap a fraction of the distinct A10 first names for names of the same group that occur
    nowhere in the text; every free title/upper occurrence is replaced, possessives kept.

    >>> name_swap("no names here", None, rate=1.0).reason
    'no_candidates'
    """
    sites = _name_sites(text)
    if sites is None:
        return unchanged(text, "no_candidates")
    present, occurrences, order = sites
    index = _names()
    chosen = select(order, rng, rate=rate)
    groups = _name_groups()
    assigned = set()
    mapping = {}
    for name in chosen:
        group = groups[index[name][0]]
        options = [c for c in group if c not in assigned and c.lower() not in present]
        if not options:
            continue
        new = rng.choice(options)
        assigned.add(new)
        mapping[name] = new
    edits = []
    for tok, name, suffix, cls in occurrences:
        new = mapping.get(name)
        if new is None:
            continue
        edits.append((tok.start, tok.end, (new.upper() if cls == "upper" else new) + suffix))
    if not edits:
        return unchanged(text, "no_change")
    return Outcome(tm.splice(text, edits), len(edits))


@per_text
def _name_sites(text: str) -> tuple[frozenset, tuple, tuple] | None:
    """The per-text part of ``name_swap``: the lower-cased A10 names occurring as any word
    token, the candidate occurrences ``(token, name, suffix, case class)`` and the distinct
    candidate names in first-occurrence order; None without a candidate."""
    index = _names()
    if _name_hint().search(text.lower()) is None:  # cheap pre-filter
        return None
    tokens = tm.word_tokens(text)
    present = set()  # lower-cased table names occurring as any word token
    hits = []  # (token, table name, suffix) of possible candidate occurrences
    for tok in tokens:
        w = tok.text
        if len(w) > _NAME_MAX:
            continue
        name, suffix = _name_part(w.lower())
        if name in index:
            present.add(name)
            hits.append((tok, name, w[-2:] if suffix else ""))
    if not hits:
        return None
    free = {t.start for t in tm.free_tokens(text, [h[0] for h in hits])}
    occurrences = []
    order = []  # distinct names in first-occurrence order
    listed = set()
    for tok, name, suffix in hits:
        cls = tm.case_class(tok.text)
        if tok.start in free and (cls == "title" or cls == "upper"):
            occurrences.append((tok, name, suffix, cls))
            if name not in listed:
                listed.add(name)
                order.append(name)
    if not order:
        return None
    return frozenset(present), tuple(occurrences), tuple(order)
