"""The normalization family (docs/spec/catalog.md §9): examples, Must-not rules, reasons, protected spans."""

import random

import emoji as emoji_package
import pytest
from helpers import NoDraws, out, run

import perturber
from perturber import registry
from perturber.data import load_table
from perturber.perturbations import normalization as N

NAMES = [
    "quote_style",
    "smart_to_ascii",
    "abbreviations",
    "date_unit",
    "emoji",
    "emoticon",
    "url_email_mask",
    "emoji_shortcode",
    "shortcode_emoji",
]
EMOJI_VERSION = "emoji==2.16.0"


# --------------------------------------------------------------------------------------------
# Declarations and shared behaviour
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_declaration(name):
    spec = registry.get(name)
    assert spec.family == "normalization"
    assert spec.expectation == "invariant"
    assert spec.seed_sensitive is False
    assert spec.model_backed is False
    assert spec.params == ()
    assert spec.intensity is None
    assert spec.in_scope is (name != "url_email_mask")


@pytest.mark.parametrize("name", NAMES)
def test_empty_input(name):
    r = run("", name)
    assert (r.text, r.applied, r.reason, r.edits) == ("", False, "empty_input", 0)


@pytest.mark.parametrize("name", NAMES)
def test_no_params_accepted(name):
    with pytest.raises(perturber.InvalidParams):
        perturber.apply("x", name, {"rate": 0.5})


RICH = (
    'She said "it\'s fine" — e.g. ship 1 kg by 2024-02-29 :) 🙂 ❤️ 👍🏽 :rocket: '
    'see https://ex.com/a, mail bob@ex.com, `code "x" :)` and Dr. Lee… etc.\r\n'
    '```\n"raw" :) 5 km\n```\n'
)


@pytest.mark.parametrize("name", NAMES)
def test_seed_insensitive(name):
    outputs = {out(RICH, name, seed=seed) for seed in (0, 1, 7, 2**63 - 1)}
    assert len(outputs) == 1


@pytest.mark.parametrize("name", NAMES)
def test_makes_no_draws(name):
    registry.get(name).function(RICH, NoDraws())


@pytest.mark.parametrize("name", NAMES)
def test_applied_on_rich_text_and_fenced_code_kept(name):
    r = run(RICH, name)
    assert r.applied and r.edits >= 1
    assert '```\n"raw" :) 5 km\n```\n' in r.text  # fenced code untouched
    assert "\r\n" in r.text  # line endings copied


@pytest.mark.parametrize("name", [n for n in NAMES if n != "url_email_mask"])
def test_protected_spans_untouched(name):
    text = (
        "`'a' \"b\" e.g. 2024-01-01 5 km :) 🙂 👍 :rocket: “q”` "
        "https://ex.com/it's/“x”/2024-01-01/:rocket:/e.g./5km info@acme.com"
    )
    assert out(text, name) == text


def _fuzz_texts(count, seed):
    pieces = list("abcXYZ 019.,:;'\"-/()[]{}<>`~@#*+_\n\r\t") + [
        "\u00a0",
        "\u200d",
        "\ufe0f",
        "\ufe0e",
        "\u0301",
        "🙂",
        "❤",
        "👍",
        "🏽",
        "🇫",
        "🇷",
        "“",
        "”",
        "’",
        "…",
        "—",
        "°",
        "²",
        "http://",
        "www.",
        "e.g.",
        "St.",
        "km",
        ":rocket:",
        "2024-02-29",
        "```",
        "\u202e",
        "\x00",
        "İ",
        "ß",
        "東",
        "No.",
        "FYI",
        "1 ",
        "<3",
        ":)",
        "a@b.co",
        "{",
        "}",
        "[",
        "]",
        "\U0001f3f4\U000e0067\U000e0062\U000e007f",
        "#\ufe0f\u20e3",
    ]
    rng = random.Random(seed)
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 25))) for _ in range(count)]


@pytest.mark.parametrize("name", NAMES)
def test_never_raises_and_reports_consistently(name):
    for text in _fuzz_texts(1500, NAMES.index(name)):
        r = run(text, name)
        assert isinstance(r.text, str)
        assert r.applied == (r.text != text)
        if not r.applied:
            assert r.text == text and r.reason is not None and r.edits == 0
        else:
            assert r.edits >= 1 and r.reason is None


# --------------------------------------------------------------------------------------------
# 9.1 quote_style
# --------------------------------------------------------------------------------------------


