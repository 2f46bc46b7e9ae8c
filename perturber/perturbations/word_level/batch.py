"""Token look-ups for the word-level entries (hot paths).

``token_indices`` finds the tokens whose lower-cased text is in a table, in C-level passes.
tests/test_perf_word.py compares it with the straightforward code.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from itertools import compress
from operator import itemgetter

__all__ = ["token_indices"]


def token_indices(tokens: Sequence[tuple[int, int, str]], words: Container[str]) -> list[int]:
    """Indices of the tokens whose lower-cased text is in ``words``: the loop
    ``[i for i, t in enumerate(tokens) if t.text.lower() in words]`` in C-level passes.

    >>> from perturber import text as tm
    >>> token_indices(tm.word_tokens("It IS what it is"), frozenset(["is"]))
    [1, 4]
    """
    return list(compress(range(len(tokens)), map(words.__contains__, map(str.lower, map(_TEXT, tokens)))))


_TEXT = itemgetter(2)
