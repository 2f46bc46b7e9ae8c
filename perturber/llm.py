"""The reusable OpenAI-compatible chat client of the model-backed tier (and of the harness).

Configuration is read lazily from ``PERTURBER_LLM_*`` variables (:meth:`LLMSettings.from_env`);
the ``openai`` package is imported only when an :class:`Endpoint` is built. Retries are ours
(the SDK's own are disabled): at most ``max_retries`` (<= 2), only on timeouts, 429 and 5xx,
exponential backoff with jitter, honouring ``Retry-After``. The API key never appears in a repr,
a log record, an exception message or a result.

>>> s = LLMSettings.from_env({"PERTURBER_LLM_BASE_URL": "http://127.0.0.1:9/v1",
...                           "PERTURBER_LLM_MODELS": "small,large"})
>>> (s.base_url, s.model, s.models, s.max_retries, s.concurrency)
('http://127.0.0.1:9/v1', 'small', ('small', 'large'), 2, 16)
"""

from __future__ import annotations

import asyncio
import email.utils
import ipaddress
import logging
import os
import random
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from .errors import ConfigurationError, InvalidParams, ModelBackendError, PerturberError, ResourceUnavailable

log = logging.getLogger("perturber.llm")

MODEL_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$")
MAX_RETRIES_LIMIT = 2
RETRY_AFTER_CAP = 20.0  # seconds: a longer Retry-After is not waited for in full
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback IP literals.

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("example.com")
    (True, True, False)
    """
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_base_url(url: str, allowed_hosts: Sequence[str] | None = None) -> str:
    """Validate a base URL (``http`` only to loopback) and return it without a trailing slash.

    With ``allowed_hosts`` given, the host must be listed (``host`` or ``host:port``).

    >>> check_base_url("https://api.example.com/v1/")
    'https://api.example.com/v1'
    >>> check_base_url("http://api.example.com/v1")
    Traceback (most recent call last):
    ...
    perturber.errors.InvalidParams: plain http is allowed only to loopback hosts, got host 'api.example.com'
    """
    if not isinstance(url, str) or not url.strip():
        raise InvalidParams("the model base URL must be a non-empty http(s) URL", field="base_url")
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise InvalidParams("the model base URL is not a valid URL", field="base_url") from None
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("http", "https") or not host:
        raise InvalidParams("the model base URL must be an absolute http(s) URL", field="base_url")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise InvalidParams(
            "the model base URL must not carry credentials, a query or a fragment", field="base_url"
        )
    if parts.scheme == "http" and not is_loopback(host):
        raise InvalidParams(
            f"plain http is allowed only to loopback hosts, got host {host!r}", field="base_url"
        )
    if allowed_hosts is not None:
        allowed = {h.lower() for h in allowed_hosts}
        if host not in allowed and (port is None or f"{host}:{port}" not in allowed):
            raise InvalidParams(f"host {host!r} is not in PERTURBER_LLM_ALLOWED_HOSTS", field="base_url")
    return url.strip().rstrip("/")


def check_model(model: object) -> str:
    """A model name: 1-128 characters of ``^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$``.

    >>> check_model("gpt-4o-mini")
    'gpt-4o-mini'
    """
    if not isinstance(model, str) or not 1 <= len(model) <= 128 or not MODEL_RE.match(model):
        raise InvalidParams(
            "model must be 1-128 characters matching ^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$", field="model"
        )
    return model


def _env_float(env: Mapping[str, str], name: str, default: float, low: float, high: float) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigurationError(f"{name} must be a number, got {raw!r}", field=name) from None
    if not low < value <= high:
        raise ConfigurationError(f"{name} must be in ({low}, {high}], got {raw}", field=name)
    return value


def _env_int(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigurationError(f"{name} must be an integer, got {raw!r}", field=name) from None
    if not low <= value <= high:
        raise ConfigurationError(f"{name} must be in [{low}, {high}], got {value}", field=name)
    return value


def _env_list(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(p.strip() for p in env.get(name, "").split(",") if p.strip()))


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
        env = os.environ if environ is None else environ
        base_url = env.get("PERTURBER_LLM_BASE_URL", "").strip() or None
        if base_url is not None:
            try:
                base_url = check_base_url(base_url)
            except InvalidParams as err:
                raise ConfigurationError(
                    f"PERTURBER_LLM_BASE_URL: {err.message}", field="PERTURBER_LLM_BASE_URL"
                ) from None
        models = _env_list(env, "PERTURBER_LLM_MODELS")
        default_model = env.get("PERTURBER_LLM_DEFAULT_MODEL", "").strip() or None
        for name, values in (
            ("PERTURBER_LLM_MODELS", models),
            ("PERTURBER_LLM_DEFAULT_MODEL", (default_model,) if default_model else ()),
        ):
            for value in values:
                if not MODEL_RE.match(value) or len(value) > 128:
                    raise ConfigurationError(f"{name}: {value!r} is not a valid model name", field=name)
        if default_model and models and default_model not in models:
            raise ConfigurationError(
                "PERTURBER_LLM_DEFAULT_MODEL must be one of PERTURBER_LLM_MODELS",
                field="PERTURBER_LLM_DEFAULT_MODEL",
            )
        raw_seed = env.get("PERTURBER_LLM_SEND_SEED", "").strip().lower()
        if raw_seed and raw_seed not in _TRUE | _FALSE:
            raise ConfigurationError(
                f"PERTURBER_LLM_SEND_SEED must be true or false, got {raw_seed!r}",
                field="PERTURBER_LLM_SEND_SEED",
            )
        hosts = tuple(h.lower() for h in _env_list(env, "PERTURBER_LLM_ALLOWED_HOSTS"))
        for host in hosts:
            if not re.fullmatch(r"[a-z0-9.-]+(:[0-9]{1,5})?|\[[0-9a-f:]+\](:[0-9]{1,5})?", host):
                raise ConfigurationError(
                    f"PERTURBER_LLM_ALLOWED_HOSTS: {host!r} is not a host name",
                    field="PERTURBER_LLM_ALLOWED_HOSTS",
                )
        return cls(
            base_url=base_url,
            default_model=default_model,
            models=models,
            send_seed=raw_seed not in _FALSE,
            max_tokens=_env_int(env, "PERTURBER_LLM_MAX_TOKENS", 4096, 1, 1_000_000),
            timeout=_env_float(env, "PERTURBER_LLM_TIMEOUT", 30.0, 0.0, 900.0),
            connect_timeout=_env_float(env, "PERTURBER_LLM_CONNECT_TIMEOUT", 5.0, 0.0, 120.0),
            max_retries=_env_int(env, "PERTURBER_LLM_MAX_RETRIES", 2, 0, MAX_RETRIES_LIMIT),
            concurrency=_env_int(env, "PERTURBER_LLM_CONCURRENCY", 16, 1, 64),
            allowed_hosts=hosts,
        )


@dataclass(frozen=True)
class Completion:
    """One chat completion, raw (not post-processed)."""

    text: str | None
    finish_reason: str | None
    model: str
    usage: dict = field(default_factory=dict)
    latency_ms: float = 0.0
    seed_forwarded: bool = False
    system_fingerprint: str | None = None


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


class _Secret:
    """Holds the key; its repr never shows it (so neither does ``vars(endpoint)``)."""

    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "'***'"


class Endpoint:
    """An OpenAI-compatible chat endpoint with one connection pool, retries and bounded batches.

    >>> ep = Endpoint(base_url="http://127.0.0.1:9/v1", api_key="sk-secret")
    >>> "sk-secret" in repr(ep)
    False
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
        self.timeout = float(timeout)
        self.connect_timeout = float(connect_timeout)
        self.max_retries = max_retries
        self.concurrency = concurrency
        self.backoff = float(backoff)
        self.__key = _Secret(api_key) if api_key else None
        self._lock = threading.Lock()
        self._sleep = time.sleep  # replaceable in tests
        self._sync = None
        self._async = None
        self._openai = self._import_openai()

    @classmethod
    def from_settings(cls, settings: LLMSettings, api_key: str | None = None, **overrides) -> Endpoint:
        """An endpoint for the configured base URL; ``api_key=None`` uses :mod:`perturber.credentials`."""
        if not settings.base_url:
            raise ResourceUnavailable(
                "no model endpoint is configured (set PERTURBER_LLM_BASE_URL)", code="model_unavailable"
            )
        if api_key is None:
            from . import credentials

            api_key = credentials.api_key()
        kwargs: dict[str, Any] = dict(
            timeout=settings.timeout,
            connect_timeout=settings.connect_timeout,
            max_retries=settings.max_retries,
            concurrency=settings.concurrency,
        )
        kwargs.update(overrides)
        return cls(settings.base_url, api_key, **kwargs)

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
        import importlib

        base = next(
            c for c in self._openai.DefaultHttpxClient.__mro__ if not c.__module__.startswith("openai")
        )
        return importlib.import_module(base.__module__.split(".")[0])

    def _client_kwargs(self, http, async_: bool):
        timeout = http.Timeout(self.timeout, connect=self.connect_timeout)
        limits = http.Limits(
            max_connections=max(self.concurrency, 4), max_keepalive_connections=max(self.concurrency, 4)
        )
        cls = http.AsyncClient if async_ else http.Client
        # Nothing from the process environment (OPENAI_ORG_ID, OPENAI_PROJECT_ID, ...) is sent: only
        # our key, and no Authorization header at all without one (keyless local servers).
        return dict(
            base_url=self.base_url,
            api_key=self.__key.value
            if self.__key
            else "no-key",  # the SDK insists on one; omitted per request when unset
            max_retries=0,  # our own retry policy (see the module docstring)
            timeout=timeout,
            http_client=cls(limits=limits, timeout=timeout, follow_redirects=False, trust_env=False),
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
    @staticmethod
    def _body(messages, model, temperature, seed, max_tokens) -> dict:
        if model is None:
            raise ResourceUnavailable(
                "no model is configured or given (set PERTURBER_LLM_DEFAULT_MODEL)", code="model_unavailable"
            )
        body = dict(messages=list(messages), model=check_model(model), temperature=temperature)
        if seed is not None:
            body["seed"] = seed
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        return body

    def _extra_headers(self) -> dict:
        # Nothing from the process environment (OPENAI_ORG_ID, OPENAI_PROJECT_ID, ...) is sent: only
        # our key, and no Authorization header at all without one (keyless local servers).
        omit = self._openai.omit
        headers = {"OpenAI-Organization": omit, "OpenAI-Project": omit}
        if not self.__key:
            headers["Authorization"] = omit
        return headers

    def _scrub(self, text: str) -> str:
        return text.replace(self.__key.value, "***") if self.__key else text

    def _classify(self, exc: BaseException) -> tuple[PerturberError, bool, float | None]:
        """Map an SDK exception to (error, retryable, retry_after)."""
        openai = self._openai
        if isinstance(exc, openai.APITimeoutError):
            return (
                ModelBackendError(
                    f"the model endpoint timed out after {self.timeout:g} s", code="model_timeout"
                ),
                True,
                None,
            )
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            detail = ""
            try:
                body = exc.response.json()
                msg = body.get("error", {}).get("message") if isinstance(body, dict) else None
                if isinstance(body.get("error"), str):
                    msg = body["error"]
                if msg:
                    detail = ": " + self._scrub(str(msg))[:200]
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

    def _request(
        self,
        messages: Sequence[Mapping],
        model: str | None,
        temperature: float,
        seed: int | None,
        max_tokens: int | None,
    ) -> dict:
        """The keyword arguments of one ``chat.completions.create`` call (body and headers)."""
        body = self._body(messages, model, temperature, seed, max_tokens)
        body["extra_headers"] = self._extra_headers()
        return body

    def _retry_delay(
        self, attempt: int, err: PerturberError, retryable: bool, retry_after: float | None
    ) -> float:
        """Seconds to wait before the next attempt; raises ``err`` when it is final."""
        if not retryable or attempt == self.max_retries:
            raise err
        delay = self._delay(attempt, retry_after)
        log.info("model request failed (%s), retry %d in %.2f s", err.code, attempt + 1, delay)
        return delay

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        base = self.backoff * (2**attempt)
        delay = base / 2 + random.random() * base / 2  # exponential backoff, "equal jitter"
        if retry_after is not None:
            delay = max(delay, min(retry_after, RETRY_AFTER_CAP))
        return delay

    def _completion(self, raw, model: str, started: float, seed_forwarded: bool) -> Completion:
        parsed = raw.parse()
        choices = getattr(parsed, "choices", None) or []
        text = finish = None
        if choices:
            message = getattr(choices[0], "message", None)
            text = getattr(message, "content", None)
            finish = getattr(choices[0], "finish_reason", None)
        usage = {}
        if getattr(parsed, "usage", None) is not None:
            for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
                value = getattr(parsed.usage, key, None)
                if isinstance(value, int):
                    usage[key] = value
        return Completion(
            text=text,
            finish_reason=finish,
            model=getattr(parsed, "model", None) or model,
            usage=usage,
            latency_ms=round((time.perf_counter() - started) * 1000, 3),
            seed_forwarded=seed_forwarded,
            system_fingerprint=getattr(parsed, "system_fingerprint", None),
        )

    def chat(
        self,
        messages: Sequence[Mapping],
        *,
        model: str | None,
        temperature: float = 0.0,
        seed: int | None = None,
        max_tokens: int | None = 256,
    ) -> Completion:
        """One chat completion (synchronous), retried per the policy."""
        body = self._request(messages, model, temperature, seed, max_tokens)
        client = self._client()
        started = time.perf_counter()
        for attempt in range(self.max_retries + 1):
            try:
                raw = client.chat.completions.with_raw_response.create(**body)
                return self._completion(raw, body["model"], started, "seed" in body)
            except PerturberError:
                raise
            except Exception as exc:
                err, retryable, retry_after = self._classify(exc)
            self._sleep(self._retry_delay(attempt, err, retryable, retry_after))
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
        """One chat completion (asynchronous, ``AsyncOpenAI``), retried per the policy."""
        body = self._request(messages, model, temperature, seed, max_tokens)
        client = self._aclient()
        started = time.perf_counter()
        err: PerturberError
        for attempt in range(self.max_retries + 1):
            try:
                # async requests also get a total bound per attempt (httpx's timeouts are per phase)
                raw = await asyncio.wait_for(
                    client.chat.completions.with_raw_response.create(**body),
                    self.timeout + self.connect_timeout,
                )
                return self._completion(raw, body["model"], started, "seed" in body)
            except PerturberError:
                raise
            except TimeoutError:
                err, retryable, retry_after = (
                    ModelBackendError(
                        f"the model endpoint timed out after {self.timeout:g} s", code="model_timeout"
                    ),
                    True,
                    None,
                )
            except Exception as exc:
                err, retryable, retry_after = self._classify(exc)
            await asyncio.sleep(self._retry_delay(attempt, err, retryable, retry_after))
        raise AssertionError("unreachable")  # pragma: no cover

    def chat_many(
        self, requests: Sequence[Mapping], on_done: Callable[[int, object], None] | None = None
    ) -> list[Completion | PerturberError]:
        """Many completions, at most ``concurrency`` in flight; errors are returned per item."""
        requests = list(requests)
        results: list = [None] * len(requests)
        done_lock = threading.Lock()

        def run(i: int) -> None:
            result: Completion | PerturberError
            try:
                result = self.chat(**requests[i])
            except PerturberError as err:
                result = err
            except Exception as exc:
                result = ModelBackendError(f"model request failed ({type(exc).__name__})", code="model_error")
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
            list(pool.map(run, range(len(requests))))
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
