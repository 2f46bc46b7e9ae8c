"""The inputs of the cost sweeps: an entry x text length x batch size, as an HTTP API v2 event
for the typed route ``POST /perturb/<category>/<name>`` with body ``{"texts": [...], "seed": 0}``."""

from __future__ import annotations

import json

DEFAULT_PERTURBATIONS = ("baseline", "typos", "zero_width", "quotes", "reorder_properties")
LENGTHS = {"20w": None, "2KB": 2048, "20KB": 20480}
BATCHES = (1, 10, 100)

SENTENCE_20W = (
    "Please tell me quickly which famous European city hosted the summer games in 1992 "
    "and why it mattered so much."
)
PARAGRAPH = (
    "The committee reviewed the proposal on Tuesday and agreed that the new library would "
    "open in the spring. Residents asked whether the reading room could stay open late, "
    "and the director said it would, at least on weekdays. Funding comes from the city and "
    "from a private donor who prefers to remain anonymous. "
)


def sample_text(length: str, family: str) -> str:
    """The input for one scenario: 20 words, or ~2 KB / ~20 KB (a JSON Schema for schema entries)."""
    target = LENGTHS[length]
    if family == "schema":
        props, i = {}, 0
        limit = 160 if target is None else target
        while True:
            props[f"field_{i}"] = {"type": "string", "description": f"value number {i}", "maxLength": 80}
            text = json.dumps({"type": "object", "properties": props, "required": sorted(props)[:3]})
            if len(text) >= limit:
                return text
            i += 1
    if target is None:
        return SENTENCE_20W
    return (PARAGRAPH * (target // len(PARAGRAPH) + 1))[:target]


def catalog_entry(name: str) -> tuple[str, str]:
    """(category, family) of ``name`` from the local library (native/text if unknown)."""
    try:
        import perturber

        for entry in perturber.list_perturbations():
            if entry["name"] == name:
                return entry["category"], entry["family"]
    except ImportError:
        pass
    return "native", "text"


def api_event(path: str, body: dict) -> dict:
    from functions.api.events import http_api_event

    return http_api_event(
        "POST", path, headers={"content-type": "application/json"}, body=json.dumps(body).encode("utf-8")
    )


def scenario_event(name: str, category: str, family: str, length: str, batch: int) -> tuple[dict, int]:
    body = {"texts": [sample_text(length, family)] * batch, "seed": 0}
    raw = json.dumps(body).encode("utf-8")
    return api_event(f"/perturb/{category}/{name}", body), len(raw)
