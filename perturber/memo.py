"""Every memo of the package, in one registry with one memory bound; and tables loaded once.

A *memo* keeps the results of a pure function by key: a text (``per_text``), a word
(``per_word``) or a small value such as a seed or a count (``per_value``), optionally with more
hashable arguments (parameters). Each memo

* skips keys longer than its limit: a 20,000-letter "word" is computed on every call, never kept;
* evicts its oldest entries once the total size of its keys (characters; 1 per small value) passes
  its budget.

So what a memo holds is bounded by its budget times what one key character costs in its values,
whatever the callers send; docs/performance.md gives the figures. ``clear_caches()`` empties every
memo. A hit is one dictionary look-up, without a lock; a miss that stores takes the memo's own lock.

Tables loaded once (``loaded_once``: data files parsed into look-up structures) are not memos:
their size is fixed by the package's data, they are never evicted and ``clear_caches`` keeps them.

>>> @per_text
... def vowels(text):
...     return sum(map(text.count, "aeiou"))
>>> vowels("banana"), vowels("banana"), len(vowels.memo.data), vowels.memo.size
(3, 3, 1, 6)
>>> clear_caches(); len(vowels.memo.data), vowels.memo.size
(0, 0)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from functools import cache, wraps
from typing import Any, TypeVar

__all__ = [
    "TEXT_BUDGET",
    "TEXT_MAX_CHARS",
    "WORD_BUDGET",
    "WORD_MAX_CHARS",
    "Memo",
    "clear_caches",
    "loaded_once",
    "memo_usage",
    "per_text",
    "per_value",
    "per_word",
]

#: Texts up to this many code points are memoised; longer ones are computed on every call.
TEXT_MAX_CHARS = 4096
#: Characters of text one per-text memo keeps (its oldest texts go first).
TEXT_BUDGET = 1 << 15
#: Words up to this many code points are memoised (no dictionary word is longer).
WORD_MAX_CHARS = 40
#: Characters of words one per-word memo keeps (about 3,000 words of ordinary length).
WORD_BUDGET = 1 << 16

T = TypeVar("T")
_MISS = object()
_MEMOS: list[Memo] = []


class Memo:
    """The store of one memoised function: key -> value in insertion order, the total size of
    the keys, and the lock that writers take."""

    __slots__ = ("name", "max_size", "budget", "sized", "data", "size", "_lock")

    def __init__(self, name: str, max_size: int, budget: int, sized: bool) -> None:
        self.name = name
        self.max_size = max_size  # a key larger than this is never stored
        self.budget = budget  # the keys stored add up to at most this much
        self.sized = sized  # a key's size is the length of its text or word, else 1
        self.data: dict[Hashable, Any] = {}
        self.size = 0
        self._lock = threading.Lock()
        _MEMOS.append(self)

    def put(self, key: Hashable, value: Any, size: int) -> None:
        """Store ``value`` for ``key`` (of ``size``) unless it is too large, then evict the oldest
        entries until the keys fit the budget."""
        if size > self.max_size:
            return
        with self._lock:
            data = self.data
            if key in data:
                return
            data[key] = value
            self.size += size
            while self.size > self.budget:
                oldest = next(iter(data))
                del data[oldest]
                self.size -= self.key_size(oldest)

    def replace(self, key: Hashable, value: Any) -> None:
        """Store ``value`` for a ``key`` already held (a longer result of the same kind)."""
        with self._lock:
            if key in self.data:
                self.data[key] = value

    def key_size(self, key: Hashable) -> int:
        """The size ``put`` counted for a stored key: the length of its text or word (the first
        item of a ``(text, *arguments)`` key) when sized, else 1."""
        if not self.sized:
            return 1
        return len(key[0] if type(key) is tuple else key)  # type: ignore[arg-type]

    def clear(self) -> None:
        with self._lock:
            self.data.clear()
            self.size = 0


def _memoised(fn: Callable[..., T], max_size: int, budget: int, sized: bool) -> Callable[..., T]:
    """``fn(key, *arguments)`` memoised in a new registered ``Memo``; ``sized``: the key's size
    is its length (a text or word), else 1 (a small value)."""
    memo = Memo(f"{fn.__module__}.{fn.__qualname__}", max_size, budget, sized)
    get = memo.data.get
    put = memo.put
    wrapper: Callable[..., T]
    if fn.__code__.co_argcount == 1:  # the common case, without packing arguments

        def wrapper(key: Any) -> Any:
            got = get(key, _MISS)
            if got is _MISS:
                got = fn(key)
                put(key, got, len(key) if sized else 1)
            return got

    else:

        def wrapper(*args: Any) -> Any:  # the key is the tuple of arguments
            got = get(args, _MISS)
            if got is _MISS:
                got = fn(*args)
                put(args, got, len(args[0]) if sized else 1)
            return got

    wrapper = wraps(fn)(wrapper)
    wrapper.memo = memo  # type: ignore[attr-defined]
    return wrapper


def per_text(fn: Callable[..., T]) -> Callable[..., T]:
    """Memoise ``fn(text, *arguments)`` for texts up to ``TEXT_MAX_CHARS``, at most
    ``TEXT_BUDGET`` characters of them. ``fn`` must be pure and return an immutable value
    (tuples, not lists): every caller shares it.

    >>> @per_text
    ... def letters(text, letter):
    ...     return text.count(letter)
    >>> letters("banana", "a"), letters("a" * 5000, "a")
    (3, 5000)
    """
    return _memoised(fn, TEXT_MAX_CHARS, TEXT_BUDGET, sized=True)


def per_word(fn: Callable[..., T]) -> Callable[..., T]:
    """Memoise ``fn(word, *arguments)`` for words up to ``WORD_MAX_CHARS``, at most
    ``WORD_BUDGET`` characters of them (the rules of ``per_text``).

    >>> @per_word
    ... def first(word):
    ...     return word[:1]
    >>> first("cat")
    'c'
    """
    return _memoised(fn, WORD_MAX_CHARS, WORD_BUDGET, sized=True)


def per_value(entries: int) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Memoise ``fn(value, *arguments)`` of small hashable values (a count, a seed), at most
    ``entries`` of them.

    >>> @per_value(16)
    ... def square(n):
    ...     return n * n
    >>> square(12)
    144
    """
    return lambda fn: _memoised(fn, 1, entries, sized=False)


def clear_caches() -> None:
    """Empty every memo of the package (results do not change: they are recomputed on demand).
    Tables loaded once are kept.

    >>> import perturber
    >>> perturber.clear_caches()
    """
    for memo in _MEMOS:
        memo.clear()


def memo_usage() -> dict[str, tuple[int, int, int]]:
    """Per memo (by the memoised function's module and name): ``(entries, size of the keys
    held, budget)``."""
    return {m.name: (len(m.data), m.size, m.budget) for m in _MEMOS}


def loaded_once(load: Callable[[], T]) -> Callable[[], T]:
    """``load()`` run once, on the first call, even when threads call it together (a data table
    parsed into look-up structures: built once, kept for the life of the process).

    >>> table = loaded_once(lambda: {"a": 1})
    >>> table() is table()
    True
    """
    lock = threading.Lock()
    box: list[T] = []

    def locked() -> T:  # the first call of each thread that races to load
        with lock:
            if not box:
                box.append(load())
        return box[0]

    return wraps(load, updated=())(cache(locked))  # later calls: one C-level look-up
