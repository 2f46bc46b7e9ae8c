"""The Lambda app (perturber.service.lazy.LazyApp): perturbation routes without FastAPI, the same
bytes as the full app for every request, the full app built only for the other routes."""

import asyncio
import json
import os
import subprocess
import sys

import pytest

import perturber
from perturber.service import Settings, create_app
from perturber.service.lazy import LazyApp, call

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_handler_import_loads_neither_fastapi_nor_pydantic():
    code = (
        "import sys, functions.api.handler; "
        "print(sorted({'fastapi', 'pydantic', 'pydantic_core'} & set(sys.modules)))"
    )
    env = {**os.environ, "PYTHONPATH": ROOT}
    env.pop("AWS_LAMBDA_INITIALIZATION_TYPE", None)
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("init_type", ["snap-start", "provisioned-concurrency"])
def test_init_ahead_of_traffic_builds_the_full_app(monkeypatch, init_type):
    import importlib

    import functions.api.handler as module

    monkeypatch.setenv("AWS_LAMBDA_INITIALIZATION_TYPE", init_type)
    try:
        assert importlib.reload(module).app.full is not None
    finally:
        monkeypatch.delenv("AWS_LAMBDA_INITIALIZATION_TYPE")
        assert importlib.reload(module).app.full is None


TEXTS = ["The quick brown fox didn't jump.", "Caf\u00e9 \u200b 1,000 meters"]
REQUESTS = [
    ("POST", "/perturb/native/typos", {"texts": TEXTS, "seed": 7, "count": 2}),
    ("POST", "/perturb/native/quotes", {"texts": TEXTS, "n": 3}),
    ("POST", "/perturb", {"text": TEXTS[0], "name": "random_case", "seed": 3}),
    ("POST", "/perturb", {"texts": TEXTS, "name": "leetspeak", "category": "native"}),
    # errors: the same shape and status from the fast path as from FastAPI's app
    ("POST", "/perturb/native/typos", {"texts": TEXTS, "count": -1}),
    ("POST", "/perturb/native/typos", {"texts": TEXTS, "nope": 1}),
    ("POST", "/perturb/native/typos", {"texts": []}),
    ("POST", "/perturb/native/typos", {"texts": ["x" * 2000]}),
    ("POST", "/perturb", {"name": "no_such_entry", "text": "a"}),
    ("POST", "/perturb", ["not", "an", "object"]),
    ("POST", "/perturb", {"text": "a", "name": "quotes", "seed": -1}),
]


def _no_elapsed(raw: bytes):
    data = json.loads(raw)
    for result in data.get("results", []) if isinstance(data, dict) else []:
        result.pop("elapsed_us")
    return data


@pytest.mark.parametrize("method, path, body", REQUESTS)
def test_fast_path_answers_like_the_full_app_without_building_it(method, path, body):
    settings = Settings(max_text_chars=1000)
    lazy, full = LazyApp(settings), create_app(settings)
    got_status, got = asyncio.run(call(lazy, method, path, body))
    want_status, want = asyncio.run(call(full, method, path, body))
    assert (got_status, _no_elapsed(got)) == (want_status, _no_elapsed(want))
    assert lazy.full is None


def test_fast_path_results_are_the_library_bytes():
    status, raw = asyncio.run(call(LazyApp(), "POST", "/perturb/native/typos", {"texts": TEXTS, "seed": 7}))
    assert status == 200
    expected = [perturber.perturb(t, "typos", seed=7) for t in TEXTS]
    assert [r["text"] for r in json.loads(raw)["results"]] == expected


@pytest.mark.parametrize(
    "method, path, status",
    [
        ("GET", "/health", 200),
        ("GET", "/perturbations/native/typos", 200),
        ("GET", "/openapi.json", 200),
        ("GET", "/perturb/native/typos", 405),  # a perturbation path, but not POST
        ("POST", "/perturb/native/no_such_entry", 404),
        ("POST", "/nowhere", 404),
    ],
)
def test_other_requests_go_to_the_full_app(method, path, status):
    lazy, full = LazyApp(), create_app()
    got_status, got = asyncio.run(call(lazy, method, path))
    assert lazy.full is not None
    assert (got_status, got) == asyncio.run(call(full, method, path))
    assert got_status == status


def test_openapi_document_lists_every_typed_route():
    lazy = LazyApp()
    status, raw = asyncio.run(call(lazy, "GET", "/openapi.json"))
    paths = json.loads(raw)["paths"]
    for spec in perturber.registry.entries():
        assert f"/perturb/{spec.category}/{spec.name}" in paths
    assert "/perturb" in paths


def test_body_size_limit_and_root_path():
    lazy = LazyApp(Settings(max_body_bytes=1024, root_path="/api"))
    status, raw = asyncio.run(call(lazy, "POST", "/api/perturb/native/quotes", {"texts": ["x" * 2000]}))
    assert status == 413 and json.loads(raw)["error"]["code"] == "input_too_long"
    status, raw = asyncio.run(call(lazy, "POST", "/api/perturb", {"text": "Hi", "name": "quotes"}))
    assert status == 200 and lazy.full is None
