"""Packaged data tables (docs/spec/catalog.md Appendix A), one JSON file per table.

``load_table(name)`` reads ``<name>.json`` from this package once and keeps it (a table loaded
once, not a memo: ``perturber.clear_caches`` keeps it).  Lists come back
as tuples and objects as read-only mappings, so the shared cached value cannot be mutated; they
keep the order printed in the catalog.  No other I/O happens here.

>>> load_table("a13_abbreviations")["abbreviations"][:3]
('mr', 'mrs', 'ms')
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from itertools import cycle, islice
from types import MappingProxyType
from typing import Any

from ..memo import per_value

__all__ = ["filler_run", "load_table", "table_digests", "write_sums"]


def _freeze(obj):
    if isinstance(obj, list):
        return tuple(_freeze(x) for x in obj)
    if isinstance(obj, dict):
        return MappingProxyType({k: _freeze(v) for k, v in obj.items()})
    return obj


@cache
def load_table(name: str) -> Any:
    """Load the packaged table ``name`` (with or without the ``.json`` suffix)."""
    if not name.endswith(".json"):
        name += ".json"
    raw = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    return _freeze(json.loads(raw))


@cache
def unit_symbols() -> frozenset[str]:
    """Every unit symbol of Table A09 (``km``, ``kg``, ...).

    >>> "km" in unit_symbols()
    True
    """
    return frozenset(s for row in load_table("a09_units")["rows"] for s in row["symbols"])


@per_value(64)
def filler_run(count: int) -> tuple[str, ...]:
    """The first ``count`` sentences of filler bank B2, cyclically from index 0 (§11.4, §15.6).

    >>> run = filler_run(3); bank = load_table("b02_filler")["sentences"]
    >>> run == bank[:3], filler_run(len(bank) + 1)[-1] == bank[0]
    (True, True)
    """
    return tuple(islice(cycle(load_table("b02_filler")["sentences"]), count))


def table_digests() -> dict[str, str]:
    """sha256 of every packaged table file, by file name (sorted)."""
    import hashlib

    root = resources.files(__package__)
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.iterdir(), key=lambda p: p.name)
        if p.name.endswith(".json")
    }


def write_sums() -> str:
    """Rewrite ``SHA256SUMS`` (``python -m perturber.data``); returns its path."""
    path = resources.files(__package__).joinpath("SHA256SUMS")
    lines = "".join(f"{digest}  {name}\n" for name, digest in table_digests().items())
    with resources.as_file(path) as real:
        real.write_text(lines, encoding="utf-8")
        return str(real)
