"""The primitive, the registry, validation, seeds, draws and errors (docs/spec/catalog.md §1)."""

import dataclasses
import json
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perturber
from perturber import core, registry
from perturber.core import MAX_SEED
from perturber.rng import Draws, quota, select


def test_result_has_exactly_the_catalog_fields():
    r = perturber.apply("Hi", "spaces", {"n": 2})
    assert list(r.to_dict()) == [
        "text",
        "applied",
        "reason",
        "edits",
        "magnitude",
        "name",
        "category",
        "family",
        "version",
        "in_scope",
        "expectation",
        "kind",
        "seed",
        "params",
        "details",
    ]
    assert r.to_dict() == {
        "text": "   Hi   ",
        "applied": True,
        "reason": None,
        "edits": 1,
        "magnitude": 0.6,
        "name": "spaces",
        "category": "native",
        "family": "padding",
        "version": 1,
        "in_scope": True,
        "expectation": "invariant",
        "kind": "deterministic",
        "seed": 0,
        "params": {"n": 2},
        "details": {},
    }


def test_baseline_is_always_control():
    for text in ("", "What is 2+2?"):
        r = perturber.apply(text, "baseline")
        assert (r.text, r.applied, r.reason, r.edits, r.magnitude) == (text, False, "control", 0, 0.0)


def test_empty_input_is_not_applied_for_every_other_entry():
    for spec in registry.entries():
        if spec.family == "control" or spec.model_backed or spec.category == "brittlebench":
            continue  # the tier keeps the engine's rules (pads ""): tests/test_brittlebench.py
        r = perturber.apply("", spec.name, None, 0, spec.category)
        assert (r.text, r.applied, r.reason, r.edits) == ("", False, "empty_input", 0), spec.key


def test_zero_intensity_makes_no_draw(monkeypatch):
    monkeypatch.setattr(Draws, "_refill", lambda self: pytest.fail("drew"))
    for spec in registry.entries():
        if spec.skip_zero_intensity:
            zero = registry.ZERO_INTENSITY[spec.intensity]
            r = perturber.apply("Some words here, 12 and more.", spec.name, {spec.intensity: zero})
            assert r.reason == "zero_intensity", spec.key


@pytest.mark.parametrize("seed", [True, False, 1.0, -1, MAX_SEED + 1, None, "1"])
def test_bad_seeds_are_rejected(seed):
    with pytest.raises(perturber.InvalidParams) as err:
        perturber.perturb("x", "quotes", seed=seed)
    assert err.value.details["field"] == "seed"


def test_seed_bounds_are_inclusive():
    assert perturber.perturb("x", "quotes", seed=MAX_SEED) == perturber.perturb("x", "quotes", seed=0)


@pytest.mark.parametrize(
    "params, field",
    [
        ({"n": 0}, "n"),
        ({"n": 1001}, "n"),
        ({"n": True}, "n"),
        ({"n": 2.0}, "n"),
        ({"n": "3"}, "n"),
        ({"width": 3}, "width"),
        ({"n": None}, "n"),
    ],
)
def test_bad_params_name_the_field_and_range(params, field):
    with pytest.raises(perturber.InvalidParams) as err:
        perturber.perturb("x", "quotes", params)
    assert err.value.details["field"] == field
    assert field in err.value.message


def test_float_params_accept_ints_and_enforce_the_step():
    p = registry.Param("rate", float, 0.5, "r", 0.0, 1.0, step=0.0001)
    assert p.validate(1, "t") == 1 and p.validate(0.0001, "t") == 0.0001
    assert p.validate(0.3, "t") == 0.3 and p.validate(0.1234, "t") == 0.1234
    for bad in (0.00005, float("nan"), float("inf"), True, 1.5, -0.1):
        with pytest.raises(perturber.InvalidParams):
            p.validate(bad, "t")
    ratio = registry.Param("ratio", float, 2.0, "r", 1.0, 8.0, step=0.01)
    assert ratio.validate(2.57, "t") == 2.57
    with pytest.raises(perturber.InvalidParams):
        ratio.validate(2.575, "t")


