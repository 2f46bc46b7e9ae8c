"""Service configuration, from environment variables with embedded defaults.

| variable | default | meaning |
|---|---|---|
| ``PERTURBER_MAX_TEXT_CHARS`` | 100000 | longest text, in code points (hard cap 1,000,000) |
| ``PERTURBER_MAX_TEXTS`` | 1000 | texts per request |
| ``PERTURBER_MAX_BODY_BYTES`` | 6291456 | request body size (6 MiB, the Lambda payload limit) |
| ``PERTURBER_MAGNITUDE_MAX_CHARS`` | 20000 | cost guard of ``magnitude`` |
| ``PERTURBER_ROOT_PATH`` | "" | path prefix the app is mounted under (behind a proxy) |
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..settings import HARD_MAX_TEXT_CHARS, env_int


@dataclass(frozen=True)
class Settings:
    max_text_chars: int = 100_000
    max_texts: int = 1000
    max_body_bytes: int = 6 * 1024 * 1024
    magnitude_max_chars: int = 20_000
    root_path: str = ""

    @classmethod
    def from_env(cls, environ: dict | None = None) -> "Settings":
        """Read the ``PERTURBER_*`` variables (bad values raise ``ValueError`` at start-up)."""
        env = os.environ if environ is None else environ
        return cls(
            max_text_chars=env_int("PERTURBER_MAX_TEXT_CHARS", 100_000, 1, HARD_MAX_TEXT_CHARS, env),
            max_texts=env_int("PERTURBER_MAX_TEXTS", 1000, 1, 100_000, env),
            max_body_bytes=env_int("PERTURBER_MAX_BODY_BYTES", 6 * 1024 * 1024, 1024, 10**9, env),
            magnitude_max_chars=env_int("PERTURBER_MAGNITUDE_MAX_CHARS", 20_000, 0, 10**9, env),
            root_path=env.get("PERTURBER_ROOT_PATH", ""),
        )
