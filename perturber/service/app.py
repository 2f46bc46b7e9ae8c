"""The FastAPI application: typed routes generated from the registry, one error shape.

>>> from fastapi.testclient import TestClient
>>> client = TestClient(create_app())
>>> client.post("/perturb/native/quotes", json={"texts": ["Hi"], "n": 1}).json()["results"][0]["text"]
'" Hi "'
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.models import OpenAPI
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute, Match, NoMatchFound, Route

from .. import __version__, core, registry
from ..errors import InputTooLarge, InvalidParams, PerturberError
from ..model_tier import settings as model_settings
from ..params_model import params_model
from ..settings import Limits
from .auth import Access, run_model_backed
from .limits import BodySizeLimit
from .settings import Settings

STATIC = Path(__file__).with_name("static")
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


def _error_responses(*codes: int) -> dict:
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


def _json_body(raw: bytes) -> dict:
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
            {
                "text": r.text,
                "applied": r.applied,
                "reason": r.reason,
                "edits": r.edits,
                "magnitude": r.magnitude,
                "details": r.details,
                **({"model": r.model} if r.model is not None else {}),
                "elapsed_us": round((r.model or {}).get("latency_ms", 0.0) * 1000, 1),
            }
            for r in core.apply_many(texts, spec.name, resolved, seed, spec.category, limits=limits)
        ]
        texts = []
    else:
        results = []
    for text in texts:
        start = time.perf_counter()
        r = core.apply(text, spec.name, resolved, seed, spec.category, limits=limits)
        elapsed = (time.perf_counter() - start) * 1e6
        results.append(
            {
                "text": r.text,
                "applied": r.applied,
                "reason": r.reason,
                "edits": r.edits,
                "magnitude": r.magnitude,
                "details": r.details,
                "elapsed_us": round(elapsed, 1),
            }
        )
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


def _json(body: Any, status: int = 200) -> Response:
    return Response(
        json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8"),
        status_code=status,
        media_type="application/json",
    )


def _require_json(request: Request) -> None:
    ctype = request.headers.get("content-type", "")
    if ctype.split(";")[0].strip().lower() != "application/json":
        raise _UnsupportedMediaType()


class _UnsupportedMediaType(PerturberError):
    code = "unsupported_media_type"
    http_status = 415

    def __init__(self) -> None:
        super().__init__("the request body must be JSON (Content-Type: application/json)")


def _typed_body_schema(spec: registry.Perturbation, settings: Settings) -> dict:
    schema = params_model(spec).model_json_schema()
    props = {
        "texts": {
            "type": "array",
            "minItems": 1,
            "items": {"type": "string"},
            "description": "texts to perturb, each independently with the same seed "
            f"(at most {settings.max_texts} texts of at most "
            f"{settings.max_text_chars} characters: 413 beyond)",
        },
        "seed": SEED_SCHEMA,
        **schema.get("properties", {}),
    }
    return {
        "title": schema["title"].replace("Params", "Request"),
        "type": "object",
        "properties": props,
        "required": ["texts"],
        "additionalProperties": False,
    }


def _typed_operation(spec: registry.Perturbation, settings: Settings) -> dict:
    """The OpenAPI operation of ``POST /perturb/<category>/<name>`` (built on demand)."""
    scope = "" if spec.in_scope else " (out of scope)"
    route = f"perturb_{spec.category}_{spec.name}"
    return {
        "tags": [spec.family],
        "summary": f"{spec.name}{scope}",
        "description": (
            f"{spec.description}\n\n{spec.kind}, expectation `{spec.expectation}`, "
            f"{'seed-sensitive' if spec.seed_sensitive else 'not seed-sensitive'}, version {spec.version}."
        ),
        "operationId": f"{route}_perturb_{spec.category}_{spec.name}_post",
        "responses": {
            "200": {
                "description": "One result per text",
                "content": {"application/json": {"schema": RESPONSE_SCHEMA}},
            },
            **_error_responses(401, 404, 413, 415, 422, 502, 503, 504),
        },
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": _typed_body_schema(spec, settings)}},
        },
    }


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
    access: Access,
    spec: registry.Perturbation,
    texts: list,
    params: dict,
    seed: Any,
    limits: Limits,
) -> dict:
    """Deterministic entries run inline; model-backed ones in a thread, with the caller's endpoint."""
    if not spec.model_backed:
        return run(spec, texts, params, seed, limits)
    return await run_model_backed(request, access, lambda: run(spec, texts, params, seed, limits))