def test_quote_style_example():
    r = run("She said \"it's fine\" and left 'early'. He is 6'2\".", "quote_style")
    assert r.text == "She said “it’s fine” and left ‘early’. He is 6'2\"."
    assert r.edits == 5


def test_quote_style_must_not_alternate_across_text():
    # an alternating implementation would close the second quote and open the third
    text = 'He said "hi. She said "bye" to "all".'
    assert out(text, "quote_style") == "He said “hi. She said “bye” to “all”."


def test_quote_style_must_not_curl_every_single_quote_as_closing():
    assert out("'early' and 'Tis", "quote_style") == "‘early’ and ‘Tis"
    assert out("the '90s (and 'n' stuff)", "quote_style") == "the ’90s (and ‘n’ stuff)"
    assert out("rock 'n' roll", "quote_style") == "rock ‘n’ roll"


def test_quote_style_local_rules():
    assert out("\"'Hello,' she said\"", "quote_style") == "“‘Hello,’ she said”"
    assert out("café\u0301's", "quote_style") == "café\u0301’s"  # letter + mark counts as a letter
    assert out('a " b', "quote_style") == "a ” b"  # opening context but whitespace next
    assert out('"', "quote_style") == "”"
    assert out("x -'y'", "quote_style") == "x -‘y’"
    assert out("the dogs' toys", "quote_style") == "the dogs’ toys"


def test_quote_style_primes_stay_straight():
    r = run("6'2\" and 5'", "quote_style")
    assert r.text == "6'2\" and 5'" and r.reason == "no_candidates"


def test_quote_style_must_not_change_json():
    for text in (
        '{"a": "it\'s", "b": [1, "x"]}',
        '  [1, "x", {"k": null}]\n',
        "[]",
        '{"a": 1, "a": 2}',
        "[" * 5000 + '"x"' + "]" * 5000,
    ):
        r = run(text, "quote_style")
        assert (r.text, r.reason) == (text, "structured_input")


def test_quote_style_invalid_json_is_prose():
    assert out("{'a': 1}", "quote_style") == "{‘a’: 1}"
    assert out('{"a": NaN}', "quote_style") == "{“a”: NaN}"
    # `[1, "x"]` is a JSON region (§1.8 kind 5): its identifier string stays straight
    assert out('[1, "x"] and "y"', "quote_style") == '[1, "x"] and “y”'
    assert out('{"a": "it\'s \\"so\\" good"} "y"', "quote_style") == '{"a": "it’s \\"so\\" good"} “y”'


def test_quote_style_must_not_change_code_or_urls():
    text = 'Use `print("hi")` or see https://x.com/?q="a"&b=\'c\'/d then "go"'
    assert out(text, "quote_style") == 'Use `print("hi")` or see https://x.com/?q="a"&b=\'c\'/d then “go”'
    fenced = "```\nx = 'a'\n```\n'b'"
    assert out(fenced, "quote_style") == "```\nx = 'a'\n```\n‘b’"


def test_quote_style_no_candidates():
    assert run("no quotes here", "quote_style").reason == "no_candidates"
    assert run("only `'code'`", "quote_style").reason == "no_candidates"


# --------------------------------------------------------------------------------------------
# 9.2 smart_to_ascii
# --------------------------------------------------------------------------------------------


def test_smart_to_ascii_example():
    r = run("“Yes” — it’s… fine", "smart_to_ascii")
    assert r.text == '"Yes" -- it\'s... fine'
    assert r.edits == 5


def test_smart_to_ascii_whole_table():
    src = "\u201c\u201d\u201e\u201f\u2018\u2019\u201a\u201b\u2013\u2014\u2026\u00a0\u202f\u2032\u2033"
    r = run(src, "smart_to_ascii")
    assert r.text == '""""' + "''''" + "---" + "..." + "  " + "'" + '"'
    assert r.edits == 15


def test_smart_to_ascii_protected_spans_kept():
    text = "`“code”` see https://x.com/“a”—b then “x”"
    assert out(text, "smart_to_ascii") == '`“code”` see https://x.com/“a”—b then "x"'


def test_smart_to_ascii_no_candidates():
    assert run('plain "ascii" text -- ok', "smart_to_ascii").reason == "no_candidates"
    assert run("`“only code”`", "smart_to_ascii").reason == "no_candidates"


# --------------------------------------------------------------------------------------------
# 9.3 abbreviations
# --------------------------------------------------------------------------------------------


