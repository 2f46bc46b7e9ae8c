"""functions/api/requirements.lock: the Lambda build's hash-pinned lock agrees with the declared
dependencies (offline; `bash infra/lock.sh --check` re-resolves against PyPI in CI)."""

import pathlib
import re
import tomllib

from packaging.requirements import Requirement

ROOT = pathlib.Path(__file__).resolve().parent.parent
REQS = ROOT / "functions" / "api" / "requirements.txt"
LOCK = ROOT / "functions" / "api" / "requirements.lock"


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _lock() -> dict:
    """{name: (version, [hashes])} from the lock's `name==version \\ --hash=...` entries."""
    entries = {}
    text = LOCK.read_text(encoding="utf-8").replace("\\\n", " ")
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)==(\S+)((?:\s+--hash=sha256:[0-9a-f]{64})+)\s*", line)
        assert m, f"lock line is not `name==version --hash=...`: {line[:80]}"
        entries[_norm(m.group(1))] = (m.group(2), re.findall(r"sha256:([0-9a-f]{64})", m.group(3)))
    return entries


def _direct() -> dict:
    out = {}
    for line in REQS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            req = Requirement(line)
            pins = [s.version for s in req.specifier if s.operator == "=="]
            assert len(pins) == 1, f"{line}: requirements.txt pins exactly"
            out[_norm(req.name)] = pins[0]
    return out


def test_every_direct_pin_is_locked_at_its_version_with_hashes():
    lock, direct = _lock(), _direct()
    for name, version in direct.items():
        assert lock[name][0] == version, name
    assert all(hashes for _, hashes in lock.values())
    assert {"starlette", "anyio", "pydantic-core", "typing-extensions"} <= set(lock)
    # compiled packages carry hashes for more than one wheel (aarch64 and x86_64 at least)
    assert len(lock["pydantic-core"][1]) >= 2 and len(lock["regex"][1]) >= 2


def test_requirements_agree_with_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = [Requirement(d) for d in project["dependencies"]]
    declared += [
        Requirement(d)
        for d in project["optional-dependencies"]["service"]
        if Requirement(d).name in ("fastapi", "mangum")
    ]
    declared += [Requirement(d) for d in project["optional-dependencies"]["nltk"]]
    direct = _direct()
    for req in declared:
        assert _norm(req.name) in direct, f"{req.name} is declared but not in {REQS.name}"
        assert req.specifier.contains(direct[_norm(req.name)]), (
            f"{req.name}=={direct[_norm(req.name)]} in {REQS.name} violates pyproject's {req}"
        )


def test_the_builds_install_the_lock_with_hashes():
    makefile = (ROOT / "infra" / "Makefile").read_text(encoding="utf-8")
    assert '--require-hashes -r "$(REPO)/functions/api/requirements.lock"' in makefile
    sls = (ROOT / "serverless.yml").read_text(encoding="utf-8")
    assert "fileName: functions/api/requirements.lock" in sls and "- --require-hashes" in sls
    checks = (ROOT / "infra" / "ci-checks.sh").read_text(encoding="utf-8")
    assert "infra/lock.sh --check" in checks
