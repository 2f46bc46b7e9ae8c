"""The fast paths of the character entries (issue 14) agree with straightforward references.

Each reference chooses with ``rng.select`` (ascending positions), applies the guards on the
sorted positions and rebuilds the text with ``text.splice``; the entries draw candidate indices
with ``_draw`` and write them in one C-level pass (``_put``, ``_put_ascii``).
"""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from perturber import text as tm
from perturber.perturbations import character as C
from perturber.rng import Draws, select

_PIECES = [
    "a",
    "e",
    "o",
    "I",
    "to",
    "tell",
    "it",
    "is",
    "sea",
    "Bob",
    "AEIOU",
    "Queue",
    "queueing",
    "aeon",
    "eau",
    "Ouija",
    "rn",
    "modern",
    "clinic",
    "lvv",
    "vv",
    "x-a-y",
    "well-known",
    "o'neil",
    "don’t",
    "5km",
    "km",
    "iPhone",
    "NASA",
    " ",
    " ",
    "  ",
    "\n",
    "\t",
    ".",
    ",",
    "!",
    "-",
    "'",
    "42",
    "é",
    "e\u0301",
    "Ω",
    "ΑΣ",
    "ς",
    "ß",
    "İ",
    "ﬁ",
    "Straße",
    "café",
    "😀",
    "\u200d",
    "東京",
    "`code`",
    "```\nfenced\n```",
    "https://ex.com/Path?q=1",
    "mail@ex.com",
    '{"a": "b c", "key": [1, 2]}',
    '"quoted text"',
    "C:\\dir\\file.txt",
]
texts = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)
ascii_texts = st.lists(st.sampled_from([p for p in _PIECES if p.isascii()]), max_size=60).map("".join)
any_text = st.one_of(texts, ascii_texts)
seeds = st.integers(0, 2**32 - 1)
rates = st.sampled_from([0.0, 0.0001, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0]) | st.floats(0.0, 1.0)
SETTINGS = settings(max_examples=250, deadline=None)


def _ref_replace(text: str, chosen: list[int], new: list[str]) -> str:
    return tm.splice(text, [(p, p + 1, r) for p, r in zip(chosen, new)])


def _check(out, text, chosen, new):
    assert out.text == _ref_replace(text, chosen, new)
    assert out.edits == len(chosen)


@SETTINGS
@given(n=st.integers(0, 3000), seed=seeds, rate=rates)
def test_draw_chooses_what_select_chooses(n, seed, rate):
    a, b = Draws(seed), Draws(seed)
    got = C._draw(a, rate, n)
    if n == 0:
        assert got is None
        return
    assert sorted(got) == select(range(n), b, rate=rate)
    assert a.getrandbits(32) == b.getrandbits(32)  # the same number of words drawn


@SETTINGS
@given(text=any_text, data=st.data())
def test_put_equals_splice(text, data):
    sites = sorted(data.draw(st.sets(st.integers(0, max(0, len(text) - 1)), max_size=len(text))))
    if not text:
        sites = []
    new = data.draw(
        st.lists(st.sampled_from(["", "X", "yz", "\u0301", "é"]), min_size=len(sites), max_size=len(sites))
    )
    idx = data.draw(st.permutations(range(len(sites)))) if sites else []
    idx = idx[: data.draw(st.integers(0, len(idx)))]
    order = sorted(idx)
    expected = _ref_replace(text, [sites[i] for i in order], [new[i] for i in order])
    assert C._put(text, idx, sites, new) == expected
    with_prefix = _ref_replace(text, [sites[i] for i in order], ["\u200b" + new[i] for i in order])
    assert C._put(text, idx, sites, new, "\u200b") == with_prefix
    if text.isascii():
        one = bytes(ord(r[0]) if r and r.isascii() else ord("?") for r in new)
        first = [chr(one[i]) for i in order]
        assert C._put_ascii(text, idx, sites, one) == _ref_replace(text, [sites[i] for i in order], first)
        assert C._put_ascii(text, idx, sites, None) == _ref_replace(
            text, [sites[i] for i in order], [""] * len(order)
        )

    # the mapped writers: the same as assigning into the list of code points
    def by_hand(make):
        chars = list(text)
        for i in idx:
            chars[sites[i]] = make(text[sites[i]])
        return "".join(chars)

    assert C._put_mapped(text, idx, sites, dict(zip(text, map(str.upper, text)))) == by_hand(str.upper)
    assert C._put_mapped(text, idx, sites, None, "\u200b") == by_hand("\u200b".__add__)
    if text.isascii():
        swap = bytes.maketrans(b"abcXYZ", b"ABCxyz")
        assert C._put_ascii_mapped(text, idx, sites, swap) == by_hand(
            lambda c: c.encode().translate(swap).decode()
        )


