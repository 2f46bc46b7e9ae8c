"""Batched draws, insertions and token look-ups for the word-level entries (hot paths).

``below_many(rng, n, k)`` is ``[rng.below(n) for _ in range(k)]`` (CATALOG.md §1.4: rejection
on ``getrandbits(n.bit_length())``) without a method call per draw: one local loop over the
buffered words of the stream for a few draws, the words' top bytes through ``bytes.translate``
for many draws of a small range. ``insert_at`` inserts strings at ascending offsets, and
``token_indices`` finds the tokens whose lower-cased text is in a table, in C-level passes.
tests/test_perf_word.py compares each with the straightforward code.

>>> from perturber.rng import Draws
>>> rng = Draws(3)
>>> below_many(Draws(3), 4, 5) == [rng.below(4) for _ in range(5)]
True
>>> insert_at("abcde", [2], ["!"])
'ab!cde'
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Sequence
from itertools import compress
from operator import itemgetter
from struct import Struct

from ...rng import Draws

__all__ = ["below_many", "insert_at", "token_indices"]


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


_BYTES_FROM = 48  # from about this many draws on, the byte-table path is faster (measured)
_TOP_TABLES: dict[int, tuple[bytes, bytes, bytes]] = {}
_PACKERS: dict[int, Struct] = {}


def _top_tables(n: int) -> tuple[bytes, bytes, bytes]:
    """For ``n < 256``, by a word's top byte ``t``: the draw ``t >> (8 - bits)`` (a draw of
    ``below(n)`` only needs the top ``bits <= 8`` bits of a word), the bytes whose draw is
    rejected (``>= n``), and 1 for an accepted byte, 0 for a rejected one."""
    got = _TOP_TABLES.get(n)
    if got is None:
        s = 8 - n.bit_length()
        draws = [t >> s for t in range(256)]
        values = bytes(d if d < n else 0 for d in draws)
        rejected = bytes(t for t in range(256) if draws[t] >= n)
        accepted = bytes(d < n for d in draws)
        got = _TOP_TABLES[n] = (values, rejected, accepted)
    return got


def _below_many_bytes(rng: Draws, n: int, k: int) -> list[int]:
    """:func:`below_many` for ``n < 256``: the top bytes of a run of words (packed big-endian,
    every fourth byte), their accepted draws by ``bytes.translate`` (rejected bytes deleted),
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
        pack = _PACKERS.get(m)
        if pack is None:
            pack = _PACKERS[m] = Struct(f">{m}I")
        top = pack.pack(*chunk)[::4]
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
