"""The one model gate: every route of the service and of the Lambda app, anonymous requests reach no
upstream; the gallery goes through the gate, off the event loop; deadlines on Lambda; callers' keys
opt-in, reused and bounded over the process."""

import asyncio
import hashlib
import importlib
import json

import httpx
import pytest
from fastapi.testclient import TestClient
from model_tier_helpers import SERVER_KEY, configure
from starlette.routing import Mount

from evalkit.chat_server import Reply
from perturber import core, credentials, model_tier, registry
from perturber.service import auth

TOKEN = "gate-token-for-tests"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
TEXT = "Ann has 3 cats and 2 dogs. How many pets does she have?"
REWRITE = "Ann owns 3 cats and 2 dogs. How many pets does she own?"
MODEL_ENTRIES = [s for s in registry.entries() if s.model_backed]
ANONYMOUS = [
    {},
    {"Authorization": "Bearer wrong"},
    {"Authorization": f"Basic {TOKEN}"},
    {"X-LLM-API-Key": "sk-caller-0123456789"},  # callers' keys are off by default
    {"X-LLM-Base-URL": "https://api.openai.com/v1"},
]


@pytest.fixture
def upstream(monkeypatch, llm_server):
    configure(monkeypatch, llm_server, PERTURBER_LLM_BEARER_SHA256=hashlib.sha256(TOKEN.encode()).hexdigest())
    llm_server.script(
        default=lambda body: Reply(content=REWRITE if "How many" in str(body) else "I need it.")
    )
    yield llm_server
    model_tier.reset()
    credentials.set_api_key_provider(None)


def route_requests(app) -> list[tuple[str, str, dict | None]]:
    """(method, path, JSON body) for every route of ``app``, with bodies that would reach a model
    if anything could; a route this table does not know fails the test (add it here)."""
    from perturber.service.app import _expand_deferred

    _expand_deferred(app)
    out = []
    for route in app.routes:
        if not hasattr(route, "methods") and not isinstance(route, Mount):
            continue  # the inert placeholder of the routes declared on first use (now expanded)
        if isinstance(route, Mount):
            out.append(("GET", route.path + "/playground.js", None))
            continue
        for method in sorted(route.methods or ()):
            if method == "HEAD":
                continue
            path = route.path
            if path == "/perturb/{category}/{name}":
                out += [
                    ("POST", f"/perturb/{s.category}/{s.name}", {"texts": [TEXT, ""]}) for s in MODEL_ENTRIES
                ]
            elif path == "/perturb":
                out += [
                    ("POST", "/perturb", {"name": s.name, "category": s.category, "text": TEXT})
                    for s in MODEL_ENTRIES
                ]
            elif path == "/perturb/gallery":
                out.append(("POST", path, {"text": TEXT, "include_model_backed": True}))
            elif path == "/perturbations/{category}/{name}":
                out.append(("GET", "/perturbations/native/simplification", None))
            elif method == "GET" and "{" not in path:
                out.append(("GET", path, None))
            else:
                raise AssertionError(f"route {method} {path} is new: give it a request in route_requests")
    return out


def test_every_route_of_the_app_reaches_no_upstream_for_anonymous_callers(upstream):
    from perturber.service.app import create_app

    app = create_app()
    requests = route_requests(app)
    assert {p for _, p, _ in requests} >= {"/perturb", "/perturb/gallery", "/health", "/docs"}
    client = TestClient(app)
    for headers in ANONYMOUS:
        for method, path, body in requests:
            r = client.request(method, path, json=body, headers=headers)
            assert r.status_code < 500, (method, path, r.text)
            if path == "/perturb/gallery" and r.status_code == 200:
                rows = [row for row in r.json()["results"] if row["name"] in {s.name for s in MODEL_ENTRIES}]
                assert len(rows) == len(MODEL_ENTRIES) - 0 and all(
                    row["error"]["code"] == "model_auth_required" for row in rows
                )
            elif body is not None and method == "POST":
                assert r.status_code in (401, 422), (path, headers, r.status_code)
    assert upstream.requests == []


