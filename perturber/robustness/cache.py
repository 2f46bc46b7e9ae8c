"""Replies by request: a persistent, content-addressed SQLite cache shared across runs and suites,
and a bounded in-memory one for a single run (``--no-cache``).

A request's key is the sha256 of everything that decides the reply: the endpoint, the model, the
system prompt, the sampling parameters, the sample index and the text (:func:`request_key`). Only
well-formed replies are stored (an error is never cached). The SQLite file lives in
:func:`user_cache_dir` (or ``--cache DIR``), in WAL mode with a busy timeout, so several runs may
share it at once; its size is capped (``max_bytes``): past the cap the least recently used replies
are evicted down to 90 % of it.

>>> import tempfile
>>> cache = ReplyCache(tempfile.mkdtemp(), max_bytes=10_000)
>>> key = request_key({"model": "m", "temperature": 0.0}, 0, "2+2?")
>>> cache.get(key) is None
True
>>> cache.put(key, "#### 4", {"prompt_tokens": 3, "completion_tokens": 2})
>>> cache.get(key)
('#### 4', {'completion_tokens': 2, 'prompt_tokens': 3})
>>> cache.close()
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
import time
from collections import OrderedDict
from pathlib import Path

from ..errors import InvalidParams

DEFAULT_MAX_BYTES = 512 * 1024 * 1024
MEMORY_ENTRIES = 100_000  # replies a single run remembers without the persistent cache
_EVICT_TO = 0.9
_CHECK_EVERY = 256  # puts between two size checks
FILE_NAME = "replies.sqlite3"


def user_cache_dir(environ: dict | None = None, platform: str = sys.platform) -> Path:
    """Where the reply cache lives: the platform's user cache directory (``$XDG_CACHE_HOME`` or
    ``~/.cache`` on Linux, ``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows) +
    ``perturber``.

    >>> str(user_cache_dir({"XDG_CACHE_HOME": "/x", "HOME": "/h"}, "linux"))
    '/x/perturber'
    >>> str(user_cache_dir({"HOME": "/h"}, "darwin"))
    '/h/Library/Caches/perturber'
    """
    env = os.environ if environ is None else environ
    home = Path(env.get("HOME") or Path.home())
    if platform == "darwin":
        return home / "Library" / "Caches" / "perturber"
    if platform.startswith("win"):
        return Path(env.get("LOCALAPPDATA") or home / "AppData" / "Local") / "perturber" / "Cache"
    return Path(env.get("XDG_CACHE_HOME") or home / ".cache") / "perturber"


def request_key(request: dict, sample: int, text: str) -> str:
    """The content address of one request: ``request`` holds what is fixed for a run (endpoint,
    model, system prompt, sampling parameters), ``sample`` the sample index, ``text`` the input.

    >>> a = request_key({"model": "m"}, 0, "hi")
    >>> a == request_key({"model": "m"}, 0, "hi"), a == request_key({"model": "m"}, 1, "hi")
    (True, False)
    """
    payload = json.dumps([request, sample, text], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class MemoryCache:
    """The replies of one run, at most ``entries`` of them (least recently used go first).

    >>> m = MemoryCache(entries=1); m.put("a", "x", {}); m.put("b", "y", {})
    >>> m.get("a"), m.get("b")
    (None, ('y', {}))
    """

    persistent = False

    def __init__(self, entries: int = MEMORY_ENTRIES) -> None:
        self.entries = entries
        self._data: OrderedDict[str, tuple[str, dict]] = OrderedDict()

    def get(self, key: str) -> tuple[str, dict] | None:
        found = self._data.get(key)
        if found is not None:
            self._data.move_to_end(key)
        return found

    def contains(self, key: str) -> bool:
        return key in self._data

    def put(self, key: str, text: str, usage: dict) -> None:
        self._data[key] = (text, usage)
        self._data.move_to_end(key)
        while len(self._data) > self.entries:
            self._data.popitem(last=False)

    def close(self) -> None:
        self._data.clear()


class ReplyCache:
    """The persistent reply cache in ``directory`` (created when missing), at most ``max_bytes``
    of reply text and usage."""

    persistent = True

    def __init__(self, directory: str | os.PathLike, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        if max_bytes < 1:
            raise InvalidParams("--cache-size must be positive", field="cache_size")
        self.path = Path(directory) / FILE_NAME
        self.max_bytes = max_bytes
        self._puts = 0
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, text TEXT NOT NULL, "
                "usage TEXT NOT NULL, bytes INTEGER NOT NULL, used REAL NOT NULL)"
            )
            self._db.execute("CREATE INDEX IF NOT EXISTS replies_used ON replies (used)")
        except (OSError, sqlite3.Error) as err:
            raise InvalidParams(f"cannot open the reply cache {self.path}: {err}", field="cache") from None

    def get(self, key: str) -> tuple[str, dict] | None:
        row = self._db.execute("SELECT text, usage FROM replies WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        self._db.execute("UPDATE replies SET used = ? WHERE key = ?", (time.time(), key))
        return row[0], json.loads(row[1])

    def contains(self, key: str) -> bool:
        return self._db.execute("SELECT 1 FROM replies WHERE key = ?", (key,)).fetchone() is not None

    def put(self, key: str, text: str, usage: dict) -> None:
        encoded = json.dumps(usage, sort_keys=True)
        size = len(text.encode("utf-8")) + len(encoded) + len(key)
        self._db.execute(
            "INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?, ?)", (key, text, encoded, size, time.time())
        )
        self._puts += 1
        if self._puts % _CHECK_EVERY == 1:
            self.evict()

    def size(self) -> int:
        """Bytes of reply text, usage and keys held."""
        return int(self._db.execute("SELECT COALESCE(SUM(bytes), 0) FROM replies").fetchone()[0])

    def evict(self) -> int:
        """Drop the least recently used replies while the cache is over its cap (down to 90 % of
        it); returns how many were dropped."""
        held = self.size()
        if held <= self.max_bytes:
            return 0
        dropped = 0
        target = self.max_bytes * _EVICT_TO
        while held > target:
            oldest = self._db.execute("SELECT key, bytes FROM replies ORDER BY used LIMIT 64").fetchall()
            if not oldest:
                break
            for key, size in oldest:
                if held <= target:
                    break
                self._db.execute("DELETE FROM replies WHERE key = ?", (key,))
                held -= size
                dropped += 1
        return dropped

    def close(self) -> None:
        self.evict()
        self._db.close()


def open_cache(directory: str | os.PathLike | None, enabled: bool, max_bytes: int = DEFAULT_MAX_BYTES):
    """The persistent cache in ``directory`` (default :func:`user_cache_dir`), or a
    :class:`MemoryCache` when ``enabled`` is false."""
    if not enabled:
        return MemoryCache()
    return ReplyCache(directory or user_cache_dir(), max_bytes)
