"""Records in and out: streamed reading of eval sets (JSONL, CSV, Parquet), crash-safe JSONL
writing, and a progress bar; shared by the harness and `perturber batch`.

>>> import io as _io, json
>>> buf = _io.StringIO('{"id": 1, "q": "2+2?"}\\n\\n{"id": 2, "q": "3+3?"}\\n')
>>> [r["q"] for r in iter_jsonl(buf, "<buf>")]
['2+2?', '3+3?']
"""

from __future__ import annotations

import csv
import json
import os
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from .errors import InvalidParams, ResourceUnavailable


def dumps(obj: Any) -> str:
    """The one JSON line format: sorted keys, UTF-8, compact (byte-stable)."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def iter_jsonl(fh, name: str) -> Iterator[dict]:
    for lineno, line in enumerate(fh, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise InvalidParams(f"{name}:{lineno}: not JSON ({err.msg})", line=lineno) from None
        if not isinstance(record, dict):
            raise InvalidParams(f"{name}:{lineno}: expected a JSON object", line=lineno)
        yield record


def _iter_parquet(path: str, batch_size: int = 4096) -> Iterator[dict]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ResourceUnavailable(
            "reading Parquet needs pyarrow: pip install 'perturber[parquet]'", extra="parquet"
        ) from None
    pf = pq.ParquetFile(path)
    for batch in pf.iter_batches(batch_size=batch_size):
        yield from batch.to_pylist()


def read_records(path: str | os.PathLike) -> Iterator[dict]:
    """Stream the records of a ``.jsonl``/``.json``, ``.csv`` or ``.parquet`` file (bounded memory)."""
    path = str(path)
    suffix = Path(path).suffix.lower()
    try:
        if suffix == ".parquet":
            yield from _iter_parquet(path)
            return
        with open(path, encoding="utf-8", newline="") as fh:
            if suffix == ".csv":
                yield from csv.DictReader(fh)
            else:
                yield from iter_jsonl(fh, path)
    except FileNotFoundError:
        raise InvalidParams(f"no such file: {path}", field="input") from None
    except (OSError, UnicodeDecodeError, csv.Error) as err:
        raise InvalidParams(f"cannot read {path}: {err}", field="input") from None


class AtomicJsonl:
    """Write JSON lines to ``path.tmp-PID`` and move it into place on success (never half a file).

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "x.jsonl")
    >>> with AtomicJsonl(p) as out:
    ...     out.write({"b": 1, "a": "é"})
    >>> open(p, encoding="utf-8").read()
    '{"a":"é","b":1}\\n'
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = str(path)
        self.tmp = f"{self.path}.tmp-{os.getpid()}"
        self.count = 0
        self._fh: IO[str] | None = None

    def __enter__(self) -> AtomicJsonl:
        try:
            self._fh = open(self.tmp, "w", encoding="utf-8", newline="\n")
        except OSError as err:
            raise InvalidParams(f"cannot write {self.path}: {err}", field="output") from None
        return self

    def write(self, obj: Any) -> None:
        assert self._fh is not None, "write() outside the with block"
        self._fh.write(dumps(obj) + "\n")
        self.count += 1

    def __exit__(self, exc_type, exc, tb) -> None:
        assert self._fh is not None
        self._fh.close()
        if exc_type is None:
            os.replace(self.tmp, self.path)
        else:
            os.unlink(self.tmp)


def read_log(path: str | os.PathLike) -> tuple[list[dict], int | None]:
    """The whole lines of an append-only JSONL log (none when it does not exist), and where a torn
    last line starts (None when there is none); the file is not changed.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "r.jsonl")
    >>> _ = open(p, "w").write('{"k":1}\\n{"k":')
    >>> read_log(p)
    ([{'k': 1}], 8)
    """
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        return [], None
    except OSError as err:
        raise InvalidParams(f"cannot read {path}: {err}", field="output") from None
    end = data.rfind(b"\n") + 1
    records = []
    for line in data[:end].decode("utf-8", "replace").splitlines():
        if line.strip():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return records, None if end == len(data) else end


class AppendLog:
    """An append-only JSONL log that survives interruption: every record is one ``write`` of a
    whole line, flushed; on open, a torn last line (no newline) is cut off.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "r.jsonl")
    >>> _ = open(p, "w").write('{"k":1}\\n{"k":')
    >>> log = AppendLog(p); [r["k"] for r in log.existing]
    [1]
    >>> log.append({"k": 2}); log.close(); open(p).read()
    '{"k":1}\\n{"k":2}\\n'
    """

    def __init__(self, path: str | os.PathLike, fsync: bool = False) -> None:
        self.path, self.fsync = str(path), fsync
        self.existing, end = read_log(self.path)
        if end is not None:
            with open(self.path, "r+b") as fh:
                fh.truncate(end)
        try:
            self._fh = open(self.path, "a", encoding="utf-8", newline="\n")
        except OSError as err:
            raise InvalidParams(f"cannot write {self.path}: {err}", field="output") from None

    def append(self, obj: Any) -> None:
        self._fh.write(dumps(obj) + "\n")
        self._fh.flush()
        if self.fsync:
            os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()


def write_jsonl(path: str | os.PathLike, records: Iterable[dict]) -> int:
    """Atomically write ``records``; returns how many were written."""
    with AtomicJsonl(path) as out:
        for record in records:
            out.write(record)
    return out.count


class Progress:
    """A progress bar with rate and ETA on stderr (only when enabled).

    >>> import io as _io
    >>> buf = _io.StringIO(); bar = Progress(2, True, stream=buf); bar.update(); bar.update()
    >>> buf.getvalue().rsplit("\\r", 1)[-1].startswith("[" + "#" * 30 + "] 2/2 ")
    True
    """

    def __init__(self, total: int, enabled: bool, stream=None) -> None:
        self.total, self.enabled, self.done = total, enabled, 0
        self.start = self.last = time.monotonic()
        self.stream = stream or sys.stderr

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if not self.enabled or (now - self.last < 0.2 and self.done < self.total):
            return
        self.last = now
        rate = self.done / max(now - self.start, 1e-9)
        eta = (self.total - self.done) / rate if rate else 0.0
        frac = min(self.done / self.total, 1.0) if self.total else 1.0
        self.stream.write(
            f"\r[{'#' * int(30 * frac):<30}] {self.done}/{self.total} {rate:,.1f}/s ETA {eta:,.0f}s"
        )
        if self.done >= self.total:
            self.stream.write("\n")
        self.stream.flush()
