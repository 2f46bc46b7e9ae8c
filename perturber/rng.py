"""Seeded draws, frozen as CATALOG.md §1.4 defines them, and the selection rule of §1.11.

The generator is built lazily: entries that end before their first draw never pay for
``random.Random(seed)``; a small cache of seeded states makes repeated seeds cheaper.

>>> rng = Draws(7)
>>> rng.below(10), rng.choice("abc"), rng.sample(range(5), 2)
(5, 'a', [3, 1])
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from threading import Lock
from typing import Any

_STATE_CACHE: dict[int, tuple | None] = {}
_UNSEEN: Any = object()
_STATE_CACHE_MAX = 256
_STATE_LOCK = Lock()


def _seeded(seed: int) -> random.Random:
    """``random.Random(seed)``, restored from a cached state when the seed recurs.

    Seeding costs about as much as ``getstate``, so a state is cached only on the second use
    of a seed; ``Random.__new__`` + ``setstate`` then skips ``__init__`` (which would also pull
    OS entropy first).
    """
    state = _STATE_CACHE.get(seed, _UNSEEN)
    if state is _UNSEEN or state is None:
        gen = random.Random(seed)
        with _STATE_LOCK:
            if len(_STATE_CACHE) >= _STATE_CACHE_MAX:
                _STATE_CACHE.pop(next(iter(_STATE_CACHE)), None)
            _STATE_CACHE[seed] = None if state is _UNSEEN else gen.getstate()
        return gen
    gen = random.Random.__new__(random.Random)
    gen.setstate(state)
    return gen


class Draws:
    """perturber's own draw helpers over a private ``random.Random(seed)``."""

    __slots__ = ("seed", "_gen")

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._gen: random.Random | None = None

    @property
    def started(self) -> bool:
        """True once a draw has been made (the generator exists)."""
        return self._gen is not None

    def _generator(self) -> random.Random:
        if self._gen is None:
            self._gen = _seeded(self.seed)
        return self._gen

    def below(self, n: int) -> int:
        """Uniform int in ``[0, n)`` by rejection on ``getrandbits(n.bit_length())``."""
        gen = self._generator()
        bits = n.bit_length()
        r = gen.getrandbits(bits)
        while r >= n:
            r = gen.getrandbits(bits)
        return r

    def randrange(self, n: int) -> int:
        return self.below(n)

    def randint(self, a: int, b: int) -> int:
        return a + self.below(b - a + 1)

    def choice(self, seq: Sequence):
        return seq[self.below(len(seq))]

    def random(self) -> float:
        return self._generator().random()

    def sample(self, seq: Sequence, k: int) -> list:
        """Partial Fisher-Yates: the first ``k`` of a swap-shuffled copy, in draw order."""
        pool = list(seq)
        n = len(pool)
        for i in range(k):
            j = i + self.below(n - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]


def quota(n: int, *, rate: float | None = None, count: int | None = None) -> int:
    """Number of candidates to choose out of ``n`` (§1.11).

    >>> quota(5, rate=0.3), quota(2, rate=0.0001), quota(3, count=10)
    (2, 1, 3)
    """
    if count is not None:
        return min(count, n)
    assert rate is not None, "quota needs rate or count"
    q = round(rate * 10000)
    k = (n * q + 5000) // 10000
    if q > 0 and n > 0:
        k = max(k, 1)
    return min(k, n)


def select(candidates: Sequence, rng: Draws, *, rate: float | None = None,
           count: int | None = None) -> list:
    """Choose candidates by the rate or count rule, returned in ascending text order.

    >>> select(["a", "b", "c", "d"], Draws(0), count=2)
    ['c', 'd']
    """
    n = len(candidates)
    k = quota(n, rate=rate, count=count)
    if k == 0:
        return []
    if k == n:
        return list(candidates)
    return [candidates[i] for i in sorted(rng.sample(range(n), k))]


PERM_TRIES = 10  # draws of P(m) before the rotation fallback (CATALOG.md §8)


def permutation(m: int, rng: Draws) -> list[int]:
    """The non-identity permutation ``P(m)`` of §8 (``m >= 2``): new position i holds old item
    ``perm[i]``; up to ``PERM_TRIES`` draws, then the rotation by one.

    >>> permutation(3, Draws(1)) != [0, 1, 2]
    True
    """
    identity = list(range(m))
    for _ in range(PERM_TRIES):
        perm = rng.sample(identity, m)
        if perm != identity:
            return perm
    return identity[1:] + [0]
