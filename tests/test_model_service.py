"""The model-backed tier over HTTP and the Lambda handler: who may spend the server's key, the
allow-list of caller base URLs, error mapping, no key in any output, and transport identity."""

import hashlib
import importlib
import json
import logging

import pytest
from fastapi.testclient import TestClient
from model_tier_helpers import MODEL, SERVER_KEY, configure

import perturber
from evalkit.chat_server import Reply
from perturber import cli, credentials, model_tier

CALLER_KEY = "sk-caller-KEY-91b2"
TOKEN = "bearer-token-for-tests"
TEXT = "Ann has 3 cats and 2 dogs. How many pets does she have?"
REWRITE = "Ann owns 3 cats and 2 dogs. How many pets does she own?"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def server(monkeypatch, llm_server):
    configure(
        monkeypatch,
        llm_server,
        PERTURBER_LLM_BEARER_SHA256=hashlib.sha256(TOKEN.encode()).hexdigest(),
        PERTURBER_LLM_ALLOWED_HOSTS=f"localhost:{llm_server.port}",
        PERTURBER_LLM_ALLOW_CALLER_KEYS="true",
    )
    yield llm_server
    model_tier.reset()
    credentials.set_api_key_provider(None)


@pytest.fixture
def client(server):
    from perturber.service.app import create_app

    return TestClient(create_app())


def post(client, name, texts, headers=None, **params):
    return client.post(f"/perturb/native/{name}", json={"texts": texts, **params}, headers=headers or {})


# -- who spends the server's key ---------------------------------------------------------------


def test_unauthenticated_caller_without_key_gets_401_and_no_request(client, server):
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {TOKEN}"}):
        r = post(client, "simplification", [TEXT], headers)
        assert r.status_code == 401 and r.json()["error"]["code"] == "model_auth_required"
        r = client.post("/perturb", json={"name": "emotion_prompt", "text": TEXT}, headers=headers)
        assert r.status_code == 401
    assert server.requests == []
    ok = post(client, "simplification", ["", ""])  # empty texts never need a key
    assert ok.status_code == 200 and [x["reason"] for x in ok.json()["results"]] == ["empty_input"] * 2
    assert post(client, "quotes", [TEXT], n=1).status_code == 200  # the deterministic tier stays open
    assert server.requests == []


def test_listed_bearer_token_spends_the_server_key(client, server):
    server.script(Reply(content="Ann owns 3 cats and 2 dogs. How many pets?"))
    r = post(client, "simplification", [TEXT], AUTH, temperature=0.3, seed=9)
    assert r.status_code == 200
    res = r.json()["results"][0]
    assert res["text"] == "Ann owns 3 cats and 2 dogs. How many pets?" and res["model"]["model"] == MODEL
    assert res["model"]["usage"]["total_tokens"] > 0 and res["model"]["latency_ms"] > 0
    [req] = server.requests
    assert req.headers["authorization"] == f"Bearer {SERVER_KEY}"
    assert (req.body["temperature"], req.body["seed"]) == (0.3, 9)


def test_caller_key_is_sent_instead_of_the_server_key(client, server):
    server.script(Reply(content=REWRITE))
    r = client.post(
        "/perturb", json={"name": "simplification", "text": TEXT}, headers={"X-LLM-API-Key": CALLER_KEY}
    )
    assert r.status_code == 200
    assert server.requests[0].headers["authorization"] == f"Bearer {CALLER_KEY}"


def test_caller_base_url_only_for_listed_hosts_and_never_with_the_server_key(client, server):
    for url in (
        "https://evil.example/v1",
        f"http://127.0.0.1:{server.port}/v1",  # listed as localhost only
        "http://localhost:1/v1",
        "ftp://localhost/v1",
        "not a url",
    ):
        for headers in ({"X-LLM-Base-URL": url}, {"X-LLM-Base-URL": url, **AUTH}):
            r = post(client, "simplification", [TEXT], headers)
            assert r.status_code == 422 and r.json()["error"]["field"] == "x-llm-base-url", url
    assert server.requests == []
    caller_url = f"http://localhost:{server.port}/v1"
    server.script(Reply(content=REWRITE), Reply(content=REWRITE))
    assert post(client, "simplification", [TEXT], {"X-LLM-Base-URL": caller_url, **AUTH}).status_code == 200
    assert "authorization" not in server.requests[0].headers  # authenticated, still no server key
    assert (
        post(
            client, "simplification", [TEXT], {"X-LLM-Base-URL": caller_url, "X-LLM-API-Key": CALLER_KEY}
        ).status_code
        == 200
    )
    assert server.requests[1].headers["authorization"] == f"Bearer {CALLER_KEY}"


