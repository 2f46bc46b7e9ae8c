"""Secrets for the model tier from AWS Secrets Manager or SSM Parameter Store (lazy, cached).

Configuration (environment of the function):

* ``PERTURBER_LLM_API_KEY_SECRET_ID``: a Secrets Manager secret id or ARN. A JSON secret is read
  at key ``api_key``; a plain string secret is the key itself.
* ``PERTURBER_LLM_API_KEY_PARAMETER``: an SSM parameter name (``SecureString`` is decrypted).
* neither: ``PERTURBER_LLM_API_KEY`` (plain environment), as everywhere else.

boto3 is imported on first use only, and each value is fetched once per container.
"""

from __future__ import annotations

import json
import os
import threading

from perturber.aws import region
from perturber.credentials import env_api_key
from perturber.errors import ResourceUnavailable

_cache: dict[tuple[str, str], str] = {}
_lock = threading.Lock()


def _client(service: str):
    import boto3

    return boto3.client(service, region_name=region())


def _fetch(kind: str, name: str) -> str:
    try:
        if kind == "secretsmanager":
            raw = _client("secretsmanager").get_secret_value(SecretId=name)["SecretString"]
            try:
                value = json.loads(raw)
            except ValueError:
                return raw
            return value["api_key"] if isinstance(value, dict) else str(value)
        return _client("ssm").get_parameter(Name=name, WithDecryption=True)["Parameter"]["Value"]
    except Exception as err:  # botocore errors, missing key: never echo the secret
        raise ResourceUnavailable(
            f"cannot read the model API key from {kind} ({name}): {type(err).__name__}",
            code="model_unavailable",
        ) from None


def llm_api_key() -> str | None:
    """The API key, from Secrets Manager, SSM or the environment (first configured wins)."""
    for kind, var in (
        ("secretsmanager", "PERTURBER_LLM_API_KEY_SECRET_ID"),
        ("ssm", "PERTURBER_LLM_API_KEY_PARAMETER"),
    ):
        name = os.environ.get(var)
        if name:
            key = (kind, name)
            with _lock:
                if key not in _cache:
                    _cache[key] = _fetch(kind, name)
                return _cache[key]
    return env_api_key()


def clear_cache() -> None:
    """Forget fetched values (tests; a new container starts empty anyway)."""
    with _lock:
        _cache.clear()
