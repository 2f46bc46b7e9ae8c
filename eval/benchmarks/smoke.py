#!/usr/bin/env python3
"""Smoke test of a running perturber HTTP endpoint (deployed API Gateway URL or local server).

    python eval/run_all.py run smoke --url https://abc123.execute-api.us-east-1.amazonaws.com/
    python eval/run_all.py run smoke --url http://127.0.0.1:8080        # make serve / make lambda-local

Checks, one line each: GET /health, GET /version, GET /perturbations, one typed route
(``POST /perturb/<category>/<name>``), the generic route (``POST /perturb``) and two error routes
(unknown perturbation -> 404, invalid parameter -> 422, both in the one error shape). When the
``perturber`` package is importable and its catalog digest equals the server's, the typed and
generic results must equal the local library's output byte for byte. Exit status 1 if any check
fails. Standard library only (plus perturber for the comparison).
"""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request

from evalkit import cli

try:
    import perturber
    from perturber import registry as _registry
except ImportError:  # the smoke test also runs where only the URL is known
    perturber = None
    _registry = None

TEXTS = ["Please receive the parcel today.", "What is the capital of France?"]
TYPED_PREFERENCE = ("typos", "zero_width", "quotes", "baseline")  # first one the server lists
SEED = 7


class Response:
    def __init__(self, status: int, headers: dict, body: bytes, ms: float):
        self.status, self.headers, self.body, self.ms = status, headers, body, ms

    def json(self):
        return json.loads(self.body)


def request(
    base: str,
    method: str,
    path: str,
    body=None,
    timeout: float = 30.0,
    content_type: str = "application/json",
) -> Response:
    data = None if body is None else json.dumps(body).encode("utf-8")
    req = urllib.request.Request(base.rstrip("/") + path, data=data, method=method)
    if data is not None:
        req.add_header("content-type", content_type)
    req.add_header("accept", "application/json")
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            payload = resp.read()
            status, headers = resp.status, dict(resp.headers.items())
    except urllib.error.HTTPError as err:
        payload, status, headers = err.read(), err.code, dict(err.headers.items())
    return Response(
        status, {k.lower(): v for k, v in headers.items()}, payload, (time.perf_counter() - start) * 1000
    )


class Smoke:
    def __init__(self, base: str, timeout: float, out=sys.stdout):
        self.base, self.timeout, self.out = base, timeout, out
        self.failures = 0
        self.passed = 0

    def check(self, label: str, fn) -> object:
        """Run one check; ``fn`` returns (detail, value) or raises AssertionError/OSError."""
        try:
            detail, value = fn()
        except AssertionError as err:
            self.failures += 1
            print(f"FAIL  {label}: {err}", file=self.out)
            return None
        except (OSError, ValueError) as err:  # unreachable, timeout, bad JSON
            self.failures += 1
            print(f"FAIL  {label}: {type(err).__name__}: {err}", file=self.out)
            return None
        self.passed += 1
        print(f"ok    {label}: {detail}", file=self.out)
        return value

    def get(self, path: str) -> Response:
        return request(self.base, "GET", path, timeout=self.timeout)

    def post(self, path: str, body) -> Response:
        return request(self.base, "POST", path, body, timeout=self.timeout)


def _expect(resp: Response, status: int) -> None:
    assert resp.status == status, f"HTTP {resp.status}, expected {status}: {resp.body[:200]!r}"
    ctype = resp.headers.get("content-type", "")
    assert ctype.startswith("application/json"), f"content-type {ctype!r}"


def _local_texts(name: str, category: str, params: dict, seed: int) -> list[str]:
    return [perturber.perturb(t, name, params, seed, category) for t in TEXTS]


