"""perturber._native, the optional C twins of hot loops: each gives the bytes of its pure-Python
twin on generated texts, seeds and counts; the entries give the same outputs with and without it;
bad input raises, and a batch that runs out hands the draws back to Python untouched."""

from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_bits import any_texts
from test_perf_word import ascii_texts, plain_stop_texts, seeds, stop_texts, wordy_texts
from test_typo_fast_paths import stretch_texts

import perturber
from perturber import native
from perturber import settings as config
from perturber import text as tm
from perturber.memo import clear_caches
from perturber.perturbations.word_level import spacing, typos
from perturber.perturbations.word_level import typo_mechanics as tmech
from perturber.rng import Draws, draw_natively
from perturber.text import bits as B
from perturber.text.bits import may_protect, view
from perturber.text.byte_lanes import Flags

C = native.c
needs_c = pytest.mark.skipif(C is None, reason="perturber._native is not built (no C compiler at install)")

texts = (
    any_texts
    | wordy_texts
    | stretch_texts
    | st.sampled_from(
        [
            "",
            "a",
            "Ab-cd e'f x_y a.b",
            "https://ex.com/path words here",
            "sooo   good!!! Why??",
            "Hi\u00a0there’s",
        ]
    )
)


def _spans(text: str, v: bytes):
    return tm.protected_spans(text) if may_protect(v) else ()


def test_version_says_which_build_runs(capfd):
    from perturber import cli

    assert cli.main(["--version"]) == 0
    assert capfd.readouterr().out.endswith("C module)\n" if C is not None else "pure Python)\n")


def test_ci_builds_the_module():
    """CI sets PERTURBER_REQUIRE_NATIVE=1: there, a missing module is a failure, not a skip."""
    if config.read("PERTURBER_REQUIRE_NATIVE"):
        assert C is not None, "perturber._native did not build: check the C compiler and setup.py"
    elif C is None:
        pytest.skip("perturber._native is not built")


@needs_c
@settings(max_examples=600, deadline=None)
@given(texts, st.sampled_from([1, 3, 4]))
def test_typo_starts_are_the_byte_lane_starts(text, k):
    v = view(text)
    if v is None:
        return
    lanes = tmech.typo_lanes.__wrapped__(text)
    assert C.typo_starts(v, _spans(text, v), k) == list(tmech._typo_starts_plain(lanes, k))
    assert C.free_starts(v, _spans(text, v)) == lanes.free.to_bytes(len(v), "big")


plain_texts = texts.filter(lambda t: view(t) is not None)


@st.composite
def with_spans(draw):
    """A plain text and protected spans anywhere in it (ends inside tokens too)."""
    text = draw(plain_texts)
    n = len(text)
    cuts = draw(st.lists(st.tuples(st.integers(0, n), st.integers(0, 3)), max_size=3))
    return text, [(s, min(n, s + w)) for s, w in cuts]


@needs_c
@settings(max_examples=600, deadline=None)
@given(with_spans(), st.sampled_from([1, 3, 4]))
def test_scans_honour_any_protected_span(case, k):
    text, spans = case
    v = view(text)
    t = tmech.byte_tokens(v, tmech._TYPO_CLASSES, spans)
    lanes = tmech.TypoLanes(v, t, tmech.free_starts(t, 0))
    assert C.typo_starts(v, spans, k) == list(tmech._typo_starts_plain(lanes, k))
    assert C.free_starts(v, spans) == lanes.free.to_bytes(len(v), "big")
    pure = Flags.of_bytes(typos._stretch_ends(v, spans, []))
    assert C.stretch_sites(v, spans, [], typos._stretch_units()) == list(pure)
    t = spacing.byte_tokens(v, spacing._WORD_CLASSES, spans)
    alpha = spacing.free_starts(t, t.x >> 4 & t.tok)
    assert C.split_starts(v, spans) == list(spacing._split_starts_plain(t, alpha))
    assert C.merge_lefts(v, spans) == list(spacing._merge_lefts_plain(t, alpha))


def _finders():
    return [spacing._stop_finder(), typos._confusable_words().finder]


finder_texts = st.lists(
    st.sampled_from(["The", "a", "of", "is", "it's", "don't", "their", "There", "to", "too", "x"])
    | st.sampled_from([" ", ", ", ".", "-", "'", "_", "/", ". ", ":", "a.b", "3", "\n", "’"]),
    max_size=14,
).map("".join)


@needs_c
@settings(max_examples=600, deadline=None)
@given(texts | finder_texts)
def test_free_words_are_the_pattern_matches(text):
    v = view(text)
    if v is None or may_protect(v):
        return
    for finder in _finders():
        got = C.free_words(v, finder.words, finder.folded, finder.longest)
        assert got == B._free_word_spans_by_pattern(v, finder)


