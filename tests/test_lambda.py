"""The Lambda handler, in-process, with the API Gateway events of infra/events/ (no Docker/AWS)."""

import base64
import importlib
import json
import pathlib

import pytest

import perturber

ROOT = pathlib.Path(__file__).resolve().parent.parent
EVENTS = sorted((ROOT / "infra" / "events").glob("*.json"))


def load_handler(monkeypatch, **env):
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    import functions.api.handler as module

    module = importlib.reload(module)
    return module.handler


@pytest.fixture
def handler(monkeypatch):
    return load_handler(monkeypatch)


def call(handler, event):
    from functions.api.events import LocalContext, response_body

    response = handler(event, LocalContext())
    return response, response_body(response)


def event(name):
    return json.loads((ROOT / "infra" / "events" / f"{name}.json").read_text())


def request_body(ev):
    raw = base64.b64decode(ev["body"]) if ev["isBase64Encoded"] else ev["body"].encode()
    return json.loads(raw)


def test_every_sample_event_is_answered_without_a_server_error(handler, monkeypatch):
    assert len(EVENTS) >= 8
    for path in EVENTS:
        ev = json.loads(path.read_text())
        h = handler
        if "stage" in path.name:
            h = load_handler(monkeypatch, PERTURBER_API_BASE_PATH="/prod")
        response, body = call(h, ev)
        assert response["statusCode"] < 500, path.name
        assert response["headers"]["content-type"].startswith("application/json"), path.name
        json.loads(body)


@pytest.mark.parametrize("name", ["http-api-typed", "rest-api-typed"])
def test_typed_route_gives_the_library_bytes(handler, name):
    ev = event(name)
    response, body = call(handler, ev)
    assert response["statusCode"] == 200
    sent = request_body(ev)
    got = json.loads(body)
    expected = [perturber.perturb(t, "typos", {"count": sent["count"]}, sent["seed"]) for t in sent["texts"]]
    assert [r["text"] for r in got["results"]] == expected
    assert got["params"] == {"count": 2} and got["seed"] == 7


def test_generic_and_catalog_events(handler):
    response, body = call(handler, event("http-api-generic"))
    assert response["statusCode"] == 200
    assert json.loads(body)["results"][0]["text"] == perturber.perturb("Hi there", "quotes", {"n": 3})
    for name in ("http-api-catalog", "rest-api-catalog"):
        response, body = call(handler, event(name))
        listing = json.loads(body)
        assert response["statusCode"] == 200
        native = [e["name"] for e in listing["perturbations"] if e["category"] == "native"]
        assert native == ["quotes", "spaces", "new_lines", "trailing_newline"]


def test_error_statuses(handler):
    response, body = call(handler, event("http-api-bad-request"))
    assert response["statusCode"] == 422
    assert json.loads(body)["error"]["field"] == "count"
    response, body = call(handler, event("http-api-oversize"))
    assert response["statusCode"] == 413
    assert json.loads(body)["error"]["code"] == "input_too_long"


def test_body_limit_from_environment(monkeypatch):
    h = load_handler(monkeypatch, PERTURBER_MAX_BODY_BYTES="2048")
    from functions.api.events import http_api_event

    big = json.dumps({"texts": ["x" * 3000]}).encode()
    response, body = call(
        h,
        http_api_event(
            "POST", "/perturb/native/quotes", headers={"content-type": "application/json"}, body=big
        ),
    )
    assert response["statusCode"] == 413 and b"2048" in body
    monkeypatch.delenv("PERTURBER_MAX_BODY_BYTES")
    load_handler(monkeypatch)


def test_stage_base_path_is_stripped(monkeypatch):
    ev = event("http-api-stage-typed")
    assert ev["rawPath"].startswith("/prod/")
    plain = load_handler(monkeypatch)
    assert call(plain, ev)[0]["statusCode"] == 404
    staged = load_handler(monkeypatch, PERTURBER_API_BASE_PATH="/prod")
    response, body = call(staged, ev)
    assert response["statusCode"] == 200
    assert json.loads(body)["name"] == "typos"
    monkeypatch.delenv("PERTURBER_API_BASE_PATH")
    load_handler(monkeypatch)


def test_plain_text_body_and_base64_flag(handler):
    from functions.api.events import http_api_event

    ev = http_api_event(
        "POST",
        "/perturb",
        headers={"content-type": "application/json"},
        body=json.dumps({"text": "Caf\u00e9 \u200b", "name": "baseline"}).encode(),
    )
    assert ev["isBase64Encoded"] is True
    response, body = call(handler, ev)
    assert response["statusCode"] == 200 and response["isBase64Encoded"] is False
    assert json.loads(body)["results"][0]["text"] == "Caf\u00e9 \u200b"
    ev["body"], ev["isBase64Encoded"] = base64.b64decode(ev["body"]).decode(), False
    assert call(handler, ev)[0]["statusCode"] == 200


def test_playground_page_through_lambda(handler):
    from functions.api.events import http_api_event

    response, body = call(handler, http_api_event("GET", "/"))
    assert response["statusCode"] == 200 and b"perturber playground" in body


def test_invoke_module_prints_the_response(capsys):
    from functions.api import invoke

    assert invoke.main([str(ROOT / "infra/events/http-api-generic.json"), "--body-only"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["results"][0]["text"] == perturber.perturb("Hi there", "quotes", {"n": 3})
    assert invoke.main(["/nonexistent.json"]) == 2


def test_local_adapter_serves_the_handler():
    import threading
    import urllib.request

    from functions.api.local import make_server

    server = make_server("127.0.0.1", 0, stage="$default")
    port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        req = urllib.request.Request(
            f"http://127.0.0.1:{port}/perturb/native/quotes",
            data=json.dumps({"texts": ["Hi"], "n": 1}).encode(),
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            assert json.loads(resp.read())["results"][0]["text"] == '" Hi "'
    finally:
        server.shutdown()
