"""The character family (docs/spec/catalog.md §6): examples, Must-not rules, reasons and seeds."""

import unicodedata

import pytest
from helpers import expected_version, run

import perturber
from perturber import registry
from perturber.data import load_table
from perturber.rng import Draws

CHARACTER = [
    "random_case",
    "upper_case",
    "lower_case",
    "title_case",
    "leetspeak",
    "disemvowel",
    "diacritics_add",
    "diacritics_strip",
    "homoglyph",
    "full_width",
    "zero_width",
    "bidi_override",
    "ocr_noise",
]
SEEDED = ["random_case", "leetspeak", "disemvowel", "diacritics_add", "homoglyph", "zero_width", "ocr_noise"]
RATE_DEFAULTS = {
    "random_case": 0.5,
    "leetspeak": 0.5,
    "disemvowel": 0.5,
    "diacritics_add": 0.5,
    "homoglyph": 0.3,
    "zero_width": 0.3,
    "ocr_noise": 0.2,
}
LONG = (
    "The quick brown fox jumps over the lazy dog while seven clever wizards examine "
    "modern clinical documents about Oslo, Boston and Sao Paulo in the late evening. "
) * 3
PROTECTED = [
    "https://Ex.com/Páth_(Abc)?Open=Tea",
    "Some.Body@Example.org",
    "`Cödé Here`",
    "```\nPrint Öpen Toe\n```",
]
PROTECTED_TEXT = (
    "See https://Ex.com/Páth_(Abc)?Open=Tea or mail Some.Body@Example.org, "
    "run `Cödé Here` now.\n```\nPrint Öpen Toe\n```\nLast Line tésts it."
)


def full(name):
    """Maximum intensity for seeded entries, no params otherwise."""
    return {"rate": 1.0} if name in SEEDED else None


def changed_positions(a, b):
    assert len(a) == len(b)
    return [i for i, (x, y) in enumerate(zip(a, b)) if x != y]


# --------------------------------------------------------------------------------------------
# Declarations, reasons and seeds (whole family)
# --------------------------------------------------------------------------------------------


def test_family_declarations_match_the_catalog_table():
    for name in CHARACTER:
        spec = registry.get(name)
        assert spec.family == "character" and spec.in_scope and spec.expectation == "invariant"
        assert spec.kind == "deterministic" and spec.version == expected_version(name)
        assert spec.seed_sensitive == (name in SEEDED), name
        if name in SEEDED:
            assert spec.intensity == "rate" and spec.defaults["rate"] == RATE_DEFAULTS[name]
        else:
            assert spec.params == () and spec.intensity is None
    assert registry.get("diacritics_add").defaults == {"rate": 0.5, "form": "combining"}
    assert registry.get("zero_width").defaults == {"rate": 0.3, "char": "u200b"}


@pytest.mark.parametrize("name", CHARACTER)
def test_empty_input(name):
    r = run("", name)
    assert (r.text, r.applied, r.reason, r.edits) == ("", False, "empty_input", 0)


@pytest.mark.parametrize("name", SEEDED)
def test_zero_intensity(name):
    r = run(LONG, name, {"rate": 0.0})
    assert (r.text, r.applied, r.reason, r.edits) == (LONG, False, "zero_intensity", 0)


@pytest.mark.parametrize("name", SEEDED)
def test_seeds_vary_and_repeat(name):
    outs = {run(LONG, name, None, seed).text for seed in range(6)}
    assert len(outs) > 1
    assert run(LONG, name, None, 12345).text == run(LONG, name, None, 12345).text


@pytest.mark.parametrize("name", [n for n in CHARACTER if n not in SEEDED])
def test_unseeded_entries_ignore_the_seed(name):
    texts = {run(LONG + " Café Øre", name, None, seed).text for seed in (0, 1, 2**63 - 1)}
    assert len(texts) == 1


