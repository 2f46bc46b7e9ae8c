"""The playground gallery's batch route and the perturbation reference, added to the app.

``POST /perturb/gallery`` applies every matching catalog entry, at its defaults, to one text with
one seed: one request for the whole gallery. Model-backed entries are skipped unless asked for;
an entry that fails (data or model unavailable) reports its error in its own row, never a 5xx.
``GET /reference`` serves ``docs/perturbations.md`` (generated once per process).

>>> from fastapi.testclient import TestClient
>>> from perturber.service import create_app
>>> body = {"text": "Hi there", "family": "padding", "seed": 3}
>>> rows = TestClient(create_app()).post("/perturb/gallery", json=body).json()["results"]
>>> [(r["name"], r["applied"]) for r in rows][:2], rows[1]["text"]
([('quotes', True), ('spaces', True)], '      Hi there      ')
"""

from __future__ import annotations

import functools
import time

from fastapi import FastAPI, Request
from fastapi.responses import PlainTextResponse, Response

from .. import core, registry
from ..errors import InputTooLarge, InvalidParams, PerturberError
from .routes import SEED_SCHEMA, _error_responses, _json, _json_body, _require_json
from .settings import Settings

# The gallery runs every entry on the text, so it gets a tighter length cap than one route.
GALLERY_MAX_CHARS = 20_000
FIELDS = {"text", "seed", "family", "in_scope", "expectation", "category", "include_model_backed"}
ROW_SCHEMA = {
    "type": "object",
    "required": [
        "name",
        "category",
        "family",
        "in_scope",
        "expectation",
        "kind",
        "version",
        "seed_sensitive",
        "params",
    ],
    "properties": {
        "name": {"type": "string"},
        "category": {"type": "string"},
        "family": {"type": "string"},
        "in_scope": {"type": "boolean"},
        "expectation": {"type": "string"},
        "kind": {"type": "string"},
        "version": {"type": "integer"},
        "seed_sensitive": {"type": "boolean"},
        "params": {"type": "object"},
        "text": {"type": "string"},
        "applied": {"type": "boolean"},
        "reason": {"type": ["string", "null"]},
        "edits": {"type": "integer", "minimum": 0},
        "magnitude": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
        "details": {"type": "object"},
        "elapsed_us": {"type": "number", "minimum": 0},
        "error": {"type": "object"},
    },
}
GALLERY_SCHEMA = {
    "type": "object",
    "required": ["seed", "count", "skipped_model_backed", "results"],
    "properties": {
        "seed": {"type": "integer"},
        "count": {"type": "integer"},
        "skipped_model_backed": {"type": "array", "items": {"type": "string"}},
        "results": {"type": "array", "items": ROW_SCHEMA},
    },
}


def _optional(body: dict, key: str, kind: type, allowed: tuple | None = None):
    value = body.get(key)
    if value is None:
        return None
    if type(value) is not kind or (allowed is not None and value not in allowed):
        want = f"one of {', '.join(allowed)}" if allowed else kind.__name__
        raise InvalidParams(f"'{key}' must be {want} or null, got {value!r}"[:300], field=key)
    return value