def test_abbreviations_example():
    text = (
        "Ask Dr. Lee, e.g. by email (info@acme.com), then drive to Main St. in St. Louis etc. "
        "FYI it takes approx. 10 min."
    )
    r = run(text, "abbreviations")
    assert r.text == (
        "Ask Doctor Lee, for example by email (info@acme.com), then drive to Main "
        "Street in Saint Louis and so on. For your information it takes "
        "approximately 10 minutes."
    )
    assert r.edits == 8


def test_abbreviations_must_not_rewrite_emails_or_urls():
    text = "mail info@x.com or see https://x.com/e.g./info?etc. or www.info.com"
    r = run(text, "abbreviations")
    assert (r.text, r.reason) == (text, "no_candidates")


def test_abbreviations_must_not_turn_st_louis_into_street():
    assert out("We flew to St. Louis today", "abbreviations") == "We flew to Saint Louis today"
    assert out("Main St. Louis", "abbreviations") == "Main St. Louis"  # both sides: left alone
    assert out("on Main St. in town", "abbreviations") == "on Main Street in town"
    assert out("at 12 St. now", "abbreviations") == "at 12 Street now"
    assert out("See St. Louis", "abbreviations") == "See St. Louis"  # title on both sides


def test_abbreviations_must_not_eat_sentence_final_period():
    assert out("apples, pears, etc.", "abbreviations") == "apples, pears, and so on."
    assert out("pears, etc.  \nNext", "abbreviations") == "pears, and so on.  \nNext"
    assert out("pears, etc. The end", "abbreviations") == "pears, and so on. The end"
    assert out("pears, etc. NASA", "abbreviations") == "pears, and so on. NASA"
    assert out("it takes 5 min. Then go", "abbreviations") == "it takes 5 minutes. Then go"
    assert out("e.g. Paris", "abbreviations") == "for example Paris"  # not a listed form
    assert out("pears, etc. and more", "abbreviations") == "pears, and so on and more"
    assert out("see the dept. Then", "abbreviations") == "see the department. Then"


def test_abbreviations_must_not_expand_inside_longer_words():
    for text in (
        "fetc. x",
        "x-etc. y",
        "a.e.g. b",
        "/etc. dir",
        "information",
        "infos",
        "Osaka",
        "asap_mode",
        "info-session",
        "e.g.x",
        "No.5 is",
        "min.js 5",
    ):
        assert out(text, "abbreviations") == text, text


def test_abbreviations_conditions():
    assert out("Mr. smith and Dr. McDonald", "abbreviations") == "Mr. smith and Dr. McDonald"
    assert out("Mr. Smith", "abbreviations") == "Mister Smith"
    assert out("Mr.\nSmith", "abbreviations") == "Mr.\nSmith"  # horizontal whitespace only
    assert out("wait 1 min. now", "abbreviations") == "wait 1 minute now"
    assert out("wait 2 min. now", "abbreviations") == "wait 2 minutes now"
    assert out("wait min. now", "abbreviations") == "wait min. now"
    assert (
        out("1 hrs. and 3 yr. or 1 yrs. and 2 hr. x", "abbreviations")
        == "1 hour and 3 years or 1 year and 2 hours x"
    )
    assert out("room No. 5 but No. way", "abbreviations") == "room Number 5 but No. way"
    assert out("room no. 5", "abbreviations") == "room number 5"
    assert out("A4 min. x", "abbreviations") == "A4 min. x"


def test_abbreviations_case():
    assert out("E.G. this", "abbreviations") == "FOR EXAMPLE this"
    assert out("E.g. this", "abbreviations") == "For example this"
    assert out("ok FYI it is", "abbreviations") == "ok for your information it is"
    assert out("FYI it is", "abbreviations") == "For your information it is"
    assert out("Done! ASAP please", "abbreviations") == "Done! As soon as possible please"
    assert out("Fyi it is", "abbreviations") == "For your information it is"
    assert out("more info, aka data", "abbreviations") == "more information, also known as data"
    assert (
        out("Word forms never gain a period: asap\n", "abbreviations")
        == "Word forms never gain a period: as soon as possible\n"
    )


def test_abbreviations_protected_code():
    text = "`e.g. info` and\n```\netc.\n```\n"
    assert run(text, "abbreviations").reason == "no_candidates"


def test_abbreviations_no_candidates():
    assert run("Nothing to expand here.", "abbreviations").reason == "no_candidates"


