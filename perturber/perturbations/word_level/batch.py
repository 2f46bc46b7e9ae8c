"""Batched draws and insertions for the seeded word-level entries (hot paths).

``below_many(rng, n, k)`` is ``[rng.below(n) for _ in range(k)]`` (CATALOG.md §1.4: rejection
on ``getrandbits(n.bit_length())``) without a method call per draw: it reads the words of the
stream a chunk at a time and keeps those below ``n << shift`` with C-level ``map``/``compress``.
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

from collections.abc import Sequence
from itertools import chain, compress, repeat
from operator import rshift

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
    accept = (n << shift).__gt__  # word < n << shift  <=>  word >> shift < n
    buf = rng._buf
    pos = rng._pos
    out: list[int] = []
    need = k
    while need:
        if buf is None or pos == len(buf):
            buf = rng._refill()
            pos = 0
        # Each word is accepted with probability > 1/2: 2 * need + 8 words usually suffice.
        chunk = buf[pos : pos + 2 * need + 8]
        hits = list(compress(range(len(chunk)), map(accept, chunk)))
        if len(hits) >= need:
            del hits[need:]
            pos += hits[-1] + 1
        else:
            pos += len(chunk)
        out.extend(map(rshift, map(chunk.__getitem__, hits), repeat(shift)))
        need -= len(hits)
    rng._pos = pos
    return out


def segments(text: str, cuts: Sequence[int]) -> tuple[str, ...]:
    """``text`` cut at the ascending offsets ``cuts``: ``len(cuts) + 1`` slices.

    >>> segments("abcde", [2, 4])
    ('ab', 'cd', 'e')
    """
    return tuple(map(text.__getitem__, map(slice, chain((0,), cuts), chain(cuts, (len(text),)))))


def insert_after(segs: Sequence[str], chosen: Sequence[int], inserts: Sequence[str]) -> str:
    """The segments joined, with ``inserts[j]`` after segment ``chosen[j]`` (``chosen`` holds
    distinct indices below ``len(segs) - 1``).

    >>> insert_after(("a", "b", "c"), [0, 1], ["1", "2"])
    'a1b2c'
    """
    if len(chosen) * 4 < len(segs):  # few insertions: slice the segment list around them
        parts: list[str] = []
        prev = 0
        for i, s in zip(chosen, inserts):
            parts.extend(segs[prev : i + 1])
            parts.append(s)
            prev = i + 1
        parts.extend(segs[prev:])
        return "".join(parts)
    fill = [""] * len(segs)
    for i, s in zip(chosen, inserts):
        fill[i] = s
    return "".join(chain.from_iterable(zip(segs, fill)))