@pytest.mark.parametrize("name", [n for n in CHARACTER if n != "full_width"])
def test_protected_spans_are_untouched(name):
    r = run(PROTECTED_TEXT, name, full(name))
    assert r.applied
    for span in PROTECTED:
        assert span in r.text, (name, span)


def test_full_width_applies_inside_protected_spans():
    r = run(PROTECTED_TEXT, "full_width")
    assert "https://" not in r.text and "ｈｔｔｐｓ：／／" in r.text


@pytest.mark.parametrize("name", CHARACTER)
def test_never_raises_on_awkward_unicode(name):
    texts = [
        "\u0301abc",
        "a\u200db",
        "👨‍👩‍👧 x",
        "🇫🇷🇩🇪",
        "👍🏽ok",
        "\r\n\r",
        "İß ǅ ﬁ",
        "e\u0301\u0301",
        "\ufeff\u202ex",
        "\x00\x07",
        "東京 Привет",
        "a\U000e0041b",
        "x\ufe0fy",
        "\u200d",
        "~~~\n",
        "``",
        "\u0301",
        "i\u0307",
        "ŉ word",
        "ΣΑΣ",
    ]
    for text in texts:
        for params in (None, full(name)):
            for seed in (0, 7):
                r = run(text, name, params, seed)
                assert isinstance(r.text, str)
                assert r.applied == (r.text != text)


# --------------------------------------------------------------------------------------------
# 6.1 random_case
# --------------------------------------------------------------------------------------------


def test_random_case_example():
    for seed in range(20):
        r = run("hello world", "random_case", {"rate": 0.5}, seed)
        pos = changed_positions("hello world", r.text)
        assert len(pos) == 5 and r.edits == 5
        assert all("hello world"[p].upper() == r.text[p] for p in pos)


def test_random_case_full_rate_flips_every_cased_letter():
    assert run("Hello World", "random_case", {"rate": 1.0}).text == "hELLO wORLD"


def test_random_case_must_not_change_the_text_length():
    text = "Straße İstanbul ŉ ﬁx"
    r = run(text, "random_case", {"rate": 1.0})
    assert len(r.text) == len(text)
    assert r.text == "sTRAßE İSTANBUL ŉ ﬁX"


def test_random_case_must_not_touch_digits_symbols_urls_or_code():
    text = "a1 Ⓐ ½ $x https://Ex.com/Ab `Cd` a@B.co"
    r = run(text, "random_case", {"rate": 1.0})
    assert r.text == "A1 Ⓐ ½ $X https://Ex.com/Ab `Cd` a@B.co"


def test_random_case_keeps_marks_and_clusters():
    r = run("e\u0301t a\u200db", "random_case", {"rate": 1.0})
    assert r.text == "E\u0301T A\u200db"  # b belongs to the cluster of a (ZWJ)
    assert r.edits == 3


def test_random_case_no_candidates():
    r = run("123 !! 東京", "random_case")
    assert (r.applied, r.reason) == (False, "no_candidates")


# --------------------------------------------------------------------------------------------
# 6.2 upper_case, 6.3 lower_case
# --------------------------------------------------------------------------------------------


def test_upper_case_example():
    r = run("Call me at 9am, see https://ex.com/Path", "upper_case")
    assert (r.text, r.edits) == ("CALL ME AT 9AM, SEE https://ex.com/Path", 1)


def test_upper_case_uses_the_full_mapping():
    assert run("straße", "upper_case").text == "STRASSE"


def test_upper_case_must_not_change_urls_emails_or_code():
    text = "go www.Ex.com/a or Me@Ex.com with `x = Y`\n```\nfoo()\n```\nend"
    assert run(text, "upper_case").text == ("GO www.Ex.com/a OR Me@Ex.com WITH `x = Y`\n```\nfoo()\n```\nEND")


def test_upper_case_no_change():
    for text in ("ALREADY UPPER 42", "123 ?!", "`lower code`"):
        r = run(text, "upper_case")
        assert (r.applied, r.reason, r.edits) == (False, "no_change", 0)


