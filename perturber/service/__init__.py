"""The HTTP service (needs the ``service`` extra): ``create_app(Settings.from_env())``."""

from .app import create_app
from .settings import Settings

__all__ = ["Settings", "create_app"]