@SETTINGS
@given(text=any_text, seed=seeds, rate=rates)
def test_random_case_matches_the_reference(text, seed, rate):
    sites = C._case_sites(text)[0]
    if text.isascii():  # every ASCII letter outside protected spans
        spans = tm.Spans(tm.protected_spans(text))
        assert list(sites) == [p for p, c in enumerate(text) if c.isalpha() and not spans.overlaps(p, p + 1)]
    out = C.random_case(text, Draws(seed), rate=rate)
    if not sites:
        assert out.reason == "no_candidates"
        return
    chosen = select(sites, Draws(seed), rate=rate)
    _check(out, text, chosen, [text[p].swapcase() for p in chosen])


def _ref_leet_guard(text: str, cands, chosen):
    """Drop the last chosen letter of every token whose every letter (cands) was chosen."""
    drop = set()
    for tok in tm.free_tokens(text):
        inside = [p for p in cands if tok.start <= p < tok.end]
        letters = sum(map(str.isalpha, tok.text))
        if inside and len(inside) == letters and all(p in chosen for p in inside):
            drop.add(inside[-1])
    return [p for p in chosen if p not in drop]


@SETTINGS
@given(text=any_text, seed=seeds, rate=rates)
def test_leetspeak_matches_the_reference(text, seed, rate):
    _check_leetspeak(text, seed, rate)


def _check_leetspeak(text, seed, rate):
    cands = C._leet_sites(text)[0]
    out = C.leetspeak(text, Draws(seed), rate=rate)
    if not cands:
        assert out.reason == "no_candidates"
        return
    chosen = _ref_leet_guard(text, cands, select(cands, Draws(seed), rate=rate))
    table = C._leet()[0]
    _check(out, text, chosen, [table[text[p]] for p in chosen])


_VOWEL_HEAVY = [
    "Queue up, aeon eau, queueing Ouija boards: I see a sea of idea.",
    "tell it to Tessa; isotopes list lots of oils, tables, tools.",
    "Ouija et café, x-a-y o'neil well-known, modern clinic.",
]


def test_guards_match_the_reference_on_many_seeds():
    for text in _VOWEL_HEAVY:
        for seed in range(60):
            for rate in (0.5, 0.7, 0.9, 1.0):
                _check_disemvowel(text, seed, rate)
                _check_leetspeak(text, seed, rate)


@SETTINGS
@given(text=any_text, seed=seeds, rate=rates)
def test_disemvowel_matches_the_reference(text, seed, rate):
    _check_disemvowel(text, seed, rate)


def _check_disemvowel(text, seed, rate):
    cands = C._disemvowel_sites(text)[0]
    out = C.disemvowel(text, Draws(seed), rate=rate)
    if not cands:
        assert out.reason == "no_candidates"
        return
    chosen = select(cands, Draws(seed), rate=rate)
    kept = []
    for tok in tm.free_tokens(text):  # at most (letters - 2) deletions, the first ones kept
        inside = [p for p in chosen if tok.start <= p < tok.end]
        kept.extend(inside[: max(0, sum(map(str.isalpha, tok.text)) - 2)])
    _check(out, text, kept, [""] * len(kept))


@SETTINGS
@given(text=any_text, seed=seeds, rate=rates, form=st.sampled_from(["combining", "precomposed"]))
def test_diacritics_add_matches_the_reference(text, seed, rate, form):
    sites = C._vowel_sites(text)
    out = C.diacritics_add(text, Draws(seed), rate=rate, form=form)
    if not sites:
        assert out.reason == "no_candidates"
        return
    chosen = select(sites, Draws(seed), rate=rate)
    new = [text[p] + "\u0301" for p in chosen]
    if form == "precomposed":
        new = [unicodedata.normalize("NFC", r) for r in new]
    _check(out, text, chosen, new)


@SETTINGS
@given(text=any_text, seed=seeds, rate=rates)
def test_homoglyph_matches_the_reference(text, seed, rate):
    sites = C._homoglyph_sites(text)
    out = C.homoglyph(text, Draws(seed), rate=rate)
    if not sites:
        assert out.reason == "no_candidates"
        return
    chosen = select(sites, Draws(seed), rate=rate)
    table = C._homoglyphs()[0]
    _check(out, text, chosen, [table[text[p]] for p in chosen])


