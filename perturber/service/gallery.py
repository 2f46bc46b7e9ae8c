"""The playground gallery's batch route and the perturbation reference, added to the app.

``POST /perturb/gallery`` applies every matching catalog entry, at its defaults, to one text with
one seed: one request for the whole gallery. Model-backed entries are skipped unless asked for,
and then run through the access gate like every model call (``auth.ModelGate``: authenticated
callers only, a worker thread, the request's deadline; a few at a time). The work never runs on
the event loop. An entry that fails (data or model unavailable, 401 for an anonymous caller)
reports its error in its own row, never a 5xx.
``GET /reference`` serves ``docs/perturbations.md`` (generated once per process).

>>> from fastapi.testclient import TestClient
>>> from perturber.service import create_app
>>> body = {"text": "Hi there", "family": "padding", "seed": 3}
>>> rows = TestClient(create_app()).post("/perturb/gallery", json=body).json()["results"]
>>> [(r["name"], r["applied"]) for r in rows][:2], rows[1]["text"]
([('quotes', True), ('spaces', True)], '      Hi there      ')
"""

from __future__ import annotations

import contextvars
import functools
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from fastapi import FastAPI, Request
from fastapi.responses import PlainTextResponse, Response
from starlette.concurrency import run_in_threadpool

from .. import core, registry
from ..errors import InputTooLarge, InvalidParams, PerturberError
from .auth import ModelGate
from .routes import SEED_SCHEMA, error_responses, json_body, json_response, require_json
from .settings import Settings

# The gallery runs every entry on the text, so it gets a tighter length cap than one route.
GALLERY_MAX_CHARS = 20_000
MODEL_ROWS_AT_ONCE = 4  # model-backed rows in flight together
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


@dataclass(frozen=True)
class Plan:
    """What one gallery request runs: the text, the seed, the entries, the skipped model entries."""

    text: str
    seed: int
    specs: tuple
    skipped: tuple[str, ...]

    @property
    def needs_models(self) -> bool:
        return any(spec.model_backed for spec in self.specs)


def plan(body: dict, max_chars: int) -> Plan:
    """Check the request body and pick the entries matching its filters."""
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
    specs, skipped = [], []
    for spec in registry.entries():
        if any(v is not None and getattr(spec, k) != v for k, v in filters.items()):
            continue
        if spec.model_backed and not with_models:
            skipped.append(spec.key)
        else:
            specs.append(spec)
    return Plan(text, seed, tuple(specs), tuple(skipped))


def row(spec: registry.Perturbation, text: str, seed: int) -> dict:
    """One entry's row: the result at its defaults, or its error."""
    out = {
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
        out["error"] = err.to_dict()
    else:
        out.update(r.outcome())
    out["elapsed_us"] = round((time.perf_counter() - start) * 1e6, 1)
    return out


def rows(gallery: Plan) -> dict:
    """The response body: every entry's row in catalog order (model-backed rows a few at a time,
    each in a copy of this context, so under the gate's endpoint and deadline)."""
    models = [spec for spec in gallery.specs if spec.model_backed]
    done: dict = {}
    if models:
        with ThreadPoolExecutor(min(len(models), MODEL_ROWS_AT_ONCE), thread_name_prefix="gallery") as pool:
            futures = {
                spec.key: pool.submit(contextvars.copy_context().run, row, spec, gallery.text, gallery.seed)
                for spec in models
            }
            done = {key: future.result() for key, future in futures.items()}
    results = [done.get(spec.key) or row(spec, gallery.text, gallery.seed) for spec in gallery.specs]
    return {
        "seed": gallery.seed,
        "count": len(results),
        "skipped_model_backed": list(gallery.skipped),
        "results": results,
    }


@functools.lru_cache(maxsize=1)
def reference() -> str:
    """The perturbation reference (the same bytes as docs/perturbations.md)."""
    from ..reference import generate

    return generate()


def add_gallery_routes(app: FastAPI, settings: Settings, gate: ModelGate) -> None:
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
                "description": "also run model-backed entries (they need a configured model endpoint "
                "and an authenticated caller, as on the perturbation routes)",
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
            **error_responses(401, 413, 415, 422),
        },
        openapi_extra={
            "requestBody": {"required": True, "content": {"application/json": {"schema": request_schema}}}
        },
    )
    async def perturb_gallery(request: Request) -> Response:
        require_json(request)
        chosen = plan(json_body(await request.body()), max_chars)
        if chosen.needs_models:
            return json_response(await gate.run(request, lambda: rows(chosen)))
        return json_response(await run_in_threadpool(rows, chosen))

    @app.get(
        "/reference",
        tags=["catalog"],
        response_class=PlainTextResponse,
        summary="The perturbation reference (Markdown, docs/perturbations.md)",
    )
    async def perturbation_reference() -> PlainTextResponse:
        return PlainTextResponse(reference(), media_type="text/plain; charset=utf-8")