def test_no_allowed_hosts_refuses_every_caller_url(monkeypatch, server):
    monkeypatch.delenv("PERTURBER_LLM_ALLOWED_HOSTS")
    model_tier.reset()
    from perturber.service.app import create_app

    r = post(TestClient(create_app()), "simplification", [TEXT], {"X-LLM-Base-URL": server.base_url, **AUTH})
    assert r.status_code == 422 and "PERTURBER_LLM_ALLOWED_HOSTS" in r.json()["error"]["message"]
    assert server.requests == []


def test_bad_access_configuration_fails_at_start_up(monkeypatch, server):
    from perturber.errors import ConfigurationError
    from perturber.service.app import create_app

    monkeypatch.setenv("PERTURBER_LLM_BEARER_SHA256", "not-a-digest")
    with pytest.raises(ConfigurationError):
        create_app()
    monkeypatch.setenv("PERTURBER_LLM_BEARER_SHA256", "")
    monkeypatch.setenv("PERTURBER_LLM_TIMEOUT", "-1")
    model_tier.reset()
    with pytest.raises(ConfigurationError, match="PERTURBER_LLM_TIMEOUT"):
        create_app()


# -- error mapping ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply, status, code",
    [
        (Reply(status=500), 502, "model_error"),
        (Reply(status=401, content="bad key"), 502, "model_error"),
        (Reply(content=None, finish_reason="content_filter"), 502, "model_refused"),
        (Reply(content="x", finish_reason="length"), 502, "model_truncated"),
        (Reply(content="   "), 502, "model_empty"),
        (Reply(content="As an AI, I cannot."), 502, "model_refused"),
    ],
)
def test_http_error_mapping(client, server, reply, status, code):
    server.script(reply)
    r = post(client, "simplification", ["first", TEXT], AUTH)
    server.script(reply)
    assert r.status_code == status
    err = r.json()["error"]
    assert err["code"] == code
    assert err["index"] in (0, 1)


def test_http_timeout_and_unavailable(monkeypatch, server):
    from perturber.service.app import create_app

    monkeypatch.setenv("PERTURBER_LLM_TIMEOUT", "0.2")
    model_tier.reset()
    server.script(Reply(delay=1.0))
    r = post(TestClient(create_app()), "simplification", [TEXT], AUTH)
    assert r.status_code == 504 and r.json()["error"]["code"] == "model_timeout"
    monkeypatch.delenv("PERTURBER_LLM_BASE_URL")
    model_tier.reset()
    r = post(TestClient(create_app()), "simplification", [TEXT], AUTH)
    assert r.status_code == 503 and r.json()["error"]["code"] == "model_unavailable"


def test_batches_are_bounded_and_ordered_over_http(client, server, monkeypatch):
    server.script(default=lambda body: Reply(content=body["messages"][1]["content"] + "?", delay=0.05))
    texts = [f"item {i}" for i in range(40)]
    r = post(client, "simplification", texts, AUTH)
    assert [x["text"] for x in r.json()["results"]] == [t + "?" for t in texts]
    # bounded by the setting, and concurrent (how many overlap depends on the machine's load: a
    # loaded machine saw 14 of 16, so the exact peak is not asserted)
    assert 1 < server.max_in_flight <= model_tier.settings().concurrency == 16


# -- keys never leak -----------------------------------------------------------------------------