def test_choices_are_exact_and_case_sensitive():
    p = registry.choice("marker", "-", ["-", "*", "+"], "m")
    assert p.validate("*", "t") == "*"
    with pytest.raises(perturber.InvalidParams):
        p.validate("x", "t")


def test_params_must_be_a_mapping():
    with pytest.raises(perturber.InvalidParams):
        perturber.perturb("x", "quotes", [("n", 2)])


def test_unknown_names_suggest_close_matches():
    with pytest.raises(perturber.UnknownPerturbation) as err:
        perturber.perturb("x", "quotse")
    assert err.value.details["suggestions"] == ["quotes"] and "did you mean quotes" in err.value.message
    with pytest.raises(perturber.UnknownPerturbation) as err:
        perturber.perturb("x", "quotes", category="nope")
    assert err.value.code == "unknown_perturbation"


def test_text_validation():
    with pytest.raises(perturber.InvalidParams):
        perturber.perturb(b"x", "quotes")
    with pytest.raises(perturber.InvalidParams, match="surrogate"):
        perturber.perturb("a\udc00b", "quotes")
    with pytest.raises(perturber.InvalidParams, match=r"lone surrogate U\+D83D at offset 3$"):
        perturber.perturb("é’s\ud83d!", "baseline")
    ten = perturber.Limits(max_text_chars=10)
    with pytest.raises(perturber.InputTooLarge) as err:
        perturber.perturb("x" * 11, "quotes", limits=ten)
    assert err.value.details["limit"] == 10 and err.value.http_status == 413
    assert perturber.perturb("x" * 10, "baseline", limits=ten) == "x" * 10
    with pytest.raises(perturber.InputTooLarge):
        perturber.apply("x" * 11, "baseline", limits=ten)
    assert perturber.apply("x" * 11, "baseline").text == "x" * 11  # the defaults are untouched


def test_a_text_checked_once_is_still_checked_for_size_and_a_new_text_for_surrogates():
    clean = "caf\u00e9 \u2019" * 3  # non-ASCII: the surrogate pass runs once, then the memo answers
    assert perturber.perturb(clean, "baseline") == clean and core._last_clean == clean
    assert perturber.perturb("".join(clean), "baseline", seed=1) == clean  # an equal new object
    with pytest.raises(perturber.InputTooLarge):
        perturber.perturb(clean, "baseline", limits=perturber.Limits(max_text_chars=len(clean) - 1))
    for bad in (clean[:-1] + "\udc00", "\ud800" + clean[1:]):  # same length, one code point apart
        with pytest.raises(perturber.InvalidParams, match="lone surrogate"):
            perturber.perturb(bad, "baseline")
        with pytest.raises(perturber.InvalidParams, match="lone surrogate"):
            perturber.apply(bad, "quotes")
    assert core._last_clean == clean


def test_a_seedless_deterministic_entry_is_given_no_draws(monkeypatch):
    for spec in registry.entries():
        assert spec.draws == (spec.seed_sensitive or spec.model_backed), spec.key
    made = []
    monkeypatch.setattr(core, "Draws", lambda seed: made.append(seed) or Draws(seed))
    assert perturber.perturb("a b", "upper_case", seed=3) == "A B" and made == []
    assert perturber.perturb("a b", "spaces", seed=4) == "      a b      " and made == []
    perturber.perturb("a b c d", "typos", seed=5)
    assert made == [5]


def test_magnitude_cost_guard():
    r = perturber.apply("Hello", "spaces", {"n": 2}, limits=perturber.Limits(magnitude_max_chars=10))
    assert r.magnitude is None and r.details == {"magnitude_skipped": True}
    assert perturber.apply("Hello", "spaces", {"n": 2}).magnitude > 0  # the defaults are untouched


def test_error_hierarchy_and_mapping():
    table = {
        perturber.UnknownPerturbation: (2, 404, "unknown_perturbation"),
        perturber.InvalidParams: (2, 422, "validation_error"),
        perturber.InputTooLarge: (2, 413, "input_too_long"),
        perturber.ResourceUnavailable: (3, 503, "data_unavailable"),
        perturber.ModelBackendError: (4, 502, "model_error"),
    }
    for cls, (exit_code, status, code) in table.items():
        err = cls("m")
        assert isinstance(err, perturber.PerturberError)
        assert (err.exit_code, err.http_status, err.code) == (exit_code, status, code)
    assert perturber.ModelBackendError("t", code="model_timeout").http_status == 504