def _add_typed_routes(app: FastAPI, specs: list, settings: Settings, access: Access) -> None:
    """The typed routes of ``specs``: one dispatching route (see ``_TypedRoute``)."""
    entries = {
        (s.category, s.name): (s, frozenset({"texts", "seed", *(p.name for p in s.params)})) for s in specs
    }

    async def perturb_typed(request: Request) -> Response:
        params = request.path_params
        spec, allowed = entries[params["category"], params["name"]]
        _require_json(request)
        body = _json_body(await request.body())
        extra = sorted(set(body) - allowed)
        if extra:
            raise InvalidParams(
                f"{spec.name}: unknown field {extra[0]!r} (allowed: {', '.join(sorted(allowed))})",
                field=extra[0],
            )
        params = {k: v for k, v in body.items() if k not in ("texts", "seed")}
        return _json(
            await _dispatch(
                request,
                access,
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
    app.router.routes.append(route)


class _DeferredRoutes(BaseRoute):
    """Placeholder for routes declared by ``declare()`` on the first request that may need them.

    Inert after that: the declared routes are spliced into the router right after it (the
    router's loop over its routes then reaches them in the same request), so the order, the
    404/405 answers and the OpenAPI document are those of routes declared up front.
    """

    def __init__(self, app: FastAPI, declare, prefixes: tuple[str, ...]) -> None:
        self.app_, self.declare, self.prefixes = app, declare, prefixes

    def expand(self) -> None:
        if self.declare is None:
            return
        declare, self.declare = self.declare, None
        routes = self.app_.router.routes
        before = len(routes)
        declare()
        new = routes[before:]
        del routes[before:]
        at = routes.index(self) + 1
        routes[at:at] = new

    def matches(self, scope):
        path, root = scope.get("path", ""), scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        if self.declare is not None and path.startswith(self.prefixes):
            self.expand()
        return Match.NONE, {}

    def url_path_for(self, name: str, /, **path_params):
        raise NoMatchFound(name, path_params)

    async def handle(self, scope, receive, send) -> None:  # pragma: no cover - never matches
        raise StarletteHTTPException(404)


def _defer_routes(app: FastAPI, declare, prefixes: tuple[str, ...]) -> None:
    app.router.routes.append(_DeferredRoutes(app, declare, prefixes))


def _expand_deferred(app: FastAPI) -> None:
    for route in list(app.router.routes):
        if isinstance(route, _DeferredRoutes):
            route.expand()


def _openapi_with_typed_paths(app: FastAPI, specs: list, settings: Settings) -> None:
    """``app.openapi()`` = FastAPI's document + one typed path per entry, after ``/perturb``."""
    fastapi_openapi = app.openapi

    def openapi() -> dict:
        if app.openapi_schema is None:
            _expand_deferred(app)
            schema = fastapi_openapi()
            typed = {
                f"/perturb/{s.category}/{s.name}": {"post": _typed_operation(s, settings)} for s in specs
            }
            paths, schema["paths"] = schema["paths"], {}
            for path, item in paths.items():
                schema["paths"][path] = item
                if path == "/perturb":
                    schema["paths"].update(typed)
            # normalised like FastAPI's own document (its OpenAPI model, aliases, no nulls)
            app.openapi_schema = jsonable_encoder(OpenAPI(**schema), by_alias=True, exclude_none=True)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to customise the schema


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the service: catalog, typed and generic routes, playground, limits, error mapping."""
    settings = settings or Settings()
    access = Access.from_env()  # model-tier access rules and settings: bad values fail at start-up
    model_settings()
    specs = registry.entries()
    families = list(dict.fromkeys(s.family for s in specs))
    app = FastAPI(
        title="perturber",
        version=__version__,
        root_path=settings.root_path,
        description="Apply exactly one named, meaning-preserving perturbation to texts. "
        "Every route is generated from the catalog; results are byte-identical to "
        'the Python library. Errors have one shape: `{"error": {"code", "message", ...}}`.',
        openapi_tags=[{"name": "catalog"}, {"name": "generic"}] + [{"name": f} for f in families],
    )
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)

    @app.exception_handler(PerturberError)
    async def _perturber_error(request: Request, err: PerturberError) -> JSONResponse:
        return error_response(err)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, err: RequestValidationError) -> JSONResponse:
        first = err.errors()[0] if err.errors() else {}
        field = ".".join(str(x) for x in first.get("loc", ())[1:]) or "request"
        return error_response(InvalidParams(f"{field}: {first.get('msg', 'invalid request')}", field=field))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, err: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(err.status_code, "http_error")
        return JSONResponse(
            {"error": {"code": code, "message": str(err.detail)}},
            status_code=err.status_code,
            headers=getattr(err, "headers", None),
        )

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, err: Exception) -> JSONResponse:  # pragma: no cover
        return JSONResponse(
            {"error": {"code": "internal_error", "message": f"unexpected {type(err).__name__}"}},
            status_code=500,
        )

    def catalog_routes() -> None:  # declared on first use: FastAPI's typed query/path
        # parameters and response models cost ~50 ms of cold start (pydantic.v1 import, schemas)
        @app.get("/health", tags=["catalog"], summary="Liveness")
        async def health() -> dict:
            return {"status": "ok"}

        @app.get("/version", tags=["catalog"], summary="Package version and catalog digest")
        async def version() -> dict:
            return {
                "version": __version__,
                "catalog_digest": registry.catalog_digest(),
                "entries": len(registry.entries()),
            }

        @app.get("/perturbations", tags=["catalog"], summary="List the catalog (filterable)")
        async def perturbations(
            family: str | None = None,
            in_scope: bool | None = None,
            expectation: str | None = None,
            model_backed: bool | None = None,
            seed_sensitive: bool | None = None,
            category: str | None = None,
        ) -> dict:
            found = core.list_perturbations(
                category=category,
                family=family,
                in_scope=in_scope,
                expectation=expectation,
                model_backed=model_backed,
                seed_sensitive=seed_sensitive,
            )
            return {"count": len(found), "catalog_digest": registry.catalog_digest(), "perturbations": found}

        @app.get(
            "/perturbations/{category}/{name}",
            tags=["catalog"],
            summary="One catalog entry",
            responses=_error_responses(404),
        )
        async def perturbation(category: str, name: str) -> dict:
            return core.describe(name, category)

    _defer_routes(app, catalog_routes, ("/health", "/version", "/perturbations"))

    @app.post(
        "/perturb",
        tags=["generic"],
        summary="Apply any perturbation by name",
        responses={
            "200": {
                "description": "One result per text",
                "content": {"application/json": {"schema": RESPONSE_SCHEMA}},
            },
            **_error_responses(401, 404, 413, 415, 422, 502, 503, 504),
        },
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "required": ["name"],
                            "additionalProperties": False,
                            "properties": {
                                "text": {"type": "string"},
                                "texts": {"type": "array", "minItems": 1, "items": {"type": "string"}},
                                "name": {"type": "string"},
                                "category": {
                                    "type": "string",
                                    "default": "native",
                                    "enum": list(registry.CATEGORIES),
                                },
                                "params": {"type": "object", "default": {}},
                                "seed": SEED_SCHEMA,
                            },
                        }
                    }
                },
            }
        },
    )
    async def perturb_generic(request: Request) -> Response:
        _require_json(request)
        body = _json_body(await request.body())
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
        return _json(
            await _dispatch(
                request,
                access,
                spec,
                _texts(body, settings, True),
                params,
                body.get("seed", 0),
                settings.limits,
            )
        )

    _add_typed_routes(app, specs, settings, access)

    from .gallery import add_gallery_routes  # here: gallery.py imports this module

    add_gallery_routes(app, settings)

    @app.get("/", include_in_schema=False)
    async def playground() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    _openapi_with_typed_paths(app, specs, settings)
    return app
