"""infra/deploy.py (``python -m infra.deploy``) against moto (never real AWS): layer publishing, function updates, the CLI."""

from __future__ import annotations

import io
import json
import os
import pathlib
import subprocess
import sys
import zipfile

import boto3
import pytest
from moto import mock_aws

from infra import deploy

ROOT = pathlib.Path(__file__).resolve().parent.parent

REGION = "us-east-1"
MOTO_CONFIG = {"lambda": {"use_docker": False}}


def make_zip(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, content in files.items():
            zf.writestr(name, content)
    return buf.getvalue()


@pytest.fixture
def aws(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    with mock_aws(config=MOTO_CONFIG):
        yield boto3.client("lambda", region_name=REGION)


@pytest.fixture
def function(aws):
    role = boto3.client("iam", region_name=REGION).create_role(
        RoleName="perturber-test-role",
        AssumeRolePolicyDocument=json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Principal": {"Service": "lambda.amazonaws.com"},
                        "Action": "sts:AssumeRole",
                    }
                ],
            }
        ),
    )["Role"]["Arn"]
    aws.create_function(
        FunctionName="perturber-api",
        Runtime="python3.12",
        Role=role,
        Handler="functions.api.handler.handler",
        Architectures=["arm64"],
        MemorySize=512,
        Timeout=29,
        Code={"ZipFile": make_zip({"functions/api/handler.py": "handler = None\n"})},
        Environment={"Variables": {"NLTK_DATA": "/opt/nltk_data", "KEEP": "1"}},
    )
    return "perturber-api"


@pytest.fixture
def layer_zip(tmp_path):
    path = tmp_path / "nltk_data_layer.zip"
    path.write_bytes(make_zip({"nltk_data/corpora/stopwords/english": "a\nan\nthe\n"}))
    return path


def test_publish_layer_returns_new_version_arns(aws, layer_zip):
    first = deploy.publish_layer(layer_zip, "perturber-nltk-data", REGION)
    second = deploy.publish_layer(layer_zip, "perturber-nltk-data", REGION)
    assert first == f"arn:aws:lambda:{REGION}:123456789012:layer:perturber-nltk-data:1"
    assert second.endswith(":perturber-nltk-data:2")
    version = aws.get_layer_version(LayerName="perturber-nltk-data", VersionNumber=2)
    assert version["CompatibleRuntimes"] == ["python3.12"]
    assert version["CompatibleArchitectures"] == ["arm64"]


def test_publish_layer_through_s3(aws, layer_zip):
    s3 = boto3.client("s3", region_name=REGION)
    s3.create_bucket(Bucket="perturber-artifacts")
    arn = deploy.publish_layer(layer_zip, "perturber-nltk-data", REGION, s3_bucket="perturber-artifacts")
    assert arn.endswith(":1")
    stored = s3.get_object(Bucket="perturber-artifacts", Key="layers/perturber-nltk-data/nltk_data_layer.zip")
    assert stored["Body"].read() == layer_zip.read_bytes()


def test_update_function_swaps_the_layer_and_sets_memory_env_code(aws, function, layer_zip, tmp_path):
    other = aws.publish_layer_version(LayerName="other", Content={"ZipFile": make_zip({"x": "1"})})[
        "LayerVersionArn"
    ]
    v1 = deploy.publish_layer(layer_zip, "perturber-nltk-data", REGION)
    deploy.update_function(function, layer_arn=other, region=REGION)
    deploy.update_function(function, layer_arn=v1, region=REGION)
    v2 = deploy.publish_layer(layer_zip, "perturber-nltk-data", REGION)
    code = tmp_path / "fn.zip"
    code.write_bytes(make_zip({"functions/api/handler.py": "handler = 'v2'\n" + "#" * 500}))
    config = deploy.update_function(
        function,
        zip_path=code,
        layer_arn=v2,
        memory=1024,
        env={"PERTURBER_WARM_SYNONYM": "1", "KEEP": None},
        region=REGION,
    )
    assert [layer["Arn"] for layer in config["Layers"]] == [other, v2], "old version replaced, others kept"
    assert config["MemorySize"] == 1024
    assert config["Environment"]["Variables"] == {
        "NLTK_DATA": "/opt/nltk_data",
        "PERTURBER_WARM_SYNONYM": "1",
    }
    assert config["Architectures"] == ["arm64"]
    assert config["CodeSize"] == len(code.read_bytes())


def test_update_function_validates_input(aws, function, tmp_path):
    with pytest.raises(deploy.DeployError, match="nothing to update"):
        deploy.update_function(function, region=REGION)
    with pytest.raises(deploy.DeployError, match="128..10240"):
        deploy.update_function(function, memory=64, region=REGION)
    with pytest.raises(deploy.DeployError, match="not found"):
        deploy.update_function(function, zip_path=tmp_path / "missing.zip", region=REGION)
    bad = tmp_path / "bad.zip"
    bad.write_text("not a zip")
    with pytest.raises(deploy.DeployError, match="not a zip"):
        deploy.publish_layer(bad, "x", REGION)


def test_cli_in_process_with_moto(aws, function, layer_zip, capsys):
    assert deploy.main(["publish-layer", str(layer_zip), "--name", "perturber-nltk-data"]) == 0
    arn = capsys.readouterr().out.strip()
    assert arn.endswith(":layer:perturber-nltk-data:1")
    assert (
        deploy.main(["update-function", function, "--layer-arn", arn, "--memory", "768", "--env", "A=1"]) == 0
    )
    shown = json.loads(capsys.readouterr().out)
    assert shown["MemorySize"] == 768 and shown["Layers"][0]["Arn"] == arn
    assert shown["Environment"]["Variables"]["A"] == "1"
    assert deploy.main(["update-function", "no-such-function", "--memory", "256"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("deploy: error: AWS ") and "ResourceNotFound" in err and "Traceback" not in err
    assert deploy.main(["update-function", function, "--env", "novalue"]) == 1
    assert "KEY=VALUE" in capsys.readouterr().err


def test_cli_without_credentials_is_one_clear_line(tmp_path, layer_zip):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(
        AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"),
        AWS_CONFIG_FILE=str(tmp_path / "none"),
        AWS_EC2_METADATA_DISABLED="true",
        AWS_REGION=REGION,
        # belt and braces: even if credentials turned up, nothing could leave the machine
        AWS_ENDPOINT_URL="http://127.0.0.1:9",
    )
    for args in (
        ["publish-layer", str(layer_zip), "--name", "x"],
        ["update-function", "f", "--memory", "256"],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "infra.deploy", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 1
        assert proc.stderr.startswith("deploy: error: no AWS credentials found"), proc.stderr
        assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_update_function_prints_no_secret(aws, function, capsys):
    key, token = "sk-live-PLAINTEXT-123456", "0" * 64
    args = ["update-function", function, "--env", f"PERTURBER_LLM_API_KEY={key}"]
    assert deploy.main([*args, "--env", f"PERTURBER_LLM_BEARER_SHA256={token}", "--env", "A=1"]) == 0
    out = capsys.readouterr().out
    shown = json.loads(out)["Environment"]["Variables"]
    assert key not in out and token not in out
    assert shown["PERTURBER_LLM_API_KEY"] == "***" and shown["A"] == "1"
    assert (
        aws.get_function_configuration(FunctionName=function)["Environment"]["Variables"][
            "PERTURBER_LLM_API_KEY"
        ]
        == key
    )  # redacted in print only
    assert deploy.main(["update-function", "no-such-function", "--env", f"MY_TOKEN={key}"]) == 1
    assert key not in capsys.readouterr().err
