"""The function under AWS's runtime interface client (awslambdaric) and a local Runtime API.

The code directory is built by infra/Makefile (the recipe `sam build` runs) for this machine,
made read-only, and run as `python -S -m awslambdaric functions.api.handler.handler` with
Lambda's environment only (eval/benchmarks/lambda_runtime.py). Every sample event of infra/events/ must get
the same answer as the in-process handler and the library; a broken handler must be reported
through /init/error. INIT timings are measured by `python eval/run_all.py run lambda-init`, not here.
"""

from __future__ import annotations

import base64
import importlib
import json
import pathlib
import sys

import pytest

import perturber
from benchmarks import lambda_runtime as lr

pytest.importorskip("awslambdaric")
ROOT = pathlib.Path(__file__).resolve().parent.parent

EVENTS = sorted((ROOT / "infra" / "events").glob("*.json"))
NLTK = ROOT / "build" / "nltk_data"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    work = tmp_path_factory.mktemp("lambda-runtime")
    task = lr.build_function(work / "task")
    runtime = lr.runtime_dir(work / "runtime")
    before = snapshot(task)
    yield task, runtime
    assert snapshot(task) == before, "the read-only task root was written to"
    for path in [task, *task.rglob("*")]:
        if path.is_dir():
            path.chmod(0o755)


def snapshot(root: pathlib.Path) -> dict:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")}


class Function:
    """One execution environment: a runtime-client process and its Runtime API."""

    def __init__(self, built, handler: str = lr.HANDLER, **env: str) -> None:
        task, runtime = built
        self.api = lr.RuntimeAPI()
        environment = lr.function_environment(task, runtime, self.api, NLTK if NLTK.is_dir() else None, **env)
        self.proc = lr.start_function(environment, handler)

    def __enter__(self) -> Function:
        return self

    def __exit__(self, *exc) -> None:
        self.output = lr.stop(self.proc)
        self.api.close()


def in_process(monkeypatch, **env):
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    import functions.api.handler as module

    return importlib.reload(module).handler


def normalised(response: dict) -> dict:
    """The proxy response with its body decoded, per-call timings and the brittlebench tier's
    ``available`` flags dropped."""
    body = response.get("body") or ""
    raw = base64.b64decode(body) if response.get("isBase64Encoded") else body.encode()
    try:
        data = json.loads(raw)
    except ValueError:
        data = raw
    for result in data.get("results", []) if isinstance(data, dict) else []:
        result.pop("elapsed_us", None)
    # the built function leaves the brittlebench extra out (README: Lambda), this venv has it
    for entry in data.get("perturbations", []) if isinstance(data, dict) else []:
        entry.pop("available", None)
    headers = {k: v for k, v in (response.get("headers") or {}).items() if k != "content-length"}
    return {"statusCode": response["statusCode"], "headers": headers, "body": data}


def library_texts(event: dict) -> list[str] | None:
    """What the library gives for a perturbation request event (None for other requests)."""
    path = event.get("rawPath") or event.get("path") or ""
    if event.get("body") is None or not path.split("/prod", 1)[-1].startswith("/perturb"):
        return None
    raw = base64.b64decode(event["body"]) if event.get("isBase64Encoded") else event["body"].encode()
    body = json.loads(raw)
    parts = path.split("/prod", 1)[-1].strip("/").split("/")
    if len(parts) == 3:
        category, name = parts[1], parts[2]
        params = {k: v for k, v in body.items() if k not in ("texts", "seed")}
    else:
        category, name, params = body.get("category", "native"), body["name"], body.get("params", {})
    texts = body.get("texts") or [body.get("text")]
    try:
        return [perturber.perturb(t, name, params, body.get("seed", 0), category=category) for t in texts]
    except perturber.PerturberError:
        return None


def test_every_sample_event_matches_the_in_process_handler_and_the_library(built, monkeypatch):
    assert len(EVENTS) >= 8
    try:
        for base_path, events in (
            ("/", [e for e in EVENTS if "stage" not in e.name]),
            ("/prod", [e for e in EVENTS if "stage" in e.name]),
        ):
            local = in_process(monkeypatch, PERTURBER_API_BASE_PATH=base_path)
            from functions.api.events import LocalContext

            with Function(built, PERTURBER_API_BASE_PATH=base_path) as fn:
                for path in events:
                    event = json.loads(path.read_text())
                    kind, response = fn.api.invoke(event)
                    assert kind == "response", (path.name, response)
                    assert response["statusCode"] < 500, path.name
                    got = normalised(response)
                    assert got == normalised(local(event, LocalContext())), path.name
                    expected = library_texts(event)
                    if expected is not None and got["statusCode"] == 200:
                        assert [r["text"] for r in got["body"]["results"]] == expected, path.name
                checked = sum(library_texts(json.loads(p.read_text())) is not None for p in events)
                assert checked >= (3 if base_path == "/" else 1)
            assert fn.api.init_error is None, fn.output
    finally:
        monkeypatch.delenv("PERTURBER_API_BASE_PATH", raising=False)
        in_process(monkeypatch)


def test_warm_up_and_console_events_are_answered_not_failed(built):
    with Function(built) as fn:
        for event in (
            {"source": "aws.events", "detail-type": "Scheduled Event", "detail": {}},
            {"warmer": True},
        ):
            kind, response = fn.api.invoke(event)
            assert (kind, response) == ("response", {"warm": True, "version": perturber.__version__})
        kind, response = fn.api.invoke({"key1": "value1", "key2": "value2", "key3": "value3"})
        assert kind == "response" and response["statusCode"] == 400
        error = json.loads(response["body"])["error"]
        assert error["code"] == "unsupported_event" and "key1" in error["message"]
        kind, response = fn.api.invoke(["not", "an", "object"])
        assert kind == "response" and response["statusCode"] == 400
    assert "unsupported event" in fn.output  # logged (WARNING) to the function's log


