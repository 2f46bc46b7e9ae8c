"""Limits are values: no process-wide state is written by building a service or by a call."""

import os
import subprocess
import sys

import pytest
from fastapi.testclient import TestClient

import perturber
from perturber.service import Settings, create_app
from perturber.settings import FIELDS, Limits, default_limits


def test_two_apps_with_different_limits_in_one_process():
    small = TestClient(create_app(Settings(max_text_chars=10, magnitude_max_chars=0)))
    large = TestClient(create_app(Settings(max_text_chars=50)))
    body = {"texts": ["x" * 20], "n": 1}
    err = small.post("/perturb/native/quotes", json=body)
    assert err.status_code == 413 and err.json()["error"]["limit"] == 10
    ok = large.post("/perturb/native/quotes", json=body)
    assert ok.status_code == 200 and ok.json()["results"][0]["magnitude"] is not None
    assert (
        small.post("/perturb/native/quotes", json={"texts": ["x"], "n": 1}).json()["results"][0]["magnitude"]
        is None
    )  # small's magnitude guard, not large's
    too_long = large.post("/perturb/native/quotes", json={"texts": ["x" * 51]})
    assert too_long.status_code == 413 and too_long.json()["error"]["limit"] == 50
    # building the apps changed nothing for the library
    assert default_limits() == Limits.from_env()
    assert perturber.apply("x" * 1000, "quotes").magnitude is not None


def test_limits_is_a_frozen_validated_value():
    limits = Limits(max_text_chars=5)
    with pytest.raises(AttributeError):
        limits.max_text_chars = 6  # type: ignore[misc]
    for bad in (0, 1_000_001, 5.0, True, "5"):
        with pytest.raises(perturber.ConfigurationError, match="max_text_chars must be an int"):
            Limits(max_text_chars=bad)  # type: ignore[arg-type]
    with pytest.raises(perturber.ConfigurationError, match="max_texts"):
        Settings(max_texts=0)


def test_limits_are_keyword_only():
    with pytest.raises(TypeError):
        perturber.apply("x", "quotes", None, 0, "native", Limits())  # type: ignore[misc]
    assert perturber.perturb("ab", "quotes", {"n": 1}, limits=Limits(max_text_chars=2)) == '" ab "'


def test_one_table_of_variables():
    env = {v.env: str(v.default) for v in FIELDS.values()}
    assert Settings.from_env(env) == Settings() and Limits.from_env(env) == Limits()
    s = Settings.from_env({"PERTURBER_MAX_TEXT_CHARS": "123", "PERTURBER_MAGNITUDE_MAX_CHARS": "9"})
    assert (
        s.limits
        == Limits.from_env({"PERTURBER_MAX_TEXT_CHARS": "123", "PERTURBER_MAGNITUDE_MAX_CHARS": "9"})
        == Limits(123, 9)
    )
    with pytest.raises(
        perturber.ConfigurationError, match="PERTURBER_MAX_TEXTS must be an integer, got 'lots'"
    ):
        Settings.from_env({"PERTURBER_MAX_TEXTS": "lots"})
    with pytest.raises(ValueError, match=r"PERTURBER_MAX_TEXT_CHARS must be an int in \[1, 1000000\]"):
        Limits.from_env({"PERTURBER_MAX_TEXT_CHARS": "0"})


def _run(code: str, env_value: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PERTURBER_MAX_TEXT_CHARS": env_value}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)


def test_bad_limit_variable_breaks_service_start_not_import():
    imported = _run("import perturber, perturber.service; print('ok')", "lots")
    assert imported.returncode == 0 and imported.stdout.strip() == "ok", imported.stderr
    served = _run(
        "import sys; from perturber.cli import main; sys.exit(main(['serve', '--port', '1']))", "lots"
    )
    assert served.returncode == 2
    assert served.stderr.strip() == (
        "perturber: configuration_error: PERTURBER_MAX_TEXT_CHARS must be an integer, got 'lots'"
    )
    called = _run("import perturber; perturber.perturb('x', 'quotes')", "2000000")
    assert (
        called.returncode == 1
        and ("ConfigurationError: PERTURBER_MAX_TEXT_CHARS must be an int in [1, 1000000], got 2000000")
        in called.stderr
    )


def test_good_limit_variable_is_the_process_default():
    out = _run(
        "import perturber\ntry:\n    perturber.perturb('xxxx', 'quotes')\n"
        "except perturber.InputTooLarge as e:\n    print(e.details['limit'])",
        "3",
    )
    assert out.stdout.strip() == "3", out.stderr
