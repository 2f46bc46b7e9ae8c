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
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__, core, registry
from ..errors import InputTooLarge, InvalidParams, PerturberError
from ..params_model import params_model
from ..settings import configure
from .limits import BodySizeLimit
from .settings import Settings

STATIC = Path(__file__).with_name("static")
ERROR_SCHEMA = {
    "type": "object", "required": ["error"],
    "properties": {"error": {"type": "object", "required": ["code", "message"],
                             "properties": {"code": {"type": "string"},
                                            "message": {"type": "string"}},
                             "additionalProperties": True}},
}
RESULT_SCHEMA = {
    "type": "object",
    "required": ["text", "applied", "reason", "edits", "magnitude", "details", "elapsed_us"],
    "properties": {
        "text": {"type": "string"}, "applied": {"type": "boolean"},
        "reason": {"type": ["string", "null"]}, "edits": {"type": "integer", "minimum": 0},
        "magnitude": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
        "details": {"type": "object"}, "elapsed_us": {"type": "number", "minimum": 0},
    },
}
RESPONSE_SCHEMA = {
    "type": "object",
    "required": ["name", "category", "family", "version", "in_scope", "expectation", "kind",
                 "seed", "params", "results"],
    "properties": {
        "name": {"type": "string"}, "category": {"type": "string"}, "family": {"type": "string"},
        "version": {"type": "integer"}, "in_scope": {"type": "boolean"},
        "expectation": {"type": "string"}, "kind": {"type": "string"},
        "seed": {"type": "integer"}, "params": {"type": "object"},
        "results": {"type": "array", "items": RESULT_SCHEMA},
    },
}
SEED_SCHEMA = {"type": "integer", "minimum": 0, "maximum": core.MAX_SEED, "default": 0,
               "description": "seed of the call's private generator"}


def _error_responses(*codes: int) -> dict:
    text = {400: "Bad request", 404: "Unknown perturbation or category (with suggestions)",
            413: "Input over the configured limits", 415: "Body is not application/json",
            422: "Invalid parameters, seed or text", 502: "Model backend failed",
            503: "Data or extra unavailable", 504: "Model backend timed out"}
    return {str(c): {"description": text[c],
                     "content": {"application/json": {"schema": ERROR_SCHEMA}}} for c in codes}


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
        raise InputTooLarge(f"{len(texts)} texts in one request; the limit is {settings.max_texts}",
                            field="texts", limit=settings.max_texts)
    return texts


def run(spec: registry.Perturbation, texts: list, params: dict, seed: Any) -> dict:
    """Apply ``spec`` to every text (all validated before any work); the response body."""
    resolved = spec.resolve(params)
    core.check_seed(seed)
    for i, text in enumerate(texts):
        try:
            core.check_text(text)
        except PerturberError as err:
            err.message = f"texts[{i}]: {err.message}"
            err.details["index"] = i
            raise
    results = []
    for text in texts:
        start = time.perf_counter()
        r = core.apply(text, spec.name, resolved, seed, spec.category)
        elapsed = (time.perf_counter() - start) * 1e6
        results.append({"text": r.text, "applied": r.applied, "reason": r.reason, "edits": r.edits,
                        "magnitude": r.magnitude, "details": r.details,
                        "elapsed_us": round(elapsed, 1)})
    return {"name": spec.name, "category": spec.category, "family": spec.family,
            "version": spec.version, "in_scope": spec.in_scope, "expectation": spec.expectation,
            "kind": spec.kind, "seed": seed, "params": dict(resolved),
            "results": results}


def _json(body: Any, status: int = 200) -> Response:
    return Response(json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8"),
                    status_code=status, media_type="application/json")


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
    props = {"texts": {"type": "array", "minItems": 1, "items": {"type": "string"},
                       "description": "texts to perturb, each independently with the same seed "
                                      f"(at most {settings.max_texts} texts of at most "
                                      f"{settings.max_text_chars} characters: 413 beyond)"},
             "seed": SEED_SCHEMA, **schema.get("properties", {})}
    return {"title": schema["title"].replace("Params", "Request"), "type": "object",
            "properties": props, "required": ["texts"], "additionalProperties": False}