words = (
    st.text(alphabet="abcdelmnopsyzABELZ", min_size=2, max_size=12)
    | st.text(alphabet="aAbBz'-", min_size=2, max_size=9)
    | st.text(alphabet="aabbcz", min_size=60, max_size=150)  # longer than the C stack buffers
)


def _planned_typo(word: str, rng: Draws) -> str:
    """The typo of ``typos`` on ``word`` from its plan, in Python (the path of a filtered word)."""
    plan = typos._typo_plan(word)
    op, positions, kept = plan[rng.below(len(plan))]
    j = rng.below(len(positions))
    s, e, out = typos._typo_edit(word, op, positions[j], None if kept is None else kept[j], rng)
    return word[:s] + out + word[e:]


@needs_c
@settings(max_examples=400, deadline=None)
@given(words)
def test_every_typo_of_a_word_is_the_planned_one(word):
    """One token under 64 seeds: every op, position and shift the draws reach, and the words
    read, are those of the plan in Python (short words too, which ``typos`` never picks)."""
    text = f"{word} x"
    v = view(text)
    if C.free_starts(v, ())[0] != 1 or tmech.token_end(v, 0) != len(word):  # one token
        return
    for seed in range(64):
        fast, pos = C.typos_apply(text, v, [0], Draws(seed)._refill(), 0, _no_refill)
        rng = Draws(seed)
        assert fast == _planned_typo(word, rng) + " x" and pos == rng._pos, seed


@needs_c
@settings(max_examples=600, deadline=None)
@given(texts)
def test_stretch_sites_are_the_byte_lane_sites(text):
    v = view(text)
    if v is None:
        return
    spans = _spans(text, v)
    runs = typos._terminal_runs(text, spans)
    pure = Flags.of_bytes(typos._stretch_ends(v, spans, runs))
    assert C.stretch_sites(v, spans, runs, typos._stretch_units()) == list(pure)


def _both_ways(monkeypatch, text, name, params, seed):
    clear_caches()
    fast = perturber.apply(text, name, params, seed)
    clear_caches()
    with monkeypatch.context() as m:
        m.setattr(native, "c", None)
        slow = perturber.apply(text, name, params, seed)
    clear_caches()
    return fast, slow


@needs_c
@settings(max_examples=500, deadline=None)
@given(texts, seeds, st.integers(1, 40))
def test_count_entries_are_the_same_with_and_without_the_module(text, seed, count):
    with pytest.MonkeyPatch.context() as monkeypatch:
        for name in ("typos", "realistic_typos", "word_split", "word_merge"):
            fast, slow = _both_ways(monkeypatch, text, name, {"count": count}, seed)
            assert fast == slow, name


@needs_c
@settings(max_examples=300, deadline=None)
@given(texts, seeds, st.sampled_from([0.0001, 0.3, 0.7, 1.0]))
def test_repeated_chars_is_the_same_with_and_without_the_module(text, seed, rate):
    with pytest.MonkeyPatch.context() as monkeypatch:
        fast, slow = _both_ways(monkeypatch, text, "repeated_chars", {"rate": rate}, seed)
        assert fast == slow


ascii_stop_texts = (
    (stop_texts | plain_stop_texts | finder_texts | st.sampled_from(["x\r the a.\r\nof 5", "y \r\n\tthe x"]))
    .map(lambda t: t.replace("’", "'").replace("\u00a0", "\x1c").replace("\u3000", "\t").replace("…", "..."))
    .filter(str.isascii)
)


@needs_c
@settings(max_examples=600, deadline=None)
@given(ascii_stop_texts, st.randoms(use_true_random=False))
def test_drop_groups_is_the_marked_passes(text, random):
    """Any choice of dropped tokens: None where a unit may hold stop words only, else the text the
    marked passes leave."""
    spans = [(t.start, t.end) for t in tm.word_tokens(text) if random.random() < 0.5]
    if not spans or "\x00" in text:
        return
    marked = spacing._marked(text, spans)
    want = None if spacing._exposed(marked) else spacing._without_marked(marked).encode("ascii")
    assert C.drop_groups(text.encode("ascii"), spans) == want


@needs_c
def test_drop_groups_refuses_bad_spans():
    for spans in ([(2, 1)], [(0, 9)], [(4, 5), (0, 1)], [(-1, 1)]):
        with pytest.raises(ValueError, match="ascending"):
            C.drop_groups(b"a b c", spans)
    assert C.drop_groups(b"x a b y", [(2, 3), (4, 5)]) == b"x y"
    assert C.drop_groups(b"x. a b. y", [(3, 4), (5, 6)]) is None  # a unit of stop words only
    assert C.drop_groups(b"the 5.", [(0, 3)]) == b"5."  # a digit is a word character
    assert C.drop_groups(b"x\r the\ty", [(3, 6)]) == b"x\r y"  # after a CR the run before stays


