"""perturber.jsontext: the one JSON scanner (quote_style's check, the schema lexer, JSON regions)."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perturber import jsontext
from perturber.jsontext import StringSpan, is_container, regions, scan

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=5), kids, max_size=4),
    max_leaves=20,
)


def strict_container(text: str) -> bool:
    body = text.strip()
    try:
        value = json.loads(body, parse_constant=lambda c: 1 / 0)
    except (ValueError, ZeroDivisionError, RecursionError):
        return False
    return isinstance(value, (dict, list)) and body == text.strip(" \t\n\r")


@settings(max_examples=300, deadline=None)
@given(
    JSON,
    st.sampled_from(["", " ", "\n"]),
    st.integers(0, 60),
    st.sampled_from(["", "x", "]", ",", '"', "\\", "NaN"]),
)
def test_is_container_agrees_with_the_json_module(value, pad, cut, junk):
    text = pad + json.dumps(value, indent=None if cut % 2 else 1, ensure_ascii=cut % 3 == 0) + pad
    assert is_container(text) == strict_container(text)
    broken = text[:cut] + junk + text[cut:]
    assert is_container(broken) == strict_container(broken), broken


def test_is_container_rejects_non_json():
    for bad in (
        "",
        "{",
        "[NaN]",
        "[Infinity]",
        "{'a': 1}",
        '{"a": 1,}',
        "[1 2]",
        '{"a" 1}',
        "1",
        '"s"',
        "{} {}",
        '["\x01"]',
        '["\\x"]',
        "[01]",
        '{"a": [}',
    ):
        assert not is_container(bad), bad
    for good in (
        "{}",
        "[]",
        ' [1, -2.5e3, true, null, "é\\u00e9"]\n',
        '{"a": {"a": 1}, "a": 2}',
        "[" * 5000 + "]" * 5000,
    ):
        assert is_container(good), good


def test_scan_reports_strings_with_member_name_flags():
    text = 'see {"type": "string", "enum": ["a b", "x\\"y"]} there'
    s = scan(text, 4)
    assert s.end == text.index("} there") + 1
    assert [(text[x.start : x.end], x.name) for x in s.strings] == [
        ("type", True),
        ("string", False),
        ("enum", True),
        ("a b", False),
        ('x\\"y', False),
    ]
    bad = scan('{"a": [1, }', 0)
    assert bad.end is None and bad.stop == 10 and bad.open_starts == [0, 6]


def test_regions_whole_text_and_segments():
    whole = regions("  [1, 2]\n")  # the whole text counts even without strings
    assert [(r.start, r.end, r.value) for r in whole] == [(2, 8, [1, 2])]
    text = 'Use {"name": "Ada Lovelace", "id": "u_1"} then [3] and ["done"] or {bad}.'
    found = regions(text)
    assert [text[r.start : r.end] for r in found] == ['{"name": "Ada Lovelace", "id": "u_1"}', '["done"]']
    assert found[0].value == {"name": "Ada Lovelace", "id": "u_1"}
    first = found[0]
    assert [text[p.start : p.end] for p in first.prose] == ["Ada Lovelace"]
    assert [text[p.start : p.end] for p in found[1].prose] == []  # no whitespace: not prose
    assert all(isinstance(p, StringSpan) and not p.name for p in first.prose)


def test_regions_never_start_inside_a_found_one_and_retry_after_failures():
    text = '{"a": ["x y"], "b": {"c": "d"}}'
    assert [(r.start, r.end) for r in regions("say " + text)] == [(4, 4 + len(text))]
    # the outer segment fails; the inner ones are found, left to right
    assert [(r.start, r.end) for r in regions('{ {"a": "b c"} ["d"] oops')] == [(2, 14), (15, 20)]
    # an opener hidden in a string of a failed segment is still scanned
    text = 'Use {"a": "b} or {"c": "e f"}'
    assert [text[r.start : r.end] for r in regions(text)] == ['{"c": "e f"}']


def test_prose_strings_decode_escapes():
    text = '{"k": "two\\u0020words", "n": "tab\\there", "m": "123 456", "key with space": 1}'
    (region,) = regions(text)
    assert [text[p.start : p.end] for p in region.prose] == ["two\\u0020words", "tab\\there"]


def test_failed_openers_are_not_rescanned(monkeypatch):
    calls = []
    real = jsontext.scan

    def counting(text, start=0):
        calls.append(start)
        return real(text, start)

    monkeypatch.setattr(jsontext, "scan", counting)
    assert regions("[" * 2000 + " x") == []
    assert calls == [0]  # every nested opener was still open where the first scan failed


@pytest.mark.parametrize("text", ['{"a": 1}', '{"a": [1, {"b": "\\u00e9"}], "c": "é"}'])
def test_parse_object_and_parse_tokens_agree(text):
    style = jsontext.detect_style(text, "\n")
    fast, slow = jsontext.parse_object(text), jsontext.parse_tokens(text)
    assert jsontext.dump(fast, style, 10**6) == jsontext.dump(slow, style, 10**6) == (text, 0)
