"""The REPORT lines Lambda writes at the end of each invocation (in the log tail of an invoke
with ``LogType="Tail"``): durations, memory, INIT and SnapStart restore.

>>> parse_report("REPORT RequestId: r\tDuration: 2.50 ms\tBilled Duration: 3 ms\t")["billed_ms"]
3.0
"""

from __future__ import annotations

import re

_REPORT_FIELDS = {
    "Duration": "duration_ms",
    "Billed Duration": "billed_ms",
    "Memory Size": "memory_mb",
    "Max Memory Used": "max_memory_mb",
    "Init Duration": "init_ms",
    "Restore Duration": "restore_ms",
    "Billed Restore Duration": "billed_restore_ms",
}
_FIELD_RE = re.compile(
    r"(Billed Restore Duration|Restore Duration|Billed Duration|Init Duration|"
    r"Max Memory Used|Memory Size|Duration): ([0-9.]+) (ms|MB)"
)


def parse_report(line: str) -> dict | None:
    """``REPORT RequestId: ... Duration: 12.34 ms ...`` -> dict (None for other lines)."""
    line = line.strip()
    if not line.startswith("REPORT "):
        return None
    found = re.search(r"RequestId: (\S+)", line)
    report: dict = {"request_id": found.group(1) if found else None, "init_ms": None}
    for name, value, _unit in _FIELD_RE.findall(line):
        report[_REPORT_FIELDS[name]] = float(value)
    if "duration_ms" not in report or "billed_ms" not in report:
        return None
    return report


def parse_log_tail(text: str) -> list[dict]:
    return [r for r in (parse_report(line) for line in text.splitlines()) if r is not None]


def trimmed_mean(values, discard: float = 0.2) -> float:
    """Mean after dropping ``floor(n * discard)`` values at each end (Lambda Power Tuning)."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("no values")
    k = int(len(ordered) * discard)
    kept = ordered[k : len(ordered) - k] or ordered
    return sum(kept) / len(kept)
