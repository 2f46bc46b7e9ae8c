"""Properties every deterministic entry must have, on arbitrary Unicode text."""

import hashlib
import json
import os
import random
import subprocess
import sys
import threading

import harness
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import perturber

SPECS = harness.deterministic_entries()
FRAGMENTS = [
    " ",
    "\n",
    "\r\n",
    "\r",
    "\t",
    "\u00a0",
    "\u200b",
    "\u200d",
    "\u202e",
    "\u2066",
    "\ufeff",
    "\U000e0041",
    "\x00",
    "\x07",
    "\u0301",
    "\ufe0f",
    "👨‍👩‍👧",
    "🇫🇷",
    "👍🏽",
    "'",
    "’",
    "-",
    ".",
    "...",
    "?",
    "!",
    ":)",
    "https://ex.com/a_(b).",
    "www.x.org",
    "a.b@c.de",
    "`code`",
    "```\nx = 1\n```\n",
    "1,250,000",
    "3.14",
    "2026-01-15",
    "$1500",
    "10am",
    "- item\n",
    "1. step\n",
    "# Title\n",
    "> quote\n",
    "Answer:",
    '{"type": "object", "properties": {}}',
    "The",
    "cat",
    "don't",
    "Dr.",
    "İ",
    "ß",
    "ǅ",
    "ﬁ",
    "東京",
    "Привет",
    "é",
    "I",
    "U.S.A.",
]
texts = st.lists(st.one_of(st.text(max_size=8), st.sampled_from(FRAGMENTS)), max_size=25).map("".join)
SURROGATES = st.sampled_from(["\ud800", "\udbff", "\udc00", "\udfff"])


def strongest(spec):
    """Parameters at maximum intensity (or defaults when there is no scalable one)."""
    for p in spec.params:
        if p.name == spec.intensity and p.le is not None:
            return {p.name: p.le}
    return {}


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.key)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, seed=st.integers(0, 2**63 - 1), strong=st.booleans())
def test_contract_on_arbitrary_text(spec, text, seed, strong):
    params = strongest(spec) if strong else {}
    state = random.getstate()
    r1 = perturber.apply(text, spec.name, params, seed, spec.category)
    r2 = perturber.apply(text, spec.name, params, seed, spec.category)
    assert random.getstate() == state, "global random state was touched"
    assert type(r1.text) is str and r1.text == r2.text and r1.to_dict() == r2.to_dict()
    assert r1.applied == (r1.text != text)
    assert (r1.reason is None) == r1.applied
    assert r1.edits >= (1 if r1.applied else 0) and (r1.applied or r1.edits == 0)
    assert len(r1.text) <= 8 * len(text) + 100_000
    assert r1.magnitude is None or 0.0 <= r1.magnitude <= 1.0
    assert perturber.perturb(text, spec.name, params, seed, spec.category) == r1.text
    if not spec.seed_sensitive:
        assert perturber.perturb(text, spec.name, params, seed ^ 0x5A5A, spec.category) == r1.text


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.key)
@settings(max_examples=10, deadline=None)
@given(prefix=texts, bad=SURROGATES, suffix=texts)
def test_lone_surrogates_are_a_validation_error(spec, prefix, bad, suffix):
    with pytest.raises(perturber.InvalidParams) as err:
        perturber.apply(prefix + bad + suffix, spec.name, None, 0, spec.category)
    assert err.value.code == "validation_error"


@pytest.mark.parametrize("spec", [s for s in SPECS if s.seed_sensitive], ids=lambda s: s.key)
def test_seed_sensitive_entries_do_vary_with_the_seed(spec):
    fresh = harness.compute(spec)["outputs"]
    by_input = {}
    for case_id, out in fresh.items():
        stem = case_id.rsplit("|", 1)[0]
        by_input.setdefault(stem, set()).add(out["text"])
    assert any(len(v) > 1 for v in by_input.values()), f"{spec.key} never varied with the seed"


def _catalog_fingerprints() -> dict[str, str]:
    """sha256 of every deterministic entry's golden-case outputs, by entry."""
    return {
        spec.key: hashlib.sha256(json.dumps(harness.compute(spec), sort_keys=True).encode()).hexdigest()
        for spec in harness.deterministic_entries()
    }


@pytest.mark.slow
def test_same_bytes_in_subprocesses_with_other_hash_seeds():
    here = _catalog_fingerprints()
    for hash_seed in ("1", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        out = subprocess.run(
            [
                sys.executable,
                "-c",
                "import json, sys; sys.path[:0] = ['tests/golden', 'tests']; "
                "from test_properties import _catalog_fingerprints; print(json.dumps(_catalog_fingerprints()))",
            ],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            cwd=harness.HERE.parent.parent,
        )
        there = json.loads(out.stdout)
        differing = sorted(k for k in here if here[k] != there.get(k))
        assert not differing, f"PYTHONHASHSEED={hash_seed} changed the bytes of {differing}"


def test_eight_threads_give_the_sequential_bytes():
    jobs = [(spec, case) for spec in SPECS for case in harness.cases(spec)]
    sequential = [perturber.perturb(t, s.name, p, seed, s.category) for s, (_, t, p, seed) in jobs]
    results = [None] * len(jobs)
    barrier = threading.Barrier(8)

    def work(offset):
        barrier.wait()
        for i in range(offset, len(jobs), 8):
            s, (_, t, p, seed) = jobs[i]
            results[i] = perturber.perturb(t, s.name, p, seed, s.category)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert results == sequential
