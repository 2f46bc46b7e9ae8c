"""The HTTP service (needs the ``service`` extra): ``create_app(Settings.from_env())``.

``create_app`` (FastAPI) is imported on first use: ``perturber.service.lazy``, the Lambda app,
serves the perturbation routes without importing FastAPI.
"""

from .settings import Settings

__all__ = ["Settings", "create_app"]


def __getattr__(name: str):
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
