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


def test_a_corpus_extension_keeps_every_stored_case():
    stored = {"version": 1, "outputs": {"a": {"text": "x"}}}
    assert harness.only_new_cases(stored, {"version": 1, "outputs": {"a": {"text": "x"}, "b": {"text": "y"}}})
    assert not harness.only_new_cases(
        stored, {"version": 1, "outputs": {"a": {"text": "z"}, "b": {"text": "y"}}}
    )


def test_the_corpus_covers_every_protected_span_kind():
    """Every protected-span kind of docs/spec/catalog.md §1.8 (JSON whole and inside prose) and a
    Markdown table appear in the corpus, so the golden files catch an output change on them."""
    import re

    from perturber import jsontext

    texts = harness.CORPUS.values()
    kinds = {
        "fenced code": lambda t: re.search(r"^ {0,3}(```|~~~)", t, re.M),
        "inline code": lambda t: re.search(r"(?<!`)`[^`\n]+`(?!`)", t),
        "url": lambda t: re.search(r"https?://|www\.", t),
        "e-mail": lambda t: re.search(r"\w@\w", t),
        "Markdown table": lambda t: re.search(r"^\|.*\|$\n^\|[-:| ]+\|$", t, re.M),
        "whole JSON document": lambda t: t.lstrip()[:1] in "{[" and jsontext.is_container(t.strip()),
        "JSON inside prose": lambda t: not t.lstrip().startswith(("{", "[")) and list(jsontext.regions(t)),
    }
    missing = [kind for kind, found in kinds.items() if not any(found(t) for t in texts)]
    assert missing == []


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.key)
def test_every_reason_in_the_golden_outputs_is_declared(spec):
    """The reason codes an entry reports on the corpus are among those it declares (the reference
    documents the declared ones)."""
    seen = {case["reason"] for case in harness.load(spec)["outputs"].values() if case["reason"]}
    assert seen <= set(spec.reason_codes())


def test_declarations_are_checked():
    with pytest.raises(ValueError, match="bad declaration"):
        registry.perturbation("x", family="padding", description="", reasons=("typo_code",))
    with pytest.raises(ValueError, match="bad declaration"):
        registry.perturbation("x", family="padding", description="", direction_param="missing")
    with pytest.raises(ValueError, match="bad declaration"):
        registry.perturbation("x", family="padding", description="", fix_at="somewhere")
    with pytest.raises(ValueError, match="bad declaration"):
        registry.perturbation("x", family="padding", description="", graded_family="Typing")
