"""Who may spend the server's model key, and which endpoint a model-backed request uses.

* ``X-LLM-API-Key``: the caller brings its own key; it is sent to the configured endpoint, or
* ``X-LLM-Base-URL`` (only hosts of ``PERTURBER_LLM_ALLOWED_HOSTS``, else 422 before any request):
  the caller's own endpoint, with the caller's key or none. The server's key never goes there.
* Otherwise the server's key is used only for an authenticated caller: API Gateway IAM
  authorization (the Lambda event's ``requestContext``), or ``Authorization: Bearer <token>`` whose
  sha256 is listed in ``PERTURBER_LLM_BEARER_SHA256`` (constant-time comparison). Anyone else gets
  401 ``model_auth_required``; ``PERTURBER_LLM_REQUIRE_AUTH=false`` lifts this for private servers.

The deterministic tier stays open. Keys are never logged, echoed or stored.

>>> access = Access.from_env({"PERTURBER_LLM_BEARER_SHA256": hashlib.sha256(b"t0k").hexdigest()})
>>> access.bearer_ok("Bearer t0k"), access.bearer_ok("Bearer nope"), access.bearer_ok(None)
(True, False, False)
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import AuthenticationRequired, ConfigurationError, InvalidParams, ResourceUnavailable

KEY_HEADER = "x-llm-api-key"
URL_HEADER = "x-llm-base-url"
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_KEY_CHARS = re.compile(r"^[\x21-\x7e]{1,1024}$")


@dataclass(frozen=True)
class Access:
    """The service's access rules for the server's model key."""

    bearer_sha256: tuple[str, ...] = ()
    require_auth: bool = True

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Access:
        env = os.environ if environ is None else environ
        digests = tuple(
            d.strip().lower() for d in env.get("PERTURBER_LLM_BEARER_SHA256", "").split(",") if d.strip()
        )
        for d in digests:
            if not _HEX64.match(d):
                raise ConfigurationError(
                    "PERTURBER_LLM_BEARER_SHA256 must list sha256 hex digests (64 hex characters each)",
                    field="PERTURBER_LLM_BEARER_SHA256",
                )
        raw = env.get("PERTURBER_LLM_REQUIRE_AUTH", "true").strip().lower()
        if raw not in ("true", "false", "1", "0", "yes", "no"):
            raise ConfigurationError(
                f"PERTURBER_LLM_REQUIRE_AUTH must be true or false, got {raw!r}",
                field="PERTURBER_LLM_REQUIRE_AUTH",
            )
        return cls(digests, raw in ("true", "1", "yes"))

    def bearer_ok(self, authorization: str | None) -> bool:
        """Whether an ``Authorization`` header carries a listed bearer token (constant time)."""
        if not authorization or not self.bearer_sha256:
            return False
        scheme, _, token = authorization.strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return False
        digest = hashlib.sha256(token.strip().encode("utf-8", "surrogatepass")).hexdigest()
        ok = False
        for listed in self.bearer_sha256:  # no early exit: the time does not depend on the match
            ok |= hmac.compare_digest(digest, listed)
        return ok


def iam_caller(event: Mapping | None) -> str | None:
    """The IAM principal API Gateway authorized for this Lambda event (HTTP API v2 or REST v1)."""
    if not isinstance(event, Mapping):
        return None
    context = event.get("requestContext")
    if not isinstance(context, Mapping):
        return None
    authorizer = context.get("authorizer")
    iam = authorizer.get("iam") if isinstance(authorizer, Mapping) else None
    if isinstance(iam, Mapping) and (iam.get("userArn") or iam.get("callerId")):
        return str(iam.get("userArn") or iam.get("callerId"))
    identity = context.get("identity")
    if isinstance(identity, Mapping) and identity.get("userArn") and identity.get("accessKey"):
        return str(identity["userArn"])
    return None


class EndpointChoice:
    """The endpoint of one request, built only when a model request is about to be made."""

    def __init__(self, make: Callable[[], object] | None) -> None:
        self._make, self._owned = make, make is not None
        self._endpoint: Any = None  # an llm.Endpoint, or what ``make`` returns

    def __call__(self):
        if self._endpoint is None:
            if self._make is None:
                from ..model_tier import shared_endpoint  # the configured endpoint, server key

                self._endpoint = shared_endpoint()
            else:
                self._endpoint = self._make()
        return self._endpoint

    def close(self) -> None:
        if self._owned and self._endpoint is not None:
            self._endpoint.close()


def choose_endpoint(headers: Mapping[str, str], event: Mapping | None, access: Access) -> EndpointChoice:
    """Check the request's model headers (422 for a non-listed base URL) and pick its endpoint.

    Raising 401 is deferred to the moment a request would be sent, so empty texts never need a key.
    """
    from ..llm import Endpoint, check_base_url
    from ..model_tier import settings

    s = settings()
    key = headers.get(KEY_HEADER)
    if key is not None:
        key = key.strip()
        if not _KEY_CHARS.match(key):
            raise InvalidParams("X-LLM-API-Key must be 1-1024 printable ASCII characters", field=KEY_HEADER)
    url = headers.get(URL_HEADER)
    options = dict(
        timeout=s.timeout,
        connect_timeout=s.connect_timeout,
        max_retries=s.max_retries,
        concurrency=s.concurrency,
    )
    if url is not None:
        if not s.allowed_hosts:
            raise InvalidParams(
                "X-LLM-Base-URL is not accepted: PERTURBER_LLM_ALLOWED_HOSTS is empty", field=URL_HEADER
            )
        try:
            url = check_base_url(url, s.allowed_hosts)
        except InvalidParams as err:
            raise InvalidParams(f"X-LLM-Base-URL: {err.message}", field=URL_HEADER) from None
        return EndpointChoice(lambda: Endpoint(url, key or None, **options))  # never the server's key
    if key:

        def own_key():
            if not s.base_url:
                raise ResourceUnavailable(
                    "no model endpoint is configured (set PERTURBER_LLM_BASE_URL)", code="model_unavailable"
                )
            return Endpoint(s.base_url, key, **options)

        return EndpointChoice(own_key)
    if (
        access.require_auth
        and iam_caller(event) is None
        and not access.bearer_ok(headers.get("authorization"))
    ):

        def refuse():
            raise AuthenticationRequired(
                "model-backed entries spend the server's model key only for authenticated callers: "
                "sign the request (API Gateway IAM), send a listed bearer token, or bring your own "
                "key in X-LLM-API-Key"
            )

        return EndpointChoice(refuse)
    return EndpointChoice(None)


async def run_model_backed(request, access: Access, work: Callable[[], object]):
    """Run ``work`` (the route's batch) in a worker thread with this request's endpoint."""
    from starlette.concurrency import run_in_threadpool

    from ..model_tier import using_endpoint

    choice = choose_endpoint(request.headers, request.scope.get("aws.event"), access)

    def call():
        with using_endpoint(choice):
            return work()

    try:
        return await run_in_threadpool(call)
    finally:
        choice.close()