# --------------------------------------------------------------------------------------------
# 9.4 date_unit
# --------------------------------------------------------------------------------------------


def test_date_unit_example():
    r = run("Due 2024-02-29: ship 1 kg and 2.5 km by 2023-02-30.", "date_unit")
    assert r.text == "Due February 29, 2024: ship 1 kilogram and 2.5 kilometers by 2023-02-30."
    assert r.edits == 3


def test_date_unit_must_not_accept_impossible_dates():
    for text in (
        "2023-02-29",
        "2026-04-31",
        "2024-13-01",
        "2024-00-10",
        "2024-01-00",
        "1900-02-29",
        "0000-01-01",
    ):
        r = run(text, "date_unit")
        assert (r.text, r.reason) == (text, "no_candidates"), text
    assert out("2000-02-29", "date_unit") == "February 29, 2000"
    assert out("on 2026-01-05.", "date_unit") == "on January 5, 2026."


def test_date_unit_dates_not_glued_or_connected():
    for text in (
        "2024-01-15T10:00",
        "x2024-01-15",
        "2024-01-15x",
        "1-2024-01-15",
        "2024-01-15-3",
        "2024-01-15.5",
        "2024-1-15",
        "12024-01-15",
        "2024-01-15_v2",
    ):
        assert out(text, "date_unit") == text, text
    assert out("(2024-01-15)", "date_unit") == "(January 15, 2024)"


def test_date_unit_must_not_pluralise_after_one():
    assert out("1 km", "date_unit") == "1 kilometer"
    assert out("1 ft and 2 ft", "date_unit") == "1 foot and 2 feet"
    assert out("1 °C", "date_unit") == "1 degree Celsius"
    assert out("1.5 kg", "date_unit") == "1.5 kilograms"


def test_date_unit_must_not_join_across_line_break():
    for text in ("5\nkm", "5\r\nkm", "5\rkg", "5  km"):
        r = run(text, "date_unit")
        assert (r.text, r.reason) == (text, "no_candidates")


def test_date_unit_must_not_touch_compound_units_or_prefixes_or_code():
    for text in (
        "5 km/s",
        "3 m²",
        "3 m³",
        "5 mg/L",
        "2 m^2",
        "5 million",
        "2 hours",
        "3 mins",
        "4 gigs",
        "`5 km`",
        "```\n5 km\n```",
        "http://x.com/5km",
        "5 kms",
    ):
        assert out(text, "date_unit") == text, text


def test_date_unit_units():
    assert out("5km and 3\u00a0mL", "date_unit") == "5 kilometers and 3 milliliters"
    assert out("60 km/h or 30 mph", "date_unit") == "60 kilometers per hour or 30 miles per hour"
    assert out("2 L, 5 lbs, 10 ms, 3 s.", "date_unit") == "2 liters, 5 pounds, 10 milliseconds, 3 seconds."
    assert out("20 °F", "date_unit") == "20 degrees Fahrenheit"
    assert out("2000 km", "date_unit") == "2000 kilometers"  # year-like rule does not apply
    assert out("1,500 m", "date_unit") == "1,500 meters"


def test_date_unit_number_exclusions():
    for text in (
        "$5m",
        "€5 m",
        "A4 m",
        "007 km",
        "1-2 km",
        "#5 km",
        "No. 5 km",
        "No. 5km",
        "555-0100 m",
        "1.2.3 m",
        "10:30 h",
    ):
        assert out(text, "date_unit") == text, text


def test_date_unit_no_candidates():
    assert run("No digits at all", "date_unit").reason == "no_candidates"
    assert run("Only 42 here", "date_unit").reason == "no_candidates"


# --------------------------------------------------------------------------------------------
# 9.5 emoji
# --------------------------------------------------------------------------------------------


def test_emoji_example():
    r = run("Thanks :) see you <3 but x<3 and 2<30", "emoji")
    assert r.text == "Thanks 🙂 see you ❤️ but x<3 and 2<30"
    assert r.text.count("\u2764\ufe0f") == 1
    assert r.edits == 2


def test_emoji_whole_table_longest_first():
    table = load_table("a16_emoticons")
    for row in table["rows"]:
        for emoticon in row["emoticons"]:
            assert out(emoticon, "emoji") == row["emoji"], emoticon
    assert out(":-) ;-) :-P :'(", "emoji") == "🙂 😉 😛 😢"


