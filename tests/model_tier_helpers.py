"""Shared set-up of the model-tier tests: the tier configured against the llm_server fixture (evalkit.chat_server)."""

import pytest

from perturber import credentials, model_tier

SERVER_KEY = "sk-server-KEY-7d1e0a"
MODEL = "test-model"


def configure(monkeypatch, server, **extra):
    """Point the tier at ``server`` with the server key; extra ``PERTURBER_LLM_*`` settings."""
    for name in (
        "PERTURBER_LLM_MODELS",
        "PERTURBER_LLM_ALLOWED_HOSTS",
        "PERTURBER_LLM_BEARER_SHA256",
        "PERTURBER_LLM_SEND_SEED",
        "PERTURBER_LLM_ALLOW_CALLER_KEYS",
        "PERTURBER_LLM_CALLER_CONCURRENCY",
        "PERTURBER_LLM_REQUIRE_AUTH",
        "PERTURBER_LLM_DEADLINE",
        "PERTURBER_LLM_REQUEST_DEADLINE",
        "OPENAI_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PERTURBER_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("PERTURBER_LLM_DEFAULT_MODEL", MODEL)
    monkeypatch.setenv("PERTURBER_LLM_API_KEY", SERVER_KEY)
    monkeypatch.setenv("PERTURBER_LLM_MAX_RETRIES", "0")
    for key, value in extra.items():
        monkeypatch.setenv(key, value)
    credentials.set_api_key_provider(None)
    model_tier.reset()


@pytest.fixture
def tier(monkeypatch, llm_server):
    configure(monkeypatch, llm_server)
    yield llm_server
    model_tier.reset()
