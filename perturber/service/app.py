"""The FastAPI application: typed routes generated from the registry, one error shape.

>>> from fastapi.testclient import TestClient
>>> client = TestClient(create_app())
>>> client.post("/perturb/native/quotes", json={"texts": ["Hi"], "n": 1}).json()["results"][0]["text"]
'" Hi "'
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.models import OpenAPI
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute, Match, NoMatchFound

from .. import __version__, core, native, registry
from ..errors import InvalidParams, PerturberError
from ..visible import script
from .auth import DenyUngated, ModelGate, start_up
from .gallery import add_gallery_routes
from .limits import BodySizeLimit
from .params_model import params_model
from .routes import (
    RESPONSE_SCHEMA,
    SEED_SCHEMA,
    error_response,
    error_responses,
    generic_endpoint,
    perturber_error_handler,
    typed_route,
    unexpected_error_handler,
)
from .settings import Settings

STATIC = Path(__file__).with_name("static")


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
            **error_responses(401, 404, 413, 415, 422, 502, 503, 504),
        },
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": _typed_body_schema(spec, settings)}},
        },
    }


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
    """Build the service: catalog, typed and generic routes, gallery, playground, limits, errors."""
    settings = settings or Settings()
    gate = start_up()
    specs = registry.entries()
    app = _new_app(settings, specs)
    _add_error_handlers(app)
    _defer_routes(app, lambda: _catalog_routes(app), ("/health", "/version", "/perturbations"))
    _add_perturb_routes(app, specs, settings, gate)
    add_gallery_routes(app, settings, gate)
    _add_playground(app)
    _openapi_with_typed_paths(app, specs, settings)
    return app


def _new_app(settings: Settings, specs: list) -> FastAPI:
    families = list(dict.fromkeys(s.family for s in specs))
    app = FastAPI(
        title="perturber",
        version=__version__,
        root_path=settings.root_path,
        description="Apply exactly one named, meaning-preserving perturbation to texts. "
        "Every route is generated from the catalog; results are byte-identical to "
        'the Python library. Errors have one shape: `{"error": {"code", "message", ...}}`. '
        "Model-backed entries spend the server's key only for authenticated callers.",
        openapi_tags=[{"name": "catalog"}, {"name": "generic"}] + [{"name": f} for f in families],
    )
    app.add_middleware(DenyUngated)
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    return app


def _add_error_handlers(app: FastAPI) -> None:
    """The one error shape for library errors, validation errors, 404/405 and anything else."""
    app.add_exception_handler(PerturberError, perturber_error_handler)

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

    app.add_exception_handler(Exception, unexpected_error_handler)


def _catalog_routes(app: FastAPI) -> None:
    """``/health``, ``/version`` and the catalog, declared on first use: FastAPI's typed query and
    path parameters and response models cost ~50 ms of cold start (pydantic.v1 import, schemas)."""

    @app.get("/health", tags=["catalog"], summary="Liveness")
    async def health() -> dict:
        return {"status": "ok"}

    @app.get("/version", tags=["catalog"], summary="Package version and catalog digest")
    async def version() -> dict:
        return {
            "version": __version__,
            "catalog_digest": registry.catalog_digest(),
            "entries": len(registry.entries()),
            "native": native.c is not None,  # perturber._native, the C module, is in use
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
        responses=error_responses(404),
    )
    async def perturbation(category: str, name: str) -> dict:
        return core.describe(name, category)


GENERIC_BODY = {
    "type": "object",
    "required": ["name"],
    "additionalProperties": False,
    "properties": {
        "text": {"type": "string"},
        "texts": {"type": "array", "minItems": 1, "items": {"type": "string"}},
        "name": {"type": "string"},
        "category": {"type": "string", "default": "native", "enum": list(registry.CATEGORIES)},
        "params": {"type": "object", "default": {}},
        "seed": SEED_SCHEMA,
    },
}


def _add_perturb_routes(app: FastAPI, specs: list, settings: Settings, gate: ModelGate) -> None:
    """``POST /perturb`` and the typed ``POST /perturb/{category}/{name}`` (first in the router:
    the hot route is matched before the docs and catalog routes; it matches only catalog entries
    and is documented by ``_openapi_with_typed_paths``)."""
    app.post(
        "/perturb",
        tags=["generic"],
        summary="Apply any perturbation by name",
        responses={
            "200": {
                "description": "One result per text",
                "content": {"application/json": {"schema": RESPONSE_SCHEMA}},
            },
            **error_responses(401, 404, 413, 415, 422, 502, 503, 504),
        },
        openapi_extra={
            "requestBody": {"required": True, "content": {"application/json": {"schema": GENERIC_BODY}}}
        },
    )(generic_endpoint(settings, gate))
    app.router.routes.insert(0, typed_route(specs, settings, gate))


def _add_playground(app: FastAPI) -> None:
    @app.get("/", include_in_schema=False)
    async def playground() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    @app.get("/static/markers.js", include_in_schema=False)
    async def markers() -> Response:  # the marker table of perturber.visible, for playground.js
        return Response(script(), media_type="text/javascript")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
