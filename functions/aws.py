"""Small AWS helpers shared by the Lambda glue (``functions/api/secrets.py``), ``infra/deploy.py``
and the cost model's memory sweep (``eval/costmodel``); not part of the library's wheel.

Nothing here imports boto3: callers pass their clients in.

>>> region("eu-west-1"), region(environ={"AWS_DEFAULT_REGION": "ap-south-1"}), region(environ={})
('eu-west-1', 'ap-south-1', 'us-east-1')
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

DEFAULT_REGION = "us-east-1"


def region(explicit: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """``explicit``, else ``AWS_REGION``, else ``AWS_DEFAULT_REGION``, else ``us-east-1``."""
    env = os.environ if environ is None else environ
    return explicit or env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or DEFAULT_REGION


def wait_updated(client: Any, function_name: str, delay: int = 2, max_attempts: int = 150) -> None:
    """Block until the function's last update finished (Lambda rejects overlapping updates)."""
    client.get_waiter("function_updated_v2").wait(
        FunctionName=function_name, WaiterConfig={"Delay": delay, "MaxAttempts": max_attempts}
    )
