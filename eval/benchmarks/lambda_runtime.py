"""Run the Lambda function the way Lambda does: AWS's runtime client against a local Runtime API.

* ``RuntimeAPI``: a small local implementation of the Lambda Runtime API (``GET
  /2018-06-01/runtime/invocation/next``, ``POST .../invocation/<id>/response``, ``.../error``,
  ``POST /2018-06-01/runtime/init/error``) on 127.0.0.1, fed with events by the caller.
* ``build_function``: the code directory built by the project's own recipe (``make -f
  infra/Makefile build-ApiFunction``, the target ``sam build`` runs), for this machine's platform
  and the chosen interpreter (default: this one; ``--python`` / ``PERTURBER_LAMBDA_PYTHON``, e.g.
  pyenv's python3.12, the Lambda runtime's version) instead of arm64 so that it can run here, then
  made read-only (as root, which ignores file modes, ``PYTHONDONTWRITEBYTECODE=1`` stands in for
  the read-only mount).
* ``start_function``: ``python -S -m awslambdaric functions.api.handler.handler`` (``awslambdaric``
  from PyPI is the runtime interface client of AWS's Python base images) with the task root and a
  runtime directory (awslambdaric and its dependencies only: links into this environment, or for
  another interpreter the same awslambdaric version installed from PyPI) on ``PYTHONPATH`` and Lambda's
  environment variables only (plus the function's own from ``infra/template.yaml``).
* ``init_ms``: INIT = process start -> first ``/next``, the quantity Lambda reports as Init Duration.

    python eval/run_all.py run lambda-init [--repo DIR ...] [--python PY ...] [--runs 7] [--json OUT]

builds each repository's function (default: this one) for each interpreter (default: this one)
and prints the median INIT of fresh processes per build, alternating between them, plus the
unzipped size of each build.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import json
import os
import pathlib
import queue
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from evalkit import cli
from evalkit.paths import ROOT

PREFIX = "/2018-06-01/runtime"
HANDLER = "functions.api.handler.handler"
RUNTIME_PACKAGES = ("awslambdaric", "simplejson", "snapshot-restore-py")
#: the function's interpreter (default: this one); e.g. pyenv's python3.12, Lambda's version
PYTHON = os.environ.get("PERTURBER_LAMBDA_PYTHON") or sys.executable


def python_version(python: str | None = None) -> str:
    """``"3.12"``: the major.minor version of ``python`` (default ``PYTHON``)."""
    if (python or PYTHON) == sys.executable:
        return f"{sys.version_info[0]}.{sys.version_info[1]}"
    code = "import sys; print('%d.%d' % sys.version_info[:2])"
    return subprocess.run(
        [python or PYTHON, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()


class RuntimeAPI:
    """The Runtime API of one execution environment: events in, responses and errors out.

    >>> api = RuntimeAPI(); api.address.startswith("127.0.0.1:")
    True
    >>> api.close()
    """

    def __init__(self) -> None:
        self.events: queue.Queue = queue.Queue()
        self.results: dict[str, tuple[str, object]] = {}
        self.init_error: dict | None = None
        self.first_next: float | None = None
        self.done = threading.Condition()
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, fmt, *args) -> None:
                pass

            def _reply(self, status: int, body: bytes, headers: dict | None = None) -> None:
                self.send_response(status)
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                if self.path != f"{PREFIX}/invocation/next":
                    return self._reply(404, b'{"errorType":"NotFound"}')
                if api.first_next is None:
                    api.first_next = time.perf_counter()
                    with api.done:
                        api.done.notify_all()
                request_id, event = api.events.get()
                if request_id is None:  # closing: leave the client waiting, it gets killed
                    return
                self._reply(
                    200,
                    json.dumps(event).encode(),
                    {
                        "Lambda-Runtime-Aws-Request-Id": request_id,
                        "Lambda-Runtime-Deadline-Ms": str(int(time.time() * 1000) + 30_000),
                        "Lambda-Runtime-Invoked-Function-Arn": "arn:aws:lambda:us-east-1:123456789012:function:perturber-api",
                        "Lambda-Runtime-Trace-Id": "Root=1-00000000-000000000000000000000000;Sampled=0",
                    },
                )

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                parts = self.path[len(PREFIX) :].strip("/").split("/")
                try:
                    payload = json.loads(body) if body else None
                except ValueError:
                    payload = body.decode("utf-8", "replace")
                if parts == ["init", "error"]:
                    api.init_error = payload
                elif len(parts) == 3 and parts[0] == "invocation" and parts[2] in ("response", "error"):
                    api.results[parts[1]] = (parts[2], payload)
                else:
                    return self._reply(404, b'{"errorType":"NotFound"}')
                with api.done:
                    api.done.notify_all()
                self._reply(202, b'{"status":"OK"}')

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.address = f"127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def invoke(self, event: object, timeout: float = 60) -> tuple[str, object]:
        """Queue ``event``, wait for the function's answer: ``("response"|"error", payload)``."""
        request_id = str(uuid.uuid4())
        self.events.put((request_id, event))
        with self.done:
            if not self.done.wait_for(lambda: request_id in self.results or self.init_error, timeout):
                raise TimeoutError(f"no answer to the event within {timeout} s")
        if request_id not in self.results:
            return "init_error", self.init_error
        return self.results[request_id]

    def wait_first_next(self, timeout: float = 60) -> float | None:
        with self.done:
            self.done.wait_for(lambda: self.first_next is not None or self.init_error, timeout)
        return self.first_next

    def close(self) -> None:
        for _ in range(4):
            self.events.put((None, None))
        self.server.shutdown()
        self.server.server_close()


