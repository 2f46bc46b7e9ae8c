"""Severity levels L1-L5 from the measured magnitude, by family-specific bands, and the grids a
ladder scans over each entry's intensity parameter.

A band set is five increasing upper edges: level k holds magnitudes in (edge[k-1], edge[k]]
(edge[0] = 0); magnitude 0 is L0 (unchanged), above the last edge is L5.

>>> level_for(0.05, "Input Quality")
2
>>> level_for(0.0501, "Input Quality")
3
>>> level_for(0.0, "Input Quality")
0
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ..errors import InvalidParams

LEVELS = (1, 2, 3, 4, 5)

# Default magnitude bands (upper edges of L1..L5), ours, tuned on examples/word_problems.jsonl so
# that the scalable entries of each family reach most levels. Configurable (``load_bands``).
DEFAULT_BANDS: dict[str, tuple[float, ...]] = {
    "default": (0.02, 0.05, 0.10, 0.20, 1.0),
    "Input Quality": (0.02, 0.05, 0.10, 0.20, 1.0),
    "Semantic Variation": (0.15, 0.30, 0.45, 0.60, 1.0),
    "Structural/Format": (0.01, 0.03, 0.08, 0.15, 1.0),
    "Context Interference": (0.30, 0.50, 0.65, 0.80, 1.0),
    "Context Load": (0.50, 0.67, 0.75, 0.83, 1.0),
    "character": (0.02, 0.05, 0.10, 0.20, 1.0),
    "word_level": (0.02, 0.05, 0.10, 0.20, 1.0),
    "formatting": (0.01, 0.03, 0.08, 0.15, 1.0),
    "padding": (0.05, 0.15, 0.30, 0.50, 1.0),
    "context": (0.30, 0.50, 0.65, 0.80, 1.0),
    "structure": (0.01, 0.03, 0.08, 0.15, 1.0),
    "paraphrasing": (0.15, 0.30, 0.45, 0.60, 1.0),
}

# The `ratio` level rule (entry_facts): the achieved expansion ratio len(out)/len(in), upper edges.
RATIO_BANDS = (2.0, 3.0, 4.5, 6.0, 8.0)

# Intensity grids a ladder scans, by intensity parameter name (clipped to the entry's range).
GRIDS: dict[str, tuple[float, ...]] = {
    "rate": (0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0),
    "count": (1, 2, 3, 4, 6, 8, 10, 15, 20, 30),
    "ratio": (1.5, 2.5, 3.75, 5.25, 7.0),  # mid-band: the achieved ratio must stay in band
    "n": (1, 2, 4, 8, 16, 32, 64),
    "width": (80, 60, 40, 30, 20, 15, 10),
    "days": (1, 7, 30, 365, 3650),
    "tier": (1, 2, 3, 4, 5),
}


def level_from_edges(value: float | None, edges: tuple[float, ...]) -> int | None:
    """The level of ``value`` for upper edges ``edges`` (None stays None).

    >>> level_from_edges(2.0, RATIO_BANDS), level_from_edges(2.01, RATIO_BANDS)
    (1, 2)
    """
    if value is None:
        return None
    if value <= 0:
        return 0
    for k, edge in enumerate(edges, 1):
        if value <= edge + 1e-12:
            return k
    return 5


def level_for(magnitude: float | None, family: str, bands: dict | None = None) -> int | None:
    """The measured level of a magnitude for a (graded or catalog) family."""
    table = bands or DEFAULT_BANDS
    edges = table.get(family) or table.get("default") or DEFAULT_BANDS["default"]
    return level_from_edges(magnitude, tuple(edges))


def load_bands(path: str | Path | None) -> dict[str, tuple[float, ...]]:
    """Default bands, overridden by a JSON or TOML file ``{family: [e1, e2, e3, e4, e5]}``."""
    bands = dict(DEFAULT_BANDS)
    if path is None:
        return bands
    path = Path(path)
    try:
        raw = path.read_bytes()
        if path.suffix.lower() == ".toml":
            import tomllib

            data = tomllib.loads(raw.decode("utf-8"))
        else:
            data = json.loads(raw)
    except (OSError, ValueError) as err:
        raise InvalidParams(f"cannot read bands from {path}: {err}", field="bands") from None
    data = data.get("bands", data) if isinstance(data, dict) else data
    if not isinstance(data, dict):
        raise InvalidParams(f"{path}: expected a table of family = [5 upper edges]", field="bands")
    for family, edges in data.items():
        ok = (
            isinstance(edges, list)
            and len(edges) == 5
            and all(isinstance(e, (int, float)) and not isinstance(e, bool) for e in edges)
            and edges[0] > 0
            and all(a < b for a, b in zip(edges, edges[1:]))
        )
        if not ok:
            raise InvalidParams(
                f"{path}: bands of {family!r} must be 5 increasing numbers > 0, got {edges!r}", field="bands"
            )
        bands[family] = tuple(float(e) for e in edges)
    return bands


def grid_for(entry: dict) -> list[dict]:
    """Parameter variants a ladder tries for ``entry`` (``[{}]`` when it has no intensity)."""
    name = entry.get("intensity")
    param = next((p for p in entry.get("params", []) if p["name"] == name), None)
    if param is None:
        return [{}]
    lo, hi = param.get("minimum"), param.get("maximum")
    values = []
    for v in GRIDS.get(param["name"], ()):  # == name
        if param["type"] == "int":
            v = int(v)
        if (lo is None or v >= lo) and (hi is None or v <= hi) and v not in values:
            values.append(v)
    if not values and param.get("choices"):
        values = list(param["choices"])
    if param["type"] == "float":
        values = [float(v) for v in values if not (lo == 0 and v == 0)]
    return [{name: v} for v in values] or [{}]


def is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
