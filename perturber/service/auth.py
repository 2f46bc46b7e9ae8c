"""The one gate between an HTTP request and a model: which endpoint and key, for whom, how long.

Every route that can reach a model (the typed and generic perturbation routes, the gallery) runs
its model work through :meth:`ModelGate.run`; :class:`DenyUngated`, a middleware of every app,
makes any model call that does not go through it fail closed with 401. The gate

* picks the endpoint: with ``PERTURBER_LLM_ALLOW_CALLER_KEYS=true`` only, ``X-LLM-API-Key`` (the
  caller's key, sent to the configured endpoint) and ``X-LLM-Base-URL`` (the caller's endpoint,
  only for hosts of ``PERTURBER_LLM_ALLOWED_HOSTS``, with the caller's key or none: never the
  server's); otherwise the configured endpoint with the server's key, which is spent only for an
  authenticated caller: API Gateway IAM authorization (the Lambda event's ``requestContext``), or
  ``Authorization: Bearer <token>`` whose sha256 is listed in ``PERTURBER_LLM_BEARER_SHA256``
  (constant-time comparison). Anyone else gets 401 ``model_auth_required``
  (``PERTURBER_LLM_REQUIRE_AUTH=false`` lifts this for private servers). A bad header is a 422
  before any request; the 401 is raised when a request is about to be sent (empty texts need no key);
* runs the work in a worker thread, never on the event loop;
* bounds it by ``PERTURBER_LLM_REQUEST_DEADLINE`` and, on Lambda, by the invocation's remaining
  time less :data:`LAMBDA_MARGIN` seconds;
* reuses callers' endpoints (:class:`CallerEndpoints`: one pool per key, at most 32 kept) and
  bounds their requests in flight over the whole process (``PERTURBER_LLM_CALLER_CONCURRENCY``).

Keys are never logged, echoed or stored.

>>> access = Access.from_env({"PERTURBER_LLM_BEARER_SHA256": hashlib.sha256(b"t0k").hexdigest()})
>>> access.bearer_ok("Bearer t0k"), access.bearer_ok("Bearer nope"), access.bearer_ok(None)
(True, False, False)
"""

from __future__ import annotations

import hashlib
import hmac
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .. import settings as config
from ..errors import AuthenticationRequired, InvalidParams, ResourceUnavailable

KEY_HEADER = "x-llm-api-key"
URL_HEADER = "x-llm-base-url"
LAMBDA_MARGIN = 1.0  # seconds of a Lambda invocation kept for answering after the model calls
CALLER_ENDPOINTS_KEPT = 32
_KEY_CHARS = re.compile(r"^[\x21-\x7e]{1,1024}$")


@dataclass(frozen=True)
class Access:
    """The service's access rules for model-backed routes."""

    bearer_sha256: tuple[str, ...] = ()
    require_auth: bool = True
    allow_caller_keys: bool = False
    caller_concurrency: int = 16

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Access:
        """The rules of the ``PERTURBER_LLM_*`` variables (bad values: ``ConfigurationError``)."""
        return cls(
            config.read("PERTURBER_LLM_BEARER_SHA256", environ),  # type: ignore[arg-type]
            config.read("PERTURBER_LLM_REQUIRE_AUTH", environ),  # type: ignore[arg-type]
            config.read("PERTURBER_LLM_ALLOW_CALLER_KEYS", environ),  # type: ignore[arg-type]
            config.read("PERTURBER_LLM_CALLER_CONCURRENCY", environ),  # type: ignore[arg-type]
        )

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


def lambda_seconds_left(context: Any) -> float | None:
    """Seconds of the Lambda invocation left for model calls (remaining time less the margin).

    >>> class Ctx:
    ...     def get_remaining_time_in_millis(self): return 12_500
    >>> lambda_seconds_left(Ctx()), lambda_seconds_left(None)
    (11.5, None)
    """
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    if not callable(remaining):
        return None
    try:
        return max(float(remaining()) / 1000 - LAMBDA_MARGIN, 0.001)
    except (TypeError, ValueError):
        return None


class CallerEndpoints:
    """Endpoints of callers' own keys and base URLs, reused per (URL, key) instead of built and
    closed per request (each costs a connection pool and native memory): at most ``kept`` idle
    ones are kept (least recently used closed first), and all of them share one limiter that
    bounds their requests in flight over the whole process."""

    def __init__(self, concurrency: int, kept: int = CALLER_ENDPOINTS_KEPT) -> None:
        self.concurrency = concurrency
        self.limiter = threading.BoundedSemaphore(concurrency)
        self.kept = kept
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, list] = OrderedDict()  # digest -> [endpoint, users]

    def acquire(self, url: str, key: str | None, options: dict):
        """The endpoint for ``(url, key)``, counted as in use until :meth:`release`."""
        from ..llm import Endpoint

        digest = hashlib.sha256(f"{url}\n{key or ''}".encode("utf-8", "surrogatepass")).hexdigest()
        with self._lock:
            entry = self._entries.pop(digest, None)
            if entry is None:
                entry = [Endpoint(url, key, limiter=self.limiter, **options), 0]
            entry[1] += 1
            self._entries[digest] = entry
            for old in [d for d, e in self._entries.items() if e[1] == 0][
                : max(len(self._entries) - self.kept, 0)
            ]:
                self._entries.pop(old)[0].close()
            return entry[0]

    def release(self, endpoint) -> None:
        with self._lock:
            for entry in self._entries.values():
                if entry[0] is endpoint:
                    entry[1] -= 1
                    return
        endpoint.close()  # evicted while in use (never happens below ``kept`` users)

    def __len__(self) -> int:
        return len(self._entries)

    def close(self) -> None:
        with self._lock:
            for endpoint, _ in self._entries.values():
                endpoint.close()
            self._entries.clear()


