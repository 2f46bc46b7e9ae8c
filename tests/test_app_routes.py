"""The app's route building: one dispatching typed route, catalog routes declared on first use."""

from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

import perturber
from perturber import registry
from perturber.service import Settings, create_app


def paths(app):
    return [r.path for r in app.router.routes if isinstance(r, APIRoute)]


def test_catalog_routes_are_declared_once_on_first_use():
    app = create_app(Settings())
    assert "/health" not in paths(app) and "/perturb" in paths(app)
    client = TestClient(app)
    assert client.post("/perturb/native/quotes", json={"texts": ["Hi"]}).status_code == 200
    assert "/health" not in paths(app)  # a typed request does not need them
    for _ in range(3):
        assert client.get("/health").json() == {"status": "ok"}
    assert client.get("/perturbations/native/quotes").json() == perturber.describe("quotes")
    assert paths(app).count("/health") == 1 and paths(app).count("/perturbations/{category}/{name}") == 1
    # declared where they were written: before the generic route, as before
    assert paths(app).index("/perturbations") < paths(app).index("/perturb")


def test_openapi_lists_every_entry_after_the_generic_route_in_catalog_order():
    app = create_app(Settings())
    document = app.openapi()
    listed = list(document["paths"])
    typed = [f"/perturb/{s.category}/{s.name}" for s in registry.entries()]
    start = listed.index("/perturb") + 1
    assert listed[start : start + len(typed)] == typed
    assert listed[:4] == ["/health", "/version", "/perturbations", "/perturbations/{category}/{name}"]
    op = document["paths"]["/perturb/native/typos"]["post"]
    assert op["operationId"] == "perturb_native_typos_perturb_native_typos_post"
    assert app.openapi() is document  # built once


def test_typed_route_matches_catalog_entries_only():
    client = TestClient(create_app(Settings()))
    for path in ("/perturb/native/nope", "/perturb/nope/quotes", "/perturb/native/quotes/x"):
        response = client.post(path, json={"texts": ["Hi"]})
        assert response.status_code == 404, path
        assert response.json() == {"error": {"code": "not_found", "message": "Not Found"}}
    response = client.get("/perturb/native/quotes")
    assert response.status_code == 405 and response.json()["error"]["code"] == "method_not_allowed"
    assert client.get("/perturb/native/nope").status_code == 404
