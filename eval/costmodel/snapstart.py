"""Lambda SnapStart's price against billed INITs.

SnapStart (python3.12+; template parameter ``SnapStart``, ``PERTURBER_SNAPSTART=true`` for osls)::

    cache    0.0000015046 $ per GB-s of memory, per published version, while it exists (>= 3 h)
    restore  0.0001397998 $ per GB restored (each new execution environment)
             + the duration of runtime hooks (none here), instead of the billed INIT

A restore costs as much as ``0.0001397998 / P_GBs`` seconds of billed INIT: 10.5 s on arm64,
8.4 s on x86_64, whatever the memory. This function's INIT is well under that (even with WordNet
warmed), so SnapStart never pays off in dollars here: it buys latency (no import or WordNet load
on a cold start) for the cache (~$1.95/month per version at 512 MB) plus ~$7e-5 per cold start.
"""

from __future__ import annotations

from costmodel.prices import PRICE_GB_S, billed_ms

PRICE_SNAPSTART_CACHE_GB_S = 0.0000015046
PRICE_SNAPSTART_RESTORE_GB = 0.0001397998
SNAPSTART_MIN_CACHE_S = 3 * 3600
SECONDS_PER_MONTH = 30 * 24 * 3600


def snapstart_monthly(
    memory_mb: int,
    cold_starts: float,
    init_ms: float,
    arch: str = "arm64",
    versions: int = 1,
    hook_ms: float = 0.0,
    cached_s: float = SECONDS_PER_MONTH,
) -> dict:
    """Monthly $ of cold starts without and with SnapStart (cache + restores).

    >>> row = snapstart_monthly(512, 0, 400)
    >>> round(row["with_snapstart"], 2), row["without"]
    (1.95, 0.0)
    """
    gb = memory_mb / 1024
    without = cold_starts * PRICE_GB_S[arch] * gb * billed_ms(init_ms) / 1000
    hooks = PRICE_GB_S[arch] * gb * billed_ms(hook_ms) / 1000 if hook_ms > 0 else 0.0
    cache = versions * PRICE_SNAPSTART_CACHE_GB_S * gb * max(cached_s, SNAPSTART_MIN_CACHE_S)
    restores = cold_starts * (PRICE_SNAPSTART_RESTORE_GB * gb + hooks)
    return {
        "memory_mb": memory_mb,
        "cold_starts": cold_starts,
        "init_ms": init_ms,
        "without": without,
        "cache": cache,
        "restores": restores,
        "with_snapstart": cache + restores,
        "extra": cache + restores - without,
    }


def snapstart_break_even_init_ms(arch: str = "arm64", hook_ms: float = 0.0) -> float:
    """INIT (ms) above which a restore is cheaper than a billed INIT (cache not counted).

    >>> round(snapstart_break_even_init_ms("arm64")), round(snapstart_break_even_init_ms("x86_64"))
    (10485, 8388)
    """
    return PRICE_SNAPSTART_RESTORE_GB / PRICE_GB_S[arch] * 1000 + hook_ms
