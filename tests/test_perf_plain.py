"""Every fast path for plain texts (perturber/text/bits.py: token masks) finds the same candidates
as the general path, on random texts that mix plain and non-plain pieces."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from test_bits import PIECES, any_texts

from perturber.perturbations import character
from perturber.perturbations.word_level import spacing, typo_mechanics, typos
from perturber.text import bits as B
from perturber.text.byte_lanes import Flags

EXAMPLES = settings(max_examples=400, deadline=None)


def texts_with(words: list[str]):
    """Random texts, or the given words joined by spaces (the cases a fast path must get right)."""
    return any_texts | st.lists(st.sampled_from(words), max_size=10).map(" ".join)


@EXAMPLES
@given(any_texts, st.sampled_from([3, 4]))
def test_typo_candidates(text, min_letters):
    lanes = typo_mechanics.typo_lanes(text)
    if lanes is not None:
        got = typo_mechanics._typo_starts_plain(lanes, min_letters)
        assert list(got) == list(typo_mechanics._typo_starts_general(text, min_letters))


@EXAMPLES
@given(any_texts)
def test_word_merge_lefts(text):
    lanes = spacing._alpha_lanes(text)
    if lanes is not None and " " in text:
        assert list(spacing._merge_lefts_plain(*lanes)) == list(spacing._merge_lefts_general(text))


@EXAMPLES
@given(any_texts)
def test_word_split_candidates(text):
    assert list(spacing._split_starts.__wrapped__(text)) == list(spacing._split_starts_general(text))
    lanes = spacing._alpha_lanes(text)
    if lanes is not None and not any(c in text for c in '"{['):
        assert list(spacing._split_starts_plain(*lanes)) == list(spacing._split_starts_general(text))


# Units and the words their filter must tell from them (he, his, or, set), hyphenated and
# mixed-case tokens, and the characters that end, join or bind tokens, put side by side.
TITLE_PIECES = PIECES + [
    *"gmsh",
    *["km", "Km", "min", "mi", "mph", "hrs", "sec", "kg", "ft", "oz", "lbs", "mm", "kgs", "km2"],
    *["he", "his", "her", "or", "set", "old", "see", "men"],
    *["a-b", "x-Ray", "well-known", "Well-known", "15-year-old", "iPhone", "o'neil", "3rd"],
]


@EXAMPLES
@given(
    texts_with(["km", "Km", "s", "min", "a-b", "x-Ray", "o'neil", "3rd", " ", "-", "’"])
    | st.lists(st.sampled_from(TITLE_PIECES), max_size=30).map("".join)
)
def test_title_case_letters(text):
    b = B.bits(text)
    if b is not None:
        letters, edited = character._title_plain(b)
        points, general_edited, _ = character._title_sites(text)
        assert B.positions(letters, b.n) == list(points) and edited == general_edited


@EXAMPLES
@given(
    st.lists(
        st.sampled_from(TITLE_PIECES + ["e.g", "$a", "x2", "2x", "km's", "’s", "don’t", "km’", "‐a", "😀"]),
        max_size=30,
    ).map("".join)
)
def test_title_case_byte_lanes(text):
    """The byte-lane path of a plain text (_title_view) capitalises what the token-by-token path does."""
    out = character.title_case(text, None)
    points, edited, _ = character._title_sites(text)
    if not points:
        assert out.reason == "no_change"
        return
    upper = list(text)
    for p in points:
        upper[p] = text[p].upper()
    assert out.text == "".join(upper) and out.edits == edited


@EXAMPLES
@given(texts_with(["to", "it's", "a-e-i", "Queue", "tell", "x1", "too", "o'", "eau", " ", "-", "’"]))
def test_character_sites(text):
    b = B.bits(text)
    if b is None:
        return
    cands, full = character._leet_plain(b)
    assert (cands, full) == character._leet_general(text)
    assert character._disemvowel_plain(b) == character._disemvowel_general(text)
    assert B.positions(
        B.free_lanes(b) & B.char_lanes(b, character._VOWEL_TABLE), b.n
    ) == character._in_free_tokens(text, character._VOWEL_RE)
    homoglyph = B.char_lanes(b, character._homoglyph_table())
    assert B.positions(B.free_lanes(b) & homoglyph, b.n) == character._in_free_tokens(
        text, character._homoglyphs()[1]
    )
    assert B.positions(B.free_lanes(b) & b.link, b.n) == character._boundaries_general(text)


@EXAMPLES
@given(texts_with(["don't", "it’s", "we'Re", "ya'll", "a'b's", "'s", "x's", "o'clock", "I'M", "3's", "$a's"]))
def test_apostrophe_drop_sites(text):
    b = B.bits(text)
    if b is not None:
        assert B.positions(typos._apostrophe_lanes(b), b.n) == typos._apostrophes_general(text)


@EXAMPLES
@given(
    texts_with(
        ["km", "Km", "kg's", "ab", "a", "Hi", "hI", "x1", "a-b", "lbs", "Mph", "it's", "min", "Min", "mins"]
        + ["sec", "hrs", "hr", "mph", "mi", "im", "his", "is", "mm-s", "lb’s", "`km`", "a_km", "ft.", "x.ft"]
        + ["$oz", "km!", "Why?", "eAch", "O'Neil", "café", "x\u0301y", "https://a.co/min", '{"k": "km"}']
    )
)
def test_repeated_chars_word_sites(text):
    """The byte lanes of the reversed view find the words of the general rule."""
    v = B.view(text)
    if v is not None:
        free = typos.tm.free_tokens(text)
        general = typos._ascii_word_sites(free) if text.isascii() else typos._word_sites(text, free)
        ends = typos._stretch_ends(v, typos.tm.protected_spans(text), [])
        assert list(Flags.of_bytes(ends)) == [e - 1 for _, e, _ in general]


@EXAMPLES
@given(
    texts_with(
        [
            "Their",
            "it's",
            "It’s",
            "TO",
            "too",
            "of",
            "x-to",
            "to's",
            "you're",
            "were",
            "$to",
            "`to`",
            "http://to.x",
            "a@to",
        ]
    )
)
def test_confusable_words_sites(text):
    """In the view alone (no protected span may bind a token) or from the masks, as the general scan."""
    v = B.view(text)
    if v is not None:
        assert typos._confusable_hits_plain(text, v) == typos._confusable_hits_general(text)


@EXAMPLES
@given(texts_with(["The", "is", "of", "IT", "don't", "don’t", "$is", "a_b", "the-end", "x.the"]))
def test_drop_stop_words_dropped_tokens(text):
    b = B.bits(text)
    if b is not None:
        assert spacing._dropped_plain(text, b) == spacing._dropped_general(text)


@EXAMPLES
@given(any_texts)
def test_random_case_sites(text):
    if not text.isascii() and B.view(text) is not None:
        spans = character._spans(text)
        assert character._case_sites.__wrapped__(text) == character._case_sites_general(text, spans)


@EXAMPLES
@given(
    texts_with(
        ["color", "Color", "COLORS", "meter", "5 meters", "gray", "x.gray", "$color", "color's", "neighbor"]
    )
)
def test_spelling_uk_tokens(text):
    b = B.bits(text)
    if b is not None:
        table = typos.uk_table()[0]
        general = [(t.start, t.end) for t in typos.tm.free_tokens(text) if t.text.lower() in table]
        assert typos._uk_tokens(text) == general