def run(base: str, timeout: float = 30.0, wait: float = 0.0, out=sys.stdout) -> int:
    smoke = Smoke(base, timeout, out)
    deadline = time.monotonic() + wait
    while True:  # a fresh deployment may need a moment (DNS, cold start)
        try:
            if smoke.get("/health").status == 200 or time.monotonic() >= deadline:
                break
        except OSError:
            if time.monotonic() >= deadline:
                break
        time.sleep(2)

    def health():
        resp = smoke.get("/health")
        _expect(resp, 200)
        assert resp.json() == {"status": "ok"}, resp.json()
        return f"200 in {resp.ms:.0f} ms", None

    def version():
        resp = smoke.get("/version")
        _expect(resp, 200)
        info = resp.json()
        assert {"version", "catalog_digest", "entries"} <= set(info), info
        note = ""
        if perturber is not None:
            same = info["catalog_digest"] == _registry.catalog_digest()
            note = ", catalog = local library" if same else ", catalog differs from the local library"
        return f"{info['version']}, {info['entries']} entries{note}", info

    def listing():
        resp = smoke.get("/perturbations")
        _expect(resp, 200)
        data = resp.json()
        assert data["count"] == len(data["perturbations"]) > 0, "empty catalog"
        return f"{data['count']} perturbations", data["perturbations"]

    smoke.check("GET /health", health)
    info = smoke.check("GET /version", version)
    entries = smoke.check("GET /perturbations", listing) or []
    compare = (
        perturber is not None and info is not None and info["catalog_digest"] == _registry.catalog_digest()
    )

    usable = {
        e["name"]: e
        for e in entries  # native only: the optional tier may be absent
        if e.get("kind") == "deterministic"
        and not e.get("model_backed")
        and e.get("category", "native") == "native"
    }
    typed = next((usable[n] for n in TYPED_PREFERENCE if n in usable), None)
    if typed is None and usable:
        typed = next(iter(usable.values()))

    def typed_route():
        assert typed is not None, "no deterministic perturbation listed"
        path = f"/perturb/{typed['category']}/{typed['name']}"
        resp = smoke.post(path, {"texts": TEXTS, "seed": SEED})
        _expect(resp, 200)
        data = resp.json()
        got = [r["text"] for r in data["results"]]
        assert len(got) == len(TEXTS) and data["seed"] == SEED, data
        if compare:
            assert got == _local_texts(typed["name"], typed["category"], {}, SEED), (
                f"output differs from the local library: {got!r}"
            )
        return (
            f"{path} 200 in {resp.ms:.0f} ms"
            + (", = local library" if compare else ", not compared with the library")
        ), None

    def generic_route():
        name = "quotes" if "quotes" in usable else (typed or {}).get("name")
        assert name, "no deterministic perturbation listed"
        entry = usable[name]
        params = {"n": 3} if name == "quotes" else {}
        resp = smoke.post(
            "/perturb",
            {"texts": TEXTS, "name": name, "category": entry["category"], "params": params, "seed": SEED},
        )
        _expect(resp, 200)
        got = [r["text"] for r in resp.json()["results"]]
        if compare:
            assert got == _local_texts(name, entry["category"], params, SEED), (
                f"output differs from the local library: {got!r}"
            )
        return f"{name} 200 in {resp.ms:.0f} ms" + (", = local library" if compare else ""), None

    def unknown_perturbation():
        resp = smoke.post("/perturb", {"text": "hi", "name": "no_such_perturbation"})
        _expect(resp, 404)
        error = resp.json()["error"]
        assert error["code"] and error["message"], error
        return f"404 {error['code']}", None

    def invalid_params():
        assert typed is not None, "no deterministic perturbation listed"
        resp = smoke.post(
            f"/perturb/{typed['category']}/{typed['name']}", {"texts": TEXTS, "no_such_param": 1}
        )
        _expect(resp, 422)
        error = resp.json()["error"]
        assert error["code"] and error["message"], error
        return f"422 {error['code']}", None

    smoke.check("POST typed route", typed_route)
    smoke.check("POST /perturb (generic)", generic_route)
    smoke.check("POST /perturb unknown name", unknown_perturbation)
    smoke.check("POST typed route, invalid field", invalid_params)
    total = smoke.passed + smoke.failures
    print(f"smoke {base}: {smoke.passed}/{total} checks passed", file=out)
    return 1 if smoke.failures else 0


def main(argv: list[str] | None = None) -> int:
    parser = cli.parser("smoke", __doc__)
    parser.add_argument("--url", required=True, help="base URL, e.g. the stack's ApiUrl output")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per request")
    parser.add_argument(
        "--wait",
        type=float,
        default=0.0,
        help="retry GET /health for up to this many seconds before checking",
    )
    args = parser.parse_args(argv)
    if not args.url.startswith(("http://", "https://")):
        parser.error("--url must start with http:// or https://")
    return run(args.url, args.timeout, args.wait)


if __name__ == "__main__":
    sys.exit(main())
