"""Seeded draws, frozen as docs/spec/catalog.md §1.4 defines them, and the selection rule of §1.11.

Every helper reads the generator's raw stream of 32-bit words, which is what ``getrandbits``
and ``random()`` consume: ``getrandbits(b)`` (``b <= 32``) is the next word shifted right by
``32 - b``, a wider ``getrandbits`` takes ``ceil(b / 32)`` words (least significant first, the
last one shifted), ``random()`` takes two. Draws pull those words in batches from a private
``random.Random(seed)`` and serve them from a local buffer, so a draw is a few bytecodes instead
of a method call into the generator; the bytes are those of the straightforward helpers
(tests/test_rng.py compares them on random seeds and sizes). The generator is built lazily, and
the first words of a recurring seed are cached (a study reuses its seeds across texts and
entries): a new seed pulls a small first batch, which grows in the cache (up to
``_CACHED_WORDS``) when a call draws past it, so a cached seed builds no generator unless it
draws past its cached words. The words after those are cached too, for the few most recent
seeds that drew past them (up to ``_TAIL_WORDS`` more): an entry that draws hundreds of sites
then builds no generator either when a study repeats its seeds. The first sample a recurring
seed draws (``chosen``: k of n candidates) is kept too, by (seed, n, k), with the words it read:
on text after text a study draws the same counts out of the same sizes.

A sample of k of n (the frozen partial Fisher-Yates of ``Draws.sample``) runs in the C module
``perturber._native`` when it is built, over the same words; the Python paths below are its twin.

``below_many(rng, n, k)`` makes ``k`` draws of ``below(n)`` in one pass (small ranges through
the words' top bytes and ``bytes.translate``).

>>> rng = Draws(7)
>>> rng.below(10), rng.choice("abc"), rng.sample(range(5), 2)
(5, 'a', [3, 1])
"""

from __future__ import annotations

import random
import sys
from array import array
from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import TypeVar

from . import native
from .memo import Memo, loaded_once, per_value

T = TypeVar("T")

try:  # the C generator under ``random.Random``: an int seed gives the same stream, without the
    # Python-level ``seed`` method (a new seed on every call is the common case of a cold call)
    from _random import Random as _MersenneTwister
except ImportError:  # pragma: no cover - an interpreter without the C module
    _MersenneTwister = random.Random  # type: ignore[misc,assignment]

_FIRST_BATCH = 64  # words pulled by a new seed's first refill (and cached for the seed)
_CACHED_WORDS = 128  # a recurring seed's cached words grow up to this many
_MAX_BATCH = 1 << 16  # later batches double up to this many words
_TAIL_WORDS = 4096  # words after the first _CACHED_WORDS cached for a recent seed
# The first batch of words of the most recent seeds (a study reuses a few seeds everywhere).
_FIRST_BATCHES = Memo("perturber.rng.first_batches", 1, 512, sized=False)
# The words that follow them, for the few most recent seeds that drew that far.
_TAILS = Memo("perturber.rng.tails", 1, 8, sized=False)


# The array type code of unsigned 32-bit ints.
_WORD_CODE = next(code for code in "IL" if array(code).itemsize == 4)
_EMPTY: array[int] = array(_WORD_CODE)


def _words(gen: _MersenneTwister, count: int) -> array[int]:
    """The next ``count`` 32-bit words of ``gen``'s stream, in draw order, as an array (an int
    object is made only for a word that is read: a call reads a few of a batch).

    ``getrandbits(32 * count)`` consumes exactly ``count`` words and puts the first drawn in
    the least significant 32 bits (on every byte order), so its little-endian bytes are the
    words in draw order.
    """
    words = array(_WORD_CODE, gen.getrandbits(32 * count).to_bytes(4 * count, "little"))
    if sys.byteorder == "big":
        words.byteswap()
    return words