punctuated = (
    ascii_texts
    | texts
    | st.sampled_from(
        ["3-4 (ok)!! x", "e.g. U.S.A. - -5", "see https://ex.com/a?b=1, ok", "`a.b`,c", "1,000.5"]
    )
)


@needs_c
@settings(max_examples=600, deadline=None)
@given(punctuated | ascii_stop_texts | plain_stop_texts)
def test_seedless_scans_are_the_same_with_and_without_the_module(text):
    with pytest.MonkeyPatch.context() as monkeypatch:
        for name in ("punctuation_spaces", "drop_stop_words", "punctuation_drop"):
            fast, slow = _both_ways(monkeypatch, text, name, {}, 0)
            assert fast == slow, name


@needs_c
def test_punct_spaces_needs_one_exempt_byte_per_code_point():
    with pytest.raises(ValueError, match="one byte per code point"):
        C.punct_spaces(b"a,b", bytearray(2))
    assert C.punct_spaces(b"a,b", bytearray(3)) == (b"a , b", 2)
    assert C.punct_spaces(b"a,b", bytearray(b"\x00\x01\x00")) == (b"a,b", 0)


title_texts = texts | st.lists(
    st.sampled_from(
        [
            "well-known",
            "km",
            "a",
            "mph",
            "hrs",
            "Mph-fast",
            "x-Ray",
            "x-zone",
            "s",
            "o'neil",
            "CO2",
            "e.g",
            "-",
        ]
    ),
    max_size=8,
).map(" ".join)


@needs_c
@settings(max_examples=500, deadline=None)
@given(title_texts)
def test_title_case_is_the_same_with_and_without_the_module(text):
    with pytest.MonkeyPatch.context() as monkeypatch:
        fast, slow = _both_ways(monkeypatch, text, "title_case", {}, 0)
        assert fast == slow


@needs_c
def test_title_case_writes_a_new_bytes_object():
    """The view is copied before its letters change (CPython shares its one-byte bytes objects)."""
    view = bytes([97])
    assert C.title_case(view, (), frozenset()) == (b"A", 1)
    assert view == b"a" and bytes([97]) == b"a"


def _no_refill():
    raise AssertionError("the batch was long enough")


@needs_c
@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 40))
def test_a_batch_that_runs_out_is_refilled(seed, cut):
    """On a batch cut short, the C draws call refill() once for the rest of the words and give
    what the whole batch gives (typos_apply and stretch_apply)."""
    text = "Mississippi committee bookkeeper balloon letters Why?"
    v = view(text)
    words = Draws(seed)._refill()
    starts, sites = C.typo_starts(v, (), 4), C.stretch_sites(v, (), [(51, 52)], frozenset())
    for fn, args in ((C.typos_apply, (text, v, starts)), (C.stretch_apply, (text, sites, 4))):
        rest = [words[cut:]]
        got, pos = fn(*args, words[:cut], 0, rest.pop)
        whole, end = fn(*args, words, 0, _no_refill)
        assert got == whole and pos == (end - cut if not rest else end)
    with pytest.raises(ValueError, match="empty batch"):
        C.stretch_apply(text, sites, 4, words[:0], 0, lambda: words[:0])
    with pytest.raises(KeyError):  # an error of refill reaches the caller
        C.typos_apply(text, v, starts, words[:0], 0, {}.popitem)


long_texts = st.lists(
    st.sampled_from(["alpha", "beta", "Gamma", "delta!", "x", "km", "3rd", "Why??", "ok?!"]),
    min_size=50,
    max_size=400,
).map(" ".join)


@needs_c
@settings(max_examples=60, deadline=None)
@given(long_texts, seeds, st.sampled_from([0.3, 0.7, 1.0]))
def test_repeated_chars_draws_across_batches_as_python_does(text, seed, rate):
    with pytest.MonkeyPatch.context() as monkeypatch:
        fast, slow = _both_ways(monkeypatch, text, "repeated_chars", {"rate": rate}, seed)
        assert fast == slow


@needs_c
@settings(max_examples=20, deadline=None)
@given(st.lists(texts | long_texts, min_size=2, max_size=6))
def test_a_study_gives_the_same_outputs_with_and_without_the_module(some):
    """Texts x seeds 0-2 x the entries with C paths, the memos warm from one call to the next (cached
    first batches, tails and first samples position the draws the C code starts from)."""
    names = (
        "typos",
        "realistic_typos",
        "repeated_chars",
        "title_case",
        "word_split",
        "word_merge",
        "random_case",
        "drop_stop_words",
        "confusable_words",
        "line_wrap",
    )

    def study():
        return [perturber.apply(t, n, None, seed) for t in some for seed in (0, 1, 2) for n in names]

    clear_caches()
    fast = study()
    clear_caches()
    with pytest.MonkeyPatch.context() as m:
        m.setattr(native, "c", None)
        slow = study()
    clear_caches()
    assert fast == slow


