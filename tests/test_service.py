"""The HTTP service: routes, limits, error mapping (no input may produce a 500)."""

import threading

import pytest
from fastapi.testclient import TestClient

import perturber
from perturber import registry
from perturber.service import Settings, create_app


@pytest.fixture(scope="module")
def client():
    app = create_app(Settings(max_text_chars=1_000_000, max_texts=50, max_body_bytes=200_000))
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def post_raw(client, path, body: bytes, ctype="application/json"):
    return client.post(path, content=body, headers={"content-type": ctype})


def assert_error(resp, status, code):
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert set(body) == {"error"} and body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    return body["error"]


def test_typed_route_matches_the_library(client):
    resp = client.post("/perturb/native/quotes", json={"texts": ["Hi", "", "a b"], "n": 2, "seed": 5})
    assert resp.status_code == 200
    body = resp.json()
    assert {k: body[k] for k in ("name", "category", "family", "version", "seed", "params")} == {
        "name": "quotes",
        "category": "native",
        "family": "padding",
        "version": 1,
        "seed": 5,
        "params": {"n": 2},
    }
    for text, result in zip(["Hi", "", "a b"], body["results"]):
        lib = perturber.apply(text, "quotes", {"n": 2}, 5).to_dict()
        assert {k: result[k] for k in ("text", "applied", "reason", "edits", "magnitude", "details")} == {
            k: lib[k] for k in ("text", "applied", "reason", "edits", "magnitude", "details")
        }
        assert result["elapsed_us"] >= 0


def test_generic_route_single_and_batch(client):
    one = client.post("/perturb", json={"text": "Hi", "name": "spaces", "params": {"n": 1}}).json()
    many = client.post(
        "/perturb",
        json={"texts": ["Hi"], "name": "spaces", "category": "native", "params": {"n": 1}, "seed": 0},
    ).json()
    assert one == {**many, "results": [{**many["results"][0], "elapsed_us": one["results"][0]["elapsed_us"]}]}
    assert one["results"][0]["text"] == "  Hi  "


def test_catalog_routes(client):
    listing = client.get("/perturbations").json()
    assert listing["count"] == len(registry.entries()) == len(listing["perturbations"])
    assert listing["catalog_digest"] == perturber.catalog_digest()
    padding = client.get("/perturbations", params={"family": "padding", "category": "native"}).json()
    assert [e["name"] for e in padding["perturbations"]] == [
        "quotes",
        "spaces",
        "new_lines",
        "trailing_newline",
    ]
    out = client.get("/perturbations", params={"in_scope": "false"}).json()["perturbations"]
    assert all(not e["in_scope"] for e in out)
    assert client.get("/perturbations/native/quotes").json() == perturber.describe("quotes")
    err = assert_error(client.get("/perturbations/native/quotse"), 404, "unknown_perturbation")
    assert err["suggestions"] == ["quotes"]
    assert client.get("/health").json() == {"status": "ok"}
    version = client.get("/version").json()
    assert version["catalog_digest"] == perturber.catalog_digest()
    assert version["native"] is (perturber.native.c is not None)
    page = client.get("/")
    assert page.status_code == 200 and "perturber playground" in page.text
    assert client.get("/static/playground.js").status_code == 200


def test_openapi_has_one_typed_route_per_entry_with_ranges(client):
    spec = client.get("/openapi.json").json()
    for entry in registry.entries():
        op = spec["paths"][f"/perturb/{entry.category}/{entry.name}"]["post"]
        assert op["tags"] == [entry.family]
        schema = op["requestBody"]["content"]["application/json"]["schema"]
        assert schema["additionalProperties"] is False and "texts" in schema["required"]
        for p in entry.params:
            prop = schema["properties"][p.name]
            assert prop.get("default") == p.default and p.description in prop["description"]
            if p.choices:
                assert prop["enum"] == list(p.choices)
            elif p.type is str:  # the model-backed tier's ``model``: a pattern, configured choices
                assert prop["pattern"] == p.schema()["pattern"] and prop["maxLength"] == 128
            else:
                assert (prop["minimum"], prop["maximum"]) == (p.ge, p.le)


@pytest.mark.parametrize(
    "body, field",
    [
        ({"texts": ["x"], "n": 0}, "n"),
        ({"texts": ["x"], "n": 2.0}, "n"),
        ({"texts": ["x"], "n": True}, "n"),
        ({"texts": ["x"], "seed": -1}, "seed"),
        ({"texts": ["x"], "seed": True}, "seed"),
        ({"texts": ["x"], "seed": 2**63}, "seed"),
        ({"texts": ["x"], "seed": 1.5}, "seed"),
        ({"texts": ["x"], "extra": 1}, "extra"),
        ({"texts": []}, "texts"),
        ({}, "texts"),
        ({"texts": "x"}, "texts"),
        ({"texts": [1]}, "text"),
        ({"texts": [None]}, "text"),
    ],
)
def test_validation_errors_name_the_field(client, body, field):
    err = assert_error(client.post("/perturb/native/quotes", json=body), 422, "validation_error")
    assert err["field"] == field


