"""One error hierarchy, mapped the same way by the library, the CLI and HTTP.

>>> try:
...     raise InvalidParams("rate must be in [0, 1]", field="rate")
... except PerturberError as err:
...     (err.code, err.exit_code, err.http_status, err.details)
('validation_error', 2, 422, {'field': 'rate'})
"""

from __future__ import annotations


class PerturberError(Exception):
    """Base class: carries a stable ``code``, a message and JSON-safe ``details``."""

    code = "error"
    exit_code = 1
    http_status = 500

    def __init__(self, message: str, code: str | None = None, **details: object) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.details = details

    def to_dict(self) -> dict:
        """The error body used by every transport: ``{"code", "message", ...details}``."""
        return {"code": self.code, "message": self.message, **self.details}


class UnknownPerturbation(PerturberError):
    """No entry of that name in that category, or an unknown category."""

    code = "unknown_perturbation"
    exit_code = 2
    http_status = 404


class InvalidParams(PerturberError):
    """Invalid parameters, seed or text (lone surrogates included)."""

    code = "validation_error"
    exit_code = 2
    http_status = 422


class InputTooLarge(PerturberError):
    """Input over the configured size or batch limits."""

    code = "input_too_long"
    exit_code = 2
    http_status = 413


class ConfigurationError(PerturberError, ValueError):
    """A bad ``PERTURBER_*`` setting or ``Limits`` value (raised when it is read, never at import;
    a clear start-up error)."""

    code = "configuration_error"
    exit_code = 2
    http_status = 500


class ResourceUnavailable(PerturberError):
    """Required data, optional extra or model endpoint missing."""

    code = "data_unavailable"
    exit_code = 3
    http_status = 503


class ModelBackendError(PerturberError):
    """The model endpoint failed, refused, returned nothing usable, or timed out."""

    code = "model_error"
    exit_code = 4
    http_status = 502

    def __init__(self, message: str, code: str | None = None, **details: object) -> None:
        super().__init__(message, code, **details)
        if self.code == "model_timeout":
            self.http_status = 504


class AuthenticationRequired(PerturberError):
    """A model-backed route would spend the server's key for an unauthenticated caller (service only)."""

    code = "model_auth_required"
    exit_code = 2
    http_status = 401
