"""The fast paths agree with the general code they shortcut."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perturber import text as tm
from perturber.memo import TEXT_MAX_CHARS, per_text
from perturber.perturbations import directional, formatting

_PIECES = [
    "a",
    "b",
    "é",
    "e\u0301",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "    ",
    "x",
    "!",
    "`",
    "-",
    "March",
    "mar",
    "SEPTEMBER",
    "15",
    "2026",
    "2026-01-15",
    ",",
    "😀",
    "\u200d",
    "ß",
]
texts = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


_REPLACEMENTS = st.sampled_from(["", "X", "yz", "\u0301"])


@settings(max_examples=300, deadline=None)
@given(text=texts, data=st.data())
def test_splice_at_replacing_code_points_equals_splice(text, data):
    # up to every code point: the dense path (a list of code points) and the sparse one (slices)
    positions = sorted(data.draw(st.sets(st.integers(0, max(0, len(text) - 1)), max_size=len(text))))
    if not text:
        positions = []
    reps = data.draw(st.lists(_REPLACEMENTS, min_size=len(positions), max_size=len(positions)))
    expected = tm.splice(text, [(p, p + 1, r) for p, r in zip(positions, reps)])
    assert tm.splice_at(text, positions, None, reps) == expected
    assert tm.splice_at(text, positions, [p + 1 for p in positions], reps) == expected


@settings(max_examples=300, deadline=None)
@given(text=texts, data=st.data())
def test_splice_at_inserting_equals_splice(text, data):
    # repeated offsets too: two insertions at one offset keep their order
    positions = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=len(text) + 3)))
    reps = data.draw(st.lists(_REPLACEMENTS, min_size=len(positions), max_size=len(positions)))
    expected = tm.splice(text, [(p, p, r) for p, r in zip(positions, reps)])
    assert tm.splice_at(text, positions, positions, reps) == expected
    assert tm.splice_at(text, positions, list(positions), reps) == expected


@pytest.mark.parametrize(
    "edits",
    [[(2, 3, "x"), (0, 1, "y")], [(0, 2, "x"), (1, 3, "y")], [(2, 1, "x")], [(0, 9, "x")], [(-1, 0, "x")]],
)
def test_splice_rejects_edits_out_of_order_overlapping_or_out_of_range(edits):
    with pytest.raises(ValueError):
        tm.splice("abcd", edits)


@settings(max_examples=300, deadline=None)
@given(text=texts)
def test_date_hint_is_a_superset_of_the_date_pattern(text):
    tables = directional._dates()
    if tables.pattern.search(text) is not None:
        assert directional._may_hold_date(text, tables)


def test_date_hint_rejects_a_year_without_a_date():
    tables = directional._dates()
    assert not directional._may_hold_date("the summer games in 1992, and why", tables)
    assert not directional._may_hold_date("in March, maybe", tables)
    for date in ("2026-01-15", "March 15, 2026", "Mar. 15, 2026", "15 march 2026"):
        assert directional._may_hold_date(f"due {date}.", tables), date


@settings(max_examples=300, deadline=None)
@given(text=texts)
def test_tabs_for_spaces_fast_path_equals_the_general_scan(text):
    # The general scan: every match of the two-group pattern, minus protected/glued runs.
    spans = tm.Spans(tm.protected_spans(text))
    starts = formatting._cluster_starts(text)
    glue = formatting._glue_mask(starts, len(text))
    edits = []
    for m in formatting._SPACE_SITES.finditer(text):
        if m.group(1) is not None:
            s = m.start()
            k = (m.end() - s) // 4
            e, rep = s + 4 * k, "\t" * k
        else:
            (s, e), rep = m.span(), "\t"
        if spans.overlaps(s, e) or (glue is not None and (glue[s] or glue[e])):
            continue
        edits.append((s, e, rep))
    got = formatting.tabs_for_spaces(text, None)
    assert got.text == tm.splice(text, edits)
    assert got.edits == (len(edits) if edits else 0)


def test_per_text_memoises_short_texts_only():
    calls = []

    @per_text
    def count_a(text):
        calls.append(text)
        return text.count("a")

    short, long_ = "banana", "a" * (TEXT_MAX_CHARS + 1)
    assert (count_a(short), count_a(short)) == (3, 3) and calls == [short]
    assert count_a(long_) == count_a(long_) == TEXT_MAX_CHARS + 1 and calls.count(long_) == 2


@settings(max_examples=300, deadline=None)
@given(
    text=texts
    | st.lists(
        st.sampled_from(["5", "km", "1,500.5", "-3", "555-0100", "No. 7", "2026", "x", " ", "#"]), max_size=12
    ).map(" ".join),
    data=st.data(),
)
def test_numeric_literals_ending_at_chosen_offsets_are_a_filter(text, data):
    """``ends`` keeps the literals ending there with the exclusions they have among all of them."""
    every = tm.numeric_literals(text, ())
    ends = data.draw(st.sets(st.integers(0, len(text) + 1)) | st.just({n.end for n in every[::2]}))
    assert tm.numeric_literals(text, (), ends) == [n for n in every if n.end in ends]
