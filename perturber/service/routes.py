"""The perturbation routes: plain Starlette, no FastAPI import (the Lambda fast path).

``POST /perturb`` and ``POST /perturb/{category}/{name}`` need nothing of FastAPI's per-request
machinery (raw JSON bodies, hand-written OpenAPI): ``perturber.service.app`` mounts them in the
FastAPI app, ``perturber.service.lazy`` serves them without importing FastAPI at all.

>>> json_body(b'{"texts": ["Hi"]}')
{'texts': ['Hi']}
"""

from __future__ import annotations

import json
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Match, Route

from .. import core, registry
from ..errors import InputTooLarge, InvalidParams, PerturberError
from ..settings import Limits
from .auth import ModelGate
from .settings import Settings

ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
            "additionalProperties": True,
        }
    },
}
RESULT_SCHEMA = {
    "type": "object",
    "required": ["text", "applied", "reason", "edits", "magnitude", "details", "elapsed_us"],
    "properties": {
        "text": {"type": "string"},
        "applied": {"type": "boolean"},
        "reason": {"type": ["string", "null"]},
        "edits": {"type": "integer", "minimum": 0},
        "magnitude": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
        "details": {"type": "object"},
        "elapsed_us": {"type": "number", "minimum": 0},
        "model": {
            "type": "object",
            "description": "model-backed entries: model, temperature, "
            "seed_forwarded, finish_reason, system_fingerprint, latency_ms, usage, requests",
        },
    },
}
RESPONSE_SCHEMA = {
    "type": "object",
    "required": [
        "name",
        "category",
        "family",
        "version",
        "in_scope",
        "expectation",
        "kind",
        "seed",
        "params",
        "results",
    ],
    "properties": {
        "name": {"type": "string"},
        "category": {"type": "string"},
        "family": {"type": "string"},
        "version": {"type": "integer"},
        "in_scope": {"type": "boolean"},
        "expectation": {"type": "string"},
        "kind": {"type": "string"},
        "seed": {"type": "integer"},
        "params": {"type": "object"},
        "results": {"type": "array", "items": RESULT_SCHEMA},
    },
}
SEED_SCHEMA = {
    "type": "integer",
    "minimum": 0,
    "maximum": core.MAX_SEED,
    "default": 0,
    "description": "seed of the call's private generator",
}


def error_responses(*codes: int) -> dict:
    text = {
        400: "Bad request",
        401: "Model-backed entry: the server's key needs an authenticated caller",
        404: "Unknown perturbation or category (with suggestions)",
        413: "Input over the configured limits",
        415: "Body is not application/json",
        422: "Invalid parameters, seed or text",
        502: "Model backend failed",
        503: "Data or extra unavailable",
        504: "Model backend timed out",
    }
    return {
        str(c): {"description": text[c], "content": {"application/json": {"schema": ERROR_SCHEMA}}}
        for c in codes
    }


def error_response(err: PerturberError) -> JSONResponse:
    return JSONResponse({"error": err.to_dict()}, status_code=err.http_status)


async def perturber_error_handler(request: Request, err: Exception) -> Response:
    """The one error shape: ``{"error": {"code", "message", ...}}`` with the error's status."""
    assert isinstance(err, PerturberError)
    return error_response(err)


async def unexpected_error_handler(request: Request, err: Exception) -> Response:  # pragma: no cover
    return JSONResponse(
        {"error": {"code": "internal_error", "message": f"unexpected {type(err).__name__}"}},
        status_code=500,
    )


def json_body(raw: bytes) -> dict:
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError) as err:
        raise InvalidParams(f"request body is not valid JSON: {err}", field="body") from None
    if not isinstance(body, dict):
        raise InvalidParams("request body must be a JSON object", field="body")
    return body


def _texts(body: dict, settings: Settings, allow_single: bool) -> list[str]:
    if allow_single and "text" in body:
        if "texts" in body:
            raise InvalidParams("give either 'text' or 'texts', not both", field="texts")
        return [body["text"]]
    texts = body.get("texts")
    if not isinstance(texts, list):
        wanted = "'text' (a string) or 'texts'" if allow_single else "'texts'"
        raise InvalidParams(f"{wanted} (a non-empty list of strings) is required", field="texts")
    if not texts:
        raise InvalidParams("'texts' must hold at least one string", field="texts")
    if len(texts) > settings.max_texts:
        raise InputTooLarge(
            f"{len(texts)} texts in one request; the limit is {settings.max_texts}",
            field="texts",
            limit=settings.max_texts,
        )
    return texts