class Draws:
    """perturber's own draw helpers over a private ``random.Random(seed)``."""

    __slots__ = ("seed", "_buf", "_pos", "_next", "_gen")

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._buf: array[int] | None = None  # words being served
        self._pos = 0  # index of the next word of ``_buf``
        self._next = 0  # stream index of the word after ``_buf``
        self._gen: _MersenneTwister | None = None  # positioned at ``_next`` once built

    @property
    def started(self) -> bool:
        """True once a draw has been made."""
        return self._buf is not None

    def _refill(self, hint: int = 0) -> array[int]:
        """Make the next batch of words current (the old one is used up) and return it; a
        later batch has at least ``hint`` words (up to the cap)."""
        gen = self._gen
        prev = self._buf
        if prev is None:
            cached = _FIRST_BATCHES.data.get(self.seed)
            if cached is not None:
                buf = cached
            else:
                gen = self._gen = _MersenneTwister(self.seed)
                buf = _words(gen, _FIRST_BATCH)
                _FIRST_BATCHES.put(self.seed, buf, 1)
        else:
            buf = self._cached_tail()
            if buf:  # served from the cache: a generator built before stands behind these words
                self._gen = None
            else:
                if gen is None:
                    gen = self._gen = _MersenneTwister(self.seed)
                    gen.getrandbits(32 * self._next)  # skip the cached words
                buf = _words(gen, min(_MAX_BATCH, max(_FIRST_BATCH, self._next, hint)))
                if self._next == len(prev) < _CACHED_WORDS:  # past the cached words: cache more
                    _FIRST_BATCHES.replace(self.seed, (prev + buf)[:_CACHED_WORDS])
                self._cache_tail(buf)
        self._buf = buf
        self._pos = 0
        self._next += len(buf)
        return buf

    def _cached_tail(self) -> array[int]:
        """The cached words of this seed from the next stream index on (empty when none)."""
        at = self._next - _CACHED_WORDS
        if at < 0:
            return _EMPTY
        tail = _TAILS.data.get(self.seed, _EMPTY)
        if at == 0 or at >= len(tail):  # a slice of the whole tail copies it: serve it as is
            return tail if at == 0 else _EMPTY
        return tail[at:]

    def _cache_tail(self, buf: array[int]) -> None:
        """Cache ``buf`` (the words from the next stream index on) when it extends this seed's
        cached tail."""
        at = self._next - _CACHED_WORDS
        if at < 0 or at >= _TAIL_WORDS:
            return
        tail = _TAILS.data.get(self.seed, _EMPTY)
        if at == len(tail):
            if tail:
                _TAILS.replace(self.seed, (tail + buf)[:_TAIL_WORDS])
            else:
                _TAILS.put(self.seed, buf[:_TAIL_WORDS], 1)

    def _index(self) -> int:
        """The stream index of the next word (after the first draw)."""
        return self._next - len(self._buf) + self._pos  # type: ignore[arg-type]

    def _start_at(self, index: int) -> None:
        """Position a new ``Draws`` at stream index ``index`` (``index >= 1``), as if it had drawn
        the words before it: inside the seed's first batch (cached, or pulled anew), or past it,
        where the next refill starts (from the cached tail, or a generator moved on to it)."""
        first = self._refill()
        if index <= len(first):
            self._pos = index
            return
        if self._gen is not None:
            self._gen.getrandbits(32 * (index - self._next))
        self._buf, self._pos, self._next = _EMPTY, 0, index

    def _word(self) -> int:
        """The next 32-bit word of the stream."""
        buf = self._buf
        pos = self._pos
        if buf is None or pos == len(buf):
            buf = self._refill()
            pos = 0
        self._pos = pos + 1
        return buf[pos]

    def getrandbits(self, k: int) -> int:
        """``random.Random.getrandbits(k)`` of the private generator (``k >= 0``)."""
        if k <= 32:
            return self._word() >> (32 - k) if k > 0 else 0
        out = shift = 0
        while k > 32:
            out |= self._word() << shift
            shift += 32
            k -= 32
        return out | (self._word() >> (32 - k)) << shift

    def below(self, n: int) -> int:
        """Uniform int in ``[0, n)`` by rejection on ``getrandbits(n.bit_length())``."""
        bits = n.bit_length()
        if n <= 0:
            raise ValueError(f"below({n}): n must be at least 1")
        if bits > 32:
            r = self.getrandbits(bits)
            while r >= n:
                r = self.getrandbits(bits)
            return r
        shift = 32 - bits
        buf = self._buf
        pos = self._pos
        while True:
            if buf is None or pos == len(buf):
                buf = self._refill()
                pos = 0
            r = buf[pos] >> shift
            pos += 1
            if r < n:
                self._pos = pos
                return r

    def randrange(self, n: int) -> int:
        return self.below(n)

    def randint(self, a: int, b: int) -> int:
        return a + self.below(b - a + 1)

    def choice(self, seq: Sequence):
        return seq[self.below(len(seq))]

    def sample_range(self, n: int, k: int) -> list[int]:
        """``sample(range(n), k)``; without copying the pool when ``k`` is a small part of ``n``.

        >>> Draws(2).sample_range(50, 2) == Draws(2).sample(range(50), 2)
        True
        """
        drawn = _sample_natively(self, n, k)
        if drawn is not None:
            return drawn
        if 16 * k < n:
            return _sample_sparse(self, n, k)
        return self.sample(positions(n), k)

    def random(self) -> float:
        """The generator's ``random()``: 53 bits from two words."""
        a = self._word() >> 5
        b = self._word() >> 6
        return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)

    def sample(self, seq: Sequence, k: int) -> list:
        """Partial Fisher-Yates: the first ``k`` of a swap-shuffled copy, in draw order."""
        pool = list(seq)
        n = len(pool)
        if not 0 <= k <= n:
            raise ValueError(f"sample of {k} out of {n}")
        if n > 1 << 32:  # pragma: no cover - wider than one word per draw
            below = self.below
            for i in range(k):
                j = i + below(n - i)
                pool[i], pool[j] = pool[j], pool[i]
            return pool[:k]
        if k == 0:
            return []
        drawn = _sample_natively(self, n, k)
        if drawn is not None:
            return list(pick(pool, drawn))
        if n < 256:
            return _sample_small(self, pool, n, k)
        buf = self._buf
        if buf is None:
            buf = self._refill()
        pos = self._pos
        out: list = []
        append = out.append
        i = 0
        while i < k:
            # Draw i is below(n - i) + i: one word shifted to the bit length of n - i, rejected
            # while too large. Over [i, end) that bit length (so the shift) stays the same.
            bits = (n - i).bit_length()
            shift = 32 - bits
            end = min(k, n - (1 << (bits - 1)) + 1)
            try:
                for j in range(i, end):
                    r = (buf[pos] >> shift) + j
                    pos += 1
                    while r >= n:
                        r = (buf[pos] >> shift) + j
                        pos += 1
                    # The swap of pool[j] and pool[r]; position j is never read again.
                    append(pool[r])
                    pool[r] = pool[j]
                i = end
            except IndexError:
                # The batch ran out inside draw j (before its swap): the words it rejected
                # are spent, so draw j restarts on the next batch, sized for what is left
                # (a draw takes fewer than 2 words on average).
                i = j
                buf = self._refill(2 * (k - i))
                pos = 0
        self._pos = pos
        return out