def test_lower_case_example():
    r = run("Is NASA's Budget PUBLIC?", "lower_case")
    assert (r.text, r.edits) == ("is nasa's budget public?", 1)


def test_lower_case_uses_the_full_mapping():
    assert run("İ", "lower_case").text == "i\u0307"


def test_lower_case_must_not_change_urls_emails_or_code():
    text = "SEE HTTPS://EX.COM/PATH, Me@Ex.COM AND `X = Y`"
    assert run(text, "lower_case").text == "see HTTPS://EX.COM/PATH, Me@Ex.COM and `X = Y`"


def test_lower_case_no_change():
    r = run("already lower 42", "lower_case")
    assert (r.applied, r.reason) == (False, "no_change")


# --------------------------------------------------------------------------------------------
# 6.4 title_case
# --------------------------------------------------------------------------------------------


def test_title_case_example():
    r = run("don't convert 5km or the iPhone price in km", "title_case")
    assert r.text == "Don't Convert 5km Or The iPhone Price In km"
    assert r.edits == 6


def test_title_case_hyphen_parts_and_title_tokens():
    assert run("well-known state‐of‑art x-3d", "title_case").text == "Well-Known State‐Of‑Art X-3d"
    assert run("Hello-world élan", "title_case").text == "Hello-World Élan"


def test_title_case_must_not_produce_str_title_artefacts():
    r = run("don't it's 5km o'neil i'm", "title_case")
    assert r.text == "Don't It's 5km O'neil I'm"
    for bad in ("Don'T", "It'S", "5Km", "O'Neil"):
        assert bad not in r.text


def test_title_case_must_not_lower_case_acronyms_or_mixed_names():
    r = run("the NASA iPhone McDonald eV I", "title_case")
    assert r.text == "The NASA iPhone McDonald eV I"
    assert r.edits == 1


def test_title_case_must_not_capitalise_units_code_or_urls():
    text = "wait 5 ms or 3 min, 2 kg and 1 mL in `some code` at https://ex.com/path"
    assert run(text, "title_case").text == (
        "Wait 5 ms Or 3 min, 2 kg And 1 mL In `some code` At https://ex.com/path"
    )


def test_title_case_skips_bound_tokens():
    assert run("open file.txt and user_name", "title_case").text == "Open file.txt And user_name"


def test_title_case_no_change():
    for text in ("Already Title Case", "NASA 42", "ms km"):
        r = run(text, "title_case")
        assert (r.applied, r.reason) == (False, "no_change")


# --------------------------------------------------------------------------------------------
# 6.5 leetspeak
# --------------------------------------------------------------------------------------------

LEET = {"a": "@", "b": "8", "e": "3", "i": "1", "l": "1", "o": "0", "s": "5", "t": "7"}


def test_leetspeak_example():
    text = "Let us test this"
    for seed in range(30):
        r = run(text, "leetspeak", {"rate": 0.5}, seed)
        pos = changed_positions(text, r.text)
        # k = 6; the guard can drop at most one position each from "Let" and "test"
        assert 4 <= len(pos) <= 6 and r.edits == len(pos)
        assert all(LEET[text[p].lower()] == r.text[p] for p in pos)
        for word in r.text.split():
            assert any(c.isalpha() for c in word)


def test_leetspeak_must_not_turn_to_into_70_or_i_into_1():
    for seed in range(10):
        r = run("to I go", "leetspeak", {"rate": 1.0}, seed)
        assert r.text == "7o I g0"


def test_leetspeak_must_not_touch_digits_one_letter_words_urls_or_code():
    text = "a 42 x3 see https://site.io/best `test` s"
    r = run(text, "leetspeak", {"rate": 1.0})
    assert r.text == "a 42 x3 53e https://site.io/best `test` s"


