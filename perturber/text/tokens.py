"""Clusters (§1.5) and word tokens (§1.6)."""

from __future__ import annotations

import re as _re
from collections.abc import Iterable, Sequence
from itertools import accumulate, compress, repeat
from typing import NamedTuple

import regex

from ..memo import per_text
from .chars import BINDERS, new_tuple, non_ascii
from .spans import Spans, as_spans

# --------------------------------------------------------------------------------------------
# Clusters (§1.5)
# --------------------------------------------------------------------------------------------

_EXT = r"[\p{Mn}\p{Mc}\p{Me}\uFE00-\uFE0F\U000E0100-\U000E01EF\U0001F3FB-\U0001F3FF\U000E0020-\U000E007F]"
_RI = r"[\U0001F1E6-\U0001F1FF]"
# Anything that can make a cluster longer than one code point.
_NEEDS_FULL = regex.compile(_EXT[:-1] + r"\u200d\U0001F1E6-\U0001F1FF\r]")
# Only the multi-code-point clusters; every position not inside one is a one-code-point cluster.
_MULTI = regex.compile(r"(?:" + _RI + r"{2}|[^\r\n])(?:" + _EXT + r"|\u200d[^\r\n]?)+|" + _RI + r"{2}|\r\n")


def clusters(text: str) -> list[int]:
    """Start offsets of the clusters of ``text`` (§1.5).

    >>> clusters("cafe\\u0301!")
    [0, 1, 2, 3, 5]
    """
    n = len(text)
    if not _NEEDS_FULL.search(text):
        return list(range(n))
    mask = bytearray(b"\x01") * n
    for m in _MULTI.finditer(text):
        s, e = m.span()
        mask[s + 1 : e] = bytes(e - s - 1)
    return list(compress(range(n), mask))


def single_clusters(text: str) -> bool:
    """True when every code point of ``text`` is a cluster of its own (§1.5): found from the set
    of its non-ASCII code points when none can extend a cluster, else from the clusters.

    >>> single_clusters("café ×2"), single_clusters("cafe\\u0301"), single_clusters("a\\r\\nb")
    (True, False, False)
    """
    if "\r" in text and "\r\n" in text:
        return False
    if text.isascii() or not any(_NEEDS_FULL.match(c) for c in non_ascii(text)):
        return True
    return _MULTI.search(text) is None


def cluster_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """``(start, end)`` of each cluster that starts in ``[start, end)``.

    ``start`` is taken as a cluster boundary; the last cluster may reach past ``end`` when
    ``end`` falls inside it.

    >>> cluster_spans("a\\r\\nb\\u0301")
    [(0, 1), (1, 3), (3, 5)]
    """
    n = len(text)
    if end is None or end > n:
        end = n
    if start >= end:
        return []
    if not _NEEDS_FULL.search(text, start, min(n, end + 1)):
        return [(i, i + 1) for i in range(start, end)]
    out: list[tuple[int, int]] = []
    pos = start
    for m in _MULTI.finditer(text, start):
        s, e = m.span()
        if s >= end:
            break
        if pos < s:
            out.extend([(i, i + 1) for i in range(pos, s)])
        out.append((s, e))
        pos = e
    if pos < end:
        out.extend([(i, i + 1) for i in range(pos, end)])
    return out


# --------------------------------------------------------------------------------------------
# Word tokens (§1.6)
# --------------------------------------------------------------------------------------------

WORD_RE = regex.compile(r"[\p{L}\p{N}][\p{L}\p{N}\p{M}]*(?:['’\-‐‑][\p{L}\p{N}][\p{L}\p{N}\p{M}]*)*")


class Token(NamedTuple):
    """A word token: ``text[start:end] == text``."""

    start: int
    end: int
    text: str


