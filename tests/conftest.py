import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "golden"))
sys.path.insert(0, str(ROOT / "tests"))

import perturber  # noqa: E402
from llm_server import llm_server, llm_server_session  # noqa: E402,F401 - the model-tier fixtures

#: The library's hard upper limit, for the 1 MB tests (pass ``limits=BIG``; the default stays 100,000).
BIG = perturber.Limits(max_text_chars=1_000_000)
SHARED = ROOT.parent / "shared"


@pytest.fixture(scope="session")
def corpus():
    import harness
    return harness.CORPUS