def test_leetspeak_keeps_a_letter_in_every_token():
    for seed in range(30):
        r = run("tool seat bell Oslo", "leetspeak", {"rate": 0.8}, seed)
        for word in r.text.split():
            assert any(c.isalpha() for c in word), r.text


def test_leetspeak_guard_drops_the_highest_position():
    assert run("Lost", "leetspeak", {"rate": 1.0}).text == "105t"
    assert run("tel", "leetspeak", {"rate": 1.0}).text == "73l"


def test_leetspeak_no_candidates():
    for text in ("I a", "rum fun", "42 43"):
        assert run(text, "leetspeak").reason == "no_candidates"


# --------------------------------------------------------------------------------------------
# 6.6 disemvowel
# --------------------------------------------------------------------------------------------


def test_disemvowel_example():
    text = "Please read the instructions carefully"
    for seed in range(30):
        r = run(text, "disemvowel", {"rate": 0.5}, seed)
        assert len(r.text) == len(text) - 6 and r.edits == 6
        words = r.text.split()
        assert [w[0] for w in words] == ["P", "r", "t", "i", "c"]
        assert all(len(w) >= 2 for w in words)


def test_disemvowel_full_rate():
    assert run("Please read the instructions", "disemvowel", {"rate": 1.0}).text == "Pls rd th instrctns"


def test_disemvowel_must_not_delete_whole_words():
    r = run("a I an eau x-a-y", "disemvowel", {"rate": 1.0})
    assert r.text == "a I an eu x-a-y"


def test_disemvowel_must_not_delete_first_letters():
    r = run("Area idea Oboe", "disemvowel", {"rate": 1.0})
    assert r.text == "Ar id Ob"


def test_disemvowel_must_not_touch_code_or_urls():
    text = "open `open` https://open.io/open open"
    assert run(text, "disemvowel", {"rate": 1.0}).text == "opn `open` https://open.io/open opn"


def test_disemvowel_skips_marked_vowels_and_tokens_with_digits():
    text = "cafe\u0301 route66 beautiful"
    assert run(text, "disemvowel", {"rate": 1.0}).text == "cfe\u0301 route66 btfl"


def test_disemvowel_no_candidates():
    assert run("a I by my 2024", "disemvowel").reason == "no_candidates"


# --------------------------------------------------------------------------------------------
# 6.7 diacritics_add
# --------------------------------------------------------------------------------------------


def test_diacritics_add_example():
    text = "Open the door"
    for seed in range(20):
        r = run(text, "diacritics_add", {"rate": 0.5, "form": "precomposed"}, seed)
        pos = changed_positions(text, r.text)
        assert len(pos) == 3 and r.edits == 3  # 5 candidates, k = 3
        assert all(r.text[p] == unicodedata.normalize("NFC", text[p] + "\u0301") for p in pos)
        c = run(text, "diacritics_add", {"rate": 0.5}, seed)
        assert len(c.text) == len(text) + 3 and c.text.count("\u0301") == 3
        assert unicodedata.normalize("NFC", c.text) == r.text


def test_diacritics_add_forms():
    assert run("Open", "diacritics_add", {"rate": 1.0}).text == "O\u0301pe\u0301n"
    assert run("Open", "diacritics_add", {"rate": 1.0, "form": "precomposed"}).text == "Ópén"
    assert run("AEIOU", "diacritics_add", {"rate": 1.0, "form": "precomposed"}).text == "ÁÉÍÓÚ"


def test_diacritics_add_must_not_stack_a_second_mark():
    text = "cafe\u0301 na\u0308ive é"
    r = run(text, "diacritics_add", {"rate": 1.0})
    assert r.text == "ca\u0301fe\u0301 na\u0308i\u0301ve\u0301 é"
    assert "\u0301\u0301" not in r.text and "\u0308\u0301" not in r.text


def test_diacritics_add_must_not_touch_code_or_urls():
    text = "go `code` https://a.io/e x@ya.org"
    assert run(text, "diacritics_add", {"rate": 1.0}).text == "go\u0301 `code` https://a.io/e x@ya.org"


