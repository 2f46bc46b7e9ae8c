"""The playground in a real headless browser (Debian chromium driven by Playwright)."""

import pathlib
import socket
import threading
import time

import pytest

CHROMIUM = pathlib.Path("/usr/bin/chromium")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="Debian chromium not installed (.ci/run installs it with apt-get)"
    ),
]
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def server():
    import uvicorn

    from perturber.service import Settings, create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(
        create_app(Settings(max_text_chars=1_000_000)), host="127.0.0.1", port=port, log_level="warning"
    )
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/"
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def page(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS, headless=True)
        pg = browser.new_page()
        pg.goto(server)
        pg.wait_for_selector("body[data-ready=true]", timeout=15_000)
        yield pg
        browser.close()


def test_zero_width_insertion_is_visible_in_the_diff(page, tmp_path):
    page.select_option("#perturbation", "native/zero_width")
    page.fill("#param-rate", "1")
    page.fill("#seed", "7")
    page.fill("#input", "abc def")
    page.click("#run")
    page.wait_for_selector("#applied")
    assert page.inner_text("#applied") == "true"
    markers = page.locator("#diff ins .inv")
    assert markers.count() >= 1 and markers.first.inner_text() == "ZWSP"
    import perturber

    expected = perturber.perturb("abc def", "zero_width", {"rate": 1.0}, 7)
    shown = page.inner_text("#output").replace("ZWSP", "\u200b")
    assert shown == expected
    page.screenshot(path=str(tmp_path / "playground.png"), full_page=True)
    assert (tmp_path / "playground.png").stat().st_size > 1000


def test_chain_two_perturbations(page):
    page.select_option("#perturbation", "native/quotes")
    page.fill("#param-n", "2")
    page.fill("#input", "Hi")
    page.click("#run")
    page.wait_for_function("document.querySelector('#output').innerText.includes('Hi')")
    assert page.inner_text("#output") == '"" Hi ""'
    page.click("#chain")
    assert page.input_value("#input") == '"" Hi ""'
    page.select_option("#perturbation", "native/spaces")
    page.fill("#param-n", "1")
    page.click("#run")
    page.wait_for_function("document.querySelector('#output').innerText.startsWith('  ')")
    assert page.inner_text("#output").strip() == '"" Hi ""'
    assert page.locator("#history li").count() >= 2


def test_out_of_scope_toggle_and_errors(page):
    options = page.locator("#perturbation option").all_inner_texts()
    assert not any("out of scope" in o for o in options)
    page.check("#show-out-of-scope")
    assert any("out of scope" in o for o in page.locator("#perturbation option").all_inner_texts())
    page.select_option("#perturbation", "native/quotes")
    page.fill("#param-n", "0")
    page.click("#run")
    page.wait_for_selector("#error:not([hidden])")
    assert "validation_error" in page.inner_text("#error")


def test_share_url_restores_state(page, server):
    page.select_option("#perturbation", "native/spaces")
    page.fill("#param-n", "3")
    page.fill("#seed", "11")
    page.fill("#input", "share me")
    page.click("#share")
    url = page.url
    assert "#" in url
    page.goto(server)
    page.goto(url)
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    assert page.input_value("#perturbation") == "native/spaces"
    assert page.input_value("#param-n") == "3" and page.input_value("#seed") == "11"
    assert page.input_value("#input") == "share me"