# By bit length b <= 8: the table of a word's top byte t to its draw t >> (8 - b).
_TOP_DRAWS = [bytes(t >> (8 - b) for t in range(256)) for b in range(9)]


def _sample_natively(rng: Draws, n: int, k: int) -> list[int] | None:
    """``rng.sample(range(n), k)`` in the C module (``perturber._native.sample_indices``), or None
    without it (or past its range; the Python paths then draw the same indices).

    >>> _sample_natively(Draws(3), 10, 4) in ([3, 9, 4, 5], None)
    True
    """
    c = native.c
    if c is None or n > _NATIVE_SAMPLE_MAX:
        return None
    return draw_natively(rng, c.sample_indices, n, k)


_NATIVE_SAMPLE_MAX = 1 << 28  # the C sample keeps 4 bytes per index of the range


def _sample_small(rng: Draws, pool: list, n: int, k: int) -> list:
    """``Draws.sample`` of ``pool`` (``n < 256`` items): a draw below ``m <= 255`` reads only its
    word's top bits, so the draws of a run of words come from one copy of their top bytes and a
    ``bytes.translate`` (small ints, no int object per word); the same words are consumed.

    >>> _sample_small(Draws(3), list("abcdef"), 6, 3) == Draws(3).sample("abcdef", 3)
    True
    """
    out: list = []
    append = out.append
    buf = rng._buf
    if buf is None:
        buf = rng._refill()
    pos = rng._pos
    j = 0
    while j < k:
        bits = (n - j).bit_length()  # constant over draws j .. end - 1, like their shift
        end = min(k, n - (1 << (bits - 1)) + 1)
        below = n - j  # draw j is accepted when below this, then is offset by j
        used = 0
        for draw in buf[pos:].tobytes()[_TOP_BYTE::4].translate(_TOP_DRAWS[bits]):
            used += 1
            if draw < below:
                r = draw + j
                append(pool[r])
                pool[r] = pool[j]  # the swap; position j is never read again
                j += 1
                if j == end:
                    break
                below -= 1
        pos += used
        if j < end:  # the batch ran out inside draw j: its rejected words are spent
            buf = rng._refill(2 * (k - j))
            pos = 0
    rng._pos = pos
    return out