def test_diacritics_add_validates_form():
    with pytest.raises(perturber.InvalidParams):
        run("Open", "diacritics_add", {"form": "Combining"})


def test_diacritics_add_no_candidates():
    assert run("rhythm 123", "diacritics_add").reason == "no_candidates"


# --------------------------------------------------------------------------------------------
# 6.8 diacritics_strip
# --------------------------------------------------------------------------------------------


def test_diacritics_strip_example():
    r = run("Café crème in São Paulo, naïve Øresund, ﬁve ½", "diacritics_strip")
    assert r.text == "Cafe creme in Sao Paulo, naive Oresund, ﬁve ½"
    assert r.edits == 5


def test_diacritics_strip_table_a11_and_other_scripts():
    assert run("Łódź ħ đ ŧ ǿ", "diacritics_strip").text == "Lodz h d t o"
    assert run("ά Ώ ё й", "diacritics_strip").text == "α Ω е и"
    assert run("a\u0301\u0327b e\u0301", "diacritics_strip").text == "ab e"


def test_diacritics_strip_must_not_apply_compatibility_folding():
    text = "ﬁ ½ x² Ａ ㎏ ℌ"
    r = run(text, "diacritics_strip")
    assert (r.text, r.reason) == (text, "no_candidates")
    assert run("ﬁé", "diacritics_strip").text == "ﬁe"


def test_diacritics_strip_must_not_strip_essential_marks_of_other_scripts():
    text = "हिन्दी العَرَبِيَّة עִבְרִית ภาษาไทย 한국어 カ\u3099"
    r = run(text, "diacritics_strip")
    assert (r.text, r.reason) == (text, "no_candidates")
    assert run(text + " é", "diacritics_strip").text == text + " e"


def test_diacritics_strip_must_not_touch_code_or_urls():
    text = "café `café` https://café.fr/é www.é.com"
    assert run(text, "diacritics_strip").text == "cafe `café` https://café.fr/é www.é.com"


def test_diacritics_strip_no_candidates():
    assert run("plain ASCII text", "diacritics_strip").reason == "no_candidates"


# --------------------------------------------------------------------------------------------
# 6.9 homoglyph
# --------------------------------------------------------------------------------------------


def test_homoglyph_table_is_the_catalog_table():
    table = dict(load_table("a08b_homoglyphs")["map"])
    assert len(table) == 31
    assert table["a"] == "\u0430" and table["H"] == "\u041d" and table["Z"] == "\u0396"


def test_homoglyph_example():
    text = "Pay the invoice"
    table = dict(load_table("a08b_homoglyphs")["map"])
    for seed in range(20):
        r = run(text, "homoglyph", {"rate": 0.3}, seed)
        pos = changed_positions(text, r.text)
        assert len(pos) == 3 and r.edits == 3  # 10 candidates, k = 3
        assert all(table[text[p]] == r.text[p] for p in pos)


def test_homoglyph_must_not_derive_upper_case_with_upper():
    r = run("HNY", "homoglyph", {"rate": 1.0})
    assert r.text == "\u041d\u039d\u04ae"
    for bad in ("\u04ba", "\u0548", "\u0423"):  # Һ Ո У
        assert bad not in r.text


def test_homoglyph_must_not_change_the_length():
    text = "Execute the job quickly, Joe, as in Mexico"
    r = run(text, "homoglyph", {"rate": 1.0})
    assert len(r.text) == len(text) and r.applied


def test_homoglyph_must_not_touch_code_or_urls():
    text = "ace `ace` https://ace.io ace@ace.io"
    assert run(text, "homoglyph", {"rate": 1.0}).text == "\u0430\u0441\u0435 `ace` https://ace.io ace@ace.io"


def test_homoglyph_only_single_code_point_clusters():
    assert run("e\u0301 a", "homoglyph", {"rate": 1.0}).text == "e\u0301 \u0430"