class EndpointChoice:
    """The endpoint of one request, obtained only when a model request is about to be made."""

    def __init__(self, make: Callable[[], Any] | None, release: Callable[[Any], None] | None = None) -> None:
        self._make, self._release = make, release
        self._endpoint: Any = None

    def __call__(self):
        if self._endpoint is None:
            if self._make is None:
                from ..model_tier import shared_endpoint  # the configured endpoint, server key

                self._endpoint = shared_endpoint()
            else:
                self._endpoint = self._make()
        return self._endpoint

    def close(self) -> None:
        if self._release is not None and self._endpoint is not None:
            self._release(self._endpoint)


def _refuse(message: str) -> Callable[[], Any]:
    def refuse():
        raise AuthenticationRequired(message)

    return refuse


_callers: CallerEndpoints | None = None
_callers_lock = threading.Lock()


def caller_endpoints(concurrency: int) -> CallerEndpoints:
    """The process's :class:`CallerEndpoints` (one limiter for every app of the process; a new
    one when the configured concurrency changed)."""
    global _callers
    with _callers_lock:
        if _callers is None or _callers.concurrency != concurrency:
            _callers = CallerEndpoints(concurrency)
        return _callers


def start_up() -> ModelGate:
    """Read and check every variable (a bad value stops the start with ``ConfigurationError``)
    and build the app's gate (the service and the Lambda app call it once)."""
    from ..model_tier import settings

    config.check_environment()
    settings()
    return ModelGate(Access.from_env())


class ModelGate:
    """The access gate of one app (see the module docstring)."""

    def __init__(self, access: Access) -> None:
        self.access = access
        self.callers = caller_endpoints(access.caller_concurrency)

    def choose(self, headers: Mapping[str, str], event: Mapping | None) -> EndpointChoice:
        """Check the request's model headers (422) and pick its endpoint; a 401 is deferred."""
        from ..model_tier import settings
        from ..urls import check_base_url

        key, url = headers.get(KEY_HEADER), headers.get(URL_HEADER)
        if (key is not None or url is not None) and not self.access.allow_caller_keys:
            header = "X-LLM-API-Key" if key is not None else "X-LLM-Base-URL"
            raise InvalidParams(
                f"{header} is not accepted: this server does not take callers' keys or endpoints "
                "(PERTURBER_LLM_ALLOW_CALLER_KEYS)",
                field=KEY_HEADER if key is not None else URL_HEADER,
            )
        s = settings()
        if key is not None:
            key = key.strip()
            if not _KEY_CHARS.match(key):
                raise InvalidParams(
                    "X-LLM-API-Key must be 1-1024 printable ASCII characters", field=KEY_HEADER
                )
        options = s.endpoint_options()
        if url is not None:
            if not s.allowed_hosts:
                raise InvalidParams(
                    "X-LLM-Base-URL is not accepted: PERTURBER_LLM_ALLOWED_HOSTS is empty", field=URL_HEADER
                )
            try:
                url = check_base_url(url, s.allowed_hosts)
            except InvalidParams as err:
                raise InvalidParams(f"X-LLM-Base-URL: {err.message}", field=URL_HEADER) from None
            target = url  # never the server's key
            return EndpointChoice(
                lambda: self.callers.acquire(target, key or None, options), self.callers.release
            )
        if key:
            if not s.base_url:
                unconfigured = ResourceUnavailable(
                    "no model endpoint is configured (set PERTURBER_LLM_BASE_URL)", code="model_unavailable"
                )

                def missing():
                    raise unconfigured

                return EndpointChoice(missing)
            base = s.base_url
            return EndpointChoice(lambda: self.callers.acquire(base, key, options), self.callers.release)
        if (
            self.access.require_auth
            and iam_caller(event) is None
            and not self.access.bearer_ok(headers.get("authorization"))
        ):
            return EndpointChoice(
                _refuse(
                    "model-backed entries spend the server's model key only for authenticated callers: "
                    "sign the request (API Gateway IAM) or send a listed bearer token"
                    + (", or bring your own key in X-LLM-API-Key" if self.access.allow_caller_keys else "")
                )
            )
        return EndpointChoice(None)

    def seconds(self, scope: Mapping) -> float:
        """The deadline of one request's model work: the configured one, on Lambda no later than
        the invocation's remaining time less the margin."""
        from ..model_tier import settings

        seconds = settings().request_deadline
        left = lambda_seconds_left(scope.get("aws.context"))
        return seconds if left is None else min(seconds, left)

    async def run(self, request, work: Callable[[], Any]) -> Any:
        """Run ``work`` (which may call models) in a worker thread, with this request's endpoint,
        within this request's deadline."""
        from starlette.concurrency import run_in_threadpool

        from ..llm import deadline_within
        from ..model_tier import using_endpoint

        choice = self.choose(request.headers, request.scope.get("aws.event"))
        end = time.monotonic() + self.seconds(request.scope)

        def call():
            with deadline_within(end - time.monotonic()), using_endpoint(choice):
                return work()

        try:
            return await run_in_threadpool(call)
        finally:
            choice.close()


class DenyUngated:
    """ASGI middleware: in this app a model call that does not go through :meth:`ModelGate.run`
    fails with 401 instead of spending the server's key (deny by default)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        from ..model_tier import using_endpoint

        with using_endpoint(_refuse("this route does not pass model requests through the access gate")):
            await self.app(scope, receive, send)
