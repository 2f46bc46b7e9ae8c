"""An OpenAI-compatible endpoint that answers with the scripted model (``scripted_model.py``).

    python examples/scripted_endpoint.py --port 8765                 # serve until ^C
    python examples/scripted_endpoint.py --garbage 0.02 -- perturber evaluate cases.jsonl \\
        --base-url {base_url} --model scripted -o results.jsonl        # serve while a command runs

``POST /v1/chat/completions`` answers the last user message and reports ``usage`` counting a
token per word and per punctuation mark (plus 4 per message), a rule of its own, unlike the
harness's estimate. ``--weak formatting`` (or ``casing``) plants a weak spot (see
``scripted_model.py``), ``--salt S`` moves its 3 % noise to other inputs; ``--random`` answers a random number from 0 to 9 instead (drawn from
the request's ``seed`` and text when a seed is sent, else fresh each time). ``--garbage RATE`` makes that share
of distinct questions get a malformed reply the first time they are asked (HTTP 200 with an HTML
body, ``"choices": []`` or empty content, in turn); asked again, they get a proper one, as a
flaky gateway would. ``--delay`` adds latency; ``--log FILE`` appends one JSON line per request
(``{"text", "reply"}``: ``ok`` or the kind of garbage), and the questions it already holds count
as asked (so a later run, resuming, gets proper replies). With a command after ``--``, ``{base_url}``
in it is replaced by the server's URL, and the script exits with the command's exit code.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

GARBAGE = ("html", "no_choices", "empty")
_TOKEN = re.compile(r"\w+|[^\w\s]")


def tokens(text: str) -> int:
    """The endpoint's own token count: words and punctuation marks.

    >>> tokens("What is 2+2?")
    6
    """
    return len(_TOKEN.findall(text))


def random_answer(text: str, seed: int | None) -> str:
    """A random answer: reproducible for a (text, seed), fresh each call without a seed."""
    if seed is None:
        return f"#### {random.randrange(10)}"
    digest = hashlib.sha256(f"{seed}\0{text}".encode()).digest()
    return f"#### {digest[0] % 10}"


class Scripted:
    """The state of the endpoint: which questions were asked, the log."""

    def __init__(self, garbage: float, delay: float, log: str | None, randomly: bool = False) -> None:
        from scripted_model import answer

        self.answer, self.garbage, self.delay, self.randomly = answer, garbage, delay, randomly
        self.seen: set[str] = set()
        if log and os.path.exists(log):  # questions asked before, by an earlier run, were seen
            with open(log, encoding="utf-8") as fh:
                self.seen = {json.loads(line)["text"] for line in fh if line.strip()}
        self.lock = threading.Lock()
        self.log = open(log, "a", encoding="utf-8") if log else None

    def reply_kind(self, text: str) -> str:
        digest = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")
        with self.lock:
            first = text not in self.seen
            self.seen.add(text)
        if first and digest % 10_000 < self.garbage * 10_000:
            return GARBAGE[digest % len(GARBAGE)]
        return "ok"

    def record(self, text: str, kind: str) -> None:
        if self.log is not None:
            with self.lock:
                self.log.write(json.dumps({"text": text, "reply": kind}) + "\n")
                self.log.flush()

    def close(self) -> None:
        if self.log is not None:
            self.log.close()


def _completion(model: str, content: str | None, prompt_tokens: int) -> dict:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": tokens(content or ""),
            "total_tokens": prompt_tokens + tokens(content or ""),
        },
    }


def handler(state: Scripted):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: a client reuses its connections
        disable_nagle_algorithm = True  # the headers and the body go out at once, not 40 ms apart

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length", 0)))  # read before replying
            if self.path.rstrip("/") != "/v1/chat/completions":
                return self._send(404, b'{"error": {"message": "not found"}}')
            body = json.loads(raw or b"{}")
            text = next(
                (m["content"] for m in reversed(body.get("messages", [])) if m.get("role") == "user"), ""
            )
            if state.delay:
                time.sleep(state.delay)
            kind = state.reply_kind(text)
            state.record(text, kind)
            model = body.get("model", "scripted")
            if kind == "html":
                return self._send(200, b"<html><body>502 Bad Gateway</body></html>", "text/html")
            reply = random_answer(text, body.get("seed")) if state.randomly else state.answer(text)
            prompt = sum(tokens(str(m.get("content", ""))) + 4 for m in body.get("messages", []))
            payload = _completion(model, "" if kind == "empty" else reply, prompt)
            if kind == "no_choices":
                payload["choices"] = []
            return self._send(200, json.dumps(payload).encode())

        def _send(self, status: int, payload: bytes, kind: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args) -> None:  # quiet
            pass

    return Handler


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = argv[argv.index("--") + 1 :] if "--" in argv else []
    own = argv[: argv.index("--")] if "--" in argv else argv
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    p.add_argument("--garbage", type=float, default=0.0, help="share of questions answered badly once")
    p.add_argument("--delay", type=float, default=0.0, help="seconds of latency per reply")
    p.add_argument("--problems", help="problem file of the scripted model (SCRIPTED_MODEL_PROBLEMS)")
    p.add_argument("--log", help="append one JSON line per request to this file")
    p.add_argument("--weak", help="planted weak spots: formatting and/or casing (comma-separated)")
    p.add_argument("--random", action="store_true", help="answer a random number from 0 to 9")
    p.add_argument("--salt", help="another set of noisy inputs (a retrained model, no new weak spot)")
    args = p.parse_args(own)
    if args.problems:
        os.environ["SCRIPTED_MODEL_PROBLEMS"] = args.problems
    if args.weak:
        os.environ["SCRIPTED_MODEL_WEAK"] = args.weak
    if args.salt:
        os.environ["SCRIPTED_MODEL_SALT"] = args.salt
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    state = Scripted(args.garbage, args.delay, args.log, args.random)
    ThreadingHTTPServer.request_queue_size = 256  # a burst of concurrent connections is not refused
    server = ThreadingHTTPServer(("127.0.0.1", args.port), handler(state))
    base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        if not command:
            print(f"serving {base_url} (^C stops)", flush=True)
            threading.Event().wait()
        return subprocess.call([part.replace("{base_url}", base_url) for part in command])
    except KeyboardInterrupt:
        return 130
    finally:
        server.shutdown()
        state.close()


if __name__ == "__main__":
    sys.exit(main())
