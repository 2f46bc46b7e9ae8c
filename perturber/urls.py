"""The base-URL rule of model endpoints: ``https``, or plain ``http`` to loopback only, and an
optional allow-list of ``host:port`` (a listed host without a port means 443).

Shared by the configuration (``PERTURBER_LLM_BASE_URL``), the client and the service's gate
(a caller's ``X-LLM-Base-URL``). Standard library only.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from urllib.parse import urlsplit

from .errors import InvalidParams

DEFAULT_PORTS = {"http": 80, "https": 443}


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

    With ``allowed_hosts`` given, ``host:port`` must be listed; a listed ``host`` without a port
    means port 443.

    >>> check_base_url("https://api.example.com/v1/", ["api.example.com"])
    'https://api.example.com/v1'
    >>> check_base_url("https://api.example.com:22/v1", ["api.example.com"])
    Traceback (most recent call last):
    ...
    perturber.errors.InvalidParams: host 'api.example.com:22' is not in PERTURBER_LLM_ALLOWED_HOSTS
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
        name = f"[{host}]" if ":" in host else host
        actual = f"{name}:{port or DEFAULT_PORTS[parts.scheme]}"
        listed = {h.lower() if ":" in h.rsplit("]", 1)[-1] else f"{h.lower()}:443" for h in allowed_hosts}
        if actual not in listed:
            raise InvalidParams(f"host {actual!r} is not in PERTURBER_LLM_ALLOWED_HOSTS", field="base_url")
    return url.strip().rstrip("/")
