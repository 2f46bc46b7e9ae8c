"""ASGI middleware that rejects request bodies over the configured size with a 413."""

from __future__ import annotations

import json

from ..errors import InputTooLarge


class BodySizeLimit:
    """Checks ``Content-Length`` up front and counts streamed bytes for chunked bodies."""

    def __init__(self, app, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        for key, value in scope.get("headers", ()):
            if key == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared > self.max_bytes:
                    return await self._reject(send, declared)
        seen = 0

        async def counted_receive():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _TooLarge()
            return message

        try:
            await self.app(scope, counted_receive, send)
        except _TooLarge:
            await self._reject(send, seen)

    async def _reject(self, send, size: int) -> None:
        err = InputTooLarge(
            f"request body of {size} bytes is over the limit of {self.max_bytes} bytes", limit=self.max_bytes
        )
        body = json.dumps({"error": err.to_dict()}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": err.http_status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


class _TooLarge(Exception):
    pass
