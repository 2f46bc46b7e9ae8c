"""Batched insertions and token look-ups for the word-level entries (hot paths).

``insert_at`` inserts strings at ascending offsets, and ``token_indices`` finds the tokens whose
lower-cased text is in a table, in C-level passes. tests/test_perf_word.py compares each with
the straightforward code (and ``rng.below_many``, the batched draws these entries use).

>>> insert_at("abcde", [2], ["!"])
'ab!cde'
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Sequence
from itertools import compress
from operator import itemgetter

__all__ = ["insert_at", "token_indices"]


def insert_at(text: str, positions: Iterable[int], inserts: Iterable[str]) -> str:
    """``text`` with ``inserts[j]`` inserted at the ascending offsets ``positions[j]`` (equal
    to ``splice`` of the insertions ``(p, p, s)`` when none is JSON-unsafe), without a per-text
    structure: the right choice for a text seen once.

    >>> insert_at("abc", [1, 3], ["-", "!"])
    'a-bc!'
    """
    parts: list[str] = []
    append = parts.append
    prev = 0
    for p, s in zip(positions, inserts):
        append(text[prev:p])
        append(s)
        prev = p
    append(text[prev:])
    return "".join(parts)


def token_indices(tokens: Sequence[tuple[int, int, str]], words: Container[str]) -> list[int]:
    """Indices of the tokens whose lower-cased text is in ``words``: the loop
    ``[i for i, t in enumerate(tokens) if t.text.lower() in words]`` in C-level passes.

    >>> from perturber import text as tm
    >>> token_indices(tm.word_tokens("It IS what it is"), frozenset(["is"]))
    [1, 4]
    """
    return list(compress(range(len(tokens)), map(words.__contains__, map(str.lower, map(_TEXT, tokens)))))


_TEXT = itemgetter(2)