def run(
    spec: registry.Perturbation, texts: list, params: dict, seed: Any, limits: Limits | None = None
) -> dict:
    """Apply ``spec`` to every text (all validated before any work); the response body."""
    resolved = spec.resolve(params)
    core.check_seed(seed)
    for i, text in enumerate(texts):
        try:
            core.check_text(text, limits)
        except PerturberError as err:
            err.message = f"texts[{i}]: {err.message}"
            err.details["index"] = i
            raise
    if spec.model_backed:  # one batch through the endpoint's bounded pool; elapsed = request latency
        results = [
            {**r.outcome(), "elapsed_us": round((r.model or {}).get("latency_ms", 0.0) * 1000, 1)}
            for r in core.apply_many(texts, spec.name, resolved, seed, spec.category, limits=limits)
        ]
        texts = []
    else:
        results = []
    for text in texts:
        start = time.perf_counter()
        r = core.apply(text, spec.name, resolved, seed, spec.category, limits=limits)
        elapsed = (time.perf_counter() - start) * 1e6
        results.append({**r.outcome(), "elapsed_us": round(elapsed, 1)})
    return {
        "name": spec.name,
        "category": spec.category,
        "family": spec.family,
        "version": spec.version,
        "in_scope": spec.in_scope,
        "expectation": spec.expectation,
        "kind": spec.kind,
        "seed": seed,
        "params": dict(resolved),
        "results": results,
    }


def json_response(body: Any, status: int = 200) -> Response:
    return Response(
        json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8"),
        status_code=status,
        media_type="application/json",
    )


def require_json(request: Request) -> None:
    ctype = request.headers.get("content-type", "")
    if ctype.split(";")[0].strip().lower() != "application/json":
        raise UnsupportedMediaType()


class UnsupportedMediaType(PerturberError):
    code = "unsupported_media_type"
    http_status = 415

    def __init__(self) -> None:
        super().__init__("the request body must be JSON (Content-Type: application/json)")


class _TypedRoute(Route):
    """``POST /perturb/{category}/{name}``, matching only the catalog's entries.

    One route serves every entry (building one FastAPI route per entry cost ~110 ms of cold
    start); other paths fall through to the same 404 / 405 answers as before. A plain Starlette
    route: FastAPI's per-request dependency solving has nothing to do for a raw-body endpoint.
    """

    entries: dict = {}  # (category, name) -> (spec, allowed body fields)

    def matches(self, scope):
        match, child = super().matches(scope)
        if match is not Match.NONE:
            params = child["path_params"]
            if (params["category"], params["name"]) not in self.entries:
                return Match.NONE, {}
        return match, child


async def _dispatch(
    request: Request,
    gate: ModelGate,
    spec: registry.Perturbation,
    texts: list,
    params: dict,
    seed: Any,
    limits: Limits,
) -> dict:
    """Deterministic entries run inline; model-backed ones through the gate (a worker thread, the
    caller's endpoint, the request's deadline)."""
    if not spec.model_backed:
        return run(spec, texts, params, seed, limits)
    return await gate.run(request, lambda: run(spec, texts, params, seed, limits))


def typed_route(specs: list, settings: Settings, gate: ModelGate) -> _TypedRoute:
    """The typed routes of ``specs``: one dispatching route (see ``_TypedRoute``)."""
    entries = {
        (s.category, s.name): (s, frozenset({"texts", "seed", *(p.name for p in s.params)})) for s in specs
    }

    async def perturb_typed(request: Request) -> Response:
        params = request.path_params
        spec, allowed = entries[params["category"], params["name"]]
        require_json(request)
        body = json_body(await request.body())
        extra = sorted(set(body) - allowed)
        if extra:
            raise InvalidParams(
                f"{spec.name}: unknown field {extra[0]!r} (allowed: {', '.join(sorted(allowed))})",
                field=extra[0],
            )
        params = {k: v for k, v in body.items() if k not in ("texts", "seed")}
        return json_response(
            await _dispatch(
                request,
                gate,
                spec,
                _texts(body, settings, False),
                params,
                body.get("seed", 0),
                settings.limits,
            )
        )

    route = _TypedRoute(
        "/perturb/{category}/{name}", perturb_typed, methods=["POST"], include_in_schema=False
    )
    route.entries = entries
    return route


def generic_endpoint(settings: Settings, gate: ModelGate):
    """The endpoint of ``POST /perturb`` (any entry by name)."""

    async def perturb_generic(request: Request) -> Response:
        require_json(request)
        body = json_body(await request.body())
        extra = sorted(set(body) - {"text", "texts", "name", "category", "params", "seed"})
        if extra:
            raise InvalidParams(f"unknown field {extra[0]!r}", field=extra[0])
        name, category = body.get("name"), body.get("category", "native")
        if not isinstance(name, str) or not isinstance(category, str):
            raise InvalidParams("'name' and 'category' must be strings", field="name")
        spec = registry.get(name, category)
        params = body.get("params") or {}
        if not isinstance(params, dict):
            raise InvalidParams("'params' must be an object", field="params")
        return json_response(
            await _dispatch(
                request,
                gate,
                spec,
                _texts(body, settings, True),
                params,
                body.get("seed", 0),
                settings.limits,
            )
        )

    return perturb_generic
