"""Packaged data tables (CATALOG.md Appendix A), one JSON file per table.

``load_table(name)`` reads ``<name>.json`` from this package once and caches it.  Lists come back
as tuples and objects as read-only mappings, so the shared cached value cannot be mutated; they
keep the order printed in the catalog.  No other I/O happens here.

>>> load_table("a13_abbreviations")["abbreviations"][:3]
('mr', 'mrs', 'ms')
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from types import MappingProxyType

__all__ = ["load_table"]


def _freeze(obj):
    if isinstance(obj, list):
        return tuple(_freeze(x) for x in obj)
    if isinstance(obj, dict):
        return MappingProxyType({k: _freeze(v) for k, v in obj.items()})
    return obj


@lru_cache(maxsize=None)
def load_table(name: str) -> object:
    """Load the packaged table ``name`` (with or without the ``.json`` suffix)."""
    if not name.endswith(".json"):
        name += ".json"
    raw = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    return _freeze(json.loads(raw))
