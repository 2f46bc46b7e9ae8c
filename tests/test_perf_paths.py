"""The fast paths of issue 14 agree with the general code they shortcut."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from perturber import text as tm
from perturber.hot import MEMO_MAX_CHARS, per_text, replace_points
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


@settings(max_examples=300, deadline=None)
@given(text=texts, data=st.data())
def test_replace_points_equals_splice(text, data):
    positions = sorted(data.draw(st.sets(st.integers(0, max(0, len(text) - 1)), max_size=len(text))))
    if not text:
        positions = []
    reps = data.draw(
        st.lists(st.sampled_from(["", "X", "yz", "\u0301"]), min_size=len(positions), max_size=len(positions))
    )
    assert replace_points(text, positions, reps) == tm.splice(
        text, [(p, p + 1, r) for p, r in zip(positions, reps)]
    )


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

    short, long_ = "banana", "a" * (MEMO_MAX_CHARS + 1)
    assert (count_a(short), count_a(short)) == (3, 3) and calls == [short]
    assert count_a(long_) == count_a(long_) == MEMO_MAX_CHARS + 1 and calls.count(long_) == 2
