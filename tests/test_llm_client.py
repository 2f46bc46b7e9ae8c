"""perturber.llm against a real OpenAI-compatible server on 127.0.0.1 (tests/llm_server.py)."""

import asyncio
import logging
import sys

import pytest
from llm_server import Reply  # the llm_server fixtures come from conftest.py

from perturber.errors import ConfigurationError, InvalidParams, ModelBackendError, ResourceUnavailable
from perturber.llm import Completion, Endpoint, LLMSettings, check_base_url

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


def test_missing_content_and_finish_reason_are_reported_raw(ep, llm_server):
    llm_server.script(
        Reply(content=None, finish_reason="content_filter"), Reply(content="", finish_reason="length")
    )
    first, second = ep.chat(MSGS, model="m"), ep.chat(MSGS, model="m")
    assert (first.text, first.finish_reason) == (None, "content_filter")
    assert (second.text, second.finish_reason) == ("", "length")


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


def test_malformed_body_is_model_error(ep, llm_server):
    llm_server.script(Reply(raw=b"not json"))
    with pytest.raises(ModelBackendError) as info:
        ep.chat(MSGS, model="m")
    assert info.value.code == "model_error"


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
