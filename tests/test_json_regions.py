"""JSON regions as protected spans (docs/spec/catalog.md §1.8 kind 5) and the acceptance property."""

import json
import re

import harness
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import perturber
from perturber import jsontext
from perturber import text as tm
from perturber.text.spans import prose_interiors

#: Exempt from kind 5 (§1.8): the schema family, the named exceptions, and entries that only add
#: material around the text.
EXEMPT_NAMES = {"full_width", "strip_markdown", "url_email_mask"}
SPECS = [s for s in harness.deterministic_entries() if s.family != "schema" and s.name not in EXEMPT_NAMES]
SCHEMA = (
    '{"type": "object", "properties": {"answer": {"type": "string", "description": '
    '"The final answer, in one short sentence."}, "count": {"type": "integer"}}, '
    '"required": ["answer"]}'
)


# --------------------------------------------------------------------------------------------
# The spans themselves
# --------------------------------------------------------------------------------------------


def test_only_prose_interiors_are_editable():
    text = "Reply with " + SCHEMA + " please."
    editable = tm.Spans(tm.protected_spans(text)).gaps(0, len(text))
    assert [text[s:e] for s, e in editable] == [
        "Reply with ",
        "The final answer, in one short sentence.",
        " please.",
    ]
    assert [text[s:e] for s, e in prose_interiors(text)] == ["The final answer, in one short sentence."]


def test_escapes_inside_prose_are_protected_tokens():
    text = '{"note": "say \\"hi\\" to \\u00e9 and\\nbye"}'
    protected = [text[s:e] for s, e in tm.protected_spans(text)]
    assert protected == ['{"note": "', '\\"', '\\"', "\\u00e9", "\\n", '"}']


@pytest.mark.parametrize("text", ["[false]", " [-1000]\n", '{"a": [1, 2]}'])
def test_a_whole_json_text_without_prose_is_protected_whole(text):
    body = text.strip()
    start = text.index(body)
    assert list(tm.protected_spans(text)) == [(start, start + len(body))]
    for name in ("repeated_chars", "number_format", "upper_case", "typos"):
        assert perturber.perturb(text, name, {}, 0) == text, name


def test_earlier_kinds_win_and_json_false_gives_kinds_1_to_4():
    text = 'See `{"a": "b c"}` and {"url": "https://ex.com/x y"}'
    spans = tm.protected_spans(text)
    assert [text[s:e] for s, e in spans] == ['`{"a": "b c"}`', '{"url": "', "https://ex.com/x", '"}']
    assert [text[s:e] for s, e in tm.protected_spans(text, json=False)] == [
        '`{"a": "b c"}`',
        "https://ex.com/x",
    ]


def test_unsafe_edit_in_prose_interior_is_skipped_at_that_site():
    text = 'Use {"a": "b c"} "now"'
    # a quote inside the interior is dropped; the same edit outside the region is kept
    assert tm.splice(text, [(12, 12, '"'), (13, 14, "C"), (17, 18, "\n")]) == 'Use {"a": "b C"} \nnow"'


def test_schema_in_prompt_keeps_its_structure():
    text = "Answer the question using this schema: " + SCHEMA + "\nWhat is the capital of France?"
    for name in (
        "synonym",
        "typos",
        "upper_case",
        "random_case",
        "leetspeak",
        "homoglyph",
        "line_wrap",
        "quote_style",
        "word_split",
        "tabs_for_spaces",
    ):
        out = perturber.perturb(text, name, {}, 3)
        region = jsontext.regions(out)
        assert len(region) == 1, name
        assert _same(json.loads(SCHEMA), region[0].value), (name, out)


# --------------------------------------------------------------------------------------------
# Detection is O(n) (G6): openers hidden in the strings of a failed scan
# --------------------------------------------------------------------------------------------


def _scan_work(monkeypatch, text: str) -> int:
    """Characters the scanner reads while finding the regions of ``text``."""
    calls = []
    real = jsontext.scan

    def counting(t, start=0):
        r = real(t, start)
        calls.append((r.stop if r.end is None else r.end) - start + 1)
        return r

    monkeypatch.setattr(jsontext, "scan", counting)
    jsontext.regions(text)
    monkeypatch.setattr(jsontext, "scan", real)
    return sum(calls)


