"""perturber.llm against a real OpenAI-compatible server on 127.0.0.1 (evalkit.chat_server, through the llm_server fixture)."""

import asyncio
import logging
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from evalkit.chat_server import Reply  # the llm_server fixtures come from conftest.py
from perturber.errors import ConfigurationError, InvalidParams, ModelBackendError, ResourceUnavailable
from perturber.llm import (
    Completion,
    Endpoint,
    LLMSettings,
    ModelBadResponse,
    deadline_within,
)
from perturber.urls import check_base_url

KEY = "sk-test-SECRET-4f1c9e"
MSGS = [{"role": "system", "content": "sys"}, {"role": "user", "content": "hello there"}]


@pytest.fixture
def sleeps():
    return []


@pytest.fixture
def ep(llm_server, sleeps):
    endpoint = Endpoint(llm_server.base_url, KEY, timeout=5.0, max_retries=2, concurrency=4)
    endpoint._sleep = sleeps.append  # record back-off delays instead of waiting
    yield endpoint
    endpoint.close()


# -- settings ------------------------------------------------------------------------------------


def test_settings_defaults_are_empty_and_safe():
    s = LLMSettings.from_env({})
    assert (s.base_url, s.model, s.models, s.send_seed, s.max_tokens) == (None, None, (), True, 4096)
    assert (s.timeout, s.connect_timeout, s.max_retries, s.concurrency, s.allowed_hosts) == (
        30.0,
        5.0,
        2,
        16,
        (),
    )


def test_settings_parse_every_variable():
    s = LLMSettings.from_env(
        {
            "PERTURBER_LLM_BASE_URL": "https://api.example.com/v1/",
            "PERTURBER_LLM_MODELS": "a, b,a",
            "PERTURBER_LLM_DEFAULT_MODEL": "b",
            "PERTURBER_LLM_SEND_SEED": "false",
            "PERTURBER_LLM_MAX_TOKENS": "100",
            "PERTURBER_LLM_TIMEOUT": "2.5",
            "PERTURBER_LLM_CONNECT_TIMEOUT": "1",
            "PERTURBER_LLM_MAX_RETRIES": "0",
            "PERTURBER_LLM_CONCURRENCY": "16",
            "PERTURBER_LLM_ALLOWED_HOSTS": "API.example.com, localhost:8000",
        }
    )
    assert s.base_url == "https://api.example.com/v1"
    assert (s.models, s.default_model, s.model, s.send_seed) == (("a", "b"), "b", "b", False)
    assert (s.max_tokens, s.timeout, s.connect_timeout, s.max_retries, s.concurrency) == (
        100,
        2.5,
        1.0,
        0,
        16,
    )
    assert s.allowed_hosts == ("api.example.com", "localhost:8000")


@pytest.mark.parametrize(
    "name,value",
    [
        ("PERTURBER_LLM_BASE_URL", "ftp://x/v1"),
        ("PERTURBER_LLM_BASE_URL", "http://api.example.com/v1"),  # plain http off loopback
        ("PERTURBER_LLM_MODELS", "ok,bad model"),
        ("PERTURBER_LLM_DEFAULT_MODEL", "-leading-dash"),
        ("PERTURBER_LLM_SEND_SEED", "maybe"),
        ("PERTURBER_LLM_MAX_TOKENS", "0"),
        ("PERTURBER_LLM_TIMEOUT", "abc"),
        ("PERTURBER_LLM_TIMEOUT", "0"),
        ("PERTURBER_LLM_MAX_RETRIES", "3"),
        ("PERTURBER_LLM_CONCURRENCY", "0"),
        ("PERTURBER_LLM_ALLOWED_HOSTS", "https://x.com/"),
    ],
)
def test_bad_settings_are_configuration_errors(name, value):
    with pytest.raises(ConfigurationError) as info:
        LLMSettings.from_env({name: value})
    assert info.value.code == "configuration_error"
    assert name in info.value.message


def test_default_model_must_be_allowed():
    with pytest.raises(ConfigurationError, match="one of PERTURBER_LLM_MODELS"):
        LLMSettings.from_env({"PERTURBER_LLM_MODELS": "a", "PERTURBER_LLM_DEFAULT_MODEL": "b"})


