"""A tiny local API-Gateway-style server in front of the Lambda handler (``make lambda-local``).

Like one Lambda container, it serves one request at a time. Every HTTP request becomes an HTTP API v2 event (body base64-encoded, optional stage prefix),
goes through ``functions.api.handler.handler`` exactly as on Lambda, and the proxy response is
written back. No Docker and no AWS needed.

    python -m functions.api.local [--host 127.0.0.1] [--port 8080] [--stage prod]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import urlsplit

from perturber.errors import InputTooLarge

from .events import LocalContext, http_api_event, response_body

MAX_EVENT_BYTES = 6 * 1024 * 1024  # the Lambda synchronous payload limit


def _ensure_event_loop() -> None:
    """Mangum runs the app on the calling thread's event loop; a server thread has none yet."""
    try:
        asyncio.get_event_loop()
    except RuntimeError:
        asyncio.set_event_loop(asyncio.new_event_loop())


def make_server(host: str, port: int, stage: str = "$default") -> HTTPServer:
    from .handler import handler

    class Adapter(BaseHTTPRequestHandler):
        server_version = "perturber-lambda-local"

        def _handle(self) -> None:
            _ensure_event_loop()
            url = urlsplit(self.path)
            length = int(self.headers.get("content-length") or 0)
            if length > MAX_EVENT_BYTES:
                err = InputTooLarge(
                    f"request of {length} bytes is over the Lambda payload limit", limit=MAX_EVENT_BYTES
                )
                self._send(
                    err.http_status,
                    {"content-type": "application/json"},
                    json.dumps({"error": err.to_dict()}).encode(),
                )
                return
            body = self.rfile.read(length) if length else b""
            path = url.path
            if stage != "$default":
                prefix = f"/{stage}"
                if path != prefix and not path.startswith(prefix + "/"):
                    self._send(404, {"content-type": "application/json"}, b'{"message":"Not Found"}')
                    return
                path = path[len(prefix) :] or "/"
            event = http_api_event(self.command, path, url.query, dict(self.headers.items()), body, stage)
            response = handler(event, LocalContext())
            headers = dict(response.get("headers") or {})
            self._send(response["statusCode"], headers, response_body(response))

        def _send(self, status: int, headers: dict, body: bytes) -> None:
            self.send_response(status)
            for key, value in headers.items():
                if key.lower() not in ("content-length", "transfer-encoding"):
                    self.send_header(key, value)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _handle

        def log_message(self, fmt: str, *args) -> None:
            sys.stderr.write("lambda-local: " + fmt % args + "\n")

    return HTTPServer((host, port), Adapter)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m functions.api.local",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument(
        "--stage",
        default="$default",
        help="named stage prefix, e.g. prod (set PERTURBER_API_BASE_PATH=/prod too)",
    )
    args = parser.parse_args(argv)
    server = make_server(args.host, args.port, args.stage)
    base = "" if args.stage == "$default" else f"/{args.stage}"
    print(
        f"lambda-local: handler behind a local API Gateway at http://{args.host}:{args.port}{base}/",
        file=sys.stderr,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
