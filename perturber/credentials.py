"""Where the model-backed tier gets its API key: a pluggable, lazily called provider.

By default the key comes from ``PERTURBER_LLM_API_KEY`` (``OPENAI_API_KEY`` as a fallback); the Lambda handler installs a provider
that reads AWS Secrets Manager or SSM Parameter Store instead. The key is never logged or echoed.

>>> set_api_key_provider(lambda: "k-123")
>>> api_key()
'k-123'
>>> set_api_key_provider(None)
"""

from __future__ import annotations

from collections.abc import Callable

from . import settings

_provider: Callable[[], str | None] | None = None


def set_api_key_provider(provider: Callable[[], str | None] | None) -> None:
    """Install a provider (``None`` restores the environment default)."""
    global _provider
    _provider = provider


def api_key() -> str | None:
    """The model endpoint's API key, or None when none is configured."""
    if _provider is not None:
        return _provider()
    return env_api_key()


def env_api_key() -> str | None:
    """``PERTURBER_LLM_API_KEY``, else ``OPENAI_API_KEY``, when set and non-empty (every
    provider's last resort)."""
    key = settings.read("PERTURBER_LLM_API_KEY")
    return key if isinstance(key, str) and key else None
