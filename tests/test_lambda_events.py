"""Events that are not HTTP requests, in-process: no exception, a clear answer, a log line."""

import json
import logging

import pytest

import perturber
from functions.api.events import LocalContext, http_api_event


@pytest.fixture(scope="module")
def handler_module():
    import functions.api.handler as module

    yield module


@pytest.mark.parametrize(
    "event",
    [
        {"source": "aws.events", "detail-type": "Scheduled Event", "detail": {}},
        {"source": "aws.scheduler"},
        {"source": "serverless-plugin-warmup"},
        {"warmer": True},
    ],
)
def test_warm_up_events_are_a_cheap_no_op(handler_module, event, monkeypatch):
    def no_app(*args):
        raise AssertionError("a warm-up must not reach the app")

    monkeypatch.setattr(handler_module, "http_handler", no_app)
    assert handler_module.handler(event, LocalContext()) == {"warm": True, "version": perturber.__version__}


@pytest.mark.parametrize(
    "event",
    [
        {"key1": "value1", "key2": "value2", "key3": "value3"},
        {},
        ["a", "list"],
        "text",
        None,
        {"warmer": "yes"},
    ],
)
def test_other_events_get_a_logged_400(handler_module, event, caplog):
    with caplog.at_level(logging.WARNING, logger="perturber.lambda"):
        response = handler_module.handler(event, LocalContext())
    assert response["statusCode"] == 400 and response["isBase64Encoded"] is False
    error = json.loads(response["body"])["error"]
    assert error["code"] == "unsupported_event"
    assert "not an API Gateway, function URL or ALB request event" in error["message"]
    assert any("unsupported event" in r.getMessage() for r in caplog.records)


def test_event_kinds(handler_module):
    kind = handler_module.event_kind
    assert kind(http_api_event("GET", "/health")) == "http"
    assert kind({"httpMethod": "GET", "requestContext": {"stage": "prod"}}) == "http"  # REST v1
    assert kind({"requestContext": {"elb": {"targetGroupArn": "x"}}, "httpMethod": "GET"}) == "http"
    assert kind({"requestContext": {}}) == "other"
    response = handler_module.handler(http_api_event("GET", "/health"), LocalContext())
    assert response["statusCode"] == 200


def test_http_events_work_after_asyncio_run_left_no_event_loop(handler_module):
    """``asyncio.run`` (a model batch, the harness) unsets the main thread's loop; Mangum needs one."""
    import asyncio

    async def nothing():
        return None

    asyncio.run(nothing())
    body = json.dumps({"texts": ["Hi"], "n": 1}).encode()
    event = http_api_event(
        "POST", "/perturb/native/quotes", headers={"content-type": "application/json"}, body=body
    )
    response = handler_module.handle_event(event, LocalContext())
    assert response["statusCode"] == 200 and json.loads(response["body"])["results"][0]["text"] == '" Hi "'
