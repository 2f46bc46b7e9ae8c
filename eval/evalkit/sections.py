"""A stage's outputs: ``eval/out/<stage>.json`` and its section of the report, plus the number
format and the progress line the stages share.

>>> fmt(None), fmt(0.12345), fmt(0.5, percent=True), fmt(7)
('–', '0.123', '50.0 %', '7')
"""

from __future__ import annotations

import json

from evalkit import paths


def fmt(value, digits: int = 3, percent: bool = False) -> str:
    if value is None:
        return "–"
    if percent:
        return f"{100 * value:.1f} %"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def write_outputs(stage: str, data: dict, section: str) -> None:
    """``eval/out/<stage>.json`` and the report section ``eval/out/sections/<stage>.md``."""
    sections = paths.OUT / "sections"
    sections.mkdir(parents=True, exist_ok=True)
    (paths.OUT / f"{stage}.json").write_text(
        json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (sections / f"{stage}.md").write_text(section.rstrip() + "\n", encoding="utf-8")


def progress(stage: str, done: int, total: int, every: int = 10) -> None:
    if total and (done == total or done % max(1, total // every) == 0):
        print(f"  [{stage}] {done}/{total}", flush=True)
