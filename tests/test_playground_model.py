"""The playground with a model-backed entry, in headless chromium: the key stays in page memory."""

import socket
import threading
import time

import pytest
from model_tier_helpers import configure
from test_playground import CHROMIUM, FLAGS, pytestmark  # noqa: F401 - same markers and skip rule

from evalkit.chat_server import Reply
from perturber import model_tier

CALLER_KEY = "sk-playground-KEY-55aa"


@pytest.fixture
def page(monkeypatch, llm_server):
    import uvicorn
    from playwright.sync_api import sync_playwright

    from perturber.service import Settings, create_app

    configure(monkeypatch, llm_server, PERTURBER_LLM_ALLOW_CALLER_KEYS="true")  # the page's key field
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(
        uvicorn.Config(create_app(Settings()), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS, headless=True)
        pg = browser.new_page()
        pg.goto(f"http://127.0.0.1:{port}/")
        pg.wait_for_selector("body[data-ready=true]", timeout=15_000)
        yield pg
        browser.close()
    srv.should_exit = True
    thread.join(10)
    model_tier.reset()


def test_model_backed_run_with_a_key_in_page_memory(page, llm_server):
    page.select_option("#perturbation", "native/emotion_prompt")
    assert page.is_visible("#llm-key")
    page.fill("#input", "What is 2+2?")
    page.click("#run")  # no key, no token: the server's key is refused
    page.wait_for_selector("#error:not([hidden])")
    assert "model_auth_required" in page.inner_text("#error") and llm_server.requests == []
    llm_server.script(
        Reply(
            content="This matters to me.",
            usage={"prompt_tokens": 42, "completion_tokens": 5, "total_tokens": 47},
        )
    )
    page.fill("#llm-key", CALLER_KEY)
    page.click("#run")
    page.wait_for_selector("#model-name")
    assert page.inner_text("#output") == "This matters to me. What is 2+2?"
    assert page.inner_text("#model-name") == "test-model"
    assert page.inner_text("#model-tokens") == "42 in / 5 out" and "ms" in page.inner_text("#model-latency")
    assert llm_server.requests[0].headers["authorization"] == f"Bearer {CALLER_KEY}"
    page.click("#share")
    stored = page.evaluate(
        "JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage),"
        " location.href, document.cookie])"
    )
    assert CALLER_KEY not in stored
    page.select_option("#perturbation", "native/quotes")
    assert not page.is_visible("#llm-key")
