"""The reusable OpenAI-compatible chat client of the model-backed tier (and of the harness).

Configuration comes from :mod:`perturber.settings` (:meth:`LLMSettings.from_env`); the ``openai``
package is imported only when an :class:`Endpoint` is built. Retries are ours (the SDK's own are
disabled): at most ``max_retries`` (<= 2), only on timeouts, 429, 5xx and malformed replies,
exponential backoff with jitter, honouring ``Retry-After``. Every call has an overall deadline:
each attempt ends after ``timeout`` seconds however slowly the reply trickles in, the whole call
(retries and back-off included) after ``deadline`` seconds, and every call made inside
:func:`deadline_within` by the deadline given there. The API key never appears in a repr, a log
record, an exception message or a result.

>>> s = LLMSettings.from_env({"PERTURBER_LLM_BASE_URL": "http://127.0.0.1:9/v1",
...                           "PERTURBER_LLM_MODELS": "small,large"})
>>> (s.base_url, s.model, s.models, s.max_retries, s.concurrency, s.deadline)
('http://127.0.0.1:9/v1', 'small', ('small', 'large'), 2, 16, 90.0)
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import email.utils
import importlib
import json
import logging
import random
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from . import settings as config
from .errors import ConfigurationError, InvalidParams, ModelBackendError, PerturberError, ResourceUnavailable
from .urls import check_base_url

log = logging.getLogger("perturber.llm")

MAX_RETRIES_LIMIT = 2
RETRY_AFTER_CAP = 20.0  # seconds: a longer Retry-After is not waited for in full
MAX_REPLY_BYTES = 1 << 20  # a reply body over 1 MiB is malformed (4096 tokens need < 100 KB)
# The request goes out through the SDK's public ``post`` as the JSON body built here, so the SDK
# neither rewrites it (its per-call walk over the typed parameters costs about 1 ms) nor parses
# the reply into its models: the HTTP response comes back as is and ``_completion`` reads it.
_PATH = "/chat/completions"


class ModelBadResponse(ModelBackendError):
    """The endpoint answered, but not with a usable completion (retried like a 5xx).

    Codes: ``model_bad_response`` (not JSON, no ``choices``, no ``message``, an over-long body)
    and ``model_empty`` (empty or missing content).
    """

    code = "model_bad_response"


def check_model(model: object) -> str:
    """A model name (the rule of :func:`perturber.settings.is_model_name`).

    >>> check_model("gpt-4o-mini")
    'gpt-4o-mini'
    """
    if not config.is_model_name(model):
        raise InvalidParams(f"model must be 1-128 characters matching {config.MODEL_PATTERN}", field="model")
    return model  # type: ignore[return-value]


@dataclass(frozen=True)
class LLMSettings:
    """The tier's configuration; :meth:`from_env` reads and checks ``PERTURBER_LLM_*``."""

    base_url: str | None = None
    default_model: str | None = None
    models: tuple[str, ...] = ()
    send_seed: bool = True
    max_tokens: int = 4096
    timeout: float = 30.0
    connect_timeout: float = 5.0
    deadline: float = 90.0
    request_deadline: float = 120.0
    max_retries: int = 2
    concurrency: int = 16
    allowed_hosts: tuple[str, ...] = ()

    @property
    def model(self) -> str | None:
        """The effective default model: the configured default, else the first allowed model."""
        return self.default_model or (self.models[0] if self.models else None)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> LLMSettings:
        """Read and validate the settings; a bad value raises :class:`ConfigurationError`."""
        values: dict[str, Any] = {
            f: config.read("PERTURBER_LLM_" + f.upper(), environ) for f in cls.__dataclass_fields__
        }
        if values["default_model"] and values["models"] and values["default_model"] not in values["models"]:
            raise ConfigurationError(
                "PERTURBER_LLM_DEFAULT_MODEL must be one of PERTURBER_LLM_MODELS",
                variable="PERTURBER_LLM_DEFAULT_MODEL",
            )
        return cls(**values)

    def endpoint_options(self) -> dict:
        """The :class:`Endpoint` keyword arguments these settings give."""
        return dict(
            timeout=self.timeout,
            connect_timeout=self.connect_timeout,
            max_retries=self.max_retries,
            concurrency=self.concurrency,
            deadline=self.deadline,
        )