@needs_c
def test_unit_symbols_are_not_stretched():
    """Every unit symbol of two or three letters among words and a run: only those are left out."""
    units = typos._stretch_units()
    text = " ".join(u.decode() + " units" for u in sorted(units)) + " Why?!"
    v = view(text)
    runs = typos._terminal_runs(text, ())
    got = C.stretch_sites(v, (), runs, units)
    assert got == list(Flags.of_bytes(typos._stretch_ends(v, (), runs)))
    assert [text[p - 4 : p + 1] for p in got[:-2]] == ["units"] * len(units)
    assert got[-2:] == [len(text) - 3, len(text) - 1]  # "Why" and the run


@needs_c
def test_bad_input_raises_value_errors():
    v = b"cats and dogs"
    words = array("I", [0] * 8)
    for starts in ([1], [5, 0], [99], [4]):  # inside a token, descending, past the end, a space
        with pytest.raises(ValueError):
            C.typos_apply("cats and dogs", v, starts, words, 0, _no_refill)
    with pytest.raises(ValueError):
        C.typos_apply("cats and dogs", v, [0], words, 9, _no_refill)
    with pytest.raises(ValueError, match="letters and joiners"):
        C.typos_apply("cats 3rd dogs", b"cats 3rd dogs", [5], words, 0, _no_refill)
    for sites, k in (([3, 2], 1), ([3, 99], 1), ([3], 2), ([3], -1)):  # descending, outside, k > n, k < 0
        with pytest.raises(ValueError):
            C.stretch_apply("cats and dogs", sites, k, words, 0, _no_refill)
    with pytest.raises(ValueError, match="ASCII"):
        C.stretch_apply("café", [3], 1, words, 0, _no_refill)
    with pytest.raises(TypeError):
        C.typo_starts("not bytes", (), 4)
    with pytest.raises(ValueError):
        C.stretch_sites(v, (), [(5, 20)], frozenset())


@needs_c
def test_draw_natively_moves_the_draws_past_the_words_read():
    text = "Quick brown foxes jumped over lazy dogs"
    rng = Draws(5)
    out = draw_natively(rng, C.typos_apply, text, view(text), [0, 6, 12])
    again = C.typos_apply(text, view(text), [0, 6, 12], Draws(5)._refill(), 0, _no_refill)
    assert out == again[0] and rng._pos == again[1] > 3
    assert draw_natively(object(), C.typos_apply) is None  # not a Draws: the caller draws


def _pure_sample(seed: int, n: int, k: int, monkeypatch) -> tuple[list[int], int]:
    """``Draws(seed).sample_range(n, k)`` without the module, and the draw after it."""
    with monkeypatch.context() as m:
        m.setattr(native, "c", None)
        rng = Draws(seed)
        return rng.sample_range(n, k), rng.below(1 << 20)


sizes = st.integers(1, 3000).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n)))


@needs_c
@settings(max_examples=400, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    sizes | st.sampled_from([(1, 1), (255, 255), (256, 2), (5000, 3), (3000, 2000)]),
)
def test_sample_indices_are_the_pure_samples(seed, size):
    """Dense and sparse ranges, the full shuffle (k = n: a sample draws even then), and samples that
    read past the first batches: the same indices in the same order, the stream left at the same
    word, from ``sample_range`` and from ``sample`` of a sequence."""
    n, k = size
    with pytest.MonkeyPatch.context() as monkeypatch:
        want = _pure_sample(seed, n, k, monkeypatch)
    rng = Draws(seed)
    assert (rng.sample_range(n, k), rng.below(1 << 20)) == want
    rng = Draws(seed)
    assert (rng.sample([f"x{i}" for i in range(n)], k), rng.below(1 << 20)) == (
        [f"x{i}" for i in want[0]],
        want[1],
    )


@needs_c
def test_sample_indices_bad_input_and_a_short_batch():
    words = Draws(9)._refill()
    for n, k in ((3, 4), (3, -1), (1 << 29, 1)):
        with pytest.raises(ValueError, match=f"sample of {k} out of {n}"):
            C.sample_indices(n, k, words, 0, _no_refill)
    rest = [words[5:]]
    got, pos = C.sample_indices(40, 30, words[:5], 0, rest.pop)
    whole, end = C.sample_indices(40, 30, words, 0, _no_refill)
    assert got == whole and not rest and pos == end - 5
    assert C.sample_indices(7, 0, words, 3, _no_refill) == ([], 3)
    rng = Draws(9)  # past the module's range, Python draws (the same indices as always)
    assert (
        rng.sample_range(1 << 29, 2) == Draws(9).sample_range(1 << 29, 2)
        and len(set(rng.sample_range(9, 9))) == 9
    )
