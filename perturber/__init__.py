"""perturber: apply exactly one named, meaning-preserving perturbation to a text.

>>> import perturber
>>> perturber.perturb("What is 2+2?", "trailing_newline")
'What is 2+2?\\n'
"""

from .core import Result, apply, describe, list_perturbations, perturb
from .errors import (
    ConfigurationError,
    InputTooLarge,
    InvalidParams,
    ModelBackendError,
    PerturberError,
    ResourceUnavailable,
    UnknownPerturbation,
)
from .memo import clear_caches
from .registry import catalog_digest
from .settings import Limits, default_limits

__version__ = "0.1.0"

__all__ = [
    "ConfigurationError",
    "InputTooLarge",
    "InvalidParams",
    "Limits",
    "ModelBackendError",
    "PerturberError",
    "Result",
    "ResourceUnavailable",
    "UnknownPerturbation",
    "__version__",
    "apply",
    "catalog_digest",
    "clear_caches",
    "default_limits",
    "describe",
    "list_perturbations",
    "perturb",
]
