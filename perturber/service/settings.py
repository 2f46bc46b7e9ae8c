"""Service configuration: the service's rows of ``perturber.settings.VARIABLES``.

>>> s = Settings.from_env({"PERTURBER_MAX_TEXTS": "7"})
>>> (s.max_texts, s.limits)
(7, Limits(max_text_chars=100000, magnitude_max_chars=20000))
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from functools import cached_property

from ..settings import FIELDS, Limits, from_fields, int_default


@dataclass(frozen=True)
class Settings:
    """What one app instance uses (each app holds its own; nothing process-wide is written)."""

    max_text_chars: int = int_default("max_text_chars")
    max_texts: int = int_default("max_texts")
    max_body_bytes: int = int_default("max_body_bytes")
    magnitude_max_chars: int = int_default("magnitude_max_chars")
    root_path: str = str(FIELDS["root_path"].default)

    def __post_init__(self) -> None:
        for f in fields(self):
            if f.name != "root_path":
                FIELDS[f.name].check(getattr(self, f.name), f.name)

    @cached_property
    def limits(self) -> Limits:
        """The library limits of this app's calls."""
        return Limits(max_text_chars=self.max_text_chars, magnitude_max_chars=self.magnitude_max_chars)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Read the ``PERTURBER_*`` variables (a bad value raises ``ConfigurationError``)."""
        env = from_fields([f.name for f in fields(cls)], environ)
        return cls(
            max_text_chars=env["max_text_chars"],  # type: ignore[arg-type]
            max_texts=env["max_texts"],  # type: ignore[arg-type]
            max_body_bytes=env["max_body_bytes"],  # type: ignore[arg-type]
            magnitude_max_chars=env["magnitude_max_chars"],  # type: ignore[arg-type]
            root_path=str(env["root_path"]),
        )
