"""Configuration: one table of every ``PERTURBER_*`` variable, one parser, read lazily.

Nothing is read at import. Each reader asks for its variables when it starts (``read`` /
``Limits.from_env`` / ``perturber.service.Settings.from_env``); a bad value raises
:class:`~perturber.errors.ConfigurationError` naming the variable. ``check_environment`` reads
every product variable at once (the service and the Lambda function call it at start-up).
``docs/configuration.md`` holds :func:`markdown_table` (a test keeps them equal).

>>> read("PERTURBER_LLM_TIMEOUT", {"PERTURBER_LLM_TIMEOUT": "2.5"})
2.5
>>> parse_bool("yes", "X"), parse_bool("off", "X")
(True, False)
>>> Limits.from_env({"PERTURBER_MAX_TEXT_CHARS": "500"})
Limits(max_text_chars=500, magnitude_max_chars=20000)
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from functools import lru_cache

from .errors import ConfigurationError, InvalidParams
from .urls import check_base_url

HARD_MAX_TEXT_CHARS = 1_000_000
MODEL_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$"
_MODEL_RE = re.compile(MODEL_PATTERN)
_HOST_RE = re.compile(r"[a-z0-9.-]+(:[0-9]{1,5})?|\[[0-9a-f:]+\](:[0-9]{1,5})?")
_HEX64_RE = re.compile(r"[0-9a-f]{64}")
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")

# who reads a variable (the "read by" column)
LIBRARY, SERVICE, LAMBDA, TOOLING = "library", "service", "lambda", "tooling"


def parse_bool(raw: str, label: str) -> bool:
    """The one boolean rule: ``1/true/yes/on`` or ``0/false/no/off`` (any case, outer blanks).

    >>> parse_bool(" TRUE ", "PERTURBER_LLM_SEND_SEED")
    True
    >>> parse_bool("maybe", "PERTURBER_LLM_SEND_SEED")
    Traceback (most recent call last):
    ...
    perturber.errors.ConfigurationError: PERTURBER_LLM_SEND_SEED must be true or false, got 'maybe'
    """
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ConfigurationError(f"{label} must be true or false, got {raw.strip()!r}", variable=label)


def is_model_name(value: object) -> bool:
    """The one model-name rule: 1-128 characters matching :data:`MODEL_PATTERN`.

    >>> is_model_name("gpt-4o-mini"), is_model_name("-x"), is_model_name("a b")
    (True, False, False)
    """
    return isinstance(value, str) and 1 <= len(value) <= 128 and bool(_MODEL_RE.match(value))


def _items(raw: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(p.strip() for p in raw.split(",") if p.strip()))


@dataclass(frozen=True)
class Variable:
    """One ``PERTURBER_*`` variable: name, type, default, accepted range, meaning and readers.

    ``kind`` is one of ``int``, ``float`` (``low`` exclusive), ``bool``, ``str``, ``secret``,
    ``url``, ``model``, ``models``, ``hosts``, ``sha256s``. ``field`` names the setting of
    :class:`Limits` / the service's ``Settings`` that holds it; ``fallback`` a variable of another
    tool read when this one is unset (``OPENAI_API_KEY``).
    """

    env: str
    kind: str
    default: object
    meaning: str
    readers: tuple[str, ...]
    low: float = 0
    high: float = 0
    field: str | None = None
    fallback: str | None = None  # a variable of another tool read when this one is unset or blank

    def parse(self, raw: str | None) -> object:
        """The value of ``raw`` (None or blank: the default); a bad one raises ``ConfigurationError``.

        >>> VARIABLES["PERTURBER_MAX_TEXTS"].parse(" 7 "), VARIABLES["PERTURBER_MAX_TEXTS"].parse(None)
        (7, 1000)
        """
        if self.kind == "str":
            return self.default if raw is None else raw
        if raw is None or not raw.strip():
            return self.default
        raw = raw.strip()
        if self.kind == "bool":
            return parse_bool(raw, self.env)
        if self.kind in ("int", "float"):
            return self._number(raw)
        if self.kind == "url":
            try:
                return check_base_url(raw)
            except InvalidParams as err:
                raise ConfigurationError(f"{self.env}: {err.message}", variable=self.env) from None
        values = _items(raw) if self.kind in ("models", "hosts", "sha256s") else (raw,)
        if self.kind in ("hosts", "sha256s"):
            values = tuple(v.lower() for v in values)
        rules: dict[str, Callable[[str], object]] = {
            "model": is_model_name,
            "models": is_model_name,
            "hosts": _HOST_RE.fullmatch,
            "sha256s": _HEX64_RE.fullmatch,
        }
        check = rules.get(self.kind, bool)
        for value in values:
            if not check(value):
                raise ConfigurationError(
                    f"{self.env}: {value!r} is not a valid {self.kind.rstrip('s')} entry", variable=self.env
                )
        return values if self.kind in ("models", "hosts", "sha256s") else raw

    def _number(self, raw: str) -> int | float:
        kind = int if self.kind == "int" else float
        try:
            value = kind(raw)
        except ValueError:
            word = "an integer" if kind is int else "a number"
            raise ConfigurationError(f"{self.env} must be {word}, got {raw!r}", variable=self.env) from None
        return self.check(value, self.env)

    def check(self, value: object, label: str) -> int | float:
        """``value`` if it is in range (ints: ``[low, high]``; floats: ``(low, high]``)."""
        if self.kind == "float":
            if type(value) not in (int, float) or not self.low < value <= self.high:  # type: ignore[operator]
                raise ConfigurationError(
                    f"{label} must be a number in ({self.low:g}, {self.high:g}], got {value!r}",
                    variable=self.env,
                )
            return float(value)  # type: ignore[arg-type]
        if type(value) is not int or not self.low <= value <= self.high:
            raise ConfigurationError(
                f"{label} must be an int in [{self.low:.0f}, {self.high:.0f}], got {value!r}",
                variable=self.env,
            )
        return value

    def default_text(self) -> str:
        """The default as the documentation shows it."""
        if self.default in (None, "", ()):
            return "—"
        if isinstance(self.default, bool):
            return "true" if self.default else "false"
        return f"{self.default}"


def _v(env, kind, default, meaning, readers, low=0, high=0, field=None, fallback=None) -> Variable:
    return Variable(env, kind, default, meaning, readers, low, high, field, fallback)


_LIB_SVC = (LIBRARY, SERVICE, LAMBDA)
_SVC = (SERVICE, LAMBDA)
_TIER = (LIBRARY, SERVICE, LAMBDA, "harness")

#: The one table, in documentation order.
VARIABLES: dict[str, Variable] = {
    v.env: v
    for v in (
        _v("PERTURBER_MAX_TEXT_CHARS", "int", 100_000, "longest accepted text, in code points (413 beyond)",
           _LIB_SVC, 1, HARD_MAX_TEXT_CHARS, "max_text_chars"),
        _v("PERTURBER_MAGNITUDE_MAX_CHARS", "int", 20_000,
           "above this `len(in) + len(out)`, `magnitude` is null (cost guard)", _LIB_SVC, 0, 10**9,
           "magnitude_max_chars"),
        _v("PERTURBER_MAX_TEXTS", "int", 1000, "texts per request (413 beyond)", _SVC, 1, 100_000, "max_texts"),
        _v("PERTURBER_MAX_BODY_BYTES", "int", 6 * 1024 * 1024,
           "request body size in bytes (6 MiB, the Lambda payload limit; 413 beyond)", _SVC, 1024, 10**9,
           "max_body_bytes"),
        _v("PERTURBER_ROOT_PATH", "str", "", "path prefix the app is mounted under (behind a proxy)", _SVC,
           field="root_path"),
        _v("PERTURBER_BRITTLEBENCH_EMOTION_FILE", "str", "",
           "path of the brittlebench emotion stimulus table (else the installed engine's)", (LIBRARY,)),
        _v("PERTURBER_LLM_BASE_URL", "url", None,
           "OpenAI-compatible base URL (`…/v1`); `http` only to loopback; unset: `model_unavailable`", _TIER),
        _v("PERTURBER_LLM_DEFAULT_MODEL", "model", None,
           "default `model` (else the first of `PERTURBER_LLM_MODELS`)", _TIER),
        _v("PERTURBER_LLM_MODELS", "models", (),
           "comma-separated allow-list of models, enforced and advertised as `choices`", _TIER),
        _v("PERTURBER_LLM_API_KEY", "secret", None,
           "the server's model key (fallback `OPENAI_API_KEY`; on Lambda: Secrets Manager or SSM)", _TIER,
           fallback="OPENAI_API_KEY"),
        _v("PERTURBER_LLM_SEND_SEED", "bool", True, "forward the call's seed to the endpoint", _TIER),
        _v("PERTURBER_LLM_MAX_TOKENS", "int", 4096, "cap of a request's `max_tokens`", _TIER, 1, 1_000_000),
        _v("PERTURBER_LLM_TIMEOUT", "float", 30.0,
           "seconds one attempt may take in total (connect, send, every byte of the reply)", _TIER, 0, 900),
        _v("PERTURBER_LLM_CONNECT_TIMEOUT", "float", 5.0, "seconds to open a connection", _TIER, 0, 120),
        _v("PERTURBER_LLM_DEADLINE", "float", 90.0,
           "seconds one model call may take in total, retries and back-off included", _TIER, 0, 3600),
        _v("PERTURBER_LLM_REQUEST_DEADLINE", "float", 120.0,
           "seconds all model calls of one HTTP request (a batch, a gallery) may take; on Lambda also "
           "bounded by the invocation's remaining time", _SVC, 0, 3600),
        _v("PERTURBER_LLM_MAX_RETRIES", "int", 2, "retries on timeouts, 429, 5xx and malformed replies", _TIER,
           0, 2),
        _v("PERTURBER_LLM_CONCURRENCY", "int", 16, "model requests in flight per batch and per endpoint", _TIER,
           1, 64),
        _v("PERTURBER_LLM_ALLOWED_HOSTS", "hosts", (),
           "hosts (`host` = port 443, or `host:port`) a caller may name in `X-LLM-Base-URL`", _SVC),
        _v("PERTURBER_LLM_BEARER_SHA256", "sha256s", (),
           "sha256 hex digests of bearer tokens allowed to spend the server's key", _SVC),
        _v("PERTURBER_LLM_REQUIRE_AUTH", "bool", True,
           "`false` lets anyone spend the server's key (private servers only)", _SVC),
        _v("PERTURBER_LLM_ALLOW_CALLER_KEYS", "bool", False,
           "accept callers' own keys and base URLs (`X-LLM-API-Key`, `X-LLM-Base-URL`)", _SVC),
        _v("PERTURBER_LLM_CALLER_CONCURRENCY", "int", 16,
           "model requests in flight with callers' own keys, summed over all requests of the process",
           _SVC, 1, 256),
        _v("PERTURBER_LLM_API_KEY_SECRET_ID", "str", "",
           "Secrets Manager secret id or ARN of the server's key (JSON key `api_key`, or the string)",
           (LAMBDA,)),
        _v("PERTURBER_LLM_API_KEY_PARAMETER", "str", "", "SSM parameter name of the server's key", (LAMBDA,)),
        _v("PERTURBER_API_BASE_PATH", "str", "/", "stage or custom-domain prefix Mangum strips", (LAMBDA,)),
        _v("PERTURBER_WARM_SYNONYM", "bool", False, "load WordNet during INIT", (LAMBDA,)),
        _v("PERTURBER_MEMORY_SIZE", "int", 512, "serverless.yml: function memory (MB)", (TOOLING,), 128, 10240),
        _v("PERTURBER_TIMEOUT", "int", 29, "serverless.yml: function timeout (s)", (TOOLING,), 1, 900),
        _v("PERTURBER_RESERVED_CONCURRENCY", "int", 50,
           "serverless.yml: reserved concurrent executions of the function", (TOOLING,), 1, 10000),
        _v("PERTURBER_THROTTLING_BURST", "int", 100, "serverless.yml: HTTP API burst limit", (TOOLING,), 0, 10**6),
        _v("PERTURBER_THROTTLING_RATE", "int", 50, "serverless.yml: HTTP API rate limit (rps)", (TOOLING,), 0,
           10**6),
        _v("PERTURBER_API_AUTH_TYPE", "str", "NONE", "serverless.yml: `NONE` or `AWS_IAM`", (TOOLING,)),
        _v("PERTURBER_SNAPSTART", "bool", False, "serverless.yml and eval/costmodel: Lambda SnapStart", (TOOLING,)),
        _v("PERTURBER_EVAL_STRICT_JSON", "bool", False, "eval/fidelity: fail on a broken JSON region", (TOOLING,)),
        _v("PERTURBER_LAMBDA_PYTHON", "str", "", "eval/benchmarks/lambda_runtime.py: python3.12 binary", (TOOLING,)),
        _v("PERTURBER_BUILD_CACHE", "str", "", "infra/layers/nltk: download cache directory", (TOOLING,)),
        _v("PERTURBER_SIDE_BY_SIDE", "str", "", "eval bench-side: the side-by-side timing tool", (TOOLING,)),
        _v("PERTURBER_BENCH_TEXTS", "str", "", "eval bench-side: folder of its GSM8K texts", (TOOLING,)),
        _v("PERTURBER_REF_PYTHON", "str", "", "eval bench-side: interpreter with the reference installed", (TOOLING,)),
        _v("PERTURBER_REQUIRE_SHARED", "bool", False,
           "tests: a test needing the team's reference vectors fails instead of skipping (CI)", (TOOLING,)),
        _v("PERTURBER_REQUIRE_NATIVE", "bool", False,
           "tests: the C module perturber._native must be built (CI), not skipped", (TOOLING,)),
    )
}  # fmt: skip
FIELDS: dict[str, Variable] = {v.field: v for v in VARIABLES.values() if v.field}


def read(name: str, environ: Mapping[str, str] | None = None) -> object:
    """The parsed value of variable ``name`` (``environ`` defaults to ``os.environ``)."""
    env = os.environ if environ is None else environ
    variable = VARIABLES[name]
    raw = env.get(name)
    if variable.fallback and not (raw or "").strip():
        raw = env.get(variable.fallback)
    return variable.parse(raw)


def from_fields(keys: list[str], environ: Mapping[str, str] | None = None) -> dict[str, object]:
    """The settings ``keys`` (field names of :data:`FIELDS`), read from ``environ``."""
    return {k: read(FIELDS[k].env, environ) for k in keys}


def check_environment(environ: Mapping[str, str] | None = None) -> None:
    """Read every variable the product reads (start-up of the service and the Lambda function):
    the first bad one raises ``ConfigurationError``; the values are read again where used."""
    for v in VARIABLES.values():
        if TOOLING not in v.readers:
            read(v.env, environ)


def markdown_table() -> str:
    """The table of ``docs/configuration.md``, generated from :data:`VARIABLES`."""
    rows = ["| variable | type | default | range | meaning | read by |", "|---|---|---|---|---|---|"]
    for v in VARIABLES.values():
        if v.kind == "int":
            span = f"{v.low:.0f} to {v.high:.0f}"
        elif v.kind == "float":
            span = f"> {v.low:g} to {v.high:g}"
        else:
            span = ""
        rows.append(
            f"| `{v.env}` | {v.kind} | {v.default_text()} | {span} | {v.meaning} | {', '.join(v.readers)} |"
        )
    return "\n".join(rows) + "\n"


def int_default(key: str) -> int:
    """The default of the integer setting ``key`` (a field name)."""
    default = FIELDS[key].default
    assert isinstance(default, int)
    return default


@dataclass(frozen=True)
class Limits:
    """The library's limits, a value: pass one to ``apply``/``perturb`` or use the defaults.

    >>> Limits(max_text_chars=0)
    Traceback (most recent call last):
    ...
    perturber.errors.ConfigurationError: max_text_chars must be an int in [1, 1000000], got 0
    """

    max_text_chars: int = int_default("max_text_chars")
    magnitude_max_chars: int = int_default("magnitude_max_chars")

    def __post_init__(self) -> None:
        for f in fields(self):
            FIELDS[f.name].check(getattr(self, f.name), f.name)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Limits:
        """The limits given by the ``PERTURBER_*`` variables (bad values: ``ConfigurationError``)."""
        env = from_fields(["max_text_chars", "magnitude_max_chars"], environ)
        return cls(
            max_text_chars=int(env["max_text_chars"]),  # type: ignore[call-overload]
            magnitude_max_chars=int(env["magnitude_max_chars"]),  # type: ignore[call-overload]
        )


@lru_cache(maxsize=1)
def default_limits() -> Limits:
    """The process defaults: ``Limits.from_env()``, read on first use, then cached."""
    return Limits.from_env()


TABLE_START = "<!-- generated: python -m perturber.settings -->\n"
TABLE_END = "<!-- end"


def with_table(page: str) -> str:
    """``page`` (docs/configuration.md) with its generated table replaced by :func:`markdown_table`."""
    head, rest = page.split(TABLE_START, 1)
    return head + TABLE_START + markdown_table() + TABLE_END + rest.split(TABLE_END, 1)[1]


if __name__ == "__main__":  # python -m perturber.settings [PAGE]: the table, or PAGE rewritten with it
    import sys

    if len(sys.argv) > 1:
        with open(sys.argv[1], encoding="utf-8") as fh:
            page = fh.read()
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(with_table(page))
    else:
        print(markdown_table(), end="")
