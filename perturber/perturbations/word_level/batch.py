"""Batched draws and insertions for the seeded word-level entries (hot paths).

``below_many(rng, n, k)`` is ``[rng.below(n) for _ in range(k)]`` (CATALOG.md §1.4: rejection
on ``getrandbits(n.bit_length())``) without a method call per draw: one local loop over the buffered
words of the stream (CPython's ``map``/``compress`` over a chunk measured slower for the short
runs of draws these entries make).
``insert_after`` rebuilds a text from its per-text memoised segments and the strings inserted
after the chosen ones. tests/test_perf_word.py compares both with the straightforward code.

>>> from perturber.rng import Draws
>>> rng = Draws(3)
>>> below_many(Draws(3), 4, 5) == [rng.below(4) for _ in range(5)]
True
>>> insert_after(("ab", "cd", "e"), [0], ["!"])
'ab!cde'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain

from ...rng import Draws

__all__ = ["below_many", "insert_after", "segments"]


def below_many(rng: Draws, n: int, k: int) -> list[int]:
    """``[rng.below(n) for _ in range(k)]``, the same words consumed, in a few C-level passes.

    >>> from perturber.rng import Draws
    >>> a, b = Draws(5), Draws(5)
    >>> below_many(a, 3, 6) == [b.below(3) for _ in range(6)] and a.below(9) == b.below(9)
    True
    """
    bits = n.bit_length()
    if k <= 0 or bits > 32 or type(rng) is not Draws:
        return [rng.below(n) for _ in range(k)]
    shift = 32 - bits
    limit = n << shift  # word >> shift < n  <=>  word < limit
    buf = rng._buf
    if buf is None:
        buf = rng._refill()
    pos = rng._pos
    out: list[int] = []
    append = out.append
    need = k
    while True:
        try:
            while need:
                word = buf[pos]
                pos += 1
                if word < limit:
                    append(word >> shift)
                    need -= 1
            break
        except IndexError:  # the batch is used up (the words it rejected stay spent)
            buf = rng._refill()
            pos = 0
    rng._pos = pos
    return out


def segments(text: str, cuts: Sequence[int]) -> tuple[str, ...]:
    """``text`` cut at the ascending offsets ``cuts``: ``len(cuts) + 1`` slices.

    >>> segments("abcde", [2, 4])
    ('ab', 'cd', 'e')
    """
    return tuple(map(text.__getitem__, map(slice, chain((0,), cuts), chain(cuts, (len(text),)))))


def insert_after(segs: Sequence[str], chosen: Iterable[int], inserts: Iterable[str]) -> str:
    """The segments joined, with ``inserts[j]`` after segment ``chosen[j]`` (``chosen`` holds
    distinct indices below ``len(segs) - 1``).

    >>> insert_after(("a", "b", "c"), [0, 1], ["1", "2"])
    'a1b2c'
    """
    parts = list(segs)
    for i, s in zip(chosen, inserts):
        parts[i] += s
    return "".join(parts)
