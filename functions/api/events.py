"""Build API Gateway events (HTTP API v2 and REST v1 shapes) and a stub Lambda context.

Used by the Docker-free local adapter (``functions.api.local``) and the tests; the sample events
in ``infra/events/`` are the shapes ``sam local generate-event`` produces.
"""

from __future__ import annotations

import base64
import time
import uuid


class LocalContext:
    """The attributes of a Lambda context object that Mangum and user code read."""

    function_name = "perturber-api"
    function_version = "$LATEST"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:perturber-api"
    log_group_name = "/aws/lambda/perturber-api"
    log_stream_name = "local"

    def __init__(self, timeout_s: float = 30.0) -> None:
        self.aws_request_id = str(uuid.uuid4())
        self._deadline = time.monotonic() + timeout_s

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def http_api_event(
    method: str,
    path: str,
    query: str = "",
    headers: dict | None = None,
    body: bytes = b"",
    stage: str = "$default",
) -> dict:
    """An HTTP API (payload format 2.0) event; the body is base64-encoded like API Gateway does."""
    raw_path = path if stage == "$default" else f"/{stage}{path}"
    headers = {k.lower(): v for k, v in (headers or {}).items()}
    now = time.time()
    return {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": raw_path,
        "rawQueryString": query,
        "cookies": [],
        "headers": headers,
        "queryStringParameters": dict(p.split("=", 1) if "=" in p else (p, "") for p in query.split("&") if p)
        or None,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "local",
            "domainName": "localhost",
            "domainPrefix": "localhost",
            "requestId": str(uuid.uuid4()),
            "routeKey": "$default",
            "stage": stage,
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
            "timeEpoch": int(now * 1000),
            "http": {
                "method": method,
                "path": raw_path,
                "protocol": "HTTP/1.1",
                "sourceIp": "127.0.0.1",
                "userAgent": headers.get("user-agent", ""),
            },
        },
        "body": base64.b64encode(body).decode() if body else None,
        "isBase64Encoded": bool(body),
        "pathParameters": {"proxy": path.lstrip("/")},
        "stageVariables": None,
    }


def response_body(response: dict) -> bytes:
    """The body of a Lambda proxy response, base64-decoded when flagged."""
    body = response.get("body") or ""
    return base64.b64decode(body) if response.get("isBase64Encoded") else body.encode("utf-8")
