#!/usr/bin/env python3
"""Deploy helpers with boto3, for CI or a laptop (the stack itself comes from infra/template.yaml).

    python -m infra.deploy publish-layer build/nltk_data_layer.zip --name perturber-nltk-data \\
        [--region us-east-1] [--s3-bucket BUCKET]
    python -m infra.deploy update-function NAME [--zip fn.zip] [--layer-arn ARN] [--memory 1024] \\
        [--env KEY=VALUE ...] [--region us-east-1]

``publish-layer`` prints the new layer version ARN. ``update-function`` uploads new code (a zip,
e.g. ``.aws-sam/build/ApiFunction`` zipped), swaps in a layer version (replacing an older version
of the *same* layer and keeping other layers), sets the memory size and merges environment
variables (``KEY=`` removes ``KEY``), waiting until Lambda reports each update as done; it prints
the resulting configuration as JSON, with the value of every environment variable whose name
says it holds a secret (``KEY``, ``SECRET``, ``TOKEN``, ``PASSWORD``, ``SHA256`` ...) shown as
``***`` (also in error messages). Credentials come from the usual boto3 chain (environment,
profile, the OIDC role of the deploy workflow). Errors are one line on stderr, exit status 1
(2 for usage errors), never a traceback. Run it from the repository's root, as a module (it imports
``functions.aws``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

from functions import aws

DIRECT_UPLOAD_LIMIT = 50 * 1024 * 1024  # Lambda's limit for a zip sent in the request itself
DEFAULT_RUNTIMES = ("python3.12",)
DEFAULT_ARCHITECTURES = ("arm64",)


SECRET_NAME = re.compile(r"KEY|SECRET|TOKEN|PASSW|CREDENTIAL|SHA256|AUTH", re.IGNORECASE)


def redact(config: dict) -> dict:
    """``config`` with the values of secret-named environment variables replaced by ``***``.

    >>> redact({"Environment": {"Variables": {"PERTURBER_LLM_API_KEY": "sk-1", "NLTK_DATA": "/opt"}}})
    {'Environment': {'Variables': {'PERTURBER_LLM_API_KEY': '***', 'NLTK_DATA': '/opt'}}}
    """
    variables = config.get("Environment", {}).get("Variables")
    if not isinstance(variables, dict):
        return config
    hidden = {k: "***" if SECRET_NAME.search(k) and v else v for k, v in variables.items()}
    return {**config, "Environment": {**config["Environment"], "Variables": hidden}}


def secret_values(env: dict[str, str | None]) -> list[str]:
    """The values of secret-named variables among ``env`` (to scrub from any message)."""
    return [v for k, v in env.items() if v and SECRET_NAME.search(k)]


def scrub(text: str, secrets: list[str]) -> str:
    for value in sorted(secrets, key=len, reverse=True):
        text = text.replace(value, "***")
    return text


class DeployError(Exception):
    """A problem to report as one line (bad input, missing credentials, AWS error)."""


def _client(service: str, region: str | None):
    import boto3

    return boto3.client(service, region_name=aws.region(region))


def _read_zip(zip_path: str | os.PathLike) -> bytes:
    path = Path(zip_path)
    if not path.is_file():
        raise DeployError(f"zip file not found: {path}")
    data = path.read_bytes()
    if data[:4] != b"PK\x03\x04":
        raise DeployError(f"not a zip file: {path}")
    return data


def _layer_base(arn: str) -> str:
    """``arn:...:layer:NAME:VERSION`` -> ``arn:...:layer:NAME``."""
    head, _, version = arn.rpartition(":")
    return head if version.isdigit() else arn


def publish_layer(
    zip_path: str | os.PathLike,
    name: str,
    region: str | None = None,
    *,
    description: str = "NLTK data (WordNet 3.0, POS tagger) at /opt/nltk_data",
    runtimes=DEFAULT_RUNTIMES,
    architectures=DEFAULT_ARCHITECTURES,
    license_info: str | None = "WordNet-3.0 AND MIT",
    s3_bucket: str | None = None,
    client=None,
    s3_client=None,
) -> str:
    """Publish ``zip_path`` as a new version of layer ``name``; returns the layer version ARN.

    Zips over 50 MB need ``s3_bucket`` (uploaded there first, as Lambda requires).
    """
    data = _read_zip(zip_path)
    client = client or _client("lambda", region)
    if s3_bucket:
        key = f"layers/{name}/{Path(zip_path).name}"
        (s3_client or _client("s3", region)).put_object(Bucket=s3_bucket, Key=key, Body=data)
        content = {"S3Bucket": s3_bucket, "S3Key": key}
    elif len(data) > DIRECT_UPLOAD_LIMIT:
        raise DeployError(
            f"{zip_path} is {len(data) / 1e6:.1f} MB: over the 50 MB direct upload limit, pass --s3-bucket"
        )
    else:
        content = {"ZipFile": data}
    kwargs = {
        "LayerName": name,
        "Description": description,
        "Content": content,
        "CompatibleRuntimes": list(runtimes),
        "CompatibleArchitectures": list(architectures),
    }
    if license_info:
        kwargs["LicenseInfo"] = license_info
    return client.publish_layer_version(**kwargs)["LayerVersionArn"]


def update_function(
    function_name: str,
    zip_path: str | os.PathLike | None = None,
    layer_arn: str | None = None,
    memory: int | None = None,
    env: dict[str, str | None] | None = None,
    region: str | None = None,
    *,
    client=None,
) -> dict:
    """Update code and/or configuration of ``function_name``; returns the final configuration.

    ``layer_arn`` replaces any attached version of the same layer (other layers are kept, in
    order); ``env`` is merged into the current variables, a ``None`` value deletes the key.
    """
    if zip_path is None and layer_arn is None and memory is None and not env:
        raise DeployError("nothing to update: give a zip, a layer ARN, a memory size or env vars")
    if memory is not None and not 128 <= memory <= 10240:
        raise DeployError(f"memory must be 128..10240 MB, got {memory}")
    client = client or _client("lambda", region)
    if zip_path is not None:
        data = _read_zip(zip_path)
        if len(data) > DIRECT_UPLOAD_LIMIT:
            raise DeployError(f"{zip_path} is {len(data) / 1e6:.1f} MB: over the 50 MB direct upload limit")
        aws.wait_updated(client, function_name)
        client.update_function_code(FunctionName=function_name, ZipFile=data)
        aws.wait_updated(client, function_name)
    changes: dict = {}
    if layer_arn is not None or env:
        current = client.get_function_configuration(FunctionName=function_name)
        if layer_arn is not None:
            base = _layer_base(layer_arn)
            kept = [layer["Arn"] for layer in current.get("Layers", []) if _layer_base(layer["Arn"]) != base]
            changes["Layers"] = kept + [layer_arn]
        if env:
            variables = dict(current.get("Environment", {}).get("Variables", {}))
            for key, value in env.items():
                if value is None:
                    variables.pop(key, None)
                else:
                    variables[key] = str(value)
            changes["Environment"] = {"Variables": variables}
    if memory is not None:
        changes["MemorySize"] = int(memory)
    if changes:
        aws.wait_updated(client, function_name)
        client.update_function_configuration(FunctionName=function_name, **changes)
        aws.wait_updated(client, function_name)
    return client.get_function_configuration(FunctionName=function_name)


# -- CLI ------------------------------------------------------------------------------------


def _parse_env(pairs: list[str]) -> dict[str, str | None]:
    env: dict[str, str | None] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise DeployError(f"--env expects KEY=VALUE (KEY= to remove), got {pair!r}")
        env[key] = value if value else None
    return env


def _explain(err: Exception) -> str:
    """One line for the errors users actually hit."""
    try:
        from botocore.exceptions import (
            BotoCoreError,
            ClientError,
            NoCredentialsError,
            NoRegionError,
            WaiterError,
        )
    except ImportError:  # pragma: no cover - boto3 missing
        return f"{type(err).__name__}: {err}"
    if isinstance(err, NoCredentialsError):
        return (
            "no AWS credentials found: set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY "
            "(in CI: aws-actions/configure-aws-credentials with an OIDC role)"
        )
    if isinstance(err, NoRegionError):
        return "no AWS region: pass --region or set AWS_REGION"
    if isinstance(err, ClientError):
        error = err.response.get("Error", {})
        return f"AWS {err.operation_name} failed: {error.get('Code', '?')}: {error.get('Message', '')}"
    if isinstance(err, WaiterError):
        error = (getattr(err, "last_response", None) or {}).get("Error")
        if error:  # e.g. the function does not exist
            return f"AWS GetFunction failed: {error.get('Code', '?')}: {error.get('Message', '')}"
        return f"the function did not finish updating: {err}"
    if isinstance(err, BotoCoreError):
        return f"{type(err).__name__}: {err}"
    return str(err)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m infra.deploy",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--region", help="AWS region (default: AWS_REGION or us-east-1)")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("publish-layer", help="publish a layer zip as a new layer version")
    p.add_argument("zip", help="layer zip, e.g. build/nltk_data_layer.zip")
    p.add_argument("--name", required=True, help="layer name, e.g. perturber-nltk-data")
    p.add_argument("--s3-bucket", help="upload through this bucket (needed above 50 MB)")
    p.add_argument("--description", default="NLTK data (WordNet 3.0, POS tagger) at /opt/nltk_data")
    p.add_argument("--region", dest="sub_region", help=argparse.SUPPRESS)
    u = sub.add_parser("update-function", help="update code, layer, memory and/or environment")
    u.add_argument("function_name")
    u.add_argument("--zip", help="new function code zip")
    u.add_argument("--layer-arn", help="layer version ARN to attach (replaces older versions of it)")
    u.add_argument("--memory", type=int, help="memory size in MB")
    u.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set an environment variable (KEY= removes it); repeatable",
    )
    u.add_argument("--region", dest="sub_region", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    region = getattr(args, "sub_region", None) or args.region
    hidden: list[str] = []
    try:
        if args.command == "publish-layer":
            print(
                publish_layer(
                    args.zip, args.name, region, description=args.description, s3_bucket=args.s3_bucket
                )
            )
        else:
            env = _parse_env(args.env)
            hidden = secret_values(env)
            config = update_function(
                args.function_name,
                zip_path=args.zip,
                layer_arn=args.layer_arn,
                memory=args.memory,
                env=env,
                region=region,
            )
            keys = (
                "FunctionName",
                "FunctionArn",
                "Runtime",
                "Architectures",
                "MemorySize",
                "Timeout",
                "Layers",
                "Environment",
                "CodeSize",
                "LastModified",
                "LastUpdateStatus",
            )
            shown = redact({k: config[k] for k in keys if k in config})
            print(json.dumps(shown, indent=1, default=str))
    except ImportError as err:
        print(f"deploy: error: boto3 is needed ({err}); pip install boto3", file=sys.stderr)
        return 1
    except Exception as err:
        print(f"deploy: error: {scrub(_explain(err), hidden)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
