"""Lambda and API Gateway prices (AWS public price lists, us-east-1) and the duration model.

Price per call::

    P_request (0.20e-6)
    + P_GBs[arch] * M/1024 * billed_ms/1000           arm64 0.0000133334, x86_64 0.0000166667
    + P_gateway * units                               HTTP API 1.00e-6 per 512 KB, REST 3.50e-6, URL 0
    + cold_start_rate * P_GBs[arch] * M/1024 * billed_init_ms/1000

with 1 ms billing granularity (rounded up). HTTP API units are metered on the larger of the
request and response payloads, in 512 KB increments. Not included: free tiers, data transfer out,
CloudWatch Logs ingestion.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MEMORY_SIZES = (128, 256, 512, 1024, 1769, 2048, 3008)
FULL_VCPU_MB = 1769
PRICE_GB_S = {"arm64": 0.0000133334, "x86_64": 0.0000166667}
PRICE_REQUEST = 0.20e-6
PRICE_GATEWAY = {"http": 1.00e-6, "rest": 3.50e-6, "url": 0.0}
HTTP_API_METER_BYTES = 512 * 1024
COLD_START_RATE = 0.01
MODEL_TEXT = (
    "Lambda duration at memory M = local_ms x max(1, 1769/M): CPU share is proportional to "
    "memory up to 1,769 MB (= 1 vCPU) and this single-threaded code gets no faster above; "
    "one local core is taken as one Lambda vCPU."
)


def billed_ms(duration_ms: float) -> int:
    """Lambda bills in 1 ms steps, rounded up (at least 1 ms)."""
    return max(1, math.ceil(round(duration_ms, 6)))


def gateway_units(gateway: str, payload_bytes: int = 0) -> int:
    if gateway == "url":
        return 0
    if gateway == "http":
        return max(1, math.ceil(payload_bytes / HTTP_API_METER_BYTES))
    return 1


@dataclass
class CallCost:
    compute: float
    request: float
    gateway: float
    init: float

    @property
    def total(self) -> float:
        return self.compute + self.request + self.gateway + self.init

    @property
    def per_million(self) -> float:
        return self.total * 1e6


def call_cost(
    duration_ms: float,
    memory_mb: int,
    arch: str = "arm64",
    gateway: str = "http",
    payload_bytes: int = 0,
    cold_start_rate: float = 0.0,
    init_ms: float = 0.0,
    already_billed: bool = False,
) -> CallCost:
    """Cost of one call. ``already_billed``: ``duration_ms`` is a (mean of) Billed Duration.

    >>> round(call_cost(30, 512, "arm64", "http").per_million, 2)
    1.4
    """
    if arch not in PRICE_GB_S:
        raise ValueError(f"arch must be one of {sorted(PRICE_GB_S)}")
    if gateway not in PRICE_GATEWAY:
        raise ValueError(f"gateway must be one of {sorted(PRICE_GATEWAY)}")
    gb = memory_mb / 1024
    ms = duration_ms if already_billed else billed_ms(duration_ms)
    init = cold_start_rate * PRICE_GB_S[arch] * gb * billed_ms(init_ms) / 1000 if init_ms > 0 else 0.0
    return CallCost(
        compute=PRICE_GB_S[arch] * gb * ms / 1000,
        request=PRICE_REQUEST,
        gateway=PRICE_GATEWAY[gateway] * gateway_units(gateway, payload_bytes),
        init=init,
    )


def modeled_ms(local_ms: float, memory_mb: int) -> float:
    """Lambda's duration at ``memory_mb`` for ``local_ms`` on one local core (:data:`MODEL_TEXT`).

    >>> modeled_ms(10, 512) > modeled_ms(10, 1769) == modeled_ms(10, 3008) == 10
    True
    """
    return local_ms * max(1.0, FULL_VCPU_MB / memory_mb)


def cost_columns(cost: CallCost, batch: int) -> dict:
    """The price columns of a table row: each part, the total, per million calls and texts."""
    return {
        "usd_compute": cost.compute,
        "usd_request": cost.request,
        "usd_gateway": cost.gateway,
        "usd_init": cost.init,
        "usd_per_call": cost.total,
        "usd_per_million_calls": round(cost.per_million, 4),
        "usd_per_million_texts": round(cost.per_million / batch, 4),
    }
