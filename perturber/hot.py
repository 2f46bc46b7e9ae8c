"""Shared helpers of the hot paths: per-text memoisation and code-point replacement.

A robustness study applies many entries and seeds to the same texts, so the part of an entry
that depends only on the text (its candidate sites) is computed once per text and reused; the
seeded part (selection, replacement) runs on every call.

>>> replace_points("hello", [0, 4], ["J", "y"])
'Jelly'
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from functools import lru_cache, wraps
from operator import itemgetter
from typing import TypeVar

__all__ = ["MEMO_MAX_CHARS", "per_text", "pick", "replace_points"]

#: Texts up to this many code points are memoised (as the text model's tokens are).
MEMO_MAX_CHARS = 4096

T = TypeVar("T")


def per_text(fn: Callable[..., T]) -> Callable[..., T]:
    """Memoise ``fn(text)``, or ``fn(text, key)`` with one more hashable argument (a parameter),
    for short texts (256 most recent). ``fn`` must be pure and return an immutable value
    (tuples, not lists): every caller shares it.

    >>> @per_text
    ... def vowels(text):
    ...     return tuple(i for i, c in enumerate(text) if c in "aeiou")
    >>> vowels("banana") is vowels("banana")
    True
    >>> @per_text
    ... def letters(text, letter):
    ...     return text.count(letter)
    >>> letters("banana", "a")
    3
    """
    memo = lru_cache(maxsize=256)(fn)
    wrapper: Callable[..., T]
    if fn.__code__.co_argcount == 1:  # the common case, without packing arguments

        def wrapper(text: str) -> T:
            return memo(text) if len(text) <= MEMO_MAX_CHARS else fn(text)

    else:

        def wrapper(text: str, key: Hashable) -> T:
            return memo(text, key) if len(text) <= MEMO_MAX_CHARS else fn(text, key)

    wrapper = wraps(fn)(wrapper)
    wrapper.cache_clear = memo.cache_clear  # type: ignore[attr-defined]
    return wrapper


def replace_points(text: str, positions: Sequence[int], replacements: Sequence[str]) -> str:
    """``text`` with the code point at each of the ascending, distinct ``positions`` replaced
    by the matching string ("" deletes it; a longer string inserts around it). Equals
    ``text.splice`` of the edits ``(p, p + 1, r)``, without building an edit per position.

    >>> replace_points("abc", [0, 2], ["", "C!"])
    'bC!'
    """
    if len(positions) * 8 < len(text):  # few edits in a long text: slice around them
        parts = []
        pos = 0
        for p, r in zip(positions, replacements):
            parts.append(text[pos:p])
            parts.append(r)
            pos = p + 1
        parts.append(text[pos:])
        return "".join(parts)
    chars = list(text)
    for p, r in zip(positions, replacements):
        chars[p] = r
    return "".join(chars)


def pick(seq: Sequence[T], indices: Sequence[int]) -> Sequence[T]:
    """``[seq[i] for i in indices]`` as a sequence, in one C call.

    >>> pick("abcd", [3, 0]), pick("abcd", [1]), pick("abcd", [])
    (('d', 'a'), ['b'], [])
    """
    if len(indices) > 1:
        return itemgetter(*indices)(seq)
    return [seq[i] for i in indices]