@pytest.mark.parametrize(
    "unit",
    [
        '"[",',
        '"{\\"a\\":[",',
        '"[1,[",',
        '"[", ',
        '["',
        '{"a":"[',
        '"x [\\"y\\", ',
        '"[\\"", ',
        '"[[", ',
        '"[]", "{", ',
        "[",
        '{"a": [',
    ],
)
def test_detection_reads_each_character_a_bounded_number_of_times(monkeypatch, unit):
    """Openers hidden in the strings of a failed scan (the adversarial case for G6)."""
    small, large = "[" + unit * 200 + "x", "[" + unit * 4000 + "x"
    per_char_small = _scan_work(monkeypatch, small) / len(small)
    per_char_large = _scan_work(monkeypatch, large) / len(large)
    assert per_char_large <= 4 and per_char_large < 1.2 * per_char_small


# --------------------------------------------------------------------------------------------
# The acceptance property over generated JSON
# --------------------------------------------------------------------------------------------

_WORDS = st.sampled_from(
    [
        "the",
        "answer",
        "must",
        "be",
        "short",
        "Paris",
        "capital",
        "number",
        "don't",
        "naïve",
        "東京",
        "Привет",
        "café",
        "42",
        "3.5",
        "a",
        "I",
        "string",
        "type",
        "object",
        'say "hi"',
        "back\\slash",
        "tab\there",
        "line\nbreak",
        "😀",
        "e\u0301",
        "\u00a0",
        "well-known",
        "U.S.A.",
        ":)",
        "—",
    ]
)
prose = st.lists(_WORDS, min_size=2, max_size=6).map(" ".join)
ident = st.one_of(
    st.from_regex(r"[a-z_$][a-zA-Z0-9_]{0,8}", fullmatch=True),
    st.sampled_from(["string", "integer", "#/$defs/item", "object", "snake_case"]),
)
scalars = st.one_of(
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
    ident,
    prose,
)
keys = st.one_of(ident, prose)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=12,
)
containers = st.one_of(
    st.lists(values, min_size=1, max_size=4), st.dictionaries(keys, values, min_size=1, max_size=4)
)
dumped = st.tuples(containers, st.sampled_from([None, 2, "\t"]), st.booleans()).map(
    lambda t: json.dumps(t[0], indent=t[1], ensure_ascii=t[2])
)
AROUND = [
    ("{}", ""),
    ("Fill in {} and answer.", ""),
    ("What is the answer? {}", ""),
    ("Example one: {} and example two: ", ""),
    ("  {}\n", ""),
]


@st.composite
def embedded(draw):
    docs = draw(st.lists(dumped, min_size=1, max_size=3))
    frame = draw(st.sampled_from(AROUND))
    if len(docs) > 1 or frame[0] == "Example one: {} and example two: ":
        return "Compare " + " with ".join(docs) + ". Which is shorter?"
    return frame[0].format(docs[0]) + frame[1]


def _is_prose(value) -> bool:
    return (
        isinstance(value, str)
        and re.search(r"\s", value) is not None
        and re.search(r"[^\W\d_]", value) is not None
    )


def _pairs(text: str):
    return json.loads(text, object_pairs_hook=lambda p: ("obj", p))


def _same(a, b) -> bool:
    """``b`` equals ``a`` except inside prose string values (member names compared exactly)."""
    if _is_prose(a):
        return isinstance(b, str)
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):  # ("obj", pairs)
        return len(a[1]) == len(b[1]) and all(
            ka == kb and _same(va, vb) for (ka, va), (kb, vb) in zip(a[1], b[1])
        )
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _containers(text: str) -> list:
    """Every maximal valid object or array of ``text``, left to right, as ``_pairs`` values."""
    out, pos = [], 0
    while True:
        m = re.compile(r"[{\[]").search(text, pos)
        if m is None:
            return out
        r = jsontext.scan(text, m.start())
        if r.end is None:
            pos = m.start() + 1
        else:
            out.append(_pairs(text[m.start() : r.end]))
            pos = r.end


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.key)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=embedded(), seed=st.integers(0, 2**32), strong=st.booleans())
def test_json_regions_survive_every_entry(spec, text, seed, strong):
    """Each region of the input reappears, in order, as a valid container of the output whose
    value equals the original except inside prose string values."""
    before = [_pairs(text[r.start : r.end]) for r in jsontext.regions(text)]
    params = _strongest(spec) if strong else {}
    out = perturber.perturb(text, spec.name, params, seed, spec.category)
    after = iter(_containers(out))
    for value in before:
        assert any(_same(value, b) for b in after), (text, out)


def _strongest(spec):
    for p in spec.params:
        if p.name == spec.intensity and p.le is not None:
            return {p.name: p.le}
    return {}