def _add_typed_route(app: FastAPI, spec: registry.Perturbation, settings: Settings) -> None:
    allowed = {"texts", "seed", *(p.name for p in spec.params)}

    async def endpoint(request: Request) -> Response:
        _require_json(request)
        body = _json_body(await request.body())
        extra = sorted(set(body) - allowed)
        if extra:
            raise InvalidParams(f"{spec.name}: unknown field {extra[0]!r} (allowed: "
                                f"{', '.join(sorted(allowed))})", field=extra[0])
        params = {k: v for k, v in body.items() if k not in ("texts", "seed")}
        return _json(run(spec, _texts(body, settings, False), params, body.get("seed", 0)))

    scope = "" if spec.in_scope else " (out of scope)"
    app.add_api_route(
        f"/perturb/{spec.category}/{spec.name}", endpoint, methods=["POST"],
        name=f"perturb_{spec.category}_{spec.name}", tags=[spec.family],
        summary=f"{spec.name}{scope}", description=(
            f"{spec.description}\n\n{spec.kind}, expectation `{spec.expectation}`, "
            f"{'seed-sensitive' if spec.seed_sensitive else 'not seed-sensitive'}, version {spec.version}."),
        responses={"200": {"description": "One result per text",
                           "content": {"application/json": {"schema": RESPONSE_SCHEMA}}},
                   **_error_responses(404, 413, 415, 422, 502, 503, 504)},
        openapi_extra={"requestBody": {"required": True, "content": {
            "application/json": {"schema": _typed_body_schema(spec, settings)}}}})


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the service: catalog, typed and generic routes, playground, limits, error mapping."""
    settings = settings or Settings()
    configure(max_text_chars=settings.max_text_chars,
              magnitude_max_chars=settings.magnitude_max_chars)
    specs = registry.entries()
    families = list(dict.fromkeys(s.family for s in specs))
    app = FastAPI(
        title="perturber", version=__version__, root_path=settings.root_path,
        description="Apply exactly one named, meaning-preserving perturbation to texts. "
                    "Every route is generated from the catalog; results are byte-identical to "
                    "the Python library. Errors have one shape: `{\"error\": {\"code\", \"message\", ...}}`.",
        openapi_tags=[{"name": "catalog"}, {"name": "generic"}] + [{"name": f} for f in families])
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)

    @app.exception_handler(PerturberError)
    async def _perturber_error(request: Request, err: PerturberError) -> JSONResponse:
        return error_response(err)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, err: RequestValidationError) -> JSONResponse:
        first = err.errors()[0] if err.errors() else {}
        field = ".".join(str(x) for x in first.get("loc", ())[1:]) or "request"
        return error_response(InvalidParams(f"{field}: {first.get('msg', 'invalid request')}",
                                            field=field))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, err: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(err.status_code, "http_error")
        return JSONResponse({"error": {"code": code, "message": str(err.detail)}},
                            status_code=err.status_code, headers=getattr(err, "headers", None))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, err: Exception) -> JSONResponse:  # pragma: no cover
        return JSONResponse({"error": {"code": "internal_error",
                                       "message": f"unexpected {type(err).__name__}"}},
                            status_code=500)

    @app.get("/health", tags=["catalog"], summary="Liveness")
    async def health() -> dict:
        return {"status": "ok"}

    @app.get("/version", tags=["catalog"], summary="Package version and catalog digest")
    async def version() -> dict:
        return {"version": __version__, "catalog_digest": registry.catalog_digest(),
                "entries": len(registry.entries())}

    @app.get("/perturbations", tags=["catalog"], summary="List the catalog (filterable)")
    async def perturbations(family: str | None = None, in_scope: bool | None = None,
                            expectation: str | None = None, model_backed: bool | None = None,
                            seed_sensitive: bool | None = None, category: str | None = None) -> dict:
        found = core.list_perturbations(category=category, family=family, in_scope=in_scope,
                                        expectation=expectation, model_backed=model_backed,
                                        seed_sensitive=seed_sensitive)
        return {"count": len(found), "catalog_digest": registry.catalog_digest(),
                "perturbations": found}

    @app.get("/perturbations/{category}/{name}", tags=["catalog"], summary="One catalog entry",
             responses=_error_responses(404))
    async def perturbation(category: str, name: str) -> dict:
        return core.describe(name, category)

    @app.post("/perturb", tags=["generic"], summary="Apply any perturbation by name",
              responses={"200": {"description": "One result per text", "content": {
                  "application/json": {"schema": RESPONSE_SCHEMA}}},
                  **_error_responses(404, 413, 415, 422, 502, 503, 504)},
              openapi_extra={"requestBody": {"required": True, "content": {"application/json": {
                  "schema": {"type": "object", "required": ["name"], "additionalProperties": False,
                             "properties": {
                                 "text": {"type": "string"},
                                 "texts": {"type": "array", "minItems": 1, "items": {"type": "string"}},
                                 "name": {"type": "string"},
                                 "category": {"type": "string", "default": "native",
                                              "enum": list(registry.CATEGORIES)},
                                 "params": {"type": "object", "default": {}},
                                 "seed": SEED_SCHEMA}}}}}})
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
        return _json(run(spec, _texts(body, settings, True), params, body.get("seed", 0)))

    for spec in specs:
        _add_typed_route(app, spec, settings)

    from .gallery import add_gallery_routes  # here: gallery.py imports this module
    add_gallery_routes(app, settings)

    @app.get("/", include_in_schema=False)
    async def playground() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
