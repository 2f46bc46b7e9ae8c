"""A real OpenAI-compatible chat server on 127.0.0.1 (an ASGI app under uvicorn), scriptable.

It implements ``POST /v1/chat/completions``, records every request (body + headers), counts the
requests in flight and answers from a script. The tests use it through the ``llm_server`` fixture
(``tests/llm_server.py``); the model-tier benchmark (``benchmarks.llm``) starts one itself::

    server = ChatServer().start()
    server.script(Reply(content="hello"), Reply(status=429, headers={"retry-after": "0"}))
    ... Endpoint(server.base_url) ...
    assert server.requests[0].body["model"] == "m"
    server.stop()

A script item is a :class:`Reply` or a callable ``(body: dict) -> Reply``; when the queue is empty
the ``default`` (settable with ``script(default=...)``) answers, echoing the user message.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field


@dataclass
class Reply:
    """One scripted answer."""

    content: str | None = "ok"
    finish_reason: str | None = "stop"
    status: int = 200
    headers: dict = field(default_factory=dict)
    delay: float = 0.0
    model: str | None = None  # None: echo the requested model
    raw: bytes | None = None  # a raw body overriding everything else
    usage: dict | None = None  # None: computed from the lengths
    drip: float = 0.0  # > 0: the body is sent one byte every ``drip`` seconds (a slow upstream)


@dataclass
class Recorded:
    path: str
    method: str
    headers: dict
    body: dict | None
    client: tuple | None = None  # (host, port) of the TCP peer: one port = one reused connection
    body_bytes: int = 0  # bytes of the response body sent before the client left (or all of them)
    disconnected: bool = False  # the client went away before the whole response was sent


def echo(body: dict) -> Reply:
    """The default answer: the last user message, verbatim."""
    user = [m.get("content") for m in body.get("messages", []) if m.get("role") == "user"]
    return Reply(content=user[-1] if user else "")


class ChatServer:
    """The scriptable server; ``base_url`` ends in ``/v1``."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self._queue: deque = deque()
        self.default = echo
        self._gen = 0  # requests still running from an earlier test do not count
        self._flying: dict[int, int] = {}
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server = None
        self._thread = None
        self.port = None

    # -- scripting -------------------------------------------------------------------------------
    def script(self, *replies, default=None) -> ChatServer:
        """Queue replies (``Reply`` or callables); ``default`` answers once the queue is empty."""
        with self._lock:
            self._queue.extend(replies)
            if default is not None:
                self.default = default
        return self

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self._queue.clear()
            self.default = echo
            self._gen += 1
            self.max_in_flight = 0

    @property
    def in_flight(self) -> int:
        return self._flying.get(self._gen, 0)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _next(self):
        with self._lock:
            return self._queue.popleft() if self._queue else self.default

    # -- the ASGI app ----------------------------------------------------------------------------
    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        raw = b"".join(chunks)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        record = Recorded(scope["path"], scope["method"], headers, body, tuple(scope.get("client") or ()))
        with self._lock:
            gen = self._gen
            self.requests.append(record)
            self._flying[gen] = self._flying.get(gen, 0) + 1
            self.max_in_flight = max(self.max_in_flight, self._flying[gen])
        # A request stops counting as in flight just before its response is written, so a client
        # that reuses its slot for the next request is never counted twice.
        drip = 0.0
        if scope["path"] != "/v1/chat/completions" or scope["method"] != "POST":
            status, hdrs, payload = 404, {}, json.dumps({"error": {"message": "not found"}}).encode()
        else:
            try:
                item = self._next()
                reply = item(body or {}) if callable(item) else item
                if reply.delay:
                    await asyncio.sleep(reply.delay)
            except BaseException:
                self._landed(gen)
                raise
            status, hdrs, drip = reply.status, reply.headers, reply.drip
            if reply.raw is not None:
                payload = reply.raw
            elif reply.status >= 400:
                payload = json.dumps(
                    {"error": {"message": reply.content or "error", "type": "test"}}
                ).encode()
            else:
                payload = json.dumps(self._completion(body or {}, reply)).encode()
        self._landed(gen)
        if status < 400 and drip:
            await self._drip(receive, send, hdrs, payload, drip, record)
        else:
            await self._send(send, status, hdrs, payload)
            record.body_bytes = len(payload)

    def _landed(self, gen: int) -> None:
        with self._lock:
            self._flying[gen] -= 1

    @staticmethod
    def _completion(body: dict, reply: Reply) -> dict:
        prompt = sum(len(str(m.get("content", ""))) for m in body.get("messages", [])) // 4
        completion = len(reply.content or "") // 4
        usage = reply.usage or {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        return {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": reply.model or body.get("model", "unknown"),
            "choices": [
                {
                    "index": 0,
                    "finish_reason": reply.finish_reason,
                    "message": {"role": "assistant", "content": reply.content},
                }
            ],
            "usage": usage,
        }

    @staticmethod
    async def _send(send, status: int, headers: dict, payload: bytes) -> None:
        hdrs = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
        hdrs += [(k.lower().encode(), str(v).encode()) for k, v in headers.items()]
        await send({"type": "http.response.start", "status": status, "headers": hdrs})
        await send({"type": "http.response.body", "body": payload})

    @staticmethod
    async def _drip(receive, send, headers: dict, payload: bytes, every: float, record: Recorded) -> None:
        """Send ``payload`` one byte every ``every`` seconds until done or the client leaves."""
        hdrs = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
        hdrs += [(k.lower().encode(), str(v).encode()) for k, v in headers.items()]
        left = asyncio.ensure_future(receive())  # completes with http.disconnect when the client leaves
        try:
            await send({"type": "http.response.start", "status": 200, "headers": hdrs})
            for i in range(len(payload)):
                done, _ = await asyncio.wait({left}, timeout=every)
                if done:
                    record.disconnected = True
                    return
                await send({"type": "http.response.body", "body": payload[i : i + 1], "more_body": True})
                record.body_bytes = i + 1
            await send({"type": "http.response.body", "body": b""})
        except OSError:
            record.disconnected = True
        finally:
            left.cancel()

    # -- lifecycle -------------------------------------------------------------------------------
    def start(self) -> ChatServer:
        import uvicorn

        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self, log_level="warning", lifespan="on", access_log=False, timeout_keep_alive=30, backlog=2048
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the chat server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
            self._thread.join(timeout=10)
