"""Lambda entry: API Gateway / function-URL / ALB events go to the app through Mangum.

The app is built once per container, at import (the INIT phase): ``perturber.service.lazy``'s
``LazyApp``, which serves ``POST /perturb`` and ``POST /perturb/{category}/{name}`` without
importing FastAPI and builds the full FastAPI app (catalog, OpenAPI document, docs, gallery,
playground) on the first request for anything else, or in INIT when that runs ahead of traffic
(SnapStart, whose snapshot then holds it, and provisioned concurrency). Events that are not HTTP
requests do not reach Mangum (which would raise and count as a function error): a warm-up event
(EventBridge ``Scheduled Event``, ``{"warmer": true}``, serverless-plugin-warmup) is a cheap
no-op answered ``{"warm": true, ...}``; any other event (a console test event) is logged and
answered with a 400 proxy response whose body is ``{"error": {"code": "unsupported_event", ...}}``.

>>> handler({"source": "aws.events", "detail-type": "Scheduled Event"}, None)["warm"]
True

Configuration comes from the
environment (the rows of ``perturber.settings.VARIABLES`` read by the Lambda function, all checked
in INIT: a bad value fails the INIT with ``ConfigurationError``): the ``PERTURBER_*`` limits of the
service, ``PERTURBER_API_BASE_PATH`` (the stage or custom-domain prefix to strip, e.g. ``/prod``;
default ``/``), ``NLTK_DATA`` (``/opt/nltk_data``, the layer), ``PERTURBER_WARM_SYNONYM=1`` to load
WordNet during INIT, the model-tier secrets of ``functions.api.secrets`` and the ``PERTURBER_LLM_*``
settings. Mangum passes the API Gateway event and the Lambda context to the app
(``scope["aws.event"]``, ``scope["aws.context"]``): the event's IAM authorizer context is what lets
a model-backed request spend the server's key, and the context's remaining time bounds its model
calls (``perturber.service.auth``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os

from mangum import Mangum

from perturber import __version__, settings
from perturber.credentials import set_api_key_provider
from perturber.service.lazy import LazyApp
from perturber.service.settings import Settings

from .secrets import llm_api_key, quiet_botocore

os.environ.setdefault("NLTK_DATA", "/opt/nltk_data")
quiet_botocore()
set_api_key_provider(llm_api_key)
app = LazyApp(Settings.from_env())
# INIT ahead of traffic (a SnapStart snapshot, provisioned concurrency): build the full app too
if os.environ.get("AWS_LAMBDA_INITIALIZATION_TYPE") in ("snap-start", "provisioned-concurrency"):
    app.full_app()

if settings.read("PERTURBER_WARM_SYNONYM"):  # pay the WordNet load in INIT, not per request
    import perturber

    perturber.perturb("warm the data", "synonym")

http_handler = Mangum(
    app, lifespan="off", api_gateway_base_path=str(settings.read("PERTURBER_API_BASE_PATH"))
)
log = logging.getLogger("perturber.lambda")
WARMER_SOURCES = {"aws.events", "aws.scheduler", "serverless-plugin-warmup"}


def event_kind(event: object) -> str:
    """``"http"`` (API Gateway v1/v2, function URL, ALB), ``"warmup"`` or ``"other"``.

    >>> event_kind({"warmer": True}), event_kind({"key1": "value1"})
    ('warmup', 'other')
    """
    if not isinstance(event, dict):
        return "other"
    context = event.get("requestContext")
    if isinstance(context, dict) and ("http" in context or "httpMethod" in event or "elb" in context):
        return "http"
    if event.get("warmer") is True or event.get("source") in WARMER_SOURCES:
        return "warmup"
    return "other"


def _ensure_event_loop() -> None:
    """Mangum runs the app on the thread's current event loop; ``asyncio.run`` elsewhere in the
    process (a batch, the harness) leaves the main thread without one, so make a new one then."""
    try:
        asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:
        asyncio.set_event_loop(asyncio.new_event_loop())


def handle_event(event: object, context: object) -> dict:
    """The Lambda handler: HTTP events to the app, warm-ups answered, anything else a clear 400."""
    kind = event_kind(event)
    if kind == "http":
        _ensure_event_loop()
        return http_handler(event, context)
    if kind == "warmup":
        log.info("warm-up event: nothing to do")
        return {"warm": True, "version": __version__}
    keys = sorted(map(str, event))[:10] if isinstance(event, dict) else []
    message = (
        "not an API Gateway, function URL or ALB request event "
        f"({type(event).__name__} with keys {keys}); send HTTP requests through the API"
    )
    log.warning("unsupported event: %s", message)
    body = {"error": {"code": "unsupported_event", "message": message}}
    return {
        "statusCode": 400,
        "headers": {"content-type": "application/json"},
        "isBase64Encoded": False,
        "body": json.dumps(body),
    }


handler = handle_event  # functions.api.handler.handler, the Handler of both IaC files
