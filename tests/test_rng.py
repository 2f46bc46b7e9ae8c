"""The buffered draw helpers of perturber.rng against the straightforward ones of §1.4.

The reference below calls ``random.Random(seed)`` directly, one method call per draw; the
optimised helpers must return the same values and leave the stream at the same place, for any
seed, size and mix of calls (including runs past the cached first batch of words).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perturber import rng as rng_mod
from perturber.rng import Draws, select


class Reference:
    """The helpers of docs/spec/catalog.md §1.4, written the obvious way."""

    def __init__(self, seed: int) -> None:
        self.gen = random.Random(seed)

    def below(self, n: int) -> int:
        b = n.bit_length()
        r = self.gen.getrandbits(b)
        while r >= n:
            r = self.gen.getrandbits(b)
        return r

    def sample(self, seq, k: int) -> list:
        pool = list(seq)
        for i in range(k):
            j = i + self.below(len(pool) - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]

    def random(self) -> float:
        return self.gen.random()

    def getrandbits(self, k: int) -> int:
        return self.gen.getrandbits(k)


seeds = st.integers(min_value=0, max_value=2**63 - 1)
calls = st.lists(
    st.one_of(
        st.tuples(st.just("below"), st.integers(min_value=1, max_value=2**40)),
        st.tuples(st.just("below_small"), st.integers(min_value=1, max_value=9)),
        st.tuples(st.just("sample"), st.integers(min_value=0, max_value=300)),
        st.tuples(st.just("random"), st.just(0)),
        st.tuples(st.just("getrandbits"), st.integers(min_value=0, max_value=100)),
    ),
    max_size=40,
)


def _run(obj, plan):
    out = []
    for op, arg in plan:
        if op in ("below", "below_small"):
            out.append(obj.below(arg))
        elif op == "sample":
            out.append(obj.sample(range(arg), arg // 2 + (arg % 3 == 0 and arg > 0)))
        elif op == "random":
            out.append(obj.random())
        else:
            out.append(obj.getrandbits(arg))
    out.append(obj.getrandbits(32))  # the stream ends at the same place
    return out


@settings(max_examples=150, deadline=None)
@given(seed=seeds, plan=calls)
def test_mixed_calls_match_the_reference(seed, plan):
    assert _run(Draws(seed), plan) == _run(Reference(seed), plan)
    # again, now that the seed's first batch is cached
    assert _run(Draws(seed), plan) == _run(Reference(seed), plan)


@settings(max_examples=300, deadline=None)
@given(
    seed=seeds,
    before=st.integers(min_value=0, max_value=200),
    sizes=st.lists(
        st.tuples(st.integers(min_value=1, max_value=255), st.floats(0, 1)), min_size=1, max_size=6
    ),
)
def test_samples_of_fewer_than_256_items_match_the_reference(seed, before, sizes):
    """The top-byte path of ``sample`` (``n < 256``), run after ``before`` other draws and several
    times in a row (so across batches of words): the same items, and the stream ends at the same place."""
    d, ref = Draws(seed), Reference(seed)
    assert [d.below(7) for _ in range(before)] == [ref.below(7) for _ in range(before)]
    for n, part in sizes:
        k = round(part * n)
        assert d.sample(range(n), k) == ref.sample(range(n), k)
    assert d.getrandbits(32) == ref.getrandbits(32)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=1000), n=st.integers(min_value=1, max_value=3000), data=st.data()
)
def test_sample_and_select_match_the_reference(seed, n, data):
    k = data.draw(st.integers(min_value=0, max_value=n))
    for _ in range(2):  # cold, then with the cached first batch
        assert Draws(seed).sample(range(n), k) == Reference(seed).sample(range(n), k)
    ref = Reference(seed)
    expected = sorted(ref.sample(range(n), k)) if 0 < k < n else list(range(n))[: k and n]
    assert select(list(range(n)), Draws(seed), count=k) == expected


@settings(max_examples=300, deadline=None)
@given(seeds, st.integers(min_value=2, max_value=5000), st.sampled_from([{"count": 1}, {"rate": 0.0001}]))
def test_one_chosen_is_the_first_draw_of_the_sample(seed, n, rule):
    """``chosen`` of one candidate (its own path: one ``below``) draws what the sample of the
    range draws, and leaves the stream where it does."""
    d, ref = Draws(seed), Reference(seed)
    assert list(rng_mod.chosen(n, d, **rule)) == ref.sample(range(n), 1)
    assert d.below(1000) == ref.below(1000)


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=5),  # few seeds: they recur, as in a study
    n=st.integers(min_value=2, max_value=400),
    data=st.data(),
    drop=st.sampled_from(["none", "first", "tails", "all"]),
)
def test_a_recurring_seeds_first_sample_is_kept_and_replayed_exactly(seed, n, data, drop):
    """The first sample of a new ``Draws`` of a seed seen before is kept by (seed, n, k) and
    replayed: the same indices in the same order, and the stream left where the draws leave it,
    also when they read past the seed's first words into its cached tail, and when the seed's
    cached words were dropped between the two calls."""
    k = data.draw(st.integers(min_value=2, max_value=n - 1)) if n > 2 else 2
    if k >= n:
        return
    rng_mod._FIRST_BATCHES.clear()
    rng_mod._TAILS.clear()
    rng_mod._FIRST_SAMPLES.clear()
    ref = Reference(seed)
    expected = (ref.sample(range(n), k), [ref.below(1000) for _ in range(70)])
    for call in range(4):  # builds the generator, caches the seed's words, keeps the sample, replays it
        if call == 3:
            assert (seed, n, k) in rng_mod._FIRST_SAMPLES.data or k > rng_mod._CACHED_WORDS
            if drop in ("first", "all"):
                rng_mod._FIRST_BATCHES.clear()
            if drop in ("tails", "all"):
                rng_mod._TAILS.clear()
        d = Draws(seed)
        got = list(rng_mod.chosen(n, d, count=k))
        assert (got, [d.below(1000) for _ in range(70)]) == expected


def test_first_samples_are_kept_only_for_recurring_seeds_and_are_bounded():
    rng_mod._FIRST_BATCHES.clear()
    rng_mod._FIRST_SAMPLES.clear()
    rng_mod.chosen(50, Draws(7), count=5)  # a new seed: it builds its generator, nothing is kept
    assert not rng_mod._FIRST_SAMPLES.data
    rng_mod.chosen(50, Draws(7), count=5)
    assert list(rng_mod._FIRST_SAMPLES.data) == [(7, 50, 5)]
    samples = rng_mod._FIRST_SAMPLES
    for n in range(10, 10 + samples.budget + 5):
        rng_mod.chosen(n, Draws(7), count=3)
    assert len(samples.data) == samples.size == samples.budget
    assert all(len(out) <= rng_mod._CACHED_WORDS and out.itemsize == 4 for out, _ in samples.data.values())


def test_long_streams_cross_many_batches():
    # 300k single-bit draws with rejections run through every batch size up to the cap
    d, ref = Draws(11), Reference(11)
    assert [d.below(3) for _ in range(300_000)] == [ref.below(3) for _ in range(300_000)]
    assert d.random() == ref.random()


def test_cached_seed_skips_the_cached_words_when_it_runs_past_them():
    rng_mod._FIRST_BATCHES.clear()
    first = Draws(5)
    first.below(7)  # caches the first batch of seed 5
    assert 5 in rng_mod._FIRST_BATCHES.data
    d, ref = Draws(5), Reference(5)
    assert [d.below(1000) for _ in range(1000)] == [ref.below(1000) for _ in range(1000)]
    assert d._gen is not None  # had to build the generator past the cached batch


def test_first_batches_are_bounded():
    batches = rng_mod._FIRST_BATCHES
    batches.clear()
    for seed in range(batches.budget + 10):
        Draws(seed).below(2)
    assert len(batches.data) == batches.size == batches.budget
    assert 0 not in batches.data and batches.budget + 9 in batches.data


def test_bad_arguments_raise_instead_of_looping():
    with pytest.raises(ValueError):
        Draws(0).below(0)
    with pytest.raises(ValueError):
        Draws(0).sample([1, 2], 3)


def test_choice_of_one_element_still_consumes_a_draw():
    d, ref = Draws(3), Reference(3)
    assert d.choice(["only"]) == "only"
    ref.below(1)
    assert d.below(10**6) == ref.below(10**6)


def test_a_recurring_seeds_cached_words_grow_until_it_builds_no_generator():
    rng_mod._FIRST_BATCHES.clear()
    runs = []
    for _ in range(3):
        d = Draws(11)
        runs.append([d.below(1000) for _ in range(100)])
        built = d._gen is not None
    ref = Reference(11)
    assert runs == [[ref.below(1000) for _ in range(100)]] * 3
    assert len(rng_mod._FIRST_BATCHES.data[11]) == rng_mod._CACHED_WORDS and not built


def test_a_recurring_seed_that_draws_past_its_first_words_reuses_the_cached_tail():
    rng_mod._FIRST_BATCHES.clear()
    rng_mod._TAILS.clear()
    runs, built = [], []
    for _ in range(3):
        d = Draws(21)
        runs.append([d.below(1000) for _ in range(400)] + d.sample(range(300), 150))
        built.append(d._gen is not None)
    ref = Reference(21)
    assert runs == [[ref.below(1000) for _ in range(400)] + ref.sample(range(300), 150)] * 3
    assert built[0] and not built[-1]  # the tail grows while runs draw past it, then serves all
    assert len(rng_mod._TAILS.data[21]) > 400


def test_a_seed_whose_first_words_were_evicted_still_reads_its_cached_tail_in_order():
    """A seed's first words evicted while its tail is still cached: a new ``Draws`` builds its
    generator for the words before the tail, then reads the tail, then words after it from a
    generator standing after the tail (not the one left before it)."""
    rng_mod._FIRST_BATCHES.clear()
    rng_mod._TAILS.clear()
    for _ in range(2):  # the second run caches the words after the first 128
        d = Draws(5)
        [d.below(1000) for _ in range(300)]
    rng_mod._FIRST_BATCHES.clear()  # as evicting 512 other seeds would
    Draws(5).below(7)
    d, ref = Draws(5), Reference(5)
    assert [d.below(1000) for _ in range(3000)] == [ref.below(1000) for _ in range(3000)]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=2),  # a few seeds, so their cached words are reused
            st.integers(min_value=0, max_value=1200),  # draws of that Draws
            st.sampled_from(["none", "first", "tails", "all"]),  # caches dropped before it
        ),
        min_size=1,
        max_size=12,
    )
)
def test_any_history_of_the_caches_gives_the_reference_stream(runs):
    rng_mod._FIRST_BATCHES.clear()
    rng_mod._TAILS.clear()
    rng_mod._FIRST_SAMPLES.clear()
    for seed, draws, drop in runs:
        if drop in ("first", "all"):
            rng_mod._FIRST_BATCHES.clear()
        if drop in ("tails", "all"):
            rng_mod._TAILS.clear()
        d, ref = Draws(seed), Reference(seed)
        assert rng_mod.chosen(60, d, count=7) == ref.sample(range(60), 7)
        assert [d.below(1000) for _ in range(draws)] == [ref.below(1000) for _ in range(draws)]


def test_tails_are_bounded():
    rng_mod._TAILS.clear()
    for seed in range(rng_mod._TAILS.budget + 3):
        d = Draws(seed)
        [d.below(7) for _ in range(20_000)]
    assert len(rng_mod._TAILS.data) == rng_mod._TAILS.budget
    assert all(len(tail) <= rng_mod._TAIL_WORDS for tail in rng_mod._TAILS.data.values())


@settings(max_examples=300, deadline=None)
@given(seeds, st.integers(min_value=1, max_value=5000), st.integers(min_value=0, max_value=40))
def test_sample_range_is_the_sample_of_the_range(seed, n, k):
    k = min(k, n)
    d, ref = Draws(seed), Reference(seed)
    assert d.sample_range(n, k) == ref.sample(range(n), k)
    assert d.below(1000) == ref.below(1000)


@settings(max_examples=300, deadline=None)
@given(seed=seeds, n=st.integers(1, 255), k=st.integers(0, 300), before=st.integers(0, 200))
def test_below_many_of_a_small_range_matches_the_reference(seed, n, k, before):
    """``below_many`` over ``n < 256`` (the top bytes of the words, from the batch's native
    bytes) draws what ``k`` calls of the reference's ``below`` draw, from anywhere in the stream."""
    fast, ref = Draws(seed), Reference(seed)
    fast.getrandbits(32 * before)
    ref.getrandbits(32 * before)
    assert rng_mod.below_many(fast, n, k) == [ref.below(n) for _ in range(k)]
    assert fast.getrandbits(32) == ref.getrandbits(32)