def test_every_route_of_the_lambda_app_reaches_no_upstream_for_anonymous_callers(monkeypatch, upstream):
    from functions.api.events import LocalContext, http_api_event

    module = importlib.reload(importlib.import_module("functions.api.handler"))
    lazy = module.app
    fast_paths = {route.path for route in lazy.routes}
    assert fast_paths == {"/perturb/{category}/{name}", "/perturb"}
    requests = route_requests(lazy.full_app())
    for headers in ANONYMOUS[:3]:
        for method, path, body in requests:
            ev = http_api_event(
                method,
                path,
                headers={"content-type": "application/json", **headers},
                body=b"" if body is None else json.dumps(body).encode(),
            )
            response = module.handler(ev, LocalContext())
            assert response["statusCode"] < 500, (path, response)
    assert upstream.requests == []


def test_a_route_that_bypasses_the_gate_fails_closed(upstream):
    from perturber.service.app import create_app

    app = create_app()

    @app.post("/rogue")
    async def rogue() -> dict:  # calls the library directly: no gate
        return core.apply(TEXT, "simplification").to_dict()

    r = TestClient(app).post("/rogue", headers=AUTH)
    assert r.status_code == 401 and r.json()["error"]["code"] == "model_auth_required"
    assert upstream.requests == []


def test_gallery_spends_the_server_key_only_for_authenticated_callers(upstream):
    from perturber.service.app import create_app

    client = TestClient(create_app())
    body = {"text": TEXT, "include_model_backed": True, "family": "paraphrasing"}
    anonymous = client.post("/perturb/gallery", json=body).json()["results"]
    assert {row["error"]["code"] for row in anonymous} == {"model_auth_required"} and upstream.requests == []
    rows = client.post("/perturb/gallery", json=body, headers=AUTH).json()["results"]
    assert [row["name"] for row in rows] == [s.name for s in MODEL_ENTRIES if s.family == "paraphrasing"]
    assert all(
        row["applied"] and row["text"] == REWRITE for row in rows if row["name"] != "translate_roundtrip"
    )
    assert {r.headers["authorization"] for r in upstream.requests} == {f"Bearer {SERVER_KEY}"}
    assert upstream.max_in_flight <= 4  # a few rows at a time


def test_gallery_model_calls_do_not_block_the_event_loop(upstream):
    """/health answers while a gallery request waits for a slow upstream (it used to wait for the
    whole gallery: the model calls ran on the event loop)."""
    from perturber.service.app import create_app

    upstream.script(default=lambda body: Reply(content=REWRITE, delay=1.0))
    app = create_app()

    async def go():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            body = {"text": TEXT, "include_model_backed": True, "family": "paraphrasing"}
            gallery = asyncio.ensure_future(client.post("/perturb/gallery", json=body, headers=AUTH))
            while not upstream.requests:
                await asyncio.sleep(0.01)
            health = await client.get("/health")
            assert health.status_code == 200 and not gallery.done()
            assert (await gallery).status_code == 200

    asyncio.run(go())


# -- deadlines on Lambda -------------------------------------------------------------------------


def lambda_post(module, path, body, remaining_s, headers=AUTH):
    from functions.api.events import LocalContext, http_api_event, response_body

    ev = http_api_event(
        "POST", path, headers={"content-type": "application/json", **headers}, body=json.dumps(body).encode()
    )
    response = module.handler(ev, LocalContext(timeout_s=remaining_s))
    return response["statusCode"], json.loads(response_body(response))