@dataclass(frozen=True)
class Completion:
    """One chat completion, raw (not post-processed): ``text`` is a non-blank string unless
    ``finish_reason`` is ``length``."""

    text: str | None
    finish_reason: str | None
    model: str
    usage: dict = field(default_factory=dict)
    latency_ms: float = 0.0
    seed_forwarded: bool = False
    system_fingerprint: str | None = None


# -- deadlines ---------------------------------------------------------------------------------

_request_end: contextvars.ContextVar[float | None] = contextvars.ContextVar("perturber_llm_end", default=None)


@contextmanager
def deadline_within(seconds: float | None) -> Iterator[float | None]:
    """Every model call in this context ends within ``seconds`` (None: no new bound); nested
    contexts only tighten. Yields the absolute ``time.monotonic()`` deadline in force.

    >>> with deadline_within(5) as end, deadline_within(60) as inner:
    ...     inner == end
    True
    """
    current = _request_end.get()
    end = current if seconds is None else time.monotonic() + seconds
    if current is not None and end is not None:
        end = min(end, current)
    token = _request_end.set(end)
    try:
        yield end
    finally:
        _request_end.reset(token)


class _ReplyTooLarge(Exception):
    pass


@dataclass
class _Attempt:
    """The bounds of the attempt in progress in this thread or task (read by the network layer)."""

    end: float
    budget: int
    timeout_error: type[Exception]

    def clamp(self, timeout: float | None) -> float:
        left = self.end - time.monotonic()
        if left <= 0:
            raise self.timeout_error("the attempt's deadline has passed")
        return left if timeout is None else min(timeout, left)

    def count(self, data: bytes) -> bytes:
        self.budget -= len(data)
        if self.budget < 0:
            raise _ReplyTooLarge()
        return data


_attempt: contextvars.ContextVar[_Attempt | None] = contextvars.ContextVar(
    "perturber_llm_attempt", default=None
)


def _clamp(timeout: float | None) -> float | None:
    attempt = _attempt.get()
    return timeout if attempt is None else attempt.clamp(timeout)


def _count(data: bytes) -> bytes:
    attempt = _attempt.get()
    return data if attempt is None else attempt.count(data)


class _Stream:
    """A network stream whose every read, write and TLS handshake ends by the attempt's deadline
    and whose reads count against the reply budget (so a 1-byte-per-second reply cannot hold a
    connection past the deadline, nor a huge one fill the memory)."""

    def __init__(self, inner) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return _count(self._inner.read(max_bytes, _clamp(timeout)))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _clamp(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None):
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, _clamp(timeout)))

    def get_extra_info(self, info: str):
        return self._inner.get_extra_info(info)


class _AsyncStream(_Stream):
    """:class:`_Stream` for the async client."""

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:  # type: ignore[override]
        return _count(await self._inner.read(max_bytes, _clamp(timeout)))

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:  # type: ignore[override]
        await self._inner.write(buffer, _clamp(timeout))

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(self, ssl_context, server_hostname=None, timeout=None):
        return _AsyncStream(await self._inner.start_tls(ssl_context, server_hostname, _clamp(timeout)))


class _Backend:
    """The connection pool's network backend, wrapped so its streams are :class:`_Stream` s."""

    def __init__(self, inner, stream: type[_Stream]) -> None:
        self._inner, self._stream = inner, stream

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        made = self._inner.connect_tcp(host, port, _clamp(timeout), local_address, socket_options)
        return self._wrap(made)

    def _wrap(self, made):
        if asyncio.iscoroutine(made):

            async def wrapped():
                return self._stream(await made)

            return wrapped()
        return self._stream(made)

    def connect_unix_socket(self, path, timeout=None, socket_options=None):  # pragma: no cover
        return self._wrap(self._inner.connect_unix_socket(path, _clamp(timeout), socket_options))

    def sleep(self, seconds: float):  # pragma: no cover - used by httpcore's own retries (off)
        return self._inner.sleep(seconds)