def test_malformed_bodies(client):
    assert_error(post_raw(client, "/perturb/native/quotes", b"{not json"), 422, "validation_error")
    assert_error(post_raw(client, "/perturb/native/quotes", b"[1, 2]"), 422, "validation_error")
    assert_error(
        post_raw(client, "/perturb/native/quotes", b'{"texts": ["a"]}', "text/plain"),
        415,
        "unsupported_media_type",
    )
    assert_error(post_raw(client, "/perturb/native/quotes", b"\xff\xfe"), 422, "validation_error")
    assert_error(
        post_raw(client, "/perturb/native/quotes", b'{"texts": ["\\ud800"]}'), 422, "validation_error"
    )
    assert_error(
        post_raw(client, "/perturb/native/quotes", b'{"texts": ["a"], "n": NaN}'), 422, "validation_error"
    )
    assert_error(post_raw(client, "/perturb/native/quotes", b"[" * 100_000), 422, "validation_error")
    assert_error(client.get("/perturb/native/quotes"), 405, "method_not_allowed")
    assert_error(
        client.post("/perturb", json={"text": "a", "name": "x", "category": "nope"}),
        404,
        "unknown_perturbation",
    )
    assert_error(
        client.post("/perturb", json={"text": "a", "texts": ["b"], "name": "quotes"}), 422, "validation_error"
    )
    assert_error(
        client.post("/perturb", json={"text": "a", "name": "quotes", "params": [1]}), 422, "validation_error"
    )
    assert_error(client.post("/perturb", json={"text": "a", "name": 3}), 422, "validation_error")


def test_size_limits(client):
    err = assert_error(
        client.post("/perturb/native/quotes", json={"texts": ["x"] * 51}), 413, "input_too_long"
    )
    assert err["limit"] == 50 and "50" in err["message"]
    err = assert_error(
        client.post("/perturb/native/quotes", json={"texts": ["x" * 300_000]}), 413, "input_too_long"
    )
    assert err["limit"] == 200_000

    def chunks():
        for _ in range(30):
            yield b" " * 10_000

    resp = client.post(
        "/perturb/native/quotes", content=chunks(), headers={"content-type": "application/json"}
    )
    assert_error(resp, 413, "input_too_long")


def test_text_limit_from_settings():
    app = create_app(Settings(max_text_chars=10))
    with TestClient(app) as c:
        err = assert_error(
            c.post("/perturb/native/quotes", json={"texts": ["short", "x" * 11]}), 413, "input_too_long"
        )
        assert err["limit"] == 10 and err["index"] == 1


def test_settings_from_env():
    s = Settings.from_env({"PERTURBER_MAX_TEXTS": "7", "PERTURBER_MAX_BODY_BYTES": "2048"})
    assert (s.max_texts, s.max_body_bytes, s.max_text_chars) == (7, 2048, 100_000)
    with pytest.raises(ValueError):
        Settings.from_env({"PERTURBER_MAX_TEXTS": "lots"})


def test_parallel_requests_match_sequential(client):
    jobs = [
        (s.name, t)
        for s in registry.entries()
        if not s.model_backed and s.category == "native"
        for t in ("Hello there, my friend!", "What is 2+2?\nAnswer:")
    ]

    def call(name, text):
        return client.post(f"/perturb/native/{name}", json={"texts": [text], "seed": 3}).json()["results"][0][
            "text"
        ]

    sequential = [call(n, t) for n, t in jobs]
    parallel = [None] * len(jobs)

    def work(k):
        for i in range(k, len(jobs), 4):
            parallel[i] = call(*jobs[i])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert parallel == sequential


def test_typed_routes_validate_through_param_validate_only(client):
    """The pydantic models only describe parameters; the step grid is enforced by Param.validate."""
    spec = registry.get("random_case")
    schema = client.get("/openapi.json").json()
    body = schema["paths"]["/perturb/native/random_case"]["post"]["requestBody"]["content"][
        "application/json"
    ]["schema"]
    assert body["properties"]["rate"]["multipleOf"] == 0.0001
    err = assert_error(
        client.post("/perturb/native/random_case", json={"texts": ["Hi"], "rate": 0.00015}),
        422,
        "validation_error",
    )
    with pytest.raises(perturber.InvalidParams) as lib:
        spec.resolve({"rate": 0.00015})
    assert err["message"] == lib.value.message and "step grid" in err["message"]
    for bad in (True, "0.5", None, 2.0):
        resp = client.post("/perturb/native/random_case", json={"texts": ["Hi"], "rate": bad})
        with pytest.raises(perturber.InvalidParams) as lib:
            spec.resolve({"rate": bad})
        assert assert_error(resp, 422, "validation_error")["message"] == lib.value.message
    forbidden = registry.get("scale_quantity")
    resp = client.post("/perturb/native/scale_quantity", json={"texts": ["5 km"], "exponent": 0})
    with pytest.raises(perturber.InvalidParams) as lib:
        forbidden.resolve({"exponent": 0})
    assert assert_error(resp, 422, "validation_error")["message"] == lib.value.message
