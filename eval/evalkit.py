"""Shared helpers of the evaluation stages: corpus, JSON regions, statistics, report sections.

Run as part of ``eval/run_all.py``; nothing here is imported by the library.

>>> json_equivalent(json_values('{"a": "some prose here", "n": 1}')[0],
...                 json_values('{"a": "some PROSE here!", "n": 1}')[0])
True
"""

from __future__ import annotations

import json
import pathlib
import statistics

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "eval" / "out"
CORPUS_DIR = ROOT / "eval" / "corpus"


def load_corpus(directory: pathlib.Path | None = None) -> list[dict]:
    """Every corpus item as ``{"id", "kind", "text"}`` (ids ``kind#n``), in a fixed order."""
    directory = directory or CORPUS_DIR
    items = []
    for path in sorted(directory.glob("*.txt")):
        for n, text in enumerate(path.read_text(encoding="utf-8").split("\n%%\n")):
            text = text.strip("\n")
            if text:
                items.append({"id": f"{path.stem}#{n}", "kind": path.stem, "text": text})
    return items


# ---------------------------------------------------------------------------- JSON regions

_DECODER = json.JSONDecoder(object_pairs_hook=lambda pairs: ("object", pairs))


def _has_string(value) -> bool:
    if isinstance(value, str):
        return True
    if isinstance(value, tuple):  # ("object", pairs): member names are strings
        return bool(value[1])
    if isinstance(value, list):
        return any(_has_string(v) for v in value)
    return False


def json_values(text: str) -> list:
    """The JSON regions of ``text`` (docs/spec/catalog.md §1.8 kind 5), decoded, left to right.

    The whole text when it is an object or array; otherwise each maximal segment starting at
    ``{`` or ``[`` that decodes to an object or array holding a member name or string. Objects
    decode to ``("object", [(name, value), ...])`` so order and duplicate names are kept.
    (A straightforward scanner for the evaluation, not the library's O(n) one.)
    """
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            return [_DECODER.decode(stripped)]
        except ValueError:
            pass
    values, i = [], 0
    while i < len(text):
        if text[i] in "{[":
            try:
                value, end = _DECODER.raw_decode(text, i)
            except ValueError:
                i += 1
                continue
            if _has_string(value):
                values.append(value)
                i = end
                continue
        i += 1
    return values


def is_prose(value: str) -> bool:
    """A prose string value: at least one whitespace character and one letter (§1.8)."""
    return any(c.isspace() for c in value) and any(c.isalpha() for c in value)


def json_equivalent(original, perturbed) -> bool:
    """Equal except inside prose string values (member names never count as prose)."""
    if isinstance(original, tuple):
        if not isinstance(perturbed, tuple) or len(original[1]) != len(perturbed[1]):
            return False
        return all(
            k1 == k2 and json_equivalent(v1, v2) for (k1, v1), (k2, v2) in zip(original[1], perturbed[1])
        )
    if isinstance(original, list):
        return (
            isinstance(perturbed, list)
            and len(original) == len(perturbed)
            and all(json_equivalent(a, b) for a, b in zip(original, perturbed))
        )
    if isinstance(original, str) and is_prose(original):
        return isinstance(perturbed, str)
    return type(original) is type(perturbed) and original == perturbed


def json_preserved(original_text: str, perturbed_text: str) -> bool | None:
    """None when the original holds no JSON region; else whether every region survived."""
    before = json_values(original_text)
    if not before:
        return None
    after = json_values(perturbed_text)
    return len(before) == len(after) and all(json_equivalent(a, b) for a, b in zip(before, after))


# ---------------------------------------------------------------------------- statistics


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def quantile(values, q: float):
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    return values[min(len(values) - 1, int(q * (len(values) - 1) + 0.5))]


def rate(flags):
    flags = [f for f in flags if f is not None]
    return sum(1 for f in flags if f) / len(flags) if flags else None


def _ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(xs, ys) -> float | None:
    """Spearman's rho (average ranks for ties); None below 3 pairs or with a constant side.

    >>> spearman([1, 2, 3, 4], [10, 20, 30, 40]), spearman([1, 2, 3], [3, 2, 1])
    (1.0, -1.0)
    """
    pairs = [(x, y) for x, y in zip(xs, ys) if x is not None and y is not None]
    if len(pairs) < 3:
        return None
    rx, ry = _ranks([p[0] for p in pairs]), _ranks([p[1] for p in pairs])
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return round(sxy / (sxx * syy) ** 0.5, 6)


# ---------------------------------------------------------------------------- output


def fmt(value, digits: int = 3, percent: bool = False) -> str:
    if value is None:
        return "–"
    if percent:
        return f"{100 * value:.1f} %"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def write_outputs(stage: str, data: dict, section: str) -> None:
    """``eval/out/<stage>.json`` and the report section ``eval/out/sections/<stage>.md``."""
    sections = OUT / "sections"
    sections.mkdir(parents=True, exist_ok=True)
    (OUT / f"{stage}.json").write_text(
        json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (sections / f"{stage}.md").write_text(section.rstrip() + "\n", encoding="utf-8")


def progress(stage: str, done: int, total: int, every: int = 10) -> None:
    if total and (done == total or done % max(1, total // every) == 0):
        print(f"  [{stage}] {done}/{total}", flush=True)
