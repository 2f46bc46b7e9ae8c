"""One configuration table: the documented table is the generated one, and every PERTURBER_* name
of the repository has a row, parsed by the one parser."""

import pathlib
import re
import subprocess
import sys

import pytest

from perturber import settings
from perturber.errors import ConfigurationError

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_documented_table_is_the_generated_one():
    doc = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    documented = doc.split(settings.TABLE_START, 1)[1].split(settings.TABLE_END)[0]
    assert documented == settings.markdown_table() and settings.with_table(doc) == doc
    out = subprocess.run(
        [sys.executable, "-m", "perturber.settings"], capture_output=True, text=True, check=True
    )
    assert out.stdout == documented
    assert "docs/configuration.md" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_variable_of_the_repository_has_a_row():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    names = set()
    for rel in files.split():
        if rel.startswith(("tests/", "CHANGELOG")) or rel.endswith((".lock", ".zip", ".png", ".json")):
            continue
        text = (ROOT / rel).read_text(encoding="utf-8", errors="replace")
        names |= set(re.findall(r"PERTURBER_[A-Z0-9]+(?:_[A-Z0-9]+)*", text))
    names -= {"PERTURBER_LLM"}  # the prefix itself ("PERTURBER_LLM_*")
    assert names - set(settings.VARIABLES) == set()
    assert {
        "PERTURBER_LLM_ALLOW_CALLER_KEYS",
        "PERTURBER_LLM_DEADLINE",
        "PERTURBER_LLM_REQUEST_DEADLINE",
    } <= names


def test_product_code_reads_the_environment_only_through_settings():
    """No PERTURBER_* variable is read with os.environ / os.getenv outside perturber/settings.py."""
    offenders = []
    for path in [*ROOT.glob("perturber/**/*.py"), *ROOT.glob("functions/**/*.py")]:
        text = path.read_text(encoding="utf-8")
        if path.name != "settings.py" and re.search(r"(environ\.get|getenv)\(\s*[\"']PERTURBER_", text):
            offenders.append(path.relative_to(ROOT).as_posix())
        if path.name != "settings.py" and re.search(r"environ\.get\((EMOTION_ENV|name|var)\)", text):
            offenders.append(path.relative_to(ROOT).as_posix())
    assert offenders == []


@pytest.mark.parametrize(
    "name, raw, value",
    [
        ("PERTURBER_LLM_SEND_SEED", " Off ", False),
        ("PERTURBER_LLM_REQUIRE_AUTH", "YES", True),
        ("PERTURBER_LLM_ALLOW_CALLER_KEYS", "", False),
        ("PERTURBER_WARM_SYNONYM", "1", True),
        ("PERTURBER_LLM_TIMEOUT", "2.5", 2.5),
        ("PERTURBER_LLM_MODELS", "a, b,a", ("a", "b")),
        (
            "PERTURBER_LLM_ALLOWED_HOSTS",
            "API.example.com, localhost:8000",
            ("api.example.com", "localhost:8000"),
        ),
        ("PERTURBER_LLM_BASE_URL", "https://api.example.com/v1/", "https://api.example.com/v1"),
        ("PERTURBER_MAX_TEXTS", None, 1000),
    ],
)
def test_one_parser(name, raw, value):
    assert settings.read(name, {} if raw is None else {name: raw}) == value


@pytest.mark.parametrize(
    "name, raw",
    [
        ("PERTURBER_LLM_SEND_SEED", "maybe"),
        ("PERTURBER_WARM_SYNONYM", "2"),
        ("PERTURBER_LLM_DEFAULT_MODEL", "-x"),
        ("PERTURBER_LLM_BEARER_SHA256", "abc"),
        ("PERTURBER_LLM_DEADLINE", "0"),
        ("PERTURBER_LLM_CALLER_CONCURRENCY", "0"),
        ("PERTURBER_MAX_TEXT_CHARS", "lots"),
    ],
)
def test_bad_values_are_configuration_errors_naming_the_variable(name, raw):
    with pytest.raises(ConfigurationError) as info:
        settings.read(name, {name: raw})
    assert name in info.value.message and info.value.details["variable"] == name


def test_service_start_checks_every_variable(monkeypatch):
    from perturber.service.app import create_app

    monkeypatch.setenv("PERTURBER_LLM_REQUEST_DEADLINE", "soon")
    with pytest.raises(ConfigurationError, match="PERTURBER_LLM_REQUEST_DEADLINE must be a number"):
        create_app()


def test_api_key_falls_back_to_openai_api_key():
    assert settings.read("PERTURBER_LLM_API_KEY", {"OPENAI_API_KEY": "sk-o"}) == "sk-o"
    assert (
        settings.read("PERTURBER_LLM_API_KEY", {"OPENAI_API_KEY": "sk-o", "PERTURBER_LLM_API_KEY": "sk-p"})
        == "sk-p"
    )
    assert settings.read("PERTURBER_LLM_API_KEY", {}) is None


def test_every_test_named_by_the_security_model_exists():
    """docs/service.md names the test of each threat: each of them is a test of that file."""
    doc = (ROOT / "docs" / "service.md").read_text(encoding="utf-8")
    named = 0
    for cell in re.findall(r"\| ([^|]*`tests/[^|]*) \|\n", doc):
        current = None
        for ref in re.findall(r"`([^`]+)`", cell):
            path, _, test = ref.partition("::")
            if path.startswith("tests/"):
                current = ROOT / path
                assert current.is_file(), ref
            if test or (current is not None and ref.startswith(("test_", "…"))):
                name = (test or ref).split("…")[0].rstrip("_")
                source = current.read_text(encoding="utf-8")
                assert re.search(rf"^def {re.escape(name)}", source, re.M), ref
                named += 1
    assert named >= 30
