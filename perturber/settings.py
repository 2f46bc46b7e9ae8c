"""Limits and configuration: one table of environment variables, read lazily.

Nothing is read at import: ``default_limits()`` reads the environment on first use (and caches
the value), the service reads it when it starts (``perturber.service.Settings.from_env``).

| variable | default | range | meaning |
|---|---|---|---|
| ``PERTURBER_MAX_TEXT_CHARS`` | 100000 | 1 to 1,000,000 | longest accepted text, in code points |
| ``PERTURBER_MAGNITUDE_MAX_CHARS`` | 20000 | 0 to 10⁹ | above this ``len(in) + len(out)``, ``magnitude`` is null |
| ``PERTURBER_MAX_TEXTS`` | 1000 | 1 to 100,000 | texts per request (service) |
| ``PERTURBER_MAX_BODY_BYTES`` | 6291456 | 1024 to 10⁹ | request body size (service; 6 MiB, the Lambda payload limit) |
| ``PERTURBER_ROOT_PATH`` | "" | | path prefix the app is mounted under (service, behind a proxy) |

>>> Limits(max_text_chars=10).max_text_chars
10
>>> Limits.from_env({"PERTURBER_MAX_TEXT_CHARS": "500"})
Limits(max_text_chars=500, magnitude_max_chars=20000)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from functools import lru_cache

from .errors import ConfigurationError

HARD_MAX_TEXT_CHARS = 1_000_000


@dataclass(frozen=True)
class Variable:
    """One ``PERTURBER_*`` environment variable: its name, default and accepted range."""

    env: str
    default: int | str
    low: int = 0
    high: int = 0

    def parse(self, raw: str | None) -> int | str:
        """The value of ``raw`` (None or blank: the default); out of range raises ``ConfigurationError``.

        >>> VARIABLES["max_texts"].parse(" 7 "), VARIABLES["max_texts"].parse(None)
        (7, 1000)
        """
        if isinstance(self.default, str):
            return self.default if raw is None else raw
        if raw is None or raw.strip() == "":
            return self.default
        try:
            value = int(raw)
        except ValueError:
            raise ConfigurationError(
                f"{self.env} must be an integer, got {raw!r}", variable=self.env
            ) from None
        return self.check(value, self.env)

    def check(self, value: object, label: str) -> int:
        """``value`` if it is an int in ``[low, high]``, else ``ConfigurationError`` naming ``label``."""
        if type(value) is not int or not self.low <= value <= self.high:
            raise ConfigurationError(
                f"{label} must be an int in [{self.low}, {self.high}], got {value!r}", variable=self.env
            )
        return value


#: The one table of configuration variables, keyed by the setting's field name.
VARIABLES: dict[str, Variable] = {
    "max_text_chars": Variable("PERTURBER_MAX_TEXT_CHARS", 100_000, 1, HARD_MAX_TEXT_CHARS),
    "magnitude_max_chars": Variable("PERTURBER_MAGNITUDE_MAX_CHARS", 20_000, 0, 10**9),
    "max_texts": Variable("PERTURBER_MAX_TEXTS", 1000, 1, 100_000),
    "max_body_bytes": Variable("PERTURBER_MAX_BODY_BYTES", 6 * 1024 * 1024, 1024, 10**9),
    "root_path": Variable("PERTURBER_ROOT_PATH", ""),
}


def int_default(key: str) -> int:
    default = VARIABLES[key].default
    assert isinstance(default, int)
    return default


def from_env(keys: list[str], environ: Mapping[str, str] | None = None) -> dict[str, int | str]:
    """The settings ``keys`` of ``VARIABLES``, read from ``environ`` (default ``os.environ``)."""
    env = os.environ if environ is None else environ
    return {k: VARIABLES[k].parse(env.get(VARIABLES[k].env)) for k in keys}


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
            VARIABLES[f.name].check(getattr(self, f.name), f.name)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Limits:
        """The limits given by the ``PERTURBER_*`` variables (bad values: ``ConfigurationError``)."""
        env = from_env(["max_text_chars", "magnitude_max_chars"], environ)
        return cls(
            max_text_chars=int(env["max_text_chars"]), magnitude_max_chars=int(env["magnitude_max_chars"])
        )


@lru_cache(maxsize=1)
def default_limits() -> Limits:
    """The process defaults: ``Limits.from_env()``, read on first use, then cached."""
    return Limits.from_env()