def test_no_key_in_responses_logs_or_errors(client, server, caplog):
    caplog.set_level(logging.DEBUG)
    bodies = []
    server.script(Reply(status=401, content=f"invalid api key {SERVER_KEY}"))
    bodies.append(post(client, "simplification", [TEXT], AUTH).text)
    server.script(Reply(status=403, content=f"invalid api key {CALLER_KEY}"))
    bodies.append(post(client, "simplification", [TEXT], {"X-LLM-API-Key": CALLER_KEY}).text)
    server.script(Reply(content=REWRITE))
    bodies.append(post(client, "simplification", [TEXT], {"X-LLM-API-Key": CALLER_KEY}).text)
    bodies.append(
        post(
            client,
            "simplification",
            [TEXT],
            {"X-LLM-Base-URL": "https://evil.example/v1", "X-LLM-API-Key": CALLER_KEY},
        ).text
    )
    bodies.append(client.get("/perturbations?model_backed=true").text)
    bodies.append(client.get("/openapi.json").text)
    logs = [r.getMessage() + repr(r.args) for r in caplog.records]
    for secret in (SERVER_KEY, CALLER_KEY, TOKEN):
        assert not any(secret in b for b in bodies + logs), secret
    assert "***" in bodies[0] and "***" in bodies[1]


def test_catalog_filter_and_openapi_advertise_the_configured_models(monkeypatch, server):
    from perturber.service.app import create_app

    monkeypatch.setenv("PERTURBER_LLM_MODELS", "m-a,m-b")
    monkeypatch.delenv("PERTURBER_LLM_DEFAULT_MODEL")
    model_tier.reset()
    c = TestClient(create_app())
    listing = c.get("/perturbations?model_backed=true").json()
    assert listing["count"] == 17
    assert all(e["params"][0]["choices"] == ["m-a", "m-b"] for e in listing["perturbations"])
    schema = c.get("/openapi.json").json()["paths"]["/perturb/native/simplification"]["post"]
    prop = schema["requestBody"]["content"]["application/json"]["schema"]["properties"]["model"]
    assert prop["enum"] == ["m-a", "m-b"] and prop["default"] == "m-a"
    assert "401" in schema["responses"]
    r = post(c, "simplification", [TEXT], AUTH, model="m-c")
    assert r.status_code == 422 and r.json()["error"]["field"] == "model"


# -- Lambda: IAM authorization in a real API Gateway event --------------------------------------


def lambda_handler(monkeypatch):
    import functions.api.handler as module

    module = importlib.reload(module)
    return module.handler


def lambda_call(handler, path, body, headers=None, iam=None, rest_identity=None):
    from functions.api.events import LocalContext, http_api_event, response_body

    ev = http_api_event(
        "POST",
        path,
        headers={"content-type": "application/json", **(headers or {})},
        body=json.dumps(body).encode(),
    )
    if iam is not None:
        ev["requestContext"]["authorizer"] = {"iam": iam}
    if rest_identity is not None:
        ev["requestContext"]["identity"] = rest_identity
    response = handler(ev, LocalContext())
    return response["statusCode"], json.loads(response_body(response))


IAM = {
    "accessKey": "ASIAEXAMPLE",
    "accountId": "123456789012",
    "callerId": "AROAEXAMPLE:alice",
    "principalOrgId": None,
    "userArn": "arn:aws:sts::123456789012:assumed-role/perturber-client/alice",
    "userId": "AROAEXAMPLE:alice",
    "cognitoIdentity": None,
}


def test_lambda_iam_authorized_caller_gets_the_server_key(monkeypatch, server):
    handler = lambda_handler(monkeypatch)
    status, body = lambda_call(handler, "/perturb/native/simplification", {"texts": [TEXT]})
    assert status == 401 and body["error"]["code"] == "model_auth_required" and server.requests == []
    server.script(Reply(content="Ann has 3 cats, 2 dogs: how many pets?"))
    status, body = lambda_call(handler, "/perturb/native/simplification", {"texts": [TEXT]}, iam=IAM)
    assert status == 200 and body["results"][0]["text"] == "Ann has 3 cats, 2 dogs: how many pets?"
    assert server.requests[0].headers["authorization"] == f"Bearer {SERVER_KEY}"
    # a REST API (v1) identity without IAM (no access key) is not authenticated
    status, _ = lambda_call(
        handler,
        "/perturb/native/simplification",
        {"texts": [TEXT]},
        rest_identity={"sourceIp": "1.2.3.4", "userArn": None, "accessKey": None},
    )
    assert status == 401
    # a forged header cannot stand in for the event's authorizer context
    status, _ = lambda_call(
        handler,
        "/perturb/native/simplification",
        {"texts": [TEXT]},
        headers={"x-amzn-iam-userarn": IAM["userArn"]},
    )
    assert status == 401 and len(server.requests) == 1


