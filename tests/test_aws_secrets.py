"""Model-tier secrets from Secrets Manager / SSM, tested with moto (never real AWS)."""

import json

import boto3
import pytest
from moto import mock_aws

from functions.api import secrets
from perturber import credentials
from perturber.errors import ResourceUnavailable


@pytest.fixture(autouse=True)
def aws_env(monkeypatch):
    for key in (
        "PERTURBER_LLM_API_KEY_SECRET_ID",
        "PERTURBER_LLM_API_KEY_PARAMETER",
        "PERTURBER_LLM_API_KEY",
    ):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    secrets.clear_cache()
    yield
    secrets.clear_cache()
    credentials.set_api_key_provider(None)


@mock_aws
def test_secrets_manager_json_and_plain(monkeypatch):
    sm = boto3.client("secretsmanager", region_name="us-east-1")
    sm.create_secret(Name="perturber/llm", SecretString=json.dumps({"api_key": "sk-json"}))
    sm.create_secret(Name="perturber/plain", SecretString="sk-plain")
    monkeypatch.setenv("PERTURBER_LLM_API_KEY_SECRET_ID", "perturber/llm")
    assert secrets.llm_api_key() == "sk-json"
    sm.put_secret_value(SecretId="perturber/llm", SecretString=json.dumps({"api_key": "rotated"}))
    assert secrets.llm_api_key() == "sk-json", "cached per container"
    secrets.clear_cache()
    monkeypatch.setenv("PERTURBER_LLM_API_KEY_SECRET_ID", "perturber/plain")
    assert secrets.llm_api_key() == "sk-plain"


@mock_aws
def test_ssm_secure_string(monkeypatch):
    boto3.client("ssm", region_name="us-east-1").put_parameter(
        Name="/perturber/llm-key", Value="sk-ssm", Type="SecureString"
    )
    monkeypatch.setenv("PERTURBER_LLM_API_KEY_PARAMETER", "/perturber/llm-key")
    assert secrets.llm_api_key() == "sk-ssm"
    credentials.set_api_key_provider(secrets.llm_api_key)
    assert credentials.api_key() == "sk-ssm"


@mock_aws
def test_missing_secret_is_resource_unavailable_without_echo(monkeypatch):
    monkeypatch.setenv("PERTURBER_LLM_API_KEY_SECRET_ID", "does-not-exist")
    with pytest.raises(ResourceUnavailable) as err:
        secrets.llm_api_key()
    assert err.value.code == "model_unavailable" and err.value.http_status == 503
    assert "does-not-exist" not in err.value.message


def test_environment_fallback_without_boto3_calls(monkeypatch):
    monkeypatch.setenv("PERTURBER_LLM_API_KEY", "sk-env")
    assert secrets.llm_api_key() == "sk-env"
    monkeypatch.delenv("PERTURBER_LLM_API_KEY")
    assert secrets.llm_api_key() is None and credentials.api_key() is None


@mock_aws
def test_failed_read_is_remembered_and_never_names_the_secret(monkeypatch, caplog):
    arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:perturber/missing-AbCdEf"
    monkeypatch.setenv("PERTURBER_LLM_API_KEY_SECRET_ID", arn)
    calls = []
    real = secrets._client
    monkeypatch.setattr(secrets, "_client", lambda service: calls.append(service) or real(service))
    for _ in range(5):
        with pytest.raises(ResourceUnavailable) as err:
            secrets.llm_api_key()
        assert arn not in str(err.value.to_dict()) and "perturber/missing" not in err.value.message
    assert calls == ["secretsmanager"]  # one Secrets Manager call, not one per request
    assert any(arn in r.getMessage() for r in caplog.records)  # the operator's log names it
    monkeypatch.setattr(secrets.time, "monotonic", lambda: 1e12)  # after RETRY_AFTER: tried again
    with pytest.raises(ResourceUnavailable):
        secrets.llm_api_key()
    assert calls == ["secretsmanager", "secretsmanager"]


@mock_aws
def test_secret_string_never_reaches_debug_logs(monkeypatch, caplog):
    import logging

    boto3.client("secretsmanager", region_name="us-east-1").create_secret(
        Name="perturber/debug", SecretString="sk-SHOULD-NOT-BE-LOGGED-42"
    )
    monkeypatch.setenv("PERTURBER_LLM_API_KEY_SECRET_ID", "perturber/debug")
    logging.getLogger("botocore.parsers").setLevel(logging.NOTSET)
    caplog.set_level(logging.DEBUG)  # the root logger at DEBUG, as a debugging operator would set it
    assert secrets.llm_api_key() == "sk-SHOULD-NOT-BE-LOGGED-42"
    assert any(r.name.startswith("botocore") for r in caplog.records)  # botocore did log at DEBUG
    assert not any("SHOULD-NOT-BE-LOGGED" in r.getMessage() for r in caplog.records)


def test_the_503_body_of_the_lambda_names_no_secret(monkeypatch):
    """Through the function: a secret that cannot be read is a 503 without its id."""
    import hashlib
    import importlib

    from functions.api.events import LocalContext, http_api_event, response_body

    arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/llm-key-Zz9"
    monkeypatch.setenv("PERTURBER_LLM_API_KEY_SECRET_ID", arn)
    monkeypatch.setenv("PERTURBER_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("PERTURBER_LLM_DEFAULT_MODEL", "m")
    monkeypatch.setenv("PERTURBER_LLM_BEARER_SHA256", hashlib.sha256(b"tok").hexdigest())
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")  # nothing listens: the read fails
    from perturber import model_tier

    model_tier.reset()
    module = importlib.reload(importlib.import_module("functions.api.handler"))
    ev = http_api_event(
        "POST",
        "/perturb/native/simplification",
        headers={"content-type": "application/json", "authorization": "Bearer tok"},
        body=json.dumps({"texts": ["What is 2+2?"]}).encode(),
    )
    response = module.handler(ev, LocalContext())
    body = response_body(response).decode()
    model_tier.reset()
    assert response["statusCode"] == 503 and "model_unavailable" in body
    assert "llm-key" not in body and "arn:" not in body