def test_homoglyph_no_candidates():
    assert run("fun bugrl 42", "homoglyph").reason == "no_candidates"


# --------------------------------------------------------------------------------------------
# 6.10 full_width
# --------------------------------------------------------------------------------------------


def test_full_width_example():
    r = run("Hi 2 you!", "full_width")
    assert (r.text, r.edits) == ("Ｈｉ\u3000２\u3000ｙｏｕ！", 1)


def test_full_width_keeps_line_breaks_tabs_and_non_ascii():
    assert run("a\tb\r\nc é~", "full_width").text == "ａ\tｂ\r\nｃ\u3000é～"


def test_full_width_no_candidates():
    for text in ("東京\n", "\t\n"):
        assert run(text, "full_width").reason == "no_candidates"


# --------------------------------------------------------------------------------------------
# 6.11 zero_width
# --------------------------------------------------------------------------------------------


def test_zero_width_example():
    for seed in range(20):
        r = run("password", "zero_width", {"rate": 0.3}, seed)
        assert r.text.count("\u200b") == 2 and r.edits == 2  # 7 boundaries, k = 2
        assert r.text.replace("\u200b", "") == "password"
        assert r.text[0] != "\u200b" and r.text[-1] != "\u200b"


@pytest.mark.parametrize("char,cp", [("u200b", "\u200b"), ("u200c", "\u200c"), ("u2060", "\u2060")])
def test_zero_width_chars(char, cp):
    assert run("ab cd", "zero_width", {"rate": 1.0, "char": char}).text == f"a{cp}b c{cp}d"


def test_zero_width_does_not_offer_zwj():
    with pytest.raises(perturber.InvalidParams):
        run("ab", "zero_width", {"char": "u200d"})


def test_zero_width_must_not_insert_inside_a_cluster():
    r = run("cafe\u0301s", "zero_width", {"rate": 1.0})
    assert r.text == "c\u200ba\u200bf\u200be\u0301\u200bs"
    assert "\u200b\u0301" not in r.text


def test_zero_width_must_not_insert_at_text_edges_or_into_whitespace():
    r = run("  ab,\tcd  \n", "zero_width", {"rate": 1.0})
    assert r.text == "  a\u200bb,\tc\u200bd  \n"


def test_zero_width_must_not_insert_into_code_or_urls():
    text = "go `code` https://ab.io ab@cd.io"
    assert run(text, "zero_width", {"rate": 1.0}).text == "g\u200bo `code` https://ab.io ab@cd.io"


def test_zero_width_no_candidates():
    assert run("a b c 1 2", "zero_width").reason == "no_candidates"


# --------------------------------------------------------------------------------------------
# 6.12 bidi_override
# --------------------------------------------------------------------------------------------


def test_bidi_override_example():
    r = run("Hello\nWorld", "bidi_override")
    assert (r.text, r.edits) == ("\u202eHello\u202c\n\u202eWorld\u202c", 2)


def test_bidi_override_skips_fenced_code_and_blank_lines_and_keeps_line_breaks():
    text = "Q?\r\n\r\n```\ncode\n```\n  \n  indented\r"
    assert run(text, "bidi_override").text == (
        "\u202eQ?\u202c\r\n\r\n```\ncode\n```\n  \n\u202e  indented\u202c\r"
    )


def test_bidi_override_no_candidates():
    for text in (" \n\t\n", "```\nx = 1\n```\n"):
        r = run(text, "bidi_override")
        assert (r.text, r.reason) == (text, "no_candidates")


# --------------------------------------------------------------------------------------------
# 6.13 ocr_noise
# --------------------------------------------------------------------------------------------


def test_ocr_noise_example():
    text = "modern clinic"
    options = {
        "rnodern clinic",
        "moclern clinic",
        "modcrn clinic",
        "modem clinic",
        "modern dinic",
        "modern clinie",
    }
    seen = set()
    for seed in range(40):
        r = run(text, "ocr_noise", {"rate": 0.2}, seed)
        assert r.text in options and r.edits == 1
        seen.add(r.text)
    assert len(seen) > 2


