"""The evaluation corpus of ``eval/corpus/`` (texts written for this project)."""

from __future__ import annotations

import pathlib

from evalkit import paths


def load_corpus(directory: pathlib.Path | None = None) -> list[dict]:
    """Every corpus item as ``{"id", "kind", "text"}`` (ids ``kind#n``), in a fixed order."""
    directory = directory or paths.CORPUS_DIR
    items = []
    for path in sorted(directory.glob("*.txt")):
        for n, text in enumerate(path.read_text(encoding="utf-8").split("\n%%\n")):
            text = text.strip("\n")
            if text:
                items.append({"id": f"{path.stem}#{n}", "kind": path.stem, "text": text})
    return items