def test_base_url_checks():
    assert check_base_url("http://localhost:8/v1/") == "http://localhost:8/v1"
    assert check_base_url("http://[::1]:8/v1") == "http://[::1]:8/v1"
    for bad in ("http://10.0.0.1/v1", "https://user:pw@x.com/v1", "https://x.com/v1?q=1", "x.com", ""):
        with pytest.raises(InvalidParams):
            check_base_url(bad)
    assert check_base_url("https://x.com:8443/v1", ["x.com:8443"]) == "https://x.com:8443/v1"
    with pytest.raises(InvalidParams, match="not in PERTURBER_LLM_ALLOWED_HOSTS"):
        check_base_url("https://evil.com/v1", ["x.com"])


# -- one request ---------------------------------------------------------------------------------


def test_request_body_headers_and_completion(ep, llm_server):
    llm_server.script(
        Reply(
            content="bonjour",
            model="served-model",
            usage={"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9},
        )
    )
    c = ep.chat(MSGS, model="m-1", temperature=0.7, seed=42, max_tokens=300)
    assert isinstance(c, Completion)
    assert (c.text, c.finish_reason, c.model, c.seed_forwarded) == ("bonjour", "stop", "served-model", True)
    assert c.usage == {"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9}
    assert c.latency_ms > 0
    [req] = llm_server.requests
    assert (req.path, req.method) == ("/v1/chat/completions", "POST")
    assert req.body == {"messages": MSGS, "model": "m-1", "temperature": 0.7, "seed": 42, "max_tokens": 300}
    assert req.headers["authorization"] == f"Bearer {KEY}"


def test_no_seed_no_key_no_environment_headers(llm_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-should-not-leak")
    monkeypatch.setenv("OPENAI_ORG_ID", "org-leak")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-leak")
    with Endpoint(llm_server.base_url, None) as ep:
        c = ep.chat(MSGS, model="m", max_tokens=None)
    assert c.seed_forwarded is False and c.text == "hello there"  # the default reply echoes the user
    [req] = llm_server.requests
    assert "seed" not in req.body and "max_tokens" not in req.body
    assert "authorization" not in req.headers
    assert not any("leak" in v for v in req.headers.values())


def test_model_is_validated_and_required(ep, llm_server):
    with pytest.raises(InvalidParams):
        ep.chat(MSGS, model="bad model")
    with pytest.raises(ResourceUnavailable) as info:
        ep.chat(MSGS, model=None)
    assert info.value.code == "model_unavailable"
    assert llm_server.requests == []


def test_connection_pool_is_reused(ep, llm_server):
    for _ in range(3):
        ep.chat(MSGS, model="m")
    assert len({r.client for r in llm_server.requests}) == 1


def test_content_filter_is_refused_and_length_is_reported_raw(ep, llm_server, sleeps):
    llm_server.script(
        Reply(content=None, finish_reason="content_filter"), Reply(content="", finish_reason="length")
    )
    with pytest.raises(ModelBackendError) as info:
        ep.chat(MSGS, model="m")
    assert info.value.code == "model_refused" and sleeps == []  # a refusal is not retried
    second = ep.chat(MSGS, model="m")
    assert (second.text, second.finish_reason) == ("", "length")


BAD_REPLIES = [
    (Reply(raw=b"<html><body>502 Bad Gateway</body></html>"), "model_bad_response"),
    (Reply(raw=b"not json"), "model_bad_response"),
    (Reply(raw=b'{"choices": []}'), "model_bad_response"),
    (Reply(raw=b'{"choices": [{"index": 0}]}'), "model_bad_response"),
    (Reply(raw=b"[1, 2]"), "model_bad_response"),
    (Reply(content=""), "model_empty"),
    (Reply(content="  \n "), "model_empty"),
    (Reply(content=None), "model_empty"),
]


@pytest.mark.parametrize("bad,code", BAD_REPLIES)
def test_malformed_replies_are_their_own_error_and_retried_like_5xx(ep, llm_server, sleeps, bad, code):
    llm_server.script(bad, bad, bad)
    with pytest.raises(ModelBadResponse) as info:
        ep.chat(MSGS, model="m")
    assert info.value.code == code and info.value.http_status == 502
    assert len(llm_server.requests) == 3 and len(sleeps) == 2  # 1 attempt + 2 retries
    llm_server.reset()
    llm_server.script(bad, Reply(content="fine"))
    assert ep.chat(MSGS, model="m").text == "fine" and len(llm_server.requests) == 2


def test_over_long_reply_body_is_cut_and_rejected(llm_server):
    llm_server.script(Reply(content="x" * 300_000), Reply(content="x" * 300_000))
    with Endpoint(llm_server.base_url, max_retries=1, backoff=0.001, max_reply_bytes=100_000) as ep:
        with pytest.raises(ModelBadResponse, match="over 100000 bytes") as info:
            ep.chat(MSGS, model="m")
    assert info.value.code == "model_bad_response" and len(llm_server.requests) == 2


# -- retries and errors --------------------------------------------------------------------------


def test_retries_on_5xx_and_429_then_succeeds(ep, llm_server, sleeps):
    llm_server.script(Reply(status=503), Reply(status=429), Reply(content="done"))
    assert ep.chat(MSGS, model="m").text == "done"
    assert len(llm_server.requests) == 3
    assert len(sleeps) == 2 and 0.25 <= sleeps[0] <= 0.5 and 0.5 <= sleeps[1] <= 1.0  # backoff + jitter


def test_retry_after_is_honoured(ep, llm_server, sleeps):
    llm_server.script(Reply(status=429, headers={"Retry-After": "3"}), Reply(content="ok"))
    ep.chat(MSGS, model="m")
    assert sleeps == [3.0]


def test_last_attempt_5xx_is_model_error(ep, llm_server, sleeps):
    llm_server.script(Reply(status=500), Reply(status=502), Reply(status=500, content="boom"))
    with pytest.raises(ModelBackendError) as info:
        ep.chat(MSGS, model="m")
    assert (info.value.code, info.value.http_status, info.value.details["status"]) == (
        "model_error",
        502,
        500,
    )
    assert "HTTP 500" in info.value.message and "boom" in info.value.message
    assert len(llm_server.requests) == 3  # 1 + max_retries


@pytest.mark.parametrize("status", [400, 401, 403, 404, 408, 409, 422])
def test_client_errors_are_not_retried(ep, llm_server, status, sleeps):
    llm_server.script(Reply(status=status))
    with pytest.raises(ModelBackendError) as info:
        ep.chat(MSGS, model="m")
    assert info.value.code == "model_error" and info.value.details["status"] == status
    assert len(llm_server.requests) == 1 and sleeps == []


def test_max_retries_zero_means_one_attempt(llm_server):
    llm_server.script(Reply(status=500), Reply(content="never"))
    with Endpoint(llm_server.base_url, max_retries=0) as ep, pytest.raises(ModelBackendError):
        ep.chat(MSGS, model="m")
    assert len(llm_server.requests) == 1


def test_timeout_is_retried_then_model_timeout(llm_server, sleeps):
    llm_server.script(Reply(delay=1.0), Reply(delay=1.0))
    with Endpoint(llm_server.base_url, timeout=0.2, max_retries=1) as ep:
        ep._sleep = sleeps.append
        with pytest.raises(ModelBackendError) as info:
            ep.chat(MSGS, model="m")
    assert (info.value.code, info.value.http_status, info.value.exit_code) == ("model_timeout", 504, 4)
    assert len(llm_server.requests) == 2 and len(sleeps) == 1


def test_redirects_are_not_followed(ep, llm_server):
    llm_server.script(Reply(status=307, headers={"location": "https://evil.example/v1/chat/completions"}))
    with pytest.raises(ModelBackendError) as info:
        ep.chat(MSGS, model="m")
    assert info.value.details["status"] == 307
    assert len(llm_server.requests) == 1


def test_connection_refused_is_model_error_without_retry(sleeps):
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    with Endpoint(f"http://127.0.0.1:{port}/v1") as ep:
        ep._sleep = sleeps.append
        with pytest.raises(ModelBackendError, match="could not connect"):
            ep.chat(MSGS, model="m")
    assert sleeps == []


def test_openai_missing_is_model_unavailable(monkeypatch, llm_server):
    monkeypatch.setitem(sys.modules, "openai", None)
    with pytest.raises(ResourceUnavailable) as info:
        Endpoint(llm_server.base_url)
    assert (info.value.code, info.value.http_status, info.value.exit_code) == ("model_unavailable", 503, 3)


def test_from_settings(monkeypatch, llm_server):
    from perturber import credentials

    with pytest.raises(ResourceUnavailable):
        Endpoint.from_settings(LLMSettings())
    credentials.set_api_key_provider(lambda: "sk-from-provider")
    try:
        s = LLMSettings.from_env(
            {"PERTURBER_LLM_BASE_URL": llm_server.base_url, "PERTURBER_LLM_MAX_RETRIES": "1"}
        )
        with Endpoint.from_settings(s) as ep:
            assert ep.max_retries == 1 and ep.has_key
            ep.chat(MSGS, model="m")
    finally:
        credentials.set_api_key_provider(None)
    assert llm_server.requests[0].headers["authorization"] == "Bearer sk-from-provider"


# -- batches and async ---------------------------------------------------------------------------


def test_chat_many_bounded_ordered_with_per_item_errors(ep, llm_server):
    def reply(body):
        user = body["messages"][-1]["content"]
        if user == "t7":
            return Reply(status=400, content="bad item")
        return Reply(content=user.upper(), delay=0.1)

    llm_server.script(default=reply)
    done = []
    reqs = [dict(messages=[{"role": "user", "content": f"t{i}"}], model="m") for i in range(20)]
    out = ep.chat_many(reqs, on_done=lambda i, r: done.append(i))
    assert [o.text for i, o in enumerate(out) if i != 7] == [f"T{i}" for i in range(20) if i != 7]
    assert isinstance(out[7], ModelBackendError) and out[7].details["status"] == 400
    assert sorted(done) == list(range(20))
    assert llm_server.max_in_flight == 4  # concurrency, never more
    assert len(llm_server.requests) == 20


def test_achat(llm_server):
    llm_server.script(Reply(status=500), Reply(content="async ok"))

    async def go():
        ep = Endpoint(llm_server.base_url, KEY, backoff=0.01)
        try:
            return await ep.achat(MSGS, model="m", seed=1)
        finally:
            await ep.aclose()

    c = asyncio.run(go())
    assert (c.text, c.seed_forwarded) == ("async ok", True)
    assert len(llm_server.requests) == 2


# -- the key never leaks -------------------------------------------------------------------------


def test_key_never_in_repr_errors_or_logs(ep, llm_server, caplog):
    caplog.set_level(logging.DEBUG)
    llm_server.script(
        Reply(status=401, content=f"invalid key {KEY}"),
        Reply(status=500),
        Reply(status=500),
        Reply(status=500),
        Reply(content="ok"),
    )
    with pytest.raises(ModelBackendError) as first:
        ep.chat(MSGS, model="m")
    with pytest.raises(ModelBackendError) as second:
        ep.chat(MSGS, model="m")
    ok = ep.chat(MSGS, model="m")
    texts = [
        repr(ep),
        str(ep.__dict__),
        repr(first.value),
        str(first.value.to_dict()),
        repr(second.value),
        str(second.value.to_dict()),
        repr(ok),
    ]
    texts += [r.getMessage() + repr(r.args) for r in caplog.records]
    assert "***" in first.value.message  # the upstream echo of the key is scrubbed
    assert not any(KEY in t for t in texts)


def test_achat_timeout(llm_server):
    llm_server.script(Reply(delay=1.0), Reply(delay=1.0))

    async def go():
        ep = Endpoint(llm_server.base_url, timeout=0.2, connect_timeout=0.1, max_retries=1, backoff=0.01)
        try:
            return await ep.achat(MSGS, model="m")
        finally:
            await ep.aclose()

    with pytest.raises(ModelBackendError) as info:
        asyncio.run(go())
    assert info.value.code == "model_timeout" and len(llm_server.requests) == 2


# -- overall deadlines -----------------------------------------------------------------------------

DRIP = Reply(content="a slow reply " * 20, drip=0.05)  # ~330 bytes, one every 50 ms: ~16 s in all


def test_a_slow_drip_reply_is_cut_at_the_attempt_timeout(llm_server):
    llm_server.script(DRIP)
    with Endpoint(llm_server.base_url, timeout=0.5, max_retries=0) as ep:
        with pytest.raises(ModelBackendError) as info:
            ep.chat(MSGS, model="m")
    assert info.value.code == "model_timeout"
    [req] = llm_server.requests
    _wait_for(lambda: req.disconnected)
    assert req.body_bytes < 100  # the client hung up long before the reply was complete


def test_the_call_deadline_bounds_every_attempt_and_the_back_off(llm_server, sleeps):
    llm_server.script(DRIP, DRIP, DRIP)
    with Endpoint(llm_server.base_url, timeout=5, deadline=0.6, max_retries=2, backoff=0.001) as ep:
        with pytest.raises(ModelBackendError) as info:
            ep.chat(MSGS, model="m")
    assert info.value.code == "model_timeout" and info.value.details.get("deadline_passed") is True
    assert len(llm_server.requests) == 1  # no time was left for a retry


def test_retry_after_beyond_the_deadline_is_not_waited_for(llm_server, sleeps):
    llm_server.script(Reply(status=429, headers={"retry-after": "20"}), Reply(content="late"))
    with Endpoint(llm_server.base_url, deadline=5, max_retries=2) as ep:
        ep._sleep = sleeps.append
        with pytest.raises(ModelBackendError) as info:
            ep.chat(MSGS, model="m")
    assert info.value.details["status"] == 429 and sleeps == [] and len(llm_server.requests) == 1


def test_deadline_within_bounds_every_call_of_a_batch(llm_server):
    llm_server.script(default=lambda body: DRIP)
    with Endpoint(llm_server.base_url, timeout=30, deadline=30, max_retries=2, concurrency=2) as ep:
        with deadline_within(0.5):
            out = ep.chat_many([dict(messages=MSGS, model="m")] * 6)
    assert [r.code for r in out] == ["model_timeout"] * 6
    assert len(llm_server.requests) <= 4  # the later ones found the deadline passed before sending


def test_slow_upstreams_cannot_starve_the_pool(llm_server):
    """Four slow drips hold the whole pool (4 connections); a healthy call still gets through once
    their deadline cuts them, instead of waiting for a connection for ever."""
    llm_server.script(DRIP, DRIP, DRIP, DRIP, Reply(content="healthy"))
    with Endpoint(llm_server.base_url, timeout=0.5, max_retries=0, concurrency=4) as ep:
        with ThreadPoolExecutor(5) as pool:
            drips = [pool.submit(ep.chat, MSGS, model="m") for _ in range(4)]
            _wait_for(lambda: len(llm_server.requests) >= 4)
            healthy = pool.submit(ep.chat, MSGS, model="m")
            assert healthy.result().text == "healthy"
            assert [f.exception().code for f in drips] == ["model_timeout"] * 4


def test_achat_honours_the_deadlines(llm_server):
    llm_server.script(DRIP, DRIP)

    async def go(**kw):
        ep = Endpoint(llm_server.base_url, max_retries=1, backoff=0.001, **kw)
        try:
            return await ep.achat(MSGS, model="m")
        finally:
            await ep.aclose()

    with pytest.raises(ModelBackendError) as info:
        asyncio.run(go(timeout=0.3))
    assert info.value.code == "model_timeout" and len(llm_server.requests) == 2
    llm_server.reset()
    llm_server.script(DRIP, DRIP)
    with pytest.raises(ModelBackendError) as info, deadline_within(0.4):
        asyncio.run(go(timeout=30))
    assert info.value.details.get("deadline_passed") is True and len(llm_server.requests) == 1


def test_limiter_bounds_calls_in_flight_across_endpoints(llm_server):
    llm_server.script(default=lambda body: Reply(content="ok", delay=0.05))
    limiter = threading.BoundedSemaphore(3)
    eps = [
        Endpoint(llm_server.base_url, f"k{i}-0123456789", concurrency=8, limiter=limiter) for i in range(3)
    ]
    try:
        with ThreadPoolExecutor(3) as pool:
            list(pool.map(lambda ep: ep.chat_many([dict(messages=MSGS, model="m")] * 8), eps))
    finally:
        for ep in eps:
            ep.close()
    assert len(llm_server.requests) == 24 and llm_server.max_in_flight <= 3


def test_stop_on_error_sends_nothing_after_a_failure(llm_server):
    llm_server.script(Reply(status=400), default=lambda body: Reply(content="ok", delay=0.02))
    with Endpoint(llm_server.base_url, max_retries=0, concurrency=2) as ep:
        out = ep.chat_many([dict(messages=MSGS, model="m")] * 20, stop_on_error=True)
    codes = [r.code if isinstance(r, ModelBackendError) else "ok" for r in out]
    failed = codes.index("model_error")
    assert codes.count("model_error") == 1 and failed <= 1 and "model_skipped" in codes
    assert (
        all(code == "ok" for code in codes[:failed])
        and min(i for i, c in enumerate(codes) if c == "model_skipped") > failed
    )
    assert len(llm_server.requests) < 20 and codes.count("model_skipped") == 20 - len(llm_server.requests)


# -- secrets in echoes -----------------------------------------------------------------------------


def test_scrubber_catches_case_hex_and_base64_copies_and_echoed_headers(llm_server):
    import base64

    b64 = base64.b64encode(f"user:{KEY}".encode()).decode()
    echo = f"up {KEY.upper()} / {KEY.encode().hex()} / Basic {b64} / {base64.urlsafe_b64encode(KEY.encode()).decode()}"
    llm_server.script(
        Reply(status=400, content=echo), Reply(content=f"Authorization: Bearer {KEY}\nYour text.")
    )
    with Endpoint(llm_server.base_url, KEY, max_retries=0) as ep:
        with pytest.raises(ModelBackendError) as info:
            ep.chat(MSGS, model="m")
        completion = ep.chat(MSGS, model="m")
    for text in (info.value.message, completion.text):
        low = text.lower()
        assert KEY.lower() not in low and KEY.encode().hex() not in low and "***" in text
    assert base64.b64encode(KEY.encode()).decode()[4:-4] not in info.value.message
    assert completion.text == "Authorization: Bearer ***\nYour text."


def test_allowed_host_without_port_means_443():
    assert check_base_url("https://api.allowed.example/v1", ["api.allowed.example"])
    assert check_base_url("https://api.allowed.example:443/v1", ["api.allowed.example"])
    for url in ("https://api.allowed.example:22/v1", "https://api.allowed.example:8443/v1"):
        with pytest.raises(InvalidParams, match="not in PERTURBER_LLM_ALLOWED_HOSTS"):
            check_base_url(url, ["api.allowed.example"])
    assert check_base_url("http://localhost:8000/v1", ["localhost:8000"])
    with pytest.raises(InvalidParams):
        check_base_url("http://localhost:8000/v1", ["localhost"])


def test_endpoint_takes_the_harness_options(monkeypatch, llm_server):
    s = LLMSettings.from_env({"PERTURBER_LLM_BASE_URL": llm_server.base_url, "PERTURBER_LLM_DEADLINE": "7"})
    with Endpoint.from_settings(s, api_key="", timeout=5, max_retries=0, deadline=9) as ep:
        assert (ep.timeout, ep.max_retries, ep.deadline) == (5.0, 0, 9.0)
    with Endpoint.from_settings(s, api_key="") as ep:
        assert (ep.timeout, ep.max_retries, ep.deadline) == (30.0, 2, 7.0)
    for bad in (dict(timeout=0), dict(deadline=-1), dict(timeout="5")):
        with pytest.raises(InvalidParams):
            Endpoint(llm_server.base_url, **bad)


def _wait_for(condition, limit: float = 10.0) -> None:
    end = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < end, "condition not reached"
        time.sleep(0.01)