def test_lambda_model_calls_end_before_the_invocation_does(monkeypatch, upstream):
    monkeypatch.setenv("PERTURBER_LLM_MAX_RETRIES", "1")
    monkeypatch.setenv("PERTURBER_LLM_TIMEOUT", "12")
    model_tier.reset()
    module = importlib.reload(importlib.import_module("functions.api.handler"))
    upstream.script(Reply(content=REWRITE, drip=0.05), Reply(content=REWRITE))
    status, body = lambda_post(module, "/perturb/native/simplification", {"texts": [TEXT]}, remaining_s=2.0)
    assert status == 504 and body["error"]["code"] == "model_timeout" and body["error"]["deadline_passed"]
    assert len(upstream.requests) == 1  # the retry would not have fitted in the invocation
    upstream.reset()
    upstream.script(Reply(status=429, headers={"retry-after": "20"}), Reply(content=REWRITE))
    status, body = lambda_post(module, "/perturb", {"name": "simplification", "text": TEXT}, remaining_s=25.0)
    assert status == 502 and body["error"]["status"] == 429 and len(upstream.requests) == 1


# -- callers' own keys -----------------------------------------------------------------------------


@pytest.fixture
def byok(monkeypatch, llm_server):
    configure(
        monkeypatch,
        llm_server,
        PERTURBER_LLM_ALLOW_CALLER_KEYS="true",
        PERTURBER_LLM_CALLER_CONCURRENCY="3",
        PERTURBER_LLM_CONCURRENCY="8",
    )
    yield llm_server
    model_tier.reset()


def test_caller_keys_are_opt_in(upstream):
    from perturber.service.app import create_app

    r = TestClient(create_app()).post(
        "/perturb/native/simplification",
        json={"texts": [TEXT]},
        headers={"X-LLM-API-Key": "sk-caller-0123456789"},
    )
    assert r.status_code == 422 and r.json()["error"]["field"] == "x-llm-api-key"
    assert "PERTURBER_LLM_ALLOW_CALLER_KEYS" in r.json()["error"]["message"] and upstream.requests == []


def test_caller_endpoints_are_reused_and_bounded_over_the_process(byok):
    from perturber.service.app import create_app

    byok.script(default=lambda body: Reply(content=REWRITE, delay=0.05))
    app = create_app()
    callers = auth.caller_endpoints(3)

    async def go():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test", timeout=60) as client:
            calls = [
                client.post(
                    "/perturb/native/simplification",
                    json={"texts": [TEXT] * 8},
                    headers={"X-LLM-API-Key": f"sk-caller-{i % 2}-0123456789"},
                )
                for i in range(6)
            ]
            return await asyncio.gather(*calls)

    responses = asyncio.run(go())
    assert [r.status_code for r in responses] == [200] * 6
    assert len(byok.requests) == 48 and byok.max_in_flight <= 3  # 6 batches of 8, 3 in flight at most
    assert len(callers) == 2  # one endpoint per key, reused by the three requests of each key
    assert {r.headers["authorization"] for r in byok.requests} == {
        "Bearer sk-caller-0-0123456789",
        "Bearer sk-caller-1-0123456789",
    }


def test_caller_endpoints_keep_at_most_32_idle():
    callers = auth.CallerEndpoints(4, kept=2)
    eps = [callers.acquire("http://127.0.0.1:9/v1", f"sk-{i}-0123456789", {}) for i in range(3)]
    assert len(callers) == 3  # all in use: none closed
    for ep in eps:
        callers.release(ep)
    again = callers.acquire("http://127.0.0.1:9/v1", "sk-2-0123456789", {})
    assert again is eps[2] and len(callers) == 2  # the least recently used idle one was closed
    callers.release(again)
    callers.close()


def test_a_failing_text_stops_the_rest_of_the_batch(byok):
    from perturber.service.app import create_app

    byok.script(Reply(status=400), default=lambda body: Reply(content=REWRITE, delay=0.02))
    r = TestClient(create_app()).post(
        "/perturb/native/simplification",
        json={"texts": [TEXT] * 100},
        headers={"X-LLM-API-Key": "sk-caller-0123456789"},
    )
    assert r.status_code == 502 and r.json()["error"]["index"] < 8  # one of the first 8 in flight
    assert len(byok.requests) < 20  # not 100: nothing more was sent once a text failed
