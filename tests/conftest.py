import gc
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "golden"))
sys.path.insert(0, str(ROOT / "tests"))

from llm_server import llm_server, llm_server_session  # noqa: F401 - the model-tier fixtures
from model_tier_helpers import tier  # noqa: F401 - the configured model tier fixture

import perturber
from perturber import settings


def pytest_configure(config):
    """The suite makes millions of short-lived objects (1 MB texts and their tokens, catalogs,
    reports): the cyclic collector runs less often than its defaults, and never rescans what
    was imported before the tests (no test reads the collector's state; memory is measured in
    fresh interpreters)."""
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)


#: The library's hard upper limit, for the 1 MB tests (pass ``limits=BIG``; the default stays 100,000).
BIG = perturber.Limits(max_text_chars=1_000_000)
#: The team's folder beside the repository (reference vectors). A user's clone has none: the tests
#: that read it skip, naming the file; CI sets PERTURBER_REQUIRE_SHARED=1 to make such a skip a failure.
SHARED = ROOT.parent / "shared"
REQUIRE_SHARED = settings.read("PERTURBER_REQUIRE_SHARED")


def shared_file(relative: str) -> pathlib.Path:
    """``../shared/<relative>``, or skip the test naming it (fail under PERTURBER_REQUIRE_SHARED=1)."""
    path = SHARED / relative
    if path.exists():
        return path
    reason = f"needs ../shared/{relative}, which is outside the repository"
    if REQUIRE_SHARED:
        pytest.fail(f"{reason} (PERTURBER_REQUIRE_SHARED=1)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def corpus():
    import harness

    return harness.CORPUS


def write_brittlebench_stimuli(path: pathlib.Path) -> pathlib.Path:
    """Rebuild the engine's emotion stimulus table (CC BY-NC, never committed) from the vectors'
    ``emotion_prompt`` rows, byte for byte (its sha256 is checked by the tier)."""
    import json

    entries = {}
    vectors = shared_file("vectors/brittlebench/emotion_prompt.jsonl")
    for line in vectors.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["input"] == "Hello":
            out = row["output"]
            entries[row["params"]["stimuli_code"]] = (
                ("suffix", out[len("Hello\n") :])
                if out.startswith("Hello\n")
                else ("prefix", out[: -len("\nHello")])
            )
    body = ",\n".join(
        f'    "{code}": {{"type": "{kind}", "text": {json.dumps(text)}}}'
        for code, (kind, text) in entries.items()
    )
    path.write_bytes(("{\n" + body + "\n}").encode("utf-8"))
    return path


@pytest.fixture(scope="session", autouse=True)
def brittlebench_stimuli(tmp_path_factory):
    """Every test sees the stimulus table (so brittlebench/emotion_prompt runs like the other
    entries); tests of the missing-table path unset PERTURBER_BRITTLEBENCH_EMOTION_FILE."""
    key = "PERTURBER_BRITTLEBENCH_EMOTION_FILE"
    if not (SHARED / "vectors" / "brittlebench").is_dir() or os.environ.get(key):
        yield os.environ.get(key)
        return
    path = write_brittlebench_stimuli(tmp_path_factory.mktemp("brittlebench") / "emotion_prompts.json")
    os.environ[key] = str(path)
    yield str(path)
    os.environ.pop(key, None)