def gallery(body: dict, max_chars: int) -> dict:
    """Apply every entry matching the body's filters to ``body["text"]`` (the response body)."""
    extra = sorted(set(body) - FIELDS)
    if extra:
        raise InvalidParams(
            f"unknown field {extra[0]!r} (allowed: {', '.join(sorted(FIELDS))})", field=extra[0]
        )
    text = core.check_text(body.get("text"))
    if len(text) > max_chars:
        raise InputTooLarge(
            f"text has {len(text)} characters; the gallery's limit is {max_chars}",
            field="text",
            limit=max_chars,
        )
    seed = core.check_seed(body.get("seed", 0))
    filters = {
        "family": _optional(body, "family", str, registry.FAMILIES),
        # the native catalog unless the brittlebench tier is asked for by name
        "category": _optional(body, "category", str, registry.CATEGORIES) or "native",
        "expectation": _optional(body, "expectation", str, registry.EXPECTATIONS),
        "in_scope": _optional(body, "in_scope", bool),
    }
    with_models = _optional(body, "include_model_backed", bool) or False
    rows, skipped = [], []
    for spec in registry.entries():
        if any(v is not None and getattr(spec, k) != v for k, v in filters.items()):
            continue
        if spec.model_backed and not with_models:
            skipped.append(spec.key)
            continue
        row = {
            "name": spec.name,
            "category": spec.category,
            "family": spec.family,
            "in_scope": spec.in_scope,
            "expectation": spec.expectation,
            "kind": spec.kind,
            "version": spec.version,
            "seed_sensitive": spec.seed_sensitive,
            "params": dict(spec.defaults),
        }
        start = time.perf_counter()
        try:
            r = core.apply(text, spec.name, None, seed, spec.category)
        except PerturberError as err:
            row["error"] = err.to_dict()
        else:
            row.update(
                text=r.text,
                applied=r.applied,
                reason=r.reason,
                edits=r.edits,
                magnitude=r.magnitude,
                details=r.details,
            )
        row["elapsed_us"] = round((time.perf_counter() - start) * 1e6, 1)
        rows.append(row)
    return {"seed": seed, "count": len(rows), "skipped_model_backed": skipped, "results": rows}


@functools.lru_cache(maxsize=1)
def reference() -> str:
    """The perturbation reference (the same bytes as docs/perturbations.md)."""
    from ..reference import generate

    return generate()


def add_gallery_routes(app: FastAPI, settings: Settings) -> None:
    """Add ``POST /perturb/gallery`` and ``GET /reference`` to ``app``."""
    max_chars = min(settings.max_text_chars, GALLERY_MAX_CHARS)
    request_schema = {
        "type": "object",
        "required": ["text"],
        "additionalProperties": False,
        "properties": {
            "text": {
                "type": "string",
                "maxLength": max_chars,
                "description": f"the input (at most {max_chars} characters: 413 beyond)",
            },
            "seed": SEED_SCHEMA,
            "family": {"type": ["string", "null"], "enum": [*registry.FAMILIES, None]},
            "category": {
                "type": ["string", "null"],
                "enum": [*registry.CATEGORIES, None],
                "description": "default native",
            },
            "expectation": {"type": ["string", "null"], "enum": [*registry.EXPECTATIONS, None]},
            "in_scope": {"type": ["boolean", "null"]},
            "include_model_backed": {
                "type": "boolean",
                "default": False,
                "description": "also run model-backed entries (they need a configured model endpoint)",
            },
        },
    }

    @app.post(
        "/perturb/gallery",
        tags=["generic"],
        summary="Apply every matching perturbation at its defaults to one text",
        description="The playground gallery: one text, one seed, every catalog entry "
        "matching the filters at its default parameters. Model-backed entries "
        "are listed in `skipped_model_backed` unless `include_model_backed`; "
        "an entry that cannot run reports `error` in its row.",
        responses={
            "200": {
                "description": "One row per matching entry",
                "content": {"application/json": {"schema": GALLERY_SCHEMA}},
            },
            **_error_responses(413, 415, 422),
        },
        openapi_extra={
            "requestBody": {"required": True, "content": {"application/json": {"schema": request_schema}}}
        },
    )
    async def perturb_gallery(request: Request) -> Response:
        _require_json(request)
        return _json(gallery(_json_body(await request.body()), max_chars))

    @app.get(
        "/reference",
        tags=["catalog"],
        response_class=PlainTextResponse,
        summary="The perturbation reference (Markdown, docs/perturbations.md)",
    )
    async def perturbation_reference() -> PlainTextResponse:
        return PlainTextResponse(reference(), media_type="text/plain; charset=utf-8")