def _sample_sparse(rng: Draws, n: int, k: int) -> list[int]:
    """``rng.sample(range(n), k)`` for a few ``k`` out of many ``n``: the same draws and swaps,
    with the pool kept as the positions where it differs from ``range(n)``.

    >>> _sample_sparse(Draws(4), 1000, 3) == Draws(4).sample(range(1000), 3)
    True
    """
    moved: dict[int, int] = {}
    out = []
    below = rng.below
    for i in range(k):
        j = i + below(n - i)
        out.append(moved.get(j, j))
        moved[j] = moved.get(i, i)
    return out


def draw_natively(rng: Draws, fn: Callable[..., tuple[T, int]], *args) -> T | None:
    """``fn(*args, words, pos, refill)``, a C function (``perturber._native``) that makes
    ``Draws.below`` draws from the batch ``words`` of ``rng`` from index ``pos`` on (calling
    ``refill()`` for the next batch when one is used up), with ``rng`` moved past the words it
    read; None when ``rng`` is not a :class:`Draws` (the caller then draws in Python).

    >>> draw_natively(Draws(0), lambda words, pos, refill: (words[pos] >> 31, pos + 1)) == Draws(0).below(2)
    True
    """
    if type(rng) is not Draws:
        return None
    buf = rng._buf
    if buf is None or rng._pos == len(buf):
        buf = rng._refill()
    out, rng._pos = fn(*args, buf, rng._pos, rng._refill)
    return out


def below_many(rng: Draws, n: int, k: int) -> list[int]:
    """``[rng.below(n) for _ in range(k)]``, the same words consumed, in a few C-level passes.

    >>> a, b = Draws(5), Draws(5)
    >>> below_many(a, 3, 6) == [b.below(3) for _ in range(6)] and a.below(9) == b.below(9)
    True
    """
    bits = n.bit_length()
    if k <= 0 or bits > 32 or type(rng) is not Draws:
        return [rng.below(n) for _ in range(k)]
    if bits <= 8 and k >= _BYTES_FROM:
        return _below_many_bytes(rng, n, k)
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


_BYTES_FROM = 8  # from about this many draws on, the byte-table path is faster (measured)


# The offset of a word's most significant byte in its native bytes (``array.tobytes``).
_TOP_BYTE = 3 if sys.byteorder == "little" else 0


@per_value(256)
def _top_tables(n: int) -> tuple[bytes, bytes, bytes]:
    """For ``n < 256``, by a word's top byte ``t``: the draw ``t >> (8 - bits)`` (a draw of
    ``below(n)`` only needs the top ``bits <= 8`` bits of a word), the bytes whose draw is
    rejected (``>= n``), and 1 for an accepted byte, 0 for a rejected one."""
    s = 8 - n.bit_length()
    draws = [t >> s for t in range(256)]
    values = bytes(d if d < n else 0 for d in draws)
    rejected = bytes(t for t in range(256) if draws[t] >= n)
    accepted = bytes(d < n for d in draws)
    return values, rejected, accepted


def _below_many_bytes(rng: Draws, n: int, k: int) -> list[int]:
    """:func:`below_many` for ``n < 256``: the top bytes of a run of words (every fourth of their
    native bytes, in one copy), their accepted draws by ``bytes.translate`` (rejected bytes deleted),
    and the number of words used up to the ``k``-th accepted one by ``bytes.split``."""
    values, rejected, accepted = _top_tables(n)
    buf = rng._buf
    if buf is None:
        buf = rng._refill()
    pos = rng._pos
    out = bytearray()
    need = k
    while need:
        if pos == len(buf):
            buf = rng._refill()
            pos = 0
        chunk = buf[pos : pos + 2 * need + 32]  # accepted with probability > 1/2 each
        m = len(chunk)
        top = chunk.tobytes()[_TOP_BYTE::4]
        got = top.translate(values, rejected)
        if len(got) >= need:
            rest = top.translate(accepted).split(b"\x01", need)[-1]  # after the need-th accepted
            pos += m - len(rest)
            out += got[:need]
            need = 0
        else:
            pos += m
            out += got
            need -= len(got)
    rng._pos = pos
    return list(out)


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