def token_at(text: str, start: int) -> Token:
    """The word token that starts at ``start`` (one must).

    >>> token_at("say don’t go", 4)
    Token(start=4, end=9, text='don’t')
    """
    m = WORD_RE.match(text, start)
    assert m is not None  # a token starts there
    return Token(start, m.end(), m.group())


# The token regex as one capturing group: ``split`` returns the gaps and the tokens in turn.
_WORD_SPLIT = regex.compile("(" + WORD_RE.pattern + ")")
# The same on an ASCII text, in ``re`` (about twice as fast): there \p{L} is [A-Za-z], \p{N} is
# [0-9], there are no marks and the joiners are ' and -.
_ASCII_WORD_SPLIT = _re.compile(r"([A-Za-z0-9]+(?:['\-][A-Za-z0-9]+)*)")


@per_text
def word_tokens(text: str) -> Sequence[Token]:
    """All word tokens of ``text`` in order (normative regex of §1.6), as a read-only sequence
    (memoised: studies apply many perturbations and seeds to the same text).

    They are found by one ``split`` (gap, token, gap, ...): the running sum of the part lengths
    gives every token's start and end, in C-level passes.

    >>> [t.text for t in word_tokens('"hello," my_var 3rd-grade')]
    ['hello', 'my', 'var', '3rd-grade']
    >>> word_tokens("Hi, you!")
    (Token(start=0, end=2, text='Hi'), Token(start=4, end=7, text='you'))
    """
    parts = (_ASCII_WORD_SPLIT if text.isascii() else _WORD_SPLIT).split(text)
    bounds = list(accumulate(map(len, parts)))  # bounds[2i] = start, bounds[2i + 1] = end of token i
    return tuple(map(new_tuple, repeat(Token), zip(bounds[0::2], bounds[1::2], parts[1::2])))


_BINDERS = frozenset(BINDERS)
# A superset of what can make a token bound: a binder, or "." / ":" followed by a non-space.
_MAYBE_BOUND = _re.compile(r"[_/\\@#$%&=+<>|^~\[\]{}]|[.:]\S")


def _bound(text: str, s: int, e: int) -> bool:
    if s > 0:
        c = text[s - 1]
        if c in _BINDERS or ((c == "." or c == ":") and s > 1 and text[s - 2].isalnum()):
            return True
    if e < len(text):
        c = text[e]
        if c in _BINDERS or ((c == "." or c == ":") and e + 1 < len(text) and text[e + 1].isalnum()):
            return True
    return False


def is_bound(text: str, token: Token | tuple[int, int]) -> bool:
    """§1.6 bound rule: the token touches ``_ / \\ @ # $ % & = + < > | ^ ~ [ ] { }``, or a ``.``
    or ``:`` that touches another word character on its far side.

    >>> [is_bound("file.txt end.", t) for t in word_tokens("file.txt end.")]
    [True, True, False]
    """
    return _bound(text, token[0], token[1])


def free_tokens(
    text: str, tokens: Sequence[Token] | None = None, spans: Spans | Iterable[tuple[int, int]] | None = None
) -> list[Token]:
    """The tokens that are neither bound nor overlapping a protected span.

    >>> [t.text for t in free_tokens("see a.b and `code` now")]
    ['see', 'and', 'now']
    """
    if tokens is None:
        if spans is None:
            return list(_free_tokens_of(text))
        tokens = word_tokens(text)
    sp = as_spans(text, spans)
    if not _MAYBE_BOUND.search(text):  # common prose: no binder, no "x.y"/"x:y" anywhere
        return [t for t in tokens if not sp.overlaps(t[0], t[1])] if sp else list(tokens)
    if sp:
        return [t for t in tokens if not _bound(text, t[0], t[1]) and not sp.overlaps(t[0], t[1])]
    return [t for t in tokens if not _bound(text, t[0], t[1])]


@per_text
def _free_tokens_of(text: str) -> tuple[Token, ...]:
    """The free tokens of ``text``, memoised like its tokens."""
    return tuple(free_tokens(text, word_tokens(text)))
