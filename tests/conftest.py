import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "golden"))
sys.path.insert(0, str(ROOT / "tests"))

import perturber  # noqa: E402
from llm_server import llm_server, llm_server_session  # noqa: E402,F401 - the model-tier fixtures

# The 1 MB tests need the library's hard upper limit; the default stays 100,000.
perturber.configure(max_text_chars=1_000_000)

SHARED = ROOT.parent / "shared"


@pytest.fixture(scope="session")
def corpus():
    import harness
    return harness.CORPUS