def test_ocr_noise_scan_longest_first_and_non_overlapping():
    assert run("modern clinic", "ocr_noise", {"rate": 1.0}).text == "rnoclcm dinie"
    assert run("vvill", "ocr_noise", {"rate": 1.0}).text == "wi11"
    assert run("lily", "ocr_noise", {"rate": 1.0}).text == "h1y"


def test_ocr_noise_must_not_change_digits_in_numbers():
    text = "call 1100 or OSB2 at 10:15, modern"
    r = run(text, "ocr_noise", {"rate": 1.0})
    assert r.text == "ea11 1100 or OSB2 at 10:15, rnoclcm"


def test_ocr_noise_must_not_leave_a_token_with_fewer_than_two_letters():
    assert run("lOS", "ocr_noise", {"rate": 1.0}).text == "1OS"
    assert run("lil", "ocr_noise", {"rate": 1.0}).text == "hl"
    for seed in range(30):
        r = run("SOBl lOSt BOSS", "ocr_noise", {"rate": 0.9}, seed)
        for word in r.text.split():
            assert sum(c.isalpha() for c in word) >= 2, r.text


def test_ocr_noise_must_not_touch_code_or_urls():
    text = "modern `modern` https://modern.io/modern modern@cl.io"
    assert (
        run(text, "ocr_noise", {"rate": 1.0}).text == "rnoclcm `modern` https://modern.io/modern modern@cl.io"
    )


def test_ocr_noise_only_single_code_point_clusters():
    # the n carries a mark, so "rn" is no source; "e" with its mark is skipped too
    assert run("Barn\u0301e\u0301", "ocr_noise", {"rate": 1.0}).text == "8arn\u0301e\u0301"


def test_ocr_noise_no_candidates():
    for text in ("at", "fun ruby", "x1 2"):
        assert run(text, "ocr_noise").reason == "no_candidates"


# --------------------------------------------------------------------------------------------
# Data tables
# --------------------------------------------------------------------------------------------


def test_tables_keep_the_printed_order():
    assert [a for a, _ in load_table("a08a_leet")["map"]] == list("abeilost")
    assert [a for a, _ in load_table("a08c_ocr_confusions")["map"]] == [
        "rn",
        "cl",
        "vv",
        "li",
        "m",
        "d",
        "w",
        "e",
        "c",
        "l",
        "I",
        "O",
        "S",
        "B",
    ]
    assert [a for a, _ in load_table("a11_strip_folds")["map"]] == list("øØłŁđĐħĦŧŦ")


def test_seeded_entries_use_only_the_given_generator():
    from perturber.perturbations import character

    r1 = character.leetspeak(LONG, Draws(3), rate=0.5)
    r2 = character.leetspeak(LONG, Draws(3), rate=0.5)
    assert r1 == r2


def test_title_case_edits_only_cluster_bases():
    # the "a" after the ZWJ belongs to the emoji's cluster, so its token is left alone
    assert run("😀\u200dabc def", "title_case").text == "😀\u200dabc Def"


def test_diacritics_strip_applies_no_decomposition_without_a_mark():
    # U+1FBE decomposes canonically to U+03B9 alone: no Mn mark, so it is not a site
    for text in ("\u1fbe", "\u212b", "\u2126 K"):
        r = run(text, "diacritics_strip")
        assert (r.text, r.reason) == (text, "no_candidates")


def test_diacritics_strip_skips_a_cluster_that_straddles_a_protected_span():
    # the e-mail ends at "o"; the mark after it belongs to the cluster of that protected "o"
    text = "mail ab@cd.co\u0301 now"
    r = run(text, "diacritics_strip")
    assert (r.text, r.reason) == (text, "no_candidates")
