"""Regenerate the sample API Gateway events with `sam local generate-event` (needs aws-sam-cli).

    SAM=.venv-tools/bin/sam python infra/events/generate.py

SAM's events carry placeholder query strings and no content-type; we set the path, query, body
(base64, as API Gateway delivers it) and a `content-type: application/json` header.
"""

import base64
import json
import os
import pathlib
import subprocess

HERE = pathlib.Path(__file__).parent
SAM = os.environ.get("SAM", "sam")
TYPED = {
    "texts": ["Please receive the parcel today.", "What is the capital of France?"],
    "seed": 7,
    "count": 2,
}
GENERIC = {"text": "Hi there", "name": "quotes", "params": {"n": 3}, "seed": 0}
EVENTS = {
    # name: (kind, method, path, query, body, stage)
    "http-api-catalog": ("http-api-proxy", "GET", "/perturbations", "family=padding", None, "$default"),
    "http-api-typed": ("http-api-proxy", "POST", "/perturb/native/typos", "", TYPED, "$default"),
    "http-api-generic": ("http-api-proxy", "POST", "/perturb", "", GENERIC, "$default"),
    "http-api-bad-request": (
        "http-api-proxy",
        "POST",
        "/perturb/native/typos",
        "",
        {"texts": ["x"], "count": -1},
        "$default",
    ),
    "http-api-oversize": (
        "http-api-proxy",
        "POST",
        "/perturb/native/quotes",
        "",
        {"texts": ["a" * 100_001]},
        "$default",
    ),
    "http-api-stage-typed": ("http-api-proxy", "POST", "/perturb/native/typos", "", TYPED, "prod"),
    "rest-api-catalog": ("aws-proxy", "GET", "/perturbations", "family=padding", None, "prod"),
    "rest-api-typed": ("aws-proxy", "POST", "/perturb/native/typos", "", TYPED, "prod"),
}


def generate(kind, method, path, query, body, stage):
    raw = body and json.dumps(body, separators=(",", ":"))
    cmd = [
        SAM,
        "local",
        "generate-event",
        "apigateway",
        kind,
        "--method",
        method,
        "--path",
        path.lstrip("/"),
        "--stage",
        stage,
        "--body",
        raw or "",
    ]
    event = json.loads(
        subprocess.run(
            cmd, check=True, capture_output=True, text=True, env=dict(os.environ, SAM_CLI_TELEMETRY="0")
        ).stdout
    )
    encoded = base64.b64encode(raw.encode()).decode() if raw else None
    params = dict(p.split("=", 1) for p in query.split("&")) if query else None
    if kind == "http-api-proxy":
        event["rawPath"] = path if stage == "$default" else f"/{stage}{path}"
        event["requestContext"]["http"]["path"] = event["rawPath"]
        event["rawQueryString"] = query
        event["cookies"] = []
        event["headers"] = {"content-type": "application/json", "accept": "application/json"}
        event["queryStringParameters"] = params
        event["pathParameters"] = {"proxy": path.lstrip("/")}
    else:
        event["path"] = path
        event["requestContext"]["path"] = f"/{stage}{path}"
        event["requestContext"]["httpMethod"] = method
        event["headers"] = {"content-type": "application/json", "accept": "application/json"}
        event["multiValueHeaders"] = {k: [v] for k, v in event["headers"].items()}
        event["queryStringParameters"] = params
        event["multiValueQueryStringParameters"] = {k: [v] for k, v in params.items()} if params else None
        event["pathParameters"] = {"proxy": path.lstrip("/")}
    event["body"] = encoded
    event["isBase64Encoded"] = encoded is not None
    return event


if __name__ == "__main__":
    for name, spec in EVENTS.items():
        (HERE / f"{name}.json").write_text(json.dumps(generate(*spec), indent=2) + "\n")
        print(f"wrote infra/events/{name}.json")