@pytest.mark.parametrize(
    "handler, error_type",
    [
        ("functions.api.handler.no_such_handler", "Runtime.HandlerNotFound"),
        ("functions.api.no_such_module.handler", "Runtime.ImportModuleError"),
    ],
)
def test_a_bad_handler_is_reported_through_init_error(built, handler, error_type):
    with Function(built, handler=handler) as fn:
        fn.api.wait_first_next(timeout=60)
        fn.proc.wait(timeout=60)
    assert fn.proc.returncode != 0
    assert fn.api.first_next is None and fn.api.results == {}
    assert fn.api.init_error["errorType"] == error_type, fn.api.init_error


def test_the_build_ships_unchecked_hash_bytecode_for_every_module(built):
    """Every module but those BYTECODE_SKIP leaves out (nltk: imported by WordNet entries only)."""
    task, _ = built
    import re

    skip = re.search(r"^BYTECODE_SKIP := (.+)$", (ROOT / "infra" / "Makefile").read_text(), re.M)
    sources = [p for p in task.rglob("*.py") if "__pycache__" not in p.parts]
    skipped = [p for p in sources if re.search(skip.group(1), p.relative_to(task).as_posix())]
    assert skipped and all(
        not p.with_name("__pycache__").exists() or not any(p.with_name("__pycache__").glob(f"{p.stem}.*.pyc"))
        for p in skipped
    )
    sources = [p for p in sources if p not in skipped]
    assert len(sources) > 100 and any(p.match("perturber/core.py") for p in sources)
    tag, magic = lr.bytecode_tag()  # the function's interpreter (PERTURBER_LAMBDA_PYTHON)
    for source in sources:
        pyc = source.parent / "__pycache__" / f"{source.stem}.{tag}.pyc"
        assert pyc.is_file(), source.relative_to(task)
        header = pyc.read_bytes()[:8]
        assert header[:4] == magic
        assert int.from_bytes(header[4:8], "little") == 0b01, pyc  # hash-based, unchecked
    assert not any(p.stat().st_mode & 0o222 for p in (task, *sources[:50]))  # read-only


def test_the_build_ships_the_compiled_module_for_its_architecture(built):
    """infra/Makefile cross-compiles perturber._native for NATIVE_ARCH (this machine's, here) and
    leaves the source tree's own build out; the function's interpreter loads it."""
    import platform
    import subprocess

    task, _ = built
    module = task / "perturber" / "_native.abi3.so"
    assert module.read_bytes()[18] == {"x86_64": 0x3E, "aarch64": 0xB7}[platform.machine()]
    assert sorted(p.name for p in (task / "perturber").glob("*.so")) == ["_native.abi3.so"]
    code = "import perturber.native as n; print(n.c.__file__)"
    env = {"PYTHONPATH": str(task), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([lr.PYTHON, "-S", "-c", code], capture_output=True, text=True, env=env, cwd=task)
    assert out.stdout.strip() == str(module), out.stderr


def test_compile_zip_adds_unchecked_hash_bytecode_to_an_osls_artifact(tmp_path):
    import importlib.util
    import subprocess
    import zipfile

    artifact = tmp_path / "fn.zip"
    with zipfile.ZipFile(artifact, "w") as zf:
        zf.writestr("top.py", "X = 1\n")
        zf.writestr("pkg/__init__.py", "def f():\n    return 2\n")
        zf.writestr("pkg/data.txt", "data")
        zf.writestr("nltk/__init__.py", "Y = 3\n")
    before = {i.filename: zipfile.ZipFile(artifact).read(i) for i in zipfile.ZipFile(artifact).infolist()}
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    script = ROOT / "infra" / "sls" / "compile_zip.py"
    run = [sys.executable, str(script), "--python-version", version, "--skip", "(^|/)nltk/", str(artifact)]
    assert "2 .pyc added" in subprocess.run(run, check=True, capture_output=True, text=True).stdout
    with zipfile.ZipFile(artifact) as zf:
        names = zf.namelist()
        tag = sys.implementation.cache_tag
        assert names[:4] == list(before) and all(zf.read(n) == before[n] for n in before)
        assert names[4:] == [f"__pycache__/top.{tag}.pyc", f"pkg/__pycache__/__init__.{tag}.pyc"]
        header = zf.read(names[4])[:8]
        assert header[:4] == importlib.util.MAGIC_NUMBER and header[4:8] == b"\x01\x00\x00\x00"
    # idempotent, and it refuses an interpreter of another version
    assert "0 .pyc added" in subprocess.run(run, check=True, capture_output=True, text=True).stdout
    wrong = subprocess.run(run[:3] + ["2.7"] + run[4:], capture_output=True, text=True)
    assert wrong.returncode != 0 and "needs 2.7 bytecode" in wrong.stderr
    # --native adds the compiled module once (bytecode.js passes the aarch64 build)
    module = tmp_path / "_native.abi3.so"
    module.write_bytes(b"\x7fELF-module")
    for _ in range(2):
        subprocess.run([*run[:-1], "--native", str(module), str(artifact)], check=True, capture_output=True)
    with zipfile.ZipFile(artifact) as zf:
        assert zf.namelist().count("perturber/_native.abi3.so") == 1
        assert zf.read("perturber/_native.abi3.so") == b"\x7fELF-module"