def bytecode_tag(python: str | None = None) -> tuple[str, bytes]:
    """``(cache_tag, MAGIC_NUMBER)`` of ``python`` (default ``PYTHON``): its .pyc names and header."""
    if (python or PYTHON) == sys.executable:
        import importlib.util

        return sys.implementation.cache_tag, importlib.util.MAGIC_NUMBER
    code = (
        "import sys, importlib.util; print(sys.implementation.cache_tag, importlib.util.MAGIC_NUMBER.hex())"
    )
    out = subprocess.run([python or PYTHON, "-c", code], capture_output=True, text=True, check=True).stdout
    tag, magic = out.split()
    return tag, bytes.fromhex(magic)


def _platform_args(version: str) -> str:
    plat = sysconfig.get_platform()  # e.g. linux-x86_64
    if not plat.startswith("linux-"):
        raise RuntimeError(f"the runtime-client harness needs Linux, not {plat}")
    return (
        f"--platform manylinux2014_{plat.split('-', 1)[1]} --only-binary=:all: "
        f"--python-version {version} --implementation cp"
    )


def build_function(dest: pathlib.Path, repo: pathlib.Path = ROOT, python: str | None = None) -> pathlib.Path:
    """``make -f infra/Makefile build-ApiFunction`` of ``repo`` for this machine and ``python``
    (default ``PYTHON``), made read-only."""
    python = python or PYTHON
    version = python_version(python)
    cmd = [
        "make",
        "-s",
        "-f",
        str(repo / "infra" / "Makefile"),
        "build-ApiFunction",
        f"ARTIFACTS_DIR={dest}",
        f"PYTHON={sys.executable}",
        f"PIP_PLATFORM_ARGS={_platform_args(version)}",
        f"NATIVE_ARCH={sysconfig.get_platform().split('-', 1)[1]}",
        f"TARGET_PYTHON={python}",
        f"TARGET_PYTHON_VERSION={version}",
    ]
    done = subprocess.run(cmd, cwd=repo, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{' '.join(cmd[:5])} failed:\n{done.stderr[-3000:]}")
    for path in [dest, *dest.rglob("*")]:  # /var/task is read-only on Lambda
        if not path.is_symlink():
            path.chmod(path.stat().st_mode & 0o555)
    return dest


def runtime_dir(dest: pathlib.Path, python: str | None = None) -> pathlib.Path:
    """Like /var/runtime: awslambdaric and its dependencies only (links into this environment;
    for another interpreter, this awslambdaric version installed for it from PyPI)."""
    dest.mkdir(parents=True, exist_ok=True)
    version = python_version(python)
    if version != python_version(sys.executable):
        pin = f"awslambdaric=={importlib.metadata.version('awslambdaric')}"
        cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        cmd += ["--no-compile", "--target", str(dest), *_platform_args(version).split(), pin]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(f"pip install {pin} for Python {version} failed:\n{done.stderr[-3000:]}")
        return dest
    for dist_name in RUNTIME_PACKAGES:
        dist = importlib.metadata.distribution(dist_name)
        tops = {pathlib.Path(str(f)).parts[0] for f in dist.files or ()}
        for top in tops:
            if top.endswith((".dist-info", ".egg-info")) or top in ("..", "bin"):
                continue
            src = pathlib.Path(dist.locate_file(top))
            if src.exists() and not (dest / top).exists():
                (dest / top).symlink_to(src)
    return dest


def function_environment(
    task_root: pathlib.Path,
    runtime: pathlib.Path,
    api: RuntimeAPI,
    nltk_data: pathlib.Path | None = None,
    python: str | None = None,
    **extra: str,
) -> dict:
    """Lambda's environment variables for the function plus those of infra/template.yaml."""
    version = python_version(python)
    env = {
        "AWS_LAMBDA_RUNTIME_API": api.address,
        "LAMBDA_TASK_ROOT": str(task_root),
        "LAMBDA_RUNTIME_DIR": str(runtime),
        "_HANDLER": HANDLER,
        "AWS_EXECUTION_ENV": f"AWS_Lambda_python{version}",
        "AWS_LAMBDA_FUNCTION_NAME": "perturber-api",
        "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "512",
        "AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand",
        "AWS_LAMBDA_LOG_GROUP_NAME": "/aws/lambda/perturber-api",
        "AWS_LAMBDA_LOG_STREAM_NAME": "local",
        "AWS_REGION": "us-east-1",
        "AWS_DEFAULT_REGION": "us-east-1",
        "LANG": "en_US.UTF-8",
        "TZ": ":UTC",
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "PYTHONPATH": f"{task_root}:{runtime}",
    }
    if os.geteuid() == 0:  # root ignores the read-only modes: keep Python from writing .pyc
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(template_environment())
    if nltk_data is not None:  # the layer, mounted at /opt/nltk_data on Lambda
        env["NLTK_DATA"] = str(nltk_data)
    env.update(extra)
    return env


def template_environment() -> dict:
    """The function's literal environment variables in infra/template.yaml (``!Ref`` ones empty)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    template = yaml.load((ROOT / "infra" / "template.yaml").read_text(), Loader=Loader)
    variables = template["Resources"]["ApiFunction"]["Properties"]["Environment"]["Variables"]
    return {k: "" if v is None else str(v) for k, v in variables.items()}


def start_function(env: dict, handler: str = HANDLER, python: str | None = None) -> subprocess.Popen:
    """The runtime client process (``python -S``: no site-packages, like Lambda's interpreter)."""
    return subprocess.Popen(
        [python or PYTHON, "-S", "-m", "awslambdaric", handler],
        env=env,
        cwd=env["LAMBDA_TASK_ROOT"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def stop(proc: subprocess.Popen) -> str:
    if proc.poll() is None:
        proc.kill()
    out, _ = proc.communicate(timeout=30)
    return out.decode("utf-8", "replace")


def init_ms(
    task_root: pathlib.Path,
    runtime: pathlib.Path,
    nltk_data: pathlib.Path | None,
    with_cpu: bool = False,
    python: str | None = None,
):
    """INIT of one fresh process: start -> first ``/next`` (ms); with ``with_cpu`` also the CPU
    time the process used (user + system, ms: robust on a loaded machine; it idles after /next).
    """
    api = RuntimeAPI()
    try:
        env = function_environment(task_root, runtime, api, nltk_data, python)
        start = time.perf_counter()
        proc = start_function(env, python=python)
        first = api.wait_first_next()
        proc.kill()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = -9
        out = proc.stdout.read().decode("utf-8", "replace")
        proc.stdout.close()
        if first is None:
            raise RuntimeError(f"the function did not reach /next: {api.init_error}\n{out[-2000:]}")
        wall = (first - start) * 1000
        return (wall, (usage.ru_utime + usage.ru_stime) * 1000) if with_cpu else wall
    finally:
        api.close()


def tree_bytes(path: pathlib.Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


@contextlib.contextmanager
def scratch(prefix: str) -> Iterator[pathlib.Path]:
    """A temporary folder for read-only builds, made writable again and removed on exit."""
    work = pathlib.Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield work
    finally:
        for path in [work, *work.rglob("*")]:
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(work, ignore_errors=True)


def nltk_layer() -> pathlib.Path | None:
    """The NLTK data built by ``make nltk-data`` (the layer), when there is one."""
    nltk = ROOT / "build" / "nltk_data"
    return nltk if nltk.is_dir() else None


def measure_inits(repos: list[pathlib.Path], pythons: list[str], runs: int, work: pathlib.Path) -> dict:
    """Each repository's function built for each interpreter; INIT of ``runs`` fresh processes
    of each, alternating between the builds so that load changes hit every build alike."""
    runtimes = {py: runtime_dir(work / f"runtime{j}", py) for j, py in enumerate(pythons)}
    builds = {}
    for i, repo in enumerate(repos):
        for j, py in enumerate(pythons):
            builds[repo, py] = build_function(work / f"task{i}-{j}", repo, py)
    samples: dict = {key: [] for key in builds}
    for _ in range(runs):
        for repo, py in builds:
            samples[repo, py].append(init_ms(builds[repo, py], runtimes[py], nltk_layer(), True, py))
    return {
        f"{repo} (python {python_version(py)})": {
            "init_ms_median": round(statistics.median(w for w, _ in samples[repo, py]), 1),
            "init_cpu_ms_median": round(statistics.median(c for _, c in samples[repo, py]), 1),
            "init_ms": [round(w, 1) for w, _ in samples[repo, py]],
            "unzipped_bytes": tree_bytes(builds[repo, py]),
            "pyc_files": sum(1 for _ in builds[repo, py].rglob("*.pyc")),
        }
        for repo, py in builds
    }


def main(argv: list[str] | None = None) -> int:
    parser = cli.parser("lambda-init", __doc__)
    parser.add_argument(
        "--repo",
        action="append",
        type=pathlib.Path,
        help="repository to build and measure (repeatable; default: this one)",
    )
    parser.add_argument(
        "--python",
        action="append",
        help="the function's interpreter, e.g. ~/.pyenv/versions/3.12.1/bin/python3.12 (repeatable; "
        "default: PERTURBER_LAMBDA_PYTHON or this one)",
    )
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args(argv)
    repos = [r.resolve() for r in (args.repo or [ROOT])]
    pythons = [os.path.abspath(p) for p in args.python] if args.python else [PYTHON]
    with scratch("perturber-init-") as work:
        report = measure_inits(repos, pythons, args.runs, work)
    for key, row in report.items():
        print(
            f"{key}: INIT median {row['init_ms_median']} ms (CPU {row['init_cpu_ms_median']} ms) "
            f"over {args.runs} fresh processes "
            f"({row['unzipped_bytes'] / 1e6:.1f} MB unzipped, {row['pyc_files']} .pyc)"
        )
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