# -- transport identity -------------------------------------------------------------------------


def _comparable(result: dict) -> dict:
    out = {k: result[k] for k in ("text", "applied", "reason", "edits", "magnitude", "details")}
    out["model"] = {k: v for k, v in result["model"].items() if k != "latency_ms"}
    return out


@pytest.mark.parametrize(
    "name, params",
    [
        ("simplification", {"temperature": 0.5}),
        ("translate_roundtrip", {"language": "Japanese"}),
        ("distractor_injection", {}),
        ("knowledge_boundary", {"boundary": "fabricated_entity"}),
    ],
)
def test_transport_identity(monkeypatch, server, capsysbinary, name, params):
    def scripted(body):
        user = body["messages"][1]["content"]
        if name == "distractor_injection":
            return Reply(content='Here is the sentence:\n"Her cats are called Tom and Tim."')
        return Reply(content=f"```\n{user.upper()}\n```")

    server.script(default=scripted)
    text = "  Ann has 3 cats and 2 dogs.\nHow many pets does she have?\n"
    lib = perturber.apply(text, name, params, seed=4).to_dict()
    expected = _comparable(lib)
    from perturber.service.app import create_app

    c = TestClient(create_app())
    typed = post(c, name, [text], AUTH, seed=4, **params).json()
    generic = c.post(
        "/perturb", json={"name": name, "texts": [text], "params": params, "seed": 4}, headers=AUTH
    ).json()
    argv = [name, "--text", text, "--seed", "4", "--json"]
    for k, v in params.items():
        argv += [f"--{k.replace('_', '-')}", str(v)]
    assert cli.main(argv) == 0
    via_cli = json.loads(capsysbinary.readouterr().out)
    status, via_lambda = lambda_call(
        lambda_handler(monkeypatch),
        f"/perturb/native/{name}",
        {"texts": [text], "seed": 4, **params},
        iam=IAM,
    )
    assert status == 200
    for got in (typed["results"][0], generic["results"][0], via_cli, via_lambda["results"][0]):
        assert _comparable(got) == expected
    assert typed["params"] == generic["params"] == via_cli["params"] == lib["params"]
    assert lib["applied"] and lib["model"]["model"] == MODEL


@pytest.mark.parametrize(
    "reply, code, status, exit_code",
    [
        (Reply(status=502), "model_error", 502, 4),
        (Reply(delay=1.0), "model_timeout", 504, 4),
        (Reply(content="\n \n"), "model_empty", 502, 4),
        (Reply(content="I am unable to write that."), "model_refused", 502, 4),
        (Reply(content=None, finish_reason="content_filter"), "model_refused", 502, 4),
        (Reply(content="x", finish_reason="length"), "model_truncated", 502, 4),
        (Reply(content="y" * 401), "model_invalid_output", 502, 4),
    ],
)
def test_every_model_error_over_library_cli_and_http(
    monkeypatch, server, capsysbinary, reply, code, status, exit_code
):
    from perturber.errors import ModelBackendError
    from perturber.service.app import create_app

    monkeypatch.setenv("PERTURBER_LLM_TIMEOUT", "0.3")
    model_tier.reset()
    server.script(reply)
    with pytest.raises(ModelBackendError) as info:
        perturber.apply(TEXT, "sycophancy_bait")
    assert info.value.code == code
    server.script(reply)
    assert cli.main(["sycophancy_bait", "--text", TEXT]) == exit_code
    assert f"perturber: {code}: " in capsysbinary.readouterr().err.decode()
    server.script(reply)
    r = post(TestClient(create_app()), "sycophancy_bait", [TEXT], AUTH)
    assert r.status_code == status and r.json()["error"]["code"] == code
    assert len(server.requests) == 3  # no retries configured in these tests, one request per transport
