"""The playground's gallery view in headless Chromium, and its batch route POST /perturb/gallery."""

import pathlib

import pytest
from fastapi.testclient import TestClient
from test_playground import CHROMIUM, page, server  # noqa: F401  (shared browser fixtures)

import perturber
from perturber.service import Settings, create_app
from perturber.service.gallery import GALLERY_MAX_CHARS

TEXT = "What is the capital of France? Answer in one word."


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app(Settings(max_text_chars=100_000)))


def test_gallery_route_applies_every_entry_at_its_defaults(client):
    body = client.post("/perturb/gallery", json={"text": TEXT, "seed": 5}).json()
    specs = [e for e in perturber.list_perturbations(category="native") if not e["model_backed"]]
    assert [r["name"] for r in body["results"]] == [e["name"] for e in specs]
    assert body["count"] == len(specs) and body["seed"] == 5
    for row in body["results"]:
        expected = perturber.apply(TEXT, row["name"], None, 5, row["category"])
        assert (row["text"], row["applied"], row["reason"], row["edits"], row["magnitude"]) == (
            expected.text,
            expected.applied,
            expected.reason,
            expected.edits,
            expected.magnitude,
        )
        assert row["params"] == expected.params


def test_gallery_filters(client):
    rows = client.post(
        "/perturb/gallery", json={"text": TEXT, "family": "structure", "in_scope": True}
    ).json()["results"]
    assert rows and {r["family"] for r in rows} == {"structure"} and all(r["in_scope"] for r in rows)
    names = {
        r["name"]
        for r in client.post("/perturb/gallery", json={"text": TEXT, "expectation": "directional"}).json()[
            "results"
        ]
    }
    assert names == {e["name"] for e in perturber.list_perturbations(expectation="directional")}


@pytest.mark.parametrize(
    "body, status, field",
    [
        ({"text": 3}, 422, "text"),
        ({"seed": 1}, 422, "text"),
        ({"text": "x", "family": "nope"}, 422, "family"),
        ({"text": "x", "in_scope": "yes"}, 422, "in_scope"),
        ({"text": "x", "bogus": 1}, 422, "bogus"),
        ({"text": "x", "seed": -1}, 422, "seed"),
        ({"text": "x", "seed": True}, 422, "seed"),
        ({"text": "x" * (GALLERY_MAX_CHARS + 1)}, 413, "text"),
    ],
)
def test_gallery_errors_are_clean(client, body, status, field):
    resp = client.post("/perturb/gallery", json=body)
    assert resp.status_code == status and resp.json()["error"]["field"] == field


def test_gallery_needs_json_and_an_object(client):
    assert client.post("/perturb/gallery", content=b"x").status_code == 415
    resp = client.post(
        "/perturb/gallery", content=b'{"text": "a\\ud800"}', headers={"content-type": "application/json"}
    )
    assert resp.status_code == 422 and "surrogate" in resp.json()["error"]["message"]
    resp = client.post("/perturb/gallery", content=b"[]", headers={"content-type": "application/json"})
    assert resp.status_code == 422


def test_an_entry_that_fails_reports_its_error_in_its_row(client, monkeypatch):
    from perturber import registry
    from perturber.errors import ResourceUnavailable

    spec = registry.get("quotes")

    def broken(text, rng, **params):
        raise ResourceUnavailable("no data here")

    monkeypatch.setitem(
        registry._REGISTRY, ("native", "quotes"), __import__("dataclasses").replace(spec, function=broken)
    )
    resp = client.post("/perturb/gallery", json={"text": TEXT, "family": "padding"})
    assert resp.status_code == 200
    rows = {r["name"]: r for r in resp.json()["results"]}
    assert rows["quotes"]["error"]["code"] == "data_unavailable" and "text" not in rows["quotes"]
    assert rows["spaces"]["applied"] is True


def test_reference_is_served(client):
    resp = client.get("/reference")
    ref = pathlib.Path(__file__).resolve().parent.parent / "docs" / "perturbations.md"
    assert resp.status_code == 200 and resp.text == ref.read_text(encoding="utf-8")


@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium not installed")
def test_gallery_view_in_the_browser(page, tmp_path):  # noqa: F811
    page.click("#view-gallery")
    assert page.is_hidden("main") and page.is_visible("#gallery")
    page.wait_for_selector("#g-family option[value=padding]", state="attached")
    page.fill("#g-input", "Hi there")
    page.fill("#g-seed", "3")
    page.select_option("#g-family", "padding")
    page.click("#g-run")
    page.wait_for_selector("#g-table tbody tr")
    keys = page.eval_on_selector_all("#g-table tbody tr", "rows => rows.map(r => r.dataset.key)")
    assert keys == ["native/quotes", "native/spaces", "native/new_lines", "native/trailing_newline"]
    assert page.inner_text("#g-summary").startswith("4 entries, 4 applied, seed 3")
    mags = [float(m) for m in page.locator("#g-table td.g-magnitude").all_inner_texts()]
    expected = [
        perturber.apply("Hi there", n, None, 3).magnitude
        for n in ("quotes", "spaces", "new_lines", "trailing_newline")
    ]
    assert mags == [round(m, 4) for m in expected]
    page.click("#g-sort-magnitude")
    mags_desc = [float(m) for m in page.locator("#g-table td.g-magnitude").all_inner_texts()]
    assert mags_desc == sorted(mags, reverse=True)
    page.click("#g-sort-magnitude")
    assert [float(m) for m in page.locator("#g-table td.g-magnitude").all_inner_texts()] == sorted(mags)
    assert page.locator("#g-table tbody tr").first.locator("ins").count() >= 1
    page.screenshot(path=str(tmp_path / "gallery.png"), full_page=True)
    # a row opens the single view with that entry, its defaults, the seed and the text
    page.click("#g-table tbody tr[data-key='native/spaces']")
    assert page.is_visible("main") and page.is_hidden("#gallery")
    assert page.input_value("#perturbation") == "native/spaces"
    assert page.input_value("#param-n") == "5" and page.input_value("#seed") == "3"
    assert page.input_value("#input") == "Hi there"
    page.wait_for_function("document.querySelector('#output').innerText.includes('Hi there')")
    assert page.inner_text("#applied") == "true"


@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium not installed")
def test_gallery_shows_errors_and_stores_nothing(page, server):  # noqa: F811
    page.goto(server + "?view=gallery")
    page.wait_for_selector("body[data-ready=true]")
    assert page.is_visible("#gallery")
    page.fill("#g-seed", "-1")
    page.click("#g-run")
    assert "seed must be" in page.inner_text("#g-error")
    before = page.evaluate("JSON.stringify(localStorage)")
    page.fill("#g-seed", "0")
    page.fill("#g-input", "x" * (GALLERY_MAX_CHARS + 1))
    page.click("#g-run")
    page.wait_for_selector("#g-error:not([hidden])")
    page.wait_for_function("document.querySelector('#g-error').innerText.startsWith('413')")
    assert page.evaluate("JSON.stringify(localStorage)") == before
    assert page.locator("#reference-link").get_attribute("href") == "reference"
