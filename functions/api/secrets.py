"""Secrets for the model tier from AWS Secrets Manager or SSM Parameter Store (lazy, cached).

Configuration (environment of the function, rows of ``perturber.settings.VARIABLES``):

* ``PERTURBER_LLM_API_KEY_SECRET_ID``: a Secrets Manager secret id or ARN. A JSON secret is read
  at key ``api_key``; a plain string secret is the key itself.
* ``PERTURBER_LLM_API_KEY_PARAMETER``: an SSM parameter name (``SecureString`` is decrypted).
* neither: ``PERTURBER_LLM_API_KEY`` (plain environment), as everywhere else.

boto3 is imported on first use only. A value read is kept for the container's life (a rotated
key reaches the function when its containers are replaced: docs/service.md). A failed read is
kept for :data:`RETRY_AFTER` seconds, so a missing secret or a denied call does not cost a
Secrets Manager call per request; its error names neither the secret nor the parameter (the log
does). botocore's parser logger, which prints whole response bodies at DEBUG, is kept at INFO.
"""

from __future__ import annotations

import json
import logging
import threading
import time

from functions.aws import region
from perturber import settings
from perturber.credentials import env_api_key
from perturber.errors import ResourceUnavailable

RETRY_AFTER = 60.0  # seconds a failed read is remembered before the next attempt
SOURCES = (
    ("secretsmanager", "PERTURBER_LLM_API_KEY_SECRET_ID", "Secrets Manager"),
    ("ssm", "PERTURBER_LLM_API_KEY_PARAMETER", "SSM Parameter Store"),
)
log = logging.getLogger("perturber.lambda")
_cache: dict[tuple[str, str], str | tuple[float, ResourceUnavailable]] = {}
_lock = threading.Lock()


def quiet_botocore() -> None:
    """Keep botocore's ``Response body`` records (they hold the SecretString) out of the logs,
    whatever the root level."""
    logging.getLogger("botocore.parsers").setLevel(
        max(logging.INFO, logging.getLogger("botocore.parsers").level)
    )


def _client(service: str):
    import boto3

    quiet_botocore()
    return boto3.client(service, region_name=region())


def _fetch(kind: str, name: str, label: str) -> str:
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
        log.warning("cannot read the model API key from %s %s: %s", label, name, type(err).__name__)
        raise ResourceUnavailable(
            f"cannot read the model API key from {label} ({type(err).__name__}); see the function's log",
            code="model_unavailable",
        ) from None


def llm_api_key() -> str | None:
    """The API key, from Secrets Manager, SSM or the environment (first configured wins)."""
    for kind, variable, label in SOURCES:
        name = settings.read(variable)
        if not isinstance(name, str) or not name:
            continue
        key = (kind, name)
        with _lock:
            cached = _cache.get(key)
            if isinstance(cached, tuple) and time.monotonic() < cached[0]:
                raise cached[1]
            if not isinstance(cached, str):
                try:
                    cached = _cache[key] = _fetch(kind, name, label)
                except ResourceUnavailable as err:
                    _cache[key] = (time.monotonic() + RETRY_AFTER, err)
                    raise
            return cached
    return env_api_key()


def clear_cache() -> None:
    """Forget fetched values and failures (tests; a new container starts empty anyway)."""
    with _lock:
        _cache.clear()
