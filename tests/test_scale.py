"""1 MB inputs at maximum parameters finish for every deterministic entry (times: `make bench`)."""

import harness
import pytest
from conftest import BIG
from test_properties import strongest

import perturber

MEGABYTE_TEXT = None


def megabyte_text() -> str:
    global MEGABYTE_TEXT
    if MEGABYTE_TEXT is None:
        block = "\n\n".join(t for k, t in harness.CORPUS.items() if not k.startswith("schema"))
        MEGABYTE_TEXT = (block * (1_000_000 // len(block) + 1))[:1_000_000]
    return MEGABYTE_TEXT


@pytest.mark.slow
@pytest.mark.parametrize("spec", harness.deterministic_entries(), ids=lambda s: s.key)
def test_one_megabyte_at_maximum_parameters_completes(spec):
    text = megabyte_text()
    result = perturber.apply(text, spec.name, strongest(spec), 7, spec.category, limits=BIG)
    assert isinstance(result.text, str)
    assert len(result.text) <= 8 * len(text) + 100_000
    assert result.magnitude is None and result.details.get("magnitude_skipped") is True or not result.applied
