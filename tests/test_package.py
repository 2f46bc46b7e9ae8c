"""The package as a user gets it: the sdist and the wheels of `make dist` (pure, and manylinux
x86_64 + aarch64 with perturber._native), `twine check`, and this machine's wheel installed into a
fresh virtualenv outside the source tree (CLI, catalog, service, playground files, tables and the
compiled module ship)."""

import email.parser
import json
import os
import pathlib
import platform
import re
import socket
import subprocess
import sys
import tarfile
import time
import urllib.request
import zipfile

import pytest

import perturber

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _run(cmd, **kw):
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)
    assert out.returncode == 0, f"{cmd}: {out.stdout[-2000:]}\n{out.stderr[-2000:]}"
    return out


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "infra.native", "wheels", "--outdir", str(out)], cwd=ROOT)
    return out


@pytest.fixture(scope="module")
def venv(dist, tmp_path_factory):
    """A fresh virtualenv with the wheel and its 'service' extra, outside the source tree."""
    home = tmp_path_factory.mktemp("venv")
    _run([sys.executable, "-m", "venv", str(home / "env")])
    wheel = next(dist.glob(f"*-manylinux_2_17_{platform.machine()}*.whl"))
    _run(
        [
            str(home / "env" / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            f"{wheel}[service]",
        ]
    )
    return home


@pytest.mark.slow
def test_sdist_and_wheel_pass_twine_check(dist):
    names = sorted(p.name for p in dist.iterdir())
    version = perturber.__version__
    assert names == [
        f"perturber-{version}-cp311-abi3-manylinux_2_17_aarch64.manylinux2014_aarch64.whl",
        f"perturber-{version}-cp311-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
        f"perturber-{version}-py3-none-any.whl",
        f"perturber-{version}.tar.gz",
    ]
    out = _run([sys.executable, "-m", "twine", "check", "--strict", *map(str, dist.iterdir())])
    assert out.stdout.count("PASSED") == 4
    with zipfile.ZipFile(dist / names[0]) as aarch64, zipfile.ZipFile(dist / names[2]) as pure:
        assert set(aarch64.namelist()) - set(pure.namelist()) == {"perturber/_native.abi3.so"}
        assert aarch64.read("perturber/_native.abi3.so")[18] == 0xB7  # ELF e_machine: aarch64
    for name in names[:3]:  # each wheel's WHEEL headers name the tags of its file name
        with zipfile.ZipFile(dist / name) as wheel:
            headers = email.parser.Parser().parsestr(
                wheel.read(f"perturber-{version}.dist-info/WHEEL").decode()
            )
        python, abi, platforms = name.removesuffix(".whl").split("-")[2:]
        assert headers.get_all("Tag") == [f"{python}-{abi}-{p}" for p in platforms.split(".")]
        assert headers["Root-Is-Purelib"] == ("true" if abi == "none" else "false")
    with tarfile.open(dist / names[3]) as sdist:
        assert {f"perturber-{version}/{p}" for p in ("setup.py", "perturber/_native.c")} <= set(
            sdist.getnames()
        )


@pytest.mark.slow
def test_version_is_single_sourced(dist):
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert not re.search(r'^version\s*=\s*"', pyproject, re.M) and 'dynamic = ["version"]' in pyproject
    assert perturber.__version__ in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_installed_wheel_works_outside_the_source_tree(venv):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NLTK_DATA")}
    bin_dir = venv / "env" / "bin"
    where = _run(
        [str(bin_dir / "python"), "-c", "import perturber; print(perturber.__file__)"], cwd=venv, env=env
    ).stdout
    assert str(venv) in where and str(ROOT) not in where
    loaded = [str(bin_dir / "python"), "-c", "import perturber.native as n; print(n.c.__name__)"]
    assert _run(loaded, cwd=venv, env=env).stdout.strip() == "perturber._native"
    assert "usage: perturber" in _run([str(bin_dir / "perturber"), "--help"], cwd=venv, env=env).stdout
    # a table-backed entry proves perturber/data/*.json ship
    out = _run([str(bin_dir / "perturber"), "spelling_uk", "--text", "My favorite color"], cwd=venv, env=env)
    assert out.stdout == "My favourite colour"
    listing = json.loads(_run([str(bin_dir / "perturber"), "list", "--json"], cwd=venv, env=env).stdout)
    assert [e["name"] for e in listing] == [e["name"] for e in perturber.list_perturbations()]

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [str(bin_dir / "perturber"), "serve", "--port", str(port)],
        cwd=venv,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                health = json.load(urllib.request.urlopen(base + "/health", timeout=2))
                break
            except OSError:
                assert server.poll() is None, server.stderr.read().decode()[-2000:]
                assert time.monotonic() < deadline, "the installed service did not start"
                time.sleep(0.2)
        assert health == {"status": "ok"}
        req = urllib.request.Request(
            base + "/perturb/native/quotes",
            method="POST",
            data=json.dumps({"texts": ["Hi"], "n": 2}).encode(),
            headers={"content-type": "application/json"},
        )
        assert json.load(urllib.request.urlopen(req, timeout=10))["results"][0]["text"] == '"" Hi ""'
        for path, needle in [
            ("/", "perturber playground"),
            ("/static/playground.js", "renderDiff"),
            ("/static/gallery.js", "runGallery"),
            ("/reference", "# Perturbation reference"),
        ]:
            body = urllib.request.urlopen(base + path, timeout=30).read().decode()
            assert needle in body, path
    finally:
        server.terminate()
        server.wait(10)


def test_release_workflow_builds_checks_and_publishes_with_trusted_publishing():
    import yaml

    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8"))
    on = wf.get("on", wf.get(True))  # YAML 1.1 reads the key `on` as True
    assert on["push"]["tags"] == ["v*"] and wf["permissions"] == {"contents": "read"}
    build, publish = wf["jobs"]["build"], wf["jobs"]["publish"]
    runs = "\n".join(step.get("run", "") for step in build["steps"])
    assert "python -m infra.native wheels --outdir dist/" in runs and "twine check --strict dist/*" in runs
    assert "GITHUB_REF_NAME" in runs and "CHANGELOG.md" in runs
    assert publish["needs"] == "build" and publish["permissions"] == {"id-token": "write"}
    assert publish["steps"][-1]["uses"].startswith("pypa/gh-action-pypi-publish@")
    assert "with" not in publish["steps"][-1]  # no password or token: trusted publishing
    assert "secrets." not in (ROOT / ".github" / "workflows" / "release.yml").read_text()
    # the tag check reads the version the way the build does
    script = next(s["run"] for s in build["steps"] if "GITHUB_REF_NAME" in s.get("run", ""))
    one_liner = re.search(r'python -c "(.+?)"\)', script).group(1)
    out = subprocess.run([sys.executable, "-c", one_liner], cwd=ROOT, capture_output=True, text=True)
    assert out.stdout.strip() == perturber.__version__
