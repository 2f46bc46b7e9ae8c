"""The bit-parallel token masks of a plain text (perturber/text/bits.py) agree with the token
model (word_tokens, free_tokens) on random texts."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perturber import text as tm
from perturber.text import bits as B
from perturber.text import byte_lanes as BL

PIECES = [
    "a",
    "Bc",
    "dog",
    "IT",
    "x9",
    "42",
    "'",
    "’",
    "-",
    "‐",
    "‑",
    "_",
    "$",
    "/",
    "@",
    "{",
    "}",
    "[",
    ".",
    ":",
    ",",
    "!",
    " ",
    "  ",
    "\n",
    "\r\n",
    "\t",
    "\u00a0",
    "€",
    "“",
    "—",
    "`",
    "https://ex.com/a_b",
    "a@b.co",
    '{"k": "v w"}',
]
plain_texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
any_texts = (
    plain_texts
    | st.text(max_size=30)
    | st.lists(st.sampled_from(PIECES + ["é", "e\u0301", "\u200d", "½", "日"]), max_size=20).map("".join)
)


def _lanes(text, tokens):
    return [p for t in tokens for p in range(t.start, t.end)]


@settings(max_examples=500, deadline=None)
@given(any_texts)
def test_the_masks_are_the_token_model(text):
    b = B.bits(text)
    not_plain = any(not c.isascii() and B._NOT_PLAIN.match(c) for c in text)
    assert (b is None) == not_plain
    if b is None:
        return
    tokens = tm.word_tokens(text)
    free = tm.free_tokens(text)
    n = len(text)
    assert B.positions(b.start, n) == [t.start for t in tokens]
    assert B.positions(b.end, n) == [t.end - 1 for t in tokens]
    assert B.positions(b.tok, n) == _lanes(text, tokens)
    assert B.positions(B.free_lanes(b), n) == _lanes(text, free)
    assert B.positions(b.free_start, n) == [t.start for t in free]
    assert B.positions(b.link, n) == [p for t in tokens for p in range(t.start + 1, t.end)]
    assert B.count(b.free_start) == len(free)


@settings(max_examples=300, deadline=None)
@given(plain_texts, st.data())
def test_token_any_and_whole_mark_whole_tokens(text, data):
    b = B.bits(text)
    tokens = tm.word_tokens(text)
    if b is None or not tokens:
        return
    n = len(text)
    picked = data.draw(st.sets(st.integers(0, n - 1), max_size=4))
    flags = sum(1 << 4 * (n - 1 - p) for p in picked)
    expected = [p for t in tokens if any(t.start <= q < t.end for q in picked) for p in range(t.start, t.end)]
    assert B.positions(B.whole(B.token_any(flags & b.tok, b), b), n) == expected
    last = {t.start: max([q for q in picked if t.start <= q < t.end], default=None) for t in tokens}
    assert B.positions(B.fill_left(flags & b.tok, b), n) == [
        p for t in tokens if last[t.start] is not None for p in range(t.start, last[t.start] + 1)
    ]


@given(plain_texts)
def test_case_lanes(text):
    b = B.bits(text)
    if b is None:
        return
    lower, upper, digit, apostrophe = B.case_lanes(b)
    n = len(text)
    assert B.positions(lower, n) == [i for i, c in enumerate(text) if "a" <= c <= "z"]
    assert B.positions(upper, n) == [i for i, c in enumerate(text) if "A" <= c <= "Z"]
    assert B.positions(digit, n) == [i for i, c in enumerate(text) if "0" <= c <= "9"]
    assert B.positions(apostrophe, n) == [i for i, c in enumerate(text) if c in "'’"]


def test_the_view_keeps_offsets_and_joiners():
    assert B.view("a’b‐c‑d € x") == b"a'b-c-d ? x"
    assert B.view("x\u200dy") is None and B.view("e\u0301") is None and B.view("½") is None


@settings(max_examples=300, deadline=None)
@given(plain_texts)
def test_lanes_index_like_the_positions(text):
    b = B.bits(text)
    if b is None:
        return
    lanes = B.Lanes(b.start, b.n)
    expected = B.positions(b.start, b.n)
    assert len(lanes) == len(expected) and [lanes[i] for i in range(len(lanes))] == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=1500))
def test_lanes_find_each_flag(flags):
    mask = int("".join("1" if f else "0" for f in flags), 16)
    lanes = B.Lanes(mask, len(flags))
    assert [lanes[i] for i in range(len(lanes))] == [p for p, f in enumerate(flags) if f]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=600), st.lists(st.integers(-700, 700), max_size=30))
def test_lanes_look_ups_before_and_after_listing_are_the_positions(flags, indices):
    """Any look-ups (negative ones, out of range ones), before and after the flags are listed."""
    mask = int("".join("1" if f else "0" for f in flags), 16)
    lanes, expected = B.Lanes(mask, len(flags)), [p for p, f in enumerate(flags) if f]
    for i in indices:
        if -len(expected) <= i < len(expected):
            assert lanes[i] == expected[i]
        else:
            with pytest.raises(IndexError):
                lanes[i]
    assert list(lanes) == expected


def _flags(mask, n):
    """The lanes flagged in a byte-lane mask, the straightforward way."""
    return [p for p, byte in enumerate(mask.to_bytes(n, "big")) if byte]


@settings(max_examples=500, deadline=None)
@given(any_texts)
def test_the_byte_lane_masks_are_the_token_model(text):
    v = B.view(text)
    if v is None:
        return
    spans = tm.protected_spans(text) if B.may_protect(v) else ()
    t = BL.byte_tokens(v, BL.class_table({}), spans)
    tokens = tm.word_tokens(text)
    free = tm.free_tokens(text)
    n = len(text)
    assert _flags(t.start, n) == [tok.start for tok in tokens]
    assert _flags(t.end, n) == [tok.end - 1 for tok in tokens]
    assert _flags(t.tok, n) == _lanes(text, tokens)
    assert _flags(t.link, n) == [p for tok in tokens for p in range(tok.start + 1, tok.end)]
    assert _flags(BL.free_starts(t, 0), n) == [tok.start for tok in free]
    assert list(BL.Flags(BL.free_starts(t, 0), n)) == [tok.start for tok in free]


@settings(max_examples=300, deadline=None)
@given(plain_texts, st.data())
def test_byte_lane_token_any_and_fill_left_mark_tokens(text, data):
    v = B.view(text)
    tokens = tm.word_tokens(text)
    if v is None or not tokens:
        return
    t = BL.byte_tokens(v, BL.class_table({}), tm.protected_spans(text))
    n = len(text)
    picked = data.draw(st.sets(st.integers(0, n - 1), max_size=4))
    flags = sum(1 << 8 * (n - 1 - p) for p in picked) & t.tok
    inside = {tok.start: [q for q in picked if tok.start <= q < tok.end] for tok in tokens}
    assert _flags(BL.token_any(flags, t), n) == [s for s, q in inside.items() if q]
    assert _flags(BL.free_starts(t, flags), n) == [
        tok.start for tok in tm.free_tokens(text) if not inside[tok.start]
    ]
    assert _flags(BL.fill_left(flags, t), n) == [
        p for s, q in inside.items() if q for p in range(s, max(q) + 1)
    ]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=1500), st.lists(st.integers(-1600, 1600), max_size=30))
def test_byte_lane_flags_look_ups_before_and_after_listing_are_the_positions(flags, indices):
    """Any look-ups (negative ones, out of range ones), before and after the flags are listed."""
    mask = int.from_bytes(bytes(flags), "big")
    found, expected = BL.Flags(mask, len(flags)), [p for p, f in enumerate(flags) if f]
    assert len(found) == len(expected)
    for i in indices:
        if -len(expected) <= i < len(expected):
            assert found[i] == expected[i]
        else:
            with pytest.raises(IndexError):
                found[i]
    assert list(found) == expected


# tokens with no, one or several joiners, of 1 to 5 word characters
joined_words = st.lists(
    st.sampled_from(["a", "bc", "Dé", "x9", "-", "'", "’", "‑", "co-op-ed", "a-b-c", "x-y’z-w", " ", ", "]),
    max_size=20,
)


@settings(max_examples=500, deadline=None)
@given(plain_texts | joined_words.map("".join), st.integers(1, 5), st.data())
def test_byte_lane_with_letters_counts_the_word_characters(text, k, data):
    """``with_letters`` keeps the flagged starts whose token has ``k`` or more word characters,
    as counting them token by token does."""
    v = B.view(text)
    if v is None:
        return
    t = BL.byte_tokens(v, BL.class_table({}), ())
    tokens = tm.word_tokens(text)
    among = data.draw(st.sets(st.sampled_from([tok.start for tok in tokens]))) if tokens else set()
    starts = sum(1 << 8 * (len(text) - 1 - s) for s in among)
    expected = [tok.start for tok in tokens if tok.start in among and sum(c.isalnum() for c in tok.text) >= k]
    assert _flags(BL.with_letters(t, v, starts, k), len(text)) == expected


TABLE_WORDS = ["a", "km", "Km", "it's", "of", "their", "there's", "definitely", "x-ray", "abcde"]


def table_texts(*extra: str):
    """Texts of pieces, table words and ``extra`` strings near them."""
    pool = PIECES + TABLE_WORDS + ["IT’S", "Their", "X‑ray", *extra]
    return st.lists(st.sampled_from(pool), max_size=30).map("".join)


def table_cases(*extra: str, min_words: int = 1):
    """``(text, words, folded)``: a text of ``table_texts``, a table of some of the table words
    (lower-cased when folded) and whether the table is folded."""
    return st.tuples(
        table_texts(*extra), st.sets(st.sampled_from(TABLE_WORDS), min_size=min_words), st.booleans()
    ).map(lambda c: (c[0], {w.lower() for w in c[1]} if c[2] else c[1], c[2]))


@settings(max_examples=400, deadline=None)
@given(table_cases("definitelyy"))
def test_word_spans_are_the_tokens_whose_text_is_in_the_table(case):
    text, words, folded = case
    b = B.bits(text)
    if b is None:
        return
    stand_ins = str.maketrans({"’": "'", "‐": "-", "‑": "-"})
    expected = [
        (t.start, t.end)
        for t in tm.word_tokens(text)
        if (t.text.translate(stand_ins).lower() if folded else t.text.translate(stand_ins)) in words
    ]
    assert B.word_spans(b, B.word_table(words, folded), b.start) == expected


@settings(max_examples=400, deadline=None)
@given(table_cases("of_", "%a"))
def test_free_word_spans_are_the_free_tokens_in_the_table(case):
    """The pattern of free_word_finder gives word_spans among the free tokens (no protected span)."""
    text, words, folded = case
    b = B.bits(text)
    if b is None or B.may_protect(b.view):
        return
    expected = B.word_spans(b, B.word_table(words, folded)._replace(finder=None), b.free_start)
    assert B.free_word_spans(b.view, B.free_word_finder(words, folded)) == expected


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES + ["~", "~~~", "://", ":/", "www.", "wWw.", "ww.", "w"]), max_size=20))
def test_may_protect_is_the_plain_search(pieces):
    v = "".join(pieces).encode("ascii", "replace")
    straightforward = any(needle in v for needle in (b"`", b"@", b"{", b"[", b"~~~", b"://")) or (
        re.search(rb"[wW][wW][wW]\.", v) is not None
    )
    assert B.may_protect(v) == straightforward


@settings(max_examples=400, deadline=None)
@given(table_cases("of_", min_words=4))
def test_word_spans_by_the_tables_pattern_are_those_by_the_masks(case):
    text, words, folded = case
    b = B.bits(text)
    if b is None:
        return
    wt = B.word_table(words, folded)
    by_masks = wt._replace(finder=None)
    assert B.word_spans(b, wt, b.free_start) == B.word_spans(b, by_masks, b.free_start)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.booleans(), max_size=1500), st.data())
def test_byte_lane_flags_pick_is_the_listed_positions(flags, data):
    """``Flags.pick`` of ascending indices, a few (located one by one) or many (from the list),
    twice in a row (the second reads the kept list), is the flagged positions at those indices."""
    mask = int.from_bytes(bytes(flags), "big")
    found, expected = BL.Flags(mask, len(flags)), [p for p, f in enumerate(flags) if f]
    for _ in range(2):
        indices = sorted(data.draw(st.sets(st.integers(0, len(expected) - 1))) if expected else [])
        assert list(found.pick(indices)) == [expected[i] for i in indices]