def test_emoji_must_not_fire_inside_tokens_urls_or_code():
    for text in (
        "<30",
        "x<3",
        "a:)b",
        ":)x",
        "http://x.com",
        "see http://x.com/:)",
        "`:)`",
        "```\n:)\n```",
        "ratio 1:D2",
        "re:D",
        "x;)",
    ):
        r = run(text, "emoji")
        assert (r.text, r.reason) == (text, "no_candidates"), text


def test_emoji_standalone_context():
    assert out('(:) "<3" [;), :D!', "emoji") == '(🙂 "❤️" [😉, 😀!'
    assert out(":):)", "emoji") == "🙂:)"  # the second one is not preceded by whitespace


# --------------------------------------------------------------------------------------------
# 9.6 emoticon
# --------------------------------------------------------------------------------------------


def test_emoticon_example():
    r = run("Great 🙂 ❤ 😀", "emoticon")
    assert r.text == "Great :) <3 :D"
    assert r.edits == 3


def test_emoticon_must_not_leave_stray_fe0f():
    r = run("love ❤️ and ☹️ and 🙂\ufe0f", "emoticon")
    assert r.text == "love <3 and :( and :)"
    assert "\ufe0f" not in r.text


def test_emoticon_must_not_miss_bare_heart():
    assert out("\u2764", "emoticon") == "<3"
    assert out("a\u2764b", "emoticon") == "a<3b"


def test_emoticon_reverse_table():
    assert out("🙁 😉 😛 😢 😮 😊 😃 😄 ☹", "emoticon") == ":( ;) :P :'( :o :) :D :D :("


def test_emoticon_only_whole_clusters():
    for text in (
        "❤️\u200d🔥",
        "👨\u200d❤️\u200d👨",
        "🙂🏽",
        "🙂\u0301",
        "x\u200d🙂",
        "❤\ufe0f\ufe0f",
        "❤\ufe0e",
        "`🙂`",
        "👍",
    ):
        r = run(text, "emoticon")
        assert (r.text, r.reason) == (text, "no_candidates"), text


# --------------------------------------------------------------------------------------------
# 9.7 url_email_mask
# --------------------------------------------------------------------------------------------


def test_url_email_mask_example():
    r = run("See (https://ex.com/a), or mail bob@ex.com.", "url_email_mask")
    assert r.text == "See (<URL>), or mail <EMAIL>."
    assert r.edits == 2
    assert r.in_scope is False


def test_url_email_mask_must_not_swallow_closing_punctuation():
    assert out("[docs](https://ex.com/docs)", "url_email_mask") == "[docs](<URL>)"
    assert out("(see www.ex.com/a_(b)).", "url_email_mask") == "(see <URL>)."
    assert out('"https://ex.com/x"!', "url_email_mask") == '"<URL>"!'
    assert out("<a.b+c@d.e.org>;", "url_email_mask") == "<<EMAIL>>;"


def test_url_email_mask_skips_code():
    text = "`https://in.code` and\n```\nbob@in.code\n```\nbut FTP://out.side"
    assert out(text, "url_email_mask") == "`https://in.code` and\n```\nbob@in.code\n```\nbut <URL>"


def test_url_email_mask_no_candidates():
    assert run("no links, 10 @ 5, a@b", "url_email_mask").reason == "no_candidates"
    assert run("`http://x.com`", "url_email_mask").reason == "no_candidates"


# --------------------------------------------------------------------------------------------
# 9.8 emoji_shortcode
# --------------------------------------------------------------------------------------------


def test_emoji_shortcode_example_and_data_version():
    r = run("Great job 👍 team 🇫🇷!", "emoji_shortcode")
    assert r.text == "Great job :thumbs_up: team :France:!"
    assert r.edits == 2
    assert r.details["data_version"] == EMOJI_VERSION == f"emoji=={emoji_package.__version__}"


def test_emoji_shortcode_data_version_when_not_applied():
    r = run("plain text", "emoji_shortcode")
    assert r.reason == "no_candidates" and r.details["data_version"] == EMOJI_VERSION


def test_emoji_shortcode_must_not_split_sequences():
    assert out("👨\u200d👩\u200d👧", "emoji_shortcode") == ":family_man_woman_girl:"
    assert out("🇫🇷🇩🇪", "emoji_shortcode") == ":France::Germany:"
    assert out("1\ufe0f\u20e3 #\u20e3", "emoji_shortcode") == ":keycap_1: :keycap_#:"
    assert out("👍🏽", "emoji_shortcode") == ":thumbs_up_medium_skin_tone:"
    flag = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
    assert out(flag, "emoji_shortcode") == ":England:"
    # a non-RGI ZWJ sequence is one cluster but no single name: left whole
    seq = "👩\u200d🦰\u200d👽"
    assert out(seq, "emoji_shortcode") == seq


