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


def test_environment_fallback_without_boto3_calls(monkeypatch):
    monkeypatch.setenv("PERTURBER_LLM_API_KEY", "sk-env")
    assert secrets.llm_api_key() == "sk-env"
    monkeypatch.delenv("PERTURBER_LLM_API_KEY")
    assert secrets.llm_api_key() is None and credentials.api_key() is None