def test_draw_helpers_are_frozen():
    """docs/spec/catalog.md §1.4: our own helpers on getrandbits; these values must never change."""
    rng = Draws(7)
    assert [rng.below(10) for _ in range(5)] == _reference_below(7, 10, 5)
    rng = Draws(3)
    seq = list(range(10))
    expected = random.Random(3)
    pool = list(seq)
    for i in range(4):
        n = len(pool) - i
        r = expected.getrandbits(n.bit_length())
        while r >= n:
            r = expected.getrandbits(n.bit_length())
        pool[i], pool[i + r] = pool[i + r], pool[i]
    assert rng.sample(seq, 4) == pool[:4]
    assert Draws(0).choice(["only"]) == "only"


def _reference_below(seed, n, k):
    gen, out = random.Random(seed), []
    for _ in range(k):
        r = gen.getrandbits(n.bit_length())
        while r >= n:
            r = gen.getrandbits(n.bit_length())
        out.append(r)
    return out


def test_generator_is_built_lazily():
    rng = Draws(5)
    assert not rng.started
    rng.below(3)
    assert rng.started


def test_selection_rule():
    assert quota(5, rate=0.3) == 2 and quota(10, rate=0.5) == 5
    assert quota(3, rate=0.0001) == 1 and quota(0, rate=1.0) == 0
    assert quota(3, count=10) == 3 and quota(3, count=0) == 0
    assert select([1, 2, 3], Draws(1), rate=1.0) == [1, 2, 3]
    chosen = select(list(range(100)), Draws(1), count=10)
    assert chosen == sorted(chosen) and len(set(chosen)) == 10


def test_list_and_describe():
    names = [e["name"] for e in perturber.list_perturbations(family="padding", category="native")]
    assert names == ["quotes", "spaces", "new_lines", "trailing_newline"]
    assert all(e["in_scope"] is not False for e in perturber.list_perturbations(in_scope=True))
    d = perturber.describe("quotes")
    assert d["params"] == [
        {
            "name": "n",
            "type": "int",
            "default": 5,
            "minimum": 1,
            "maximum": 1000,
            "description": d["params"][0]["description"],
        }
    ]
    assert d["intensity"] == "n" and d["kind"] == "deterministic"
    json.dumps(perturber.list_perturbations())


def test_catalog_digest_depends_on_versions(monkeypatch):
    before = perturber.catalog_digest()
    spec = registry.get("quotes")
    bumped = dataclasses.replace(spec, version=spec.version + 1)
    monkeypatch.setitem(registry._REGISTRY, ("native", "quotes"), bumped)
    assert perturber.catalog_digest() != before


def test_import_is_light():
    code = (
        "import sys, perturber; perturber.perturb('a b', 'quotes'); "
        "heavy = {'fastapi', 'starlette', 'nltk', 'boto3', 'openai', 'httpx', 'pydantic', 'emoji', "
        "'augly', 'nlpaug', 'wordfreq', 'numpy'}; "
        "print(sorted(heavy & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@settings(max_examples=300, deadline=None)
@given(
    a=st.text(alphabet="ab cd\u200b\u00e9", max_size=300),
    edits=st.lists(
        st.tuples(st.integers(0, 300), st.sampled_from(["x", " ", "a", "\u200b", ""])), max_size=40
    ),
)
def test_fast_magnitude_equals_difflib(a, edits):
    """The compiled SequenceMatcher gives difflib's exact ratio (autojunk included, len >= 200)."""
    import difflib

    from perturber.core import _sequence_matcher

    b = list(a)
    for pos, ch in edits:
        if ch:
            b.insert(min(pos, len(b)), ch)
        elif b:
            del b[min(pos, len(b) - 1)]
    b = "".join(b)
    assert _sequence_matcher()(None, a, b).ratio() == difflib.SequenceMatcher(None, a, b).ratio()