def chosen(n: int, rng: Draws, *, rate: float | None = None, count: int | None = None) -> Sequence[int]:
    """The indices ``select`` chooses out of ``n`` candidates, with the same draws, in draw
    order (``range(k)`` when it draws nothing: none or all are chosen).

    >>> chosen(4, Draws(0), count=2), chosen(3, Draws(0), count=5)
    ([3, 2], range(0, 3))
    """
    k = quota(n, rate=rate, count=count)
    if k == 0 or k == n:
        return range(k)
    if k == 1:  # the first draw of a sample of the range, without its set-up
        return [rng.below(n)]
    if rng._buf is None and type(rng) is Draws:
        return _first_sample(rng, n, k)
    return rng.sample_range(n, k)


def _first_sample(rng: Draws, n: int, k: int) -> list[int]:
    """``rng.sample_range(n, k)`` as the first draws of a new ``Draws``, memoised by
    ``(seed, n, k)`` with the stream index its draws stop at, for a recurring seed (a study draws
    the same counts out of the same sizes on text after text): a hit positions ``rng`` after
    those words, as the draws would have.

    >>> a, b = Draws(11), Draws(11)
    >>> _first_sample(a, 40, 3) == b.sample_range(40, 3) and a.below(1000) == b.below(1000)
    True
    """
    key = (rng.seed, n, k)
    got = _FIRST_SAMPLES.data.get(key)
    if got is not None:
        out, used = got
        rng._start_at(used)
        return out.tolist()
    drawn = rng.sample_range(n, k)
    # kept when its words came from the seed's cached words (its first batch and the tail after
    # it: a seed seen before), and it has at most _CACHED_WORDS indices
    if rng._gen is None and k <= _CACHED_WORDS and n <= 0xFFFFFFFF:
        _FIRST_SAMPLES.put(key, (array(_WORD_CODE, drawn), rng._index()), 1)
    return drawn


# The first samples of recurring seeds, by (seed, n, k): at most _CACHED_WORDS indices as 4-byte
# ints (an array) and a count each, so at most about 4096 * 600 bytes.
_FIRST_SAMPLES = Memo("perturber.rng.first_samples", 1, 4096, sized=False)


def select(candidates: Sequence, rng: Draws, *, rate: float | None = None, count: int | None = None) -> list:
    """Choose candidates by the rate or count rule, returned in ascending text order.

    >>> select(["a", "b", "c", "d"], Draws(0), count=2)
    ['c', 'd']
    """
    idx = chosen(len(candidates), rng, rate=rate, count=count)
    if type(idx) is range:
        return list(candidates) if idx else []
    return list(pick(candidates, sorted(idx)))


def pick(seq: Sequence[T], indices: Sequence[int]) -> Sequence[T]:
    """``[seq[i] for i in indices]`` as a sequence, in one C call.

    >>> pick("abcd", [3, 0]), pick("abcd", [1]), pick("abcd", [])
    (('d', 'a'), ['b'], [])
    """
    if len(indices) > 1:
        return itemgetter(*indices)(seq)
    return [seq[i] for i in indices]


_SHARED_INTS = 16384


@loaded_once
def _shared_ints() -> tuple[int, ...]:
    """The ints ``0 … 16383``, made once: a slice of them copies existing ints, much faster
    than a range makes new ones (``Draws.sample`` copies its pool; ``bits.positions`` selects
    from it)."""
    return tuple(range(_SHARED_INTS))


def positions(n: int, start: int = 0) -> Sequence[int]:
    """``range(start, n)``, as a tuple of shared ints up to 16384.

    >>> positions(3), positions(5, 3), positions(20000)
    ((0, 1, 2), (3, 4), range(0, 20000))
    """
    return _shared_ints()[start:n] if n <= _SHARED_INTS else range(start, n)


PERM_TRIES = 10  # draws of P(m) before the rotation fallback (docs/spec/catalog.md §8)


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