# -- the key -----------------------------------------------------------------------------------


class _Secret:
    """Holds the key and the pattern of its disguises; its repr never shows it."""

    __slots__ = ("value", "pattern")

    def __init__(self, value: str) -> None:
        self.value = value
        self.pattern = re.compile("|".join(map(re.escape, _disguises(value))), re.IGNORECASE)

    def __repr__(self) -> str:
        return "'***'"


def _disguises(key: str) -> list[str]:
    """The forms a key takes in an echo: itself (any case), hex, and base64 / base64url at each of
    the three byte alignments (so it is found inside a longer encoded blob too), longest first."""
    raw = key.encode("utf-8", "surrogatepass")
    forms = {key, raw.hex()}
    for shift in range(3):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            encoded = encode(bytes(shift) + raw).decode("ascii").rstrip("=")
            # drop the characters that mix in the padding bytes or the following data
            core = encoded[(shift * 4 + 2) // 3 + (1 if shift else 0) : len(encoded) - 2]
            if len(core) >= 8:
                forms.add(core)
    return sorted(forms, key=len, reverse=True)


def _retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds from a ``Retry-After`` (delta-seconds or HTTP date) or ``retry-after-ms`` header."""
    if not headers:
        return None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError):
            return None
        return max(0.0, when.timestamp() - time.time())


_SSL_CONTEXTS: dict[str, Any] = {}


def _ssl_context(http) -> Any:
    """One TLS context per HTTP library for every endpoint (loading the CA bundle per client
    costs time and native memory that is not given back)."""
    name = http.__name__
    if name not in _SSL_CONTEXTS:
        _SSL_CONTEXTS[name] = http.create_ssl_context()
    return _SSL_CONTEXTS[name]


class Endpoint:
    """An OpenAI-compatible chat endpoint with one connection pool, retries, deadlines and
    bounded batches.

    ``timeout``: seconds one attempt may take in total; ``connect_timeout``: seconds to connect;
    ``deadline``: seconds one call may take, retries and back-off included; ``max_retries``:
    0-2; ``concurrency``: requests in flight per batch and connections in the pool;
    ``max_reply_bytes``: the largest reply body accepted; ``limiter``: a semaphore shared by
    several endpoints to bound their calls in flight together.

    >>> ep = Endpoint(base_url="http://127.0.0.1:9/v1", api_key="sk-secret", timeout=5, deadline=9)
    >>> "sk-secret" in repr(ep), ep.deadline
    (False, 9.0)
    >>> ep.close()
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        timeout: float = 30.0,
        connect_timeout: float = 5.0,
        max_retries: int = 2,
        concurrency: int = 16,
        backoff: float = 0.5,
        deadline: float = 90.0,
        max_reply_bytes: int = MAX_REPLY_BYTES,
        limiter: threading.Semaphore | None = None,
    ) -> None:
        if base_url is None:
            raise ResourceUnavailable(
                "no model endpoint is configured (set PERTURBER_LLM_BASE_URL)", code="model_unavailable"
            )
        self.base_url = check_base_url(base_url)
        if type(max_retries) is not int or not 0 <= max_retries <= MAX_RETRIES_LIMIT:
            raise InvalidParams(
                f"max_retries must be an int in [0, {MAX_RETRIES_LIMIT}]", field="max_retries"
            )
        if type(concurrency) is not int or not 1 <= concurrency <= 256:
            raise InvalidParams("concurrency must be an int in [1, 256]", field="concurrency")
        for name, value in (
            ("timeout", timeout),
            ("connect_timeout", connect_timeout),
            ("deadline", deadline),
        ):
            if type(value) not in (int, float) or not 0 < value <= 3600:
                raise InvalidParams(f"{name} must be a number of seconds in (0, 3600]", field=name)
        self.timeout = float(timeout)
        self.connect_timeout = float(connect_timeout)
        self.deadline = float(deadline)
        self.max_retries = max_retries
        self.concurrency = concurrency
        self.backoff = float(backoff)
        self.max_reply_bytes = int(max_reply_bytes)
        self.limiter = limiter
        self.__key = _Secret(api_key) if api_key else None
        self._lock = threading.Lock()
        self._sleep = time.sleep  # replaceable in tests
        self._sync = None
        self._async = None
        self._read_timeout: type[Exception] = TimeoutError  # httpcore's, once a client is built
        self._openai = self._import_openai()

    @classmethod
    def from_settings(cls, settings: LLMSettings, api_key: str | None = None, **overrides) -> Endpoint:
        """An endpoint for the configured base URL; ``api_key=None`` uses :mod:`perturber.credentials`.
        ``overrides`` replace any keyword argument (``timeout=``, ``max_retries=``, ``deadline=`` ...)."""
        if not settings.base_url:
            raise ResourceUnavailable(
                "no model endpoint is configured (set PERTURBER_LLM_BASE_URL)", code="model_unavailable"
            )
        if api_key is None:
            from . import credentials

            api_key = credentials.api_key()
        return cls(settings.base_url, api_key, **{**settings.endpoint_options(), **overrides})

    @property
    def has_key(self) -> bool:
        """Whether a key is sent (the key itself is never exposed)."""
        return self.__key is not None

    def __repr__(self) -> str:
        key = "***" if self.__key else None
        return f"Endpoint(base_url={self.base_url!r}, api_key={key!r}, concurrency={self.concurrency})"

    # -- construction of the SDK clients ---------------------------------------------------------
    @staticmethod
    def _import_openai():
        try:
            import openai
        except ImportError:
            raise ResourceUnavailable(
                "the model-backed tier needs the 'llm' extra: pip install 'perturber[llm]'",
                code="model_unavailable",
            ) from None
        return openai

    def _http(self):
        """The HTTP library the installed SDK is built on (``httpx``, or ``httpx2`` in SDK 3.x)."""
        base = next(
            c for c in self._openai.DefaultHttpxClient.__mro__ if not c.__module__.startswith("openai")
        )
        return importlib.import_module(base.__module__.split(".")[0])

    def _client_kwargs(self, http, async_: bool):
        timeout = http.Timeout(self.timeout, connect=self.connect_timeout)
        size = max(self.concurrency, 4)
        limits = http.Limits(max_connections=size, max_keepalive_connections=size)
        transport_cls = http.AsyncHTTPTransport if async_ else http.HTTPTransport
        transport = transport_cls(verify=_ssl_context(http), limits=limits, trust_env=False)
        pool = transport._pool  # the documented way to pass a network backend needs httpcore itself
        pool._network_backend = _Backend(pool._network_backend, _AsyncStream if async_ else _Stream)
        self._read_timeout = importlib.import_module(type(pool).__module__.split(".")[0]).ReadTimeout
        client_cls = http.AsyncClient if async_ else http.Client
        # Nothing from the process environment (OPENAI_ORG_ID, OPENAI_PROJECT_ID, ...) is sent: only
        # our key, and no Authorization header at all without one (keyless local servers).
        return dict(
            base_url=self.base_url,
            api_key=self.__key.value if self.__key else "no-key",  # omitted per request when unset
            max_retries=0,  # our own retry policy (see the module docstring)
            timeout=timeout,
            http_client=client_cls(
                transport=transport, timeout=timeout, follow_redirects=False, trust_env=False
            ),
        )

    def _client(self):
        with self._lock:
            if self._sync is None:
                self._sync = self._openai.OpenAI(**self._client_kwargs(self._http(), False))
            return self._sync

    def _aclient(self):
        if self._async is None:
            self._async = self._openai.AsyncOpenAI(**self._client_kwargs(self._http(), True))
        return self._async

    # -- requests --------------------------------------------------------------------------------
    def _request(self, messages, model, temperature, seed, max_tokens) -> tuple[dict, dict]:
        """The JSON body of one ``/chat/completions`` request and its headers (the SDK's ``Omit``
        for a header it must not send)."""
        if model is None:
            raise ResourceUnavailable(
                "no model is configured or given (set PERTURBER_LLM_DEFAULT_MODEL)", code="model_unavailable"
            )
        body = dict(messages=list(messages), model=check_model(model), temperature=temperature)
        if seed is not None:
            body["seed"] = seed
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        omit = self._openai.omit
        headers = {"OpenAI-Organization": omit, "OpenAI-Project": omit}
        if not self.__key:
            headers["Authorization"] = omit
        return body, headers

    def scrub(self, text: str) -> str:
        """``text`` with this endpoint's key (in any case, hex or base64) replaced by ``***``.

        >>> Endpoint("http://127.0.0.1:9/v1", "sk-abcdefgh12345").scrub("echo SK-ABCDEFGH12345")
        'echo ***'
        """
        return self.__key.pattern.sub("***", text) if self.__key else text

    def _call_end(self) -> float:
        end = time.monotonic() + self.deadline
        request_end = _request_end.get()
        return end if request_end is None else min(end, request_end)

    def _attempt_bounds(self, call_end: float) -> _Attempt:
        end = min(time.monotonic() + self.timeout, call_end)
        return _Attempt(end, self.max_reply_bytes, self._read_timeout)

    def _timeout_error(self, call_end: float) -> ModelBackendError:
        if call_end - time.monotonic() <= 0.001:
            return ModelBackendError(
                "the model call did not finish within its deadline",
                code="model_timeout",
                deadline_passed=True,
            )
        return ModelBackendError(
            f"the model endpoint timed out after {self.timeout:g} s", code="model_timeout"
        )

    def _failure(self, exc: Exception, call_end: float) -> tuple[PerturberError, bool, float | None]:
        """What one failed attempt means: (error, retryable, Retry-After seconds). A malformed reply
        is retried like a 5xx; any other error of ours is final and raised."""
        if isinstance(exc, ModelBadResponse):
            return exc, True, None
        if isinstance(exc, PerturberError):
            raise exc
        return self._classify(exc, call_end)

    def _classify(self, exc: BaseException, call_end: float) -> tuple[PerturberError, bool, float | None]:
        """Map an exception of one attempt to (error, retryable, retry_after)."""
        openai = self._openai
        cause: BaseException | None = exc
        while cause is not None and not isinstance(cause, _ReplyTooLarge):
            cause = cause.__cause__ or cause.__context__
        if cause is not None:
            return ModelBadResponse(f"the model's reply is over {self.max_reply_bytes} bytes"), True, None
        if isinstance(exc, openai.APITimeoutError | TimeoutError):
            return self._timeout_error(call_end), True, None
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            detail = ""
            try:
                body = exc.response.json()
                msg = body.get("error", {}).get("message") if isinstance(body, dict) else None
                if isinstance(body.get("error"), str):
                    msg = body["error"]
                if msg:
                    detail = ": " + self.scrub(str(msg))[:200]
            except Exception:
                pass
            retryable = status == 429 or status >= 500
            err = ModelBackendError(
                f"the model endpoint returned HTTP {status}{detail}", code="model_error", status=status
            )
            return err, retryable, _retry_after(exc.response.headers) if retryable else None
        if isinstance(exc, openai.APIConnectionError):
            return (
                ModelBackendError("could not connect to the model endpoint", code="model_error"),
                False,
                None,
            )
        return (
            ModelBackendError(
                f"invalid response from the model endpoint ({type(exc).__name__})", code="model_error"
            ),
            False,
            None,
        )

    def _retry_delay(
        self, attempt: int, err: PerturberError, retryable: bool, retry_after: float | None, call_end: float
    ) -> float:
        """Seconds to wait before the next attempt; raises ``err`` when it is final (not retryable,
        the last attempt, or the wait and a whole attempt would end after the deadline)."""
        if not retryable or attempt == self.max_retries:
            raise err
        base = self.backoff * (2**attempt)
        delay = base / 2 + random.random() * base / 2  # exponential backoff, "equal jitter"
        if retry_after is not None:
            delay = max(delay, min(retry_after, RETRY_AFTER_CAP))
        if time.monotonic() + delay + self.timeout > call_end:  # no room left for a whole attempt
            err.details["deadline_passed"] = True
            raise err
        log.info("model request failed (%s), retry %d in %.2f s", err.code, attempt + 1, delay)
        return delay

    def _completion(self, raw, model: str, started: float, seed_forwarded: bool) -> Completion:
        """The completion of a 200 reply; anything else is :class:`ModelBadResponse`."""
        try:
            data = json.loads(raw.content)
        except ValueError:
            raise ModelBadResponse("the model endpoint's reply is not JSON") from None
        choices = data.get("choices") if isinstance(data, dict) else None
        first = choices[0] if isinstance(choices, list) and choices else None
        message = first.get("message") if isinstance(first, dict) else None
        if not isinstance(message, dict):
            raise ModelBadResponse("the model endpoint's reply holds no choices[0].message")
        finish = first.get("finish_reason")  # type: ignore[union-attr]
        text = message.get("content")
        if finish == "content_filter":
            raise ModelBackendError("the model refused (finish_reason content_filter)", code="model_refused")
        if finish != "length" and (not isinstance(text, str) or not text.strip()):
            raise ModelBadResponse("the model returned an empty completion", code="model_empty")
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        return Completion(
            text=self.scrub(text) if isinstance(text, str) else None,
            finish_reason=finish if isinstance(finish, str) else None,
            model=data.get("model") if isinstance(data.get("model"), str) else model,
            usage={k: v for k, v in usage.items() if k.endswith("_tokens") and type(v) is int},
            latency_ms=round((time.perf_counter() - started) * 1000, 3),
            seed_forwarded=seed_forwarded,
            system_fingerprint=data.get("system_fingerprint")
            if isinstance(data.get("system_fingerprint"), str)
            else None,
        )

    def _post(self, client, body: dict, headers: dict, attempt: _Attempt):
        """One attempt's request through ``client`` (``OpenAI``: the HTTP response; ``AsyncOpenAI``:
        an awaitable of it), bounded by what is left of the attempt's time."""
        left = max(attempt.end - time.monotonic(), 0.001)
        http = self._http()
        timeout = http.Timeout(min(self.timeout, left), connect=min(self.connect_timeout, left))
        return client.post(
            _PATH, cast_to=http.Response, body=body, options={"headers": headers, "timeout": timeout}
        )

    @contextmanager
    def _slot(self, call_end: float) -> Iterator[None]:
        if self.limiter is None:
            yield
            return
        if not self.limiter.acquire(timeout=max(call_end - time.monotonic(), 0)):
            raise ModelBackendError(
                "too many model requests in flight: no slot freed before the deadline", code="model_timeout"
            )
        try:
            yield
        finally:
            self.limiter.release()

    def chat(
        self,
        messages: Sequence[Mapping],
        *,
        model: str | None,
        temperature: float = 0.0,
        seed: int | None = None,
        max_tokens: int | None = 256,
    ) -> Completion:
        """One chat completion (synchronous), retried per the policy, within the deadlines."""
        body, headers = self._request(messages, model, temperature, seed, max_tokens)
        call_end = self._call_end()
        client = self._client()
        started = time.perf_counter()
        err: PerturberError
        with self._slot(call_end):
            for attempt in range(self.max_retries + 1):
                bounds = self._attempt_bounds(call_end)
                token = _attempt.set(bounds)
                try:
                    if bounds.end <= time.monotonic():
                        raise TimeoutError
                    raw = self._post(client, body, headers, bounds)
                    return self._completion(raw, body["model"], started, "seed" in body)
                except Exception as exc:
                    err, retryable, retry_after = self._failure(exc, call_end)
                finally:
                    _attempt.reset(token)
                self._sleep(self._retry_delay(attempt, err, retryable, retry_after, call_end))
        raise AssertionError("unreachable")  # pragma: no cover

    async def achat(
        self,
        messages: Sequence[Mapping],
        *,
        model: str | None,
        temperature: float = 0.0,
        seed: int | None = None,
        max_tokens: int | None = 256,
    ) -> Completion:
        """One chat completion (asynchronous, ``AsyncOpenAI``), retried per the policy, within the
        deadlines."""
        body, headers = self._request(messages, model, temperature, seed, max_tokens)
        call_end = self._call_end()
        client = self._aclient()
        started = time.perf_counter()
        err: PerturberError
        for attempt in range(self.max_retries + 1):
            bounds = self._attempt_bounds(call_end)
            token = _attempt.set(bounds)
            try:
                raw = await asyncio.wait_for(
                    self._post(client, body, headers, bounds),
                    max(bounds.end - time.monotonic(), 0),
                )
                return self._completion(raw, body["model"], started, "seed" in body)
            except Exception as exc:
                err, retryable, retry_after = self._failure(exc, call_end)
            finally:
                _attempt.reset(token)
            await asyncio.sleep(self._retry_delay(attempt, err, retryable, retry_after, call_end))
        raise AssertionError("unreachable")  # pragma: no cover

    def chat_many(
        self,
        requests: Sequence[Mapping],
        on_done: Callable[[int, object], None] | None = None,
        *,
        stop_on_error: bool = False,
    ) -> list[Completion | PerturberError]:
        """Many completions, at most ``concurrency`` in flight; errors are returned per item.

        With ``stop_on_error``, requests not yet sent when one fails are not sent: they get a
        ``model_skipped`` error (they come after the failed one in ``requests``).
        """
        requests = list(requests)
        results: list = [None] * len(requests)
        done_lock = threading.Lock()
        failed = threading.Event()

        def run(i: int) -> None:
            result: Completion | PerturberError
            if failed.is_set():
                result = ModelBackendError(
                    "not sent: an earlier request of the batch failed", code="model_skipped"
                )
            else:
                try:
                    result = self.chat(**requests[i])
                except PerturberError as err:
                    result = err
                except Exception as exc:
                    result = ModelBackendError(
                        f"model request failed ({type(exc).__name__})", code="model_error"
                    )
                if stop_on_error and isinstance(result, PerturberError):
                    failed.set()
            results[i] = result
            if on_done is not None:
                with done_lock:
                    on_done(i, result)

        if len(requests) <= 1:
            for i in range(len(requests)):
                run(i)
            return results
        with ThreadPoolExecutor(
            max_workers=min(self.concurrency, len(requests)), thread_name_prefix="perturber-llm"
        ) as pool:
            # each task runs in a copy of the caller's context: the deadline of deadline_within holds
            futures = [pool.submit(contextvars.copy_context().run, run, i) for i in range(len(requests))]
            for future in futures:
                future.result()
        return results

    def close(self) -> None:
        """Close the connection pools."""
        if self._sync is not None:
            self._sync.close()
            self._sync = None
        if self._async is not None:
            client, self._async = self._async, None
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                try:
                    asyncio.run(client.close())
                except Exception:
                    pass

    async def aclose(self) -> None:
        """Close the connection pools from async code."""
        if self._async is not None:
            client, self._async = self._async, None
            await client.close()
        self.close()

    def __enter__(self) -> Endpoint:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