def test_emoji_shortcode_must_not_leave_stray_selector_or_modifier():
    r = run("ok 👍\ufe0f and ❤\ufe0e!", "emoji_shortcode")
    assert r.text == "ok :thumbs_up: and :red_heart:!"
    for text in ("a🏽", "é\u0301🏽"):  # a modifier that belongs to a letter's cluster
        assert out(text, "emoji_shortcode") == text
    assert out("😀\u0301", "emoji_shortcode") == "😀\u0301"  # the mark would be orphaned


def test_emoji_shortcode_must_not_touch_text_that_is_not_emoji():
    text = "Hello, world: 1 # * 2 -> done…"
    r = run(text, "emoji_shortcode")
    assert (r.text, r.reason) == (text, "no_candidates")
    assert out("a 👍 b", "emoji_shortcode") == "a :thumbs_up: b"


def test_emoji_shortcode_must_not_edit_inside_code_or_urls():
    text = "`👍` and\n```\n🇫🇷\n```\nhttps://x.com/👍"
    assert run(text, "emoji_shortcode").reason == "no_candidates"


def test_emoji_windows_match_whole_text_emoji_list():
    pkg = N._emoji_package()
    rng = random.Random(5)
    pieces = [
        "a",
        " ",
        "1",
        "#",
        "*",
        "\ufe0f",
        "\u20e3",
        "\u200d",
        "👍",
        "🏽",
        "🇫",
        "🇷",
        "👩",
        "🦰",
        "©",
        "™",
        "东",
        "—",
        "…",
        "\U000e0067",
        "\U0001f3f4",
        "\U000e007f",
        "x" * 70,
    ]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 20)))
        whole = [(d["match_start"], d["match_end"], d["emoji"]) for d in emoji_package.emoji_list(text)]
        windowed = []
        for s, e in N._emoji_windows(text, pkg):
            windowed += [
                (s + d["match_start"], s + d["match_end"], d["emoji"])
                for d in emoji_package.emoji_list(text[s:e])
            ]
        assert whole == windowed, text


# --------------------------------------------------------------------------------------------
# 9.9 shortcode_emoji
# --------------------------------------------------------------------------------------------


def test_shortcode_emoji_example_and_data_version():
    r = run("ship it :rocket: at 10:30:45 :notanemoji:", "shortcode_emoji")
    assert r.text == "ship it 🚀 at 10:30:45 :notanemoji:"
    assert r.edits == 1
    assert r.details["data_version"] == EMOJI_VERSION


def test_shortcode_emoji_names_and_aliases():
    assert out(":thumbs_up: :thumbsup: :France:", "shortcode_emoji") == "👍 👍 🇫🇷"
    assert out('(:fire:), ":fire:"!', "shortcode_emoji") == '(🔥), "🔥"!'
    assert out(":rocket::fire:", "shortcode_emoji") == "🚀:fire:"  # the second is not standalone


def test_shortcode_emoji_must_not_fire_in_urls_code_times_or_key_value():
    for text in (
        "https://x.com/:rocket:",
        "`:rocket:`",
        "```\n:rocket:\n```",
        "10:30:45",
        "key:value:other",
        "a:rocket:b",
        ":rocket:x",
        "x:rocket:",
        ":100: :1234:",
    ):
        r = run(text, "shortcode_emoji")
        assert (r.text, r.reason) == (text, "no_candidates"), text
        assert r.details["data_version"] == EMOJI_VERSION


def test_shortcode_emoji_must_not_change_unknown_words():
    text = ":notanemoji: :france: :Rocket: :: :a b:"
    assert run(text, "shortcode_emoji").reason == "no_candidates"


# --------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------


def test_tables_transcribed():
    a14 = load_table("a14_smart_ascii")["map"]
    assert len(a14) == 15 and a14[13] == ("\u2032", "'")
    a15 = load_table("a15_abbreviations")["rows"]
    assert [r["forms"][0] for r in a15][:3] == ["e.g.", "i.e.", "etc."] and len(a15) == 19
    a16 = load_table("a16_emoticons")
    assert len(a16["rows"]) == 8 and len(a16["reverse_only"]) == 5
    assert load_table("a19_months")["months"][1] == "February"
