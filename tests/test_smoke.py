"""eval/benchmarks/smoke.py against live local servers: uvicorn (the service) and the Lambda-path adapter."""

from __future__ import annotations

import io
import socket
import threading
import time

import pytest

from benchmarks import smoke


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def uvicorn_url():
    import uvicorn

    from perturber.service import Settings, create_app

    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(Settings()), host="127.0.0.1", port=port, log_level="warning", lifespan="off"
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def lambda_local_url():
    from functions.api.local import make_server

    server = make_server("127.0.0.1", free_port())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


def run(url: str, **kwargs) -> tuple[int, list[str]]:
    out = io.StringIO()
    code = smoke.run(url, timeout=30, out=out, **kwargs)
    return code, out.getvalue().splitlines()


def test_smoke_passes_against_uvicorn(uvicorn_url):
    code, lines = run(uvicorn_url)
    assert code == 0, "\n".join(lines)
    assert len(lines) == 8 and all(line.startswith("ok    ") for line in lines[:-1])
    assert "= local library" in lines[3] and "= local library" in lines[4]
    assert lines[-1].endswith("7/7 checks passed")


def test_smoke_passes_through_the_lambda_handler(lambda_local_url):
    code, lines = run(lambda_local_url)
    assert code == 0, "\n".join(lines)
    assert "catalog = local library" in lines[1]


def test_smoke_fails_when_output_differs_from_the_library(uvicorn_url, monkeypatch):
    real = smoke.perturber.perturb
    monkeypatch.setattr(smoke.perturber, "perturb", lambda *a, **k: real(*a, **k) + "!")
    code, lines = run(uvicorn_url)
    assert code == 1
    failed = [line for line in lines if line.startswith("FAIL")]
    assert len(failed) == 2 and all("differs from the local library" in line for line in failed)
    assert lines[-1].endswith("5/7 checks passed")


def test_smoke_reports_an_unreachable_url_in_one_line_per_check():
    code, lines = run(f"http://127.0.0.1:{free_port()}")
    assert code == 1
    assert lines[0].startswith("FAIL  GET /health: URLError") and "Traceback" not in "\n".join(lines)


def test_cli_rejects_a_url_without_scheme(capsys):
    with pytest.raises(SystemExit) as exc:
        smoke.main(["--url", "127.0.0.1:8080"])
    assert exc.value.code == 2