@SETTINGS
@given(text=any_text, seed=seeds, rate=rates, char=st.sampled_from(["u200b", "u200c", "u2060"]))
def test_zero_width_matches_the_reference(text, seed, rate, char):
    sites = C._in_word_boundaries(text)
    out = C.zero_width(text, Draws(seed), rate=rate, char=char)
    if not sites:
        assert out.reason == "no_candidates"
        return
    chosen = select(sites, Draws(seed), rate=rate)
    z = {"u200b": "\u200b", "u200c": "\u200c", "u2060": "\u2060"}[char]
    _check(out, text, chosen, [z + text[p] for p in chosen])


def test_disemvowel_guard_keeps_two_letters():
    # "Queue": 5 letters and 4 non-initial vowels, of which only 3 may go (the last is kept)
    out = C.disemvowel("Queue", Draws(0), rate=1.0)
    assert out.text == "Qe" and out.edits == 3


def test_leetspeak_guard_keeps_a_letter_of_a_fully_chosen_token():
    # every letter of both tokens is chosen: each keeps its last one
    out = C.leetspeak("tell it", Draws(0), rate=1.0)
    assert out.text == "731l 1t" and out.edits == 4


def test_random_case_final_sigma_is_per_letter():
    # str.swapcase() of "ΑΣ" gives a final sigma; a per-letter swap gives "σ"
    assert C.random_case("ΑΣ", Draws(0), rate=1.0).text == "ασ"


def _check_ocr_noise(text, seed, rate):
    starts, ends, new, deltas, _ = C._ocr_sites(text)
    out = C.ocr_noise(text, Draws(seed), rate=rate)
    if not starts:
        assert out.reason == "no_candidates"
        return
    chosen = select(list(zip(starts, ends, new, deltas)), Draws(seed), rate=rate)
    edits = []
    for tok in tm.free_tokens(text):  # G3: drop the highest chosen until the token keeps 2 letters
        mine = [c for c in chosen if tok.start <= c[0] < tok.end]
        after = sum(map(str.isalpha, tok.text)) + sum(c[3] for c in mine)
        while after < 2 and mine:
            after -= mine.pop()[3]
        edits.extend((s, e, r) for s, e, r, _ in mine)
    assert out.text == tm.splice(text, edits)
    assert out.edits == len(edits)


@SETTINGS
@given(text=any_text, seed=seeds, rate=rates)
def test_ocr_noise_matches_the_reference(text, seed, rate):
    _check_ocr_noise(text, seed, rate)


def test_ocr_noise_guard_matches_the_reference_on_many_seeds():
    texts = ["modern clinic lvv cloud rnrn Sol", "OIS BOSS modern", "clinic rnod SOB lvvl"]
    assert any(C._ocr_sites(t)[4] for t in texts)  # tokens the guard may apply to
    for text in texts + _VOWEL_HEAVY:
        for seed in range(60):
            for rate in (0.2, 0.5, 0.9, 1.0):
                _check_ocr_noise(text, seed, rate)


def test_ocr_replacements_are_json_safe():
    # ocr_noise writes its edits without text.splice's JSON-interior filter: none would apply
    for dst, _ in C._ocr()[2].values():
        assert not any(c in dst for c in '"\\') and all(c >= " " for c in dst)


@SETTINGS
@given(text=any_text)
def test_title_case_matches_the_reference(text):
    points, edited, _ = C._title_sites(text)
    out = C.title_case(text, None)
    if not points:
        assert out.reason == "no_change"
        return
    assert out.text == _ref_replace(text, list(points), [text[p].upper() for p in points])
    assert out.edits == edited


@SETTINGS
@given(text=st.text(st.characters(max_codepoint=0x7F)) | any_text)
def test_full_width_matches_translate(text):
    out = C.full_width(text, None)
    if out.reason is None:
        assert out.text == text.translate(C._FULL_WIDTH)
    else:
        assert not any(" " <= c <= "~" for c in text)


def test_table_replacements_are_one_code_point():
    # _leet_sites and _title_sites index their replacements as one code point per site, and
    # _put_ascii writes one byte per site: the tables must keep that shape.
    leet = C._leet()[0]
    assert all(len(v) == 1 and v.isascii() for v in leet.values())
    assert all(len(v) == 1 for v in C._homoglyphs()[0].values())
