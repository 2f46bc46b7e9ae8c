"""The Lambda app: the perturbation routes without FastAPI, the full app built on first need.

Importing FastAPI costs more than everything else in the function's INIT (pydantic builds its
OpenAPI models at import), yet ``POST /perturb`` and ``POST /perturb/{category}/{name}`` use
none of it: they are plain Starlette routes (``perturber.service.routes``). ``LazyApp`` serves
those two routes through a Starlette stack with the same body-size middleware and error handlers
as ``create_app``'s; every other request (catalog, ``/openapi.json``, ``/docs``, gallery,
playground, 404 and 405 answers) goes to ``create_app(settings)``, built on the first such request
(or by ``full_app()``) and kept. Responses are the same bytes either way.

>>> import asyncio, json
>>> app = LazyApp(Settings())
>>> status, body = asyncio.run(call(app, "POST", "/perturb/native/quotes", {"texts": ["Hi"], "n": 1}))
>>> status, json.loads(body)["results"][0]["text"], app.full is None
(200, '" Hi "', True)
"""

from __future__ import annotations

import json
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Match, Route

from .. import registry
from ..errors import PerturberError
from .auth import DenyUngated, start_up
from .limits import BodySizeLimit
from .routes import generic_endpoint, perturber_error_handler, typed_route, unexpected_error_handler
from .settings import Settings


class LazyApp:
    """ASGI app: the perturbation routes here, anything else through ``create_app`` (lazily)."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings = settings or Settings()
        self.gate = gate = start_up()  # as create_app: bad settings fail at start-up
        self.routes = [  # the typed route first: the one most requests take
            typed_route(registry.entries(), settings, gate),
            Route("/perturb", generic_endpoint(settings, gate), methods=["POST"]),
        ]
        self.fast = Starlette(
            routes=self.routes,
            middleware=[
                Middleware(BodySizeLimit, max_bytes=settings.max_body_bytes),
                Middleware(DenyUngated),
            ],
            exception_handlers={PerturberError: perturber_error_handler, Exception: unexpected_error_handler},
        )
        self.full: Any = None

    def full_app(self) -> Any:
        """The FastAPI app of ``create_app(self.settings)`` (built once)."""
        if self.full is None:
            from .app import create_app

            self.full = create_app(self.settings)
        return self.full

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            if self.settings.root_path:  # as FastAPI does, before routing
                scope["root_path"] = self.settings.root_path
            for route in self.routes:
                if route.matches(scope)[0] is Match.FULL:
                    return await self.fast(scope, receive, send)
        await self.full_app()(scope, receive, send)


async def call(app, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
    """One in-process HTTP request to an ASGI ``app``: ``(status, body)`` (tests, doctests)."""
    raw = b"" if body is None else json.dumps(body).encode()
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode())],
        "server": ("testserver", 80),
        "client": ("127.0.0.1", 1),
    }
    sent = [{"type": "http.request", "body": raw, "more_body": False}]
    out: dict = {"status": 0, "body": b""}

    async def receive():
        return sent.pop(0) if sent else {"type": "http.disconnect"}

    async def send(message):
        if message["type"] == "http.response.start":
            out["status"] = message["status"]
        elif message["type"] == "http.response.body":
            out["body"] += message.get("body", b"")

    await app(scope, receive, send)
    return out["status"], out["body"]
