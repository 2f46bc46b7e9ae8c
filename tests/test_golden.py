"""Golden outputs of every deterministic entry (corpus x parameter sets x seeds)."""

import copy

import harness
import pytest

from perturber import registry

SPECS = harness.deterministic_entries()


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.key)
def test_golden(spec):
    problem = harness.verdict(harness.load(spec), harness.compute(spec))
    assert problem is None, f"{spec.key}: {problem}"


def test_every_deterministic_entry_has_a_golden_file():
    missing = [s.key for s in SPECS if not harness.path_for(s).exists()]
    assert missing == []


def test_changed_output_without_version_bump_is_refused():
    spec = registry.get("quotes")
    stored = harness.load(spec)
    fresh = copy.deepcopy(stored)
    first = next(iter(fresh["outputs"]))
    fresh["outputs"][first]["text"] += "!"
    assert "without a version bump" in harness.verdict(stored, fresh)
    fresh["version"] += 1
    assert "regenerate" in harness.verdict(stored, fresh)
    assert harness.main(["--regenerate", "no-such-entry"]) == 0


def test_golden_cases_cover_the_corpus_seeds_and_intensity():
    spec = registry.get("quotes")
    ids = [c[0] for c in harness.cases(spec)]
    assert "empty|default|0" in ids and "question|n=max|0" in ids
    seeded = next(s for s in SPECS if s.seed_sensitive)
    ids = {c[0].rsplit("|", 1)[1] for c in harness.cases(seeded)}
    assert ids == {"0", "1", "7"}
