"""The directional family (docs/spec/catalog.md §16): examples, Must-not rules, reasons, parameters."""

import datetime
import inspect
import pathlib
import random
from decimal import Decimal

import pytest
from helpers import expected_version, out, run

import perturber
from perturber import registry
from perturber.data import load_table
from perturber.perturbations import directional as D

NAMES = ["insert_negation", "scale_quantity", "deadline_passed"]
CATALOG = pathlib.Path(__file__).resolve().parents[1] / "docs" / "spec" / "catalog.md"


def neg(text, target="last"):
    return run(text, "insert_negation", {"target": target})


def dl(text, days=30):
    return run(text, "deadline_passed", {"days": days})


# --------------------------------------------------------------------------------------------
# Declarations and shared behaviour
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_declaration(name):
    spec = registry.get(name)
    assert spec.family == "directional"
    assert spec.in_scope is False
    assert spec.expectation == "directional"
    assert spec.model_backed is False
    assert spec.seed_sensitive is (name == "scale_quantity")
    assert spec.version == expected_version(name)


def test_declared_params():
    spec = registry.get("insert_negation")
    assert spec.defaults == {"target": "last"} and spec.intensity is None
    assert spec.params[0].choices == ("last", "first")
    spec = registry.get("scale_quantity")
    assert spec.defaults == {"count": 1, "exponent": 1} and spec.intensity == "count"
    by = {p.name: p for p in spec.params}
    assert (by["count"].ge, by["count"].le, by["exponent"].ge, by["exponent"].le) == (0, 10, -3, 3)
    assert by["exponent"].forbidden == (0,)
    spec = registry.get("deadline_passed")
    assert spec.defaults == {"days": 30} and spec.intensity == "days"
    assert (spec.params[0].ge, spec.params[0].le) == (1, 3650)


@pytest.mark.parametrize("name", NAMES)
def test_empty_input(name):
    r = run("", name)
    assert (r.text, r.applied, r.reason, r.edits, r.details) == ("", False, "empty_input", 0, {})


@pytest.mark.parametrize("name", NAMES)
def test_no_candidates(name):
    r = run("Hello there, friend", name)
    assert (r.applied, r.reason, r.edits) == (False, "no_candidates", 0)
    assert r.text == "Hello there, friend"


@pytest.mark.parametrize(
    "name, params",
    [
        ("insert_negation", {"target": "middle"}),
        ("insert_negation", {"target": "Last"}),
        ("insert_negation", {"count": 1}),
        ("scale_quantity", {"exponent": 0}),
        ("scale_quantity", {"exponent": 4}),
        ("scale_quantity", {"exponent": -4}),
        ("scale_quantity", {"exponent": 1.0}),
        ("scale_quantity", {"count": 11}),
        ("scale_quantity", {"count": -1}),
        ("scale_quantity", {"count": True}),
        ("deadline_passed", {"days": 0}),
        ("deadline_passed", {"days": 3651}),
        ("deadline_passed", {"days": 30.0}),
    ],
)
def test_validation(name, params):
    with pytest.raises(perturber.InvalidParams):
        run("It is 5 on 2026-01-01.", name, params)


@pytest.mark.parametrize("name", ["insert_negation", "deadline_passed"])
def test_seed_insensitive(name):
    text = "Today is 2026-03-01. The form is due 2026-03-20. Can I still submit?"
    assert len({out(text, name, seed=s) for s in (0, 1, 7, 12345, 2**63 - 1)}) == 1


TRICKY = [
    " ",
    "\n",
    "\r\n",
    "\r",
    "\u202e",
    "\u0301is it",
    "is\u0301 it?",
    "👨‍👩‍👧 is 5",
    "🇫🇷",
    "\x00",
    "İS İT?",
    "ſept 5, 2026",
    "Sept 31, 2026",
    "0000-01-01",
    "9999-12-31 due",
    "-0 -5 5.",
    "IS\u200bIT",
    "Is it ﬁne?",
    "東京 is 3",
    "1,000,000,000,000,000,000",
    "```\nis 5\n```",
    "May\u00a05,\u00a02026",
    "99999999999999999999.5",
    "it is 2026-02-29",
    "Kan ＩＳ it",
]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("text", TRICKY)
def test_never_raises(name, text):
    params = {"count": 10, "exponent": -3} if name == "scale_quantity" else None
    r = run(text, name, params)
    assert r.applied == (r.text != text)


# --------------------------------------------------------------------------------------------
# Tables A17, A18 (A19 is shared with date_unit)
# --------------------------------------------------------------------------------------------


def test_a17_shape():
    t = load_table("a17_auxiliaries")
    assert [a for a, _ in t["question_negatives"]] == [
        "is",
        "are",
        "was",
        "were",
        "do",
        "does",
        "did",
        "can",
        "could",
        "will",
        "would",
        "should",
        "must",
    ]
    assert dict(t["question_negatives"])["will"] == "won't"
    assert t["declaratives_only"] == ("am", "may", "might", "shall")
    assert t["questions_only"] == ("do", "does", "did")
    assert len(t["determiners"]) == 14


def test_a17_a18_match_the_catalog():
    doc = " ".join(CATALOG.read_text(encoding="utf-8").split())
    a17 = load_table("a17_auxiliaries")
    assert " ".join(f"{a}→{n}" for a, n in a17["question_negatives"]) in doc
    assert "Declaratives only: `" + " ".join(a17["declaratives_only"]) + "`" in doc
    assert "Questions only: `" + " ".join(a17["questions_only"]) + "`" in doc
    assert "block a match: `" + " ".join(a17["determiners"]) + "`" in doc
    a18 = load_table("a18_date_keywords")
    singles = [w for w in a18["deadline"] if " " not in w]
    assert "(a) deadline: `" + " ".join(singles) + "`, `last day`, `no later than`" in doc
    singles = [w for w in a18["current"] if " " not in w]
    assert (
        "(b) current date: `" + " ".join(singles) + "`, `as of`, `it is`, `date is`, `this morning`"
    ) in doc


# --------------------------------------------------------------------------------------------
# 16.1 insert_negation
# --------------------------------------------------------------------------------------------


def test_insert_negation_examples():
    r = neg("Which of these animals is a mammal?")
    assert r.text == "Which of these animals isn't a mammal?"
    assert (r.applied, r.edits, r.details) == (True, 1, {"negated": {"token": "is", "offset": 23}})
    r = neg("The bridge is open today.")
    assert r.text == "The bridge is not open today."
    assert r.details == {"negated": {"token": "is", "offset": 11}}


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Is the shop open?", "Isn't the shop open?"),
        ("Will it rain tomorrow?", "Won't it rain tomorrow?"),
        ("WILL IT RAIN?", "WON'T IT RAIN?"),
        ("Does Tom have a car?", "Doesn't Tom have a car?"),  # no "does not Tom have"
        ("Did they arrive on time?", "Didn't they arrive on time?"),
        ("Can you help me?", "Can't you help me?"),
        ("Should we wait?", "Shouldn't we wait?"),
        ("Must it be red?", "Mustn't it be red?"),
        ("It’s late. Were they here?", "It’s late. Weren’t they here?"),  # the text's apostrophes
        ("Which ones are red?", "Which ones aren't red?"),
    ],
)
def test_insert_negation_questions_contract(text, expected):
    assert neg(text).text == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("The bridge IS open.", "The bridge IS NOT open."),
        ("I can swim.", "I cannot swim."),
        ("Can do.", "Cannot do."),
        ("WE CAN WIN.", "WE CANNOT WIN."),
        ("I am late.", "I am not late."),
        ("You may leave now.", "You may not leave now."),
        ("It might rain.", "It might not rain."),
        ("We shall overcome.", "We shall not overcome."),
        ("They were happy.", "They were not happy."),
        ("She will come.", "She will not come."),
        ("The shop is\topen.", "The shop is not\topen."),
    ],
)
def test_insert_negation_declaratives_insert_not(text, expected):
    assert neg(text).text == expected


def test_insert_negation_target_last_and_first():
    text = "The door is open. You can enter. Is it warm?"
    assert neg(text).text == "The door is open. You can enter. Isn't it warm?"
    assert neg(text, "first").text == "The door is not open. You can enter. Is it warm?"


def test_insert_negation_first_candidate_within_the_sentence():
    text = "It was cold and it is late. Hello."
    r = neg(text)
    assert r.text == "It was not cold and it is late. Hello."
    assert r.details["negated"] == {"token": "was", "offset": 3}


def test_insert_negation_units_other_than_sentences():
    text = "- The door is open\n# Is it ready?"
    assert neg(text).text == "- The door is open\n# Isn't it ready?"
    assert neg(text, "first").text == "- The door is not open\n# Is it ready?"


def test_insert_negation_answer_cue_stays():
    assert neg("Which planet is largest?\nAnswer:").text == "Which planet isn't largest?\nAnswer:"


def test_insert_negation_exactly_one_edit():
    text = "The cat is black and the dog is white and they are friends."
    r = neg(text)
    assert r.edits == 1 and r.text == "The cat is not black and the dog is white and they are friends."
    assert len(r.text) - len(text) == 4


@pytest.mark.parametrize(
    "text",
    [
        "The door is not open.",
        "It is never late.",
        "There is no time.",
        "Not is it.",
        "It never is easy.",
    ],
)
def test_insert_negation_must_not_negate_an_already_negative_clause(text):
    assert neg(text).reason == "no_candidates"


@pytest.mark.parametrize(
    "text",
    [
        "Is it not open?",
        "Does he never call?",
        "The door isn't open, is it?",
        "Nobody is here.",
        "I cannot say it is true.",
    ],
)
def test_insert_negation_must_not_negate_an_already_negative_sentence(text):
    assert neg(text).reason == "no_candidates"


def test_insert_negation_must_not_negate_twice():
    once = neg("The door is open. Is it warm?")
    assert once.text == "The door is open. Isn't it warm?"
    twice = neg(once.text)  # the negated question is never negated again
    assert twice.text == "The door is not open. Isn't it warm?"
    assert neg(twice.text).reason == "no_candidates"
    assert neg(twice.text, "first").reason == "no_candidates"


def test_insert_negation_must_not_negate_twice_single_sentence():
    for text in [
        "The bridge is open today.",
        "Which of these animals is a mammal?",
        "I can swim.",
        "WILL IT RAIN?",
        "You may leave now.",
    ]:
        once = neg(text).text
        assert once != text
        assert neg(once).reason == "no_candidates", once


@pytest.mark.parametrize(
    "text",
    [
        "I did it.",
        "She does her homework.",
        "We do the dishes.",  # main verbs
        "Does Tom have a car.",  # not a question: no inversion
        "Did you see that.",
    ],
)
def test_insert_negation_must_not_produce_inversions(text):
    r = neg(text)
    assert r.reason == "no_candidates", r.text
    assert "not" not in r.text


@pytest.mark.parametrize(
    "text",
    [
        "May I come in?",
        "Am I late?",
        "Shall we dance?",
        "Might it rain?",
    ],
)
def test_insert_negation_question_only_contractions(text):
    assert neg(text).reason == "no_candidates"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Buy a can today.", None),
        ("He read the will aloud.", None),
        ("Put this can away.", None),
        ("Their will prevailed.", None),
        ("I met Will yesterday.", None),  # a capitalised auxiliary mid-phrase is a name
        ("We travel in May every year.", None),
        ("Will is here.", "Will is not here."),  # "Will" directly before an auxiliary: a subject
        ("May was warm.", "May was not warm."),
        ("Where is Will?", "Where isn't Will?"),
        ("The can is empty.", "The can is not empty."),
    ],
)
def test_insert_negation_must_not_touch_nouns(text, expected):
    r = neg(text)
    if expected is None:
        assert r.reason == "no_candidates", r.text
    else:
        assert r.text == expected


@pytest.mark.parametrize(
    "text",
    [
        "Yes, it is.",
        "It is, really.",
        "The answer is\nclear.",
        "It is\r\nclear.",
        "It is: clear.",
        "What is `x`?",
        "The value is 'x'.",
    ],
)
def test_insert_negation_needs_a_following_word_after_horizontal_whitespace(text):
    assert neg(text).reason == "no_candidates"


def test_insert_negation_number_counts_as_following_word():
    assert neg("The total is 5.").text == "The total is not 5."


@pytest.mark.parametrize(
    "text",
    [
        "Run `it is fine` now.",
        "See https://ex.com/it/is/here now.",
        "```\nit is fine\n```",
        "Mail is.here@ex.com today.",
        "The flag is_open, set.",
    ],
)
def test_insert_negation_protected_and_bound_untouched(text):
    assert neg(text).reason == "no_candidates"


def test_insert_negation_skips_protected_but_edits_outside():
    text = "The door is open, see `x is y` and https://ex.com/is here."
    assert neg(text).text == "The door is not open, see `x is y` and https://ex.com/is here."
    assert neg("is_open is set.").text == "is_open is not set."


@pytest.mark.parametrize("text", ["x\u200dis it open?", "It is\u200d open.", "It is\ufe0f open."])
def test_insert_negation_must_not_split_a_cluster(text):
    assert neg(text).reason == "no_candidates"


def test_insert_negation_g1_only_the_edit_site_changes():
    text = "  Line one\u00a0is  fine.\r\n\r\n* Why   are\u3000we here?\r\n"
    r = neg(text)
    assert r.text == "  Line one\u00a0is  fine.\r\n\r\n* Why   aren't\u3000we here?\r\n"
    r = neg(text, "first")
    assert r.text == "  Line one\u00a0is not  fine.\r\n\r\n* Why   are\u3000we here?\r\n"


# --------------------------------------------------------------------------------------------
# 16.2 scale_quantity
# --------------------------------------------------------------------------------------------


def test_scale_quantity_example():
    text = "A box holds 12 eggs and costs $3.50."
    outs = {out(text, "scale_quantity", seed=s) for s in range(20)}
    assert outs == {"A box holds 120 eggs and costs $3.50.", "A box holds 12 eggs and costs $35."}
    r = run(text, "scale_quantity", seed=1)
    assert r.edits == 1 and r.details["scaled"] in ([["12", "120"]], [["3.50", "35"]])


def test_scale_quantity_example_negative_exponent():
    text = "A box holds 12 eggs and costs $3.50."
    r = run(text, "scale_quantity", {"count": 2, "exponent": -1})
    assert r.text == "A box holds 1.2 eggs and costs $0.35."
    assert r.edits == 2 and r.details == {"scaled": [["12", "1.2"], ["3.50", "0.35"]]}
    prices = {out(text, "scale_quantity", {"exponent": -1}, s) for s in range(20)}
    assert "A box holds 12 eggs and costs $0.35." in prices


@pytest.mark.parametrize(
    "literal, exponent, grouped, expected",
    [
        ("12", 1, False, "120"),
        ("12", -1, False, "1.2"),
        ("3.50", -1, False, "0.35"),
        ("3.50", 1, False, "35"),
        ("2.50", 2, False, "250"),
        ("1", -3, False, "0.001"),
        ("100", -3, False, "0.1"),
        ("100", -2, False, "1"),
        ("0.5", -3, False, "0.0005"),
        ("-0.5", -3, False, "-0.0005"),
        ("-12", 3, False, "-12000"),
        ("1500", 3, False, "1500000"),
        ("1,500", 3, True, "1,500,000"),
        ("1,500", 1, True, "15,000"),
        ("1,000", -3, True, "1"),
        ("1,234.5", -1, True, "123.45"),
        ("1,234.5", 3, True, "1,234,500"),
        ("0.1", 1, False, "1"),
        ("0.3", 3, False, "300"),
        ("1.1", 3, False, "1100"),
        ("999999999999999", 3, False, "999999999999999000"),
        ("0.000000000000001", -3, False, "0.000000000000000001"),
    ],
)
def test_scale_quantity_format(literal, exponent, grouped, expected):
    assert D._scaled(literal, exponent, grouped) == expected
    assert "e" not in expected.lower() and not expected.endswith(".")
    assert Decimal(expected.replace(",", "")) == Decimal(literal.replace(",", "")).scaleb(exponent)


def test_scale_quantity_must_not_print_float_artefacts():
    rnd = random.Random(5)
    for _ in range(500):
        lit = f"{rnd.randint(1, 10**6)}.{rnd.randint(0, 999):03d}"
        for e in (-3, -2, -1, 1, 2, 3):
            new = out(f"It weighs {lit} kg.", "scale_quantity", {"exponent": e})
            got = new[len("It weighs ") : -len(" kg.")]
            assert Decimal(got) == Decimal(lit).scaleb(e), (lit, e, got)
            assert "e" not in got.lower() and (("." not in got) or not got.endswith("0"))


def test_scale_quantity_units_and_currency_unchanged():
    assert out("Costs $5 or €7.", "scale_quantity", {"count": 2}) == "Costs $50 or €70."
    assert (
        out("It is 5 kg and 3 m.", "scale_quantity", {"count": 2, "exponent": 2}) == "It is 500 kg and 300 m."
    )


def test_scale_quantity_grouping_kept_only_if_grouped():
    assert out("We had 1,250,000 users.", "scale_quantity", {"exponent": 3}) == "We had 1,250,000,000 users."
    assert out("We had 1250000 users.", "scale_quantity", {"exponent": 3}) == "We had 1250000000 users."


def test_scale_quantity_must_not_scale_zero():
    text = "There were 0 errors and 0.00 warnings."
    assert run(text, "scale_quantity", {"count": 10}).reason == "no_candidates"
    assert out("0 errors, 7 warnings", "scale_quantity", {"count": 10}) == "0 errors, 70 warnings"


@pytest.mark.parametrize(
    "text",
    [
        "It happened in 2026.",  # year
        "Due 2026-01-15.",  # date
        "Meet at 01/15 or 10:30.",  # date, time
        "Version 1.2.3 ships.",  # version
        "Call 555-0100 or (555) 123 4567.",  # phone numbers
        "See issue #42 and No. 7 and ID 9.",  # identifiers
        "1. First step",  # list marker
        "Open at 10am, take A4 and the 3rd.",  # glued to letters
        "Run `x = 5` now.",  # code
        "```\ny = 5\n```",  # fenced code
        "See https://ex.com/page/5 now.",  # URL
        "Zip 02139.",  # leading zero
        "A range of 1000-2000.",  # connected
        "It is 1234567890123456.",  # too long
        "It is due on March 3, 2026.",  # written dates (day and year)
        "It is due on 3 March 2026.",
        "Meet on Sept. 14 or 2 Oct.",
        "Arrive at 5 p.m. or 6 PM.",  # times
        "Since 3 o'clock, or 4 o’clock.",
        "Press keycap 1\ufe0f\u20e3 now.",  # a digit inside an emoji cluster
        "Marks 5\u0301 and x\u200d7.",  # a digit inside a cluster
    ],
)
def test_scale_quantity_must_not_scale_excluded_numbers(text):
    r = run(text, "scale_quantity", {"count": 10, "exponent": 3})
    assert (r.reason, r.text) == ("no_candidates", text)


def test_scale_quantity_mixed_text_only_quantities():
    text = "In 2026, 5 of 10 items cost $20 (call 555-0100, ref #3) by 2026-01-15."
    r = run(text, "scale_quantity", {"count": 10})
    assert r.text == "In 2026, 50 of 100 items cost $200 (call 555-0100, ref #3) by 2026-01-15."
    assert r.edits == 3


def test_scale_quantity_date_and_time_words_are_not_too_greedy():
    text = "5 amps, 32 March, 5 months, 5 Marches, a 3-day trip"
    r = run(text, "scale_quantity", {"count": 10})
    assert r.text == "50 amps, 320 March, 50 months, 50 Marches, a 30-day trip"


def test_scale_quantity_count_zero():
    r = run("5 apples", "scale_quantity", {"count": 0})
    assert (r.reason, r.text, r.edits) == ("zero_intensity", "5 apples", 0)


def test_scale_quantity_count_rule_and_seeds():
    text = " ".join(f"{i} apples" for i in range(1, 41))
    outs = [run(text, "scale_quantity", {"count": 3}, seed) for seed in range(6)]
    assert all(r.edits == 3 and len(r.details["scaled"]) == 3 for r in outs)
    assert len({r.text for r in outs}) > 1  # seeds differ
    assert out(text, "scale_quantity", {"count": 3}, 4) == outs[4].text  # same seed, same output
    full = run("1 and 2 and 3", "scale_quantity", {"count": 10})
    assert full.text == "10 and 20 and 30" and full.edits == 3
    for r in outs:  # pairs in text order (the numbers ascend through the text)
        olds = [int(old) for old, _ in r.details["scaled"]]
        assert olds == sorted(olds)


def test_scale_quantity_draws_follow_selection_rule():
    from perturber.rng import Draws

    text = " ".join(f"{i} pears" for i in range(1, 13))
    nums = [n for n in perturber.text.numeric_literals(text) if n.quantity]
    assert len(nums) == 12
    for seed in range(5):
        chosen = sorted(Draws(seed).sample(range(len(nums)), 2))
        expected = [nums[i].text for i in chosen]
        got = [p[0] for p in run(text, "scale_quantity", {"count": 2}, seed).details["scaled"]]
        assert got == expected


def test_scale_quantity_g1_rest_untouched():
    text = "  Buy 3\u00a0apples,\r\n\tthen -2.50 more!  "
    assert out(text, "scale_quantity", {"count": 2}) == "  Buy 30\u00a0apples,\r\n\tthen -25 more!  "


# --------------------------------------------------------------------------------------------
# 16.3 deadline_passed
# --------------------------------------------------------------------------------------------


def test_deadline_passed_examples():
    r = dl("Today is 2026-03-01. The form is due 2026-03-20. Can I still submit?")
    assert r.text == "Today is 2026-03-01. The form is due 2026-01-30. Can I still submit?"
    assert r.details == {
        "deadline_old": "2026-03-20",
        "deadline_new": "2026-01-30",
        "reference": "2026-03-01",
    }
    assert (r.edits, r.applied) == (1, True)
    r = dl("The offer is valid until March 15, 2026.")
    assert r.text == "The offer is valid until February 13, 2026."
    assert r.details == {"deadline_old": "2026-03-15", "deadline_new": "2026-02-13", "reference": None}


@pytest.mark.parametrize(
    "text, days, expected",
    [
        ("Due 2026-03-15.", 1, "Due 2026-03-14."),
        ("Due 2026-03-15.", 3650, "Due 2016-03-17."),
        ("Due March 5, 2026.", 30, "Due February 3, 2026."),
        ("Due MARCH 5, 2026.", 30, "Due FEBRUARY 3, 2026."),
        ("Due march 5, 2026.", 30, "Due february 3, 2026."),
        ("Due March 05, 2026.", 30, "Due February 03, 2026."),  # leading zero kept
        ("Due March 15, 2026.", 12, "Due March 3, 2026."),  # no zero added
        ("Due Mar 5, 2026.", 30, "Due Feb 3, 2026."),
        ("Due Mar. 5, 2026.", 30, "Due Feb. 3, 2026."),
        ("Due MAR. 5, 2026.", 30, "Due FEB. 3, 2026."),
        ("Due Sept 30, 2026.", 10, "Due Sept 20, 2026."),  # Sept stays Sept
        ("Due Sept. 5, 2026.", 10, "Due Aug. 26, 2026."),
        ("Due Sep 30, 2026.", 10, "Due Sep 20, 2026."),
        ("Due Oct 5, 2026.", 10, "Due Sep 25, 2026."),  # three-letter by default
        ("Due 5 March 2026.", 30, "Due 3 February 2026."),
        ("Due 05 march 2026.", 30, "Due 03 february 2026."),
        ("Due May 5, 2026.", 30, "Due April 5, 2026."),  # a bare May is the full name
        ("Due May. 5, 2026.", 30, "Due Apr. 5, 2026."),
        ("Due 2026-01-10.", 30, "Due 2025-12-11."),  # year changes
        ("Due  March\u00a05,  2026.", 30, "Due  February\u00a03,  2026."),  # separators kept
    ],
)
def test_deadline_passed_formats(text, days, expected):
    assert dl(text, days).text == expected


def test_deadline_passed_leap_years():
    assert dl("Due 2024-03-30.", 30).text == "Due 2024-02-29."
    assert dl("Due 2025-03-30.", 30).text == "Due 2025-02-28."
    assert dl("Due February 29, 2024.", 366).text == "Due February 28, 2023."


FULL = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
WRITERS = [
    lambda d: d.isoformat(),
    lambda d: f"{FULL[d.month - 1]} {d.day}, {d.year:04d}",
    lambda d: f"{FULL[d.month - 1][:3]}. {d.day}, {d.year:04d}",
    lambda d: f"{d.day} {FULL[d.month - 1].upper()} {d.year:04d}",
]


def test_deadline_passed_must_not_produce_an_invalid_date():
    rnd = random.Random(3)
    for _ in range(600):
        day = datetime.date(1990, 1, 1) + datetime.timedelta(days=rnd.randint(0, 30000))
        write = rnd.choice(WRITERS)
        days = rnd.randint(1, 3650)
        r = dl("The deadline is " + write(day) + ".", days)
        new = day - datetime.timedelta(days=days)
        assert r.details == {
            "deadline_old": day.isoformat(),
            "deadline_new": new.isoformat(),
            "reference": None,
        }
        assert r.text == "The deadline is " + write(new) + "."


@pytest.mark.parametrize(
    "text",
    [
        "Due 2026-02-30.",
        "Due February 29, 2025.",
        "Due 2026-13-01.",
        "Due April 31, 2026.",
        "Due 0000-01-01.",
        "Due Mar 5 2026.",
        "Due March 5th, 2026.",
        "Due 5 Mar 2026.",
        "Due March. 5, 2026.",
        "Due 26-03-01.",
        "Due 2026/03/01.",
        "No dates here, 5 days.",
        "Due 12026-03-01.",
        "Due 2026-03-011.",
        "Due 2026-03-01T10:00.",
        "Due v2026-03-01.",
        "Due 1.2026-03-01.",
        "Due 2026-03-01.5",
        "file_2026-03-01.txt",
        "Due March 155, 2026.",
    ],
)
def test_deadline_passed_not_a_date(text):
    r = dl(text)
    assert (r.reason, r.text) == ("no_candidates", text)


@pytest.mark.parametrize(
    "text",
    [
        "Due 2026-03-01\ufe0f.",
        "Due 2026-03-01\u0301.",
        "Due a\u200d2026-03-01.",
        "Due March 5, 2026\U0001f3fb.",
    ],
)
def test_deadline_passed_must_not_split_a_cluster(text):
    assert dl(text).reason == "no_candidates"


def test_deadline_passed_before_year_one():
    r = dl("Due 0001-01-15.", 30)
    assert (r.reason, r.applied) == ("no_candidates", False)
    assert dl("Due 0001-02-15.", 30).text == "Due 0001-01-16."
    assert dl("Due 0005-02-10.", 30).text == "Due 0005-01-11."  # four-digit year kept


def test_deadline_passed_already_passed():
    r = dl("Today is 2026-04-01. It expires 2026-03-20.")
    assert (r.reason, r.applied, r.edits) == ("already_passed", False, 0)
    assert r.text == "Today is 2026-04-01. It expires 2026-03-20."
    assert r.details == {"deadline_old": "2026-03-20", "reference": "2026-04-01"}


def test_deadline_passed_equal_to_reference_is_moved():
    r = dl("Today is 2026-03-01. It is due 2026-03-01.", 5)
    # the first date in a deadline sentence: "due" is in the second sentence
    assert r.text == "Today is 2026-03-01. It is due 2026-02-24."


def test_deadline_passed_roles_deadline_keyword_wins():
    text = "We met on 2026-05-01. The report is due 2026-04-10. Today is 2026-04-01."
    r = dl(text, 10)
    assert r.text == "We met on 2026-05-01. The report is due 2026-03-22. Today is 2026-04-01."
    assert r.details["reference"] == "2026-04-01"


def test_deadline_passed_roles_latest_date_without_keyword():
    text = "On 2026-01-10 we met; on 2026-05-01 we meet; on 2026-02-01 we ate."
    r = dl(text)
    # deadline: the latest date; reference: the earliest other date
    assert r.details == {
        "deadline_old": "2026-05-01",
        "deadline_new": "2025-12-11",
        "reference": "2026-01-10",
    }
    assert r.text == "On 2026-01-10 we met; on 2025-12-11 we meet; on 2026-02-01 we ate."


def test_deadline_passed_roles_latest_first_occurrence():
    r = dl("Meet 2026-05-01, or 2026-01-01, or 2026-05-01 again.", 1)
    assert r.text == "Meet 2025-12-31, or 2026-01-01, or 2026-05-01 again."


def test_deadline_passed_roles_single_date_no_reference():
    r = dl("We meet on 2026-05-01.")
    assert r.details == {"deadline_old": "2026-05-01", "deadline_new": "2026-04-01", "reference": None}


@pytest.mark.parametrize(
    "kw",
    [
        "deadline",
        "DUE",
        "expire",
        "expires",
        "expiry",
        "expiration",
        "until",
        "by",
        "before",
        "closes",
        "close",
        "cutoff",
        "cut-off",
        "cut\u2010off",
        "Valid",
        "last day",
        "no later than",
        "Last\nday",
    ],
)
def test_deadline_passed_deadline_keywords(kw):
    text = f"We met 2026-09-01. Apply {kw} 2026-05-01."
    assert dl(text, 1).details["deadline_old"] == "2026-05-01"


@pytest.mark.parametrize("kw", ["dues", "byte", "validate", "last, day", "closed", "cut off"])
def test_deadline_passed_not_deadline_keywords(kw):
    text = f"We met 2026-09-01. Apply {kw} 2026-05-01."
    assert dl(text, 1).details["deadline_old"] == "2026-09-01"  # the latest date instead


@pytest.mark.parametrize(
    "kw", ["today", "Now", "current", "currently", "as of", "it is", "date is", "this morning", "As\tOf"]
)
def test_deadline_passed_current_keywords(kw):
    text = f"Apply before 2026-06-01. Noted 2026-01-01. Hm, {kw} 2026-05-01."
    r = dl(text, 1)
    assert r.details["reference"] == "2026-05-01"
    assert r.text == "Apply before 2026-04-30. Noted 2026-01-01. Hm, " + kw + " 2026-05-01."


def test_deadline_passed_reference_earliest_other():
    text = "Apply before 2026-06-01. Noted 2026-03-01. Seen 2026-02-01."
    assert dl(text, 1).details["reference"] == "2026-02-01"


def test_deadline_passed_keywords_in_protected_spans_ignored():
    text = "We met 2026-09-01. See https://ex.com/due 2026-05-01 `deadline`."
    assert dl(text, 1).details["deadline_old"] == "2026-09-01"


def test_deadline_passed_protected_dates_untouched():
    for text in ["Due `2026-03-20`.", "See https://ex.com/2026-03-20 now.", "```\ndue 2026-03-20\n```"]:
        assert dl(text).reason == "no_candidates"
    text = "Due `2026-03-20` or 2026-04-20."
    assert dl(text).text == "Due `2026-03-20` or 2026-03-21."


def test_deadline_passed_must_not_change_other_dates_or_text():
    text = "Today is March 1, 2026.\r\n\r\n- Results: 2026-04-10\r\n- The form is due 2026-03-20, ok?\r\n"
    r = dl(text)
    assert r.text == (
        "Today is March 1, 2026.\r\n\r\n- Results: 2026-04-10\r\n- The form is due 2026-01-30, ok?\r\n"
    )


def test_deadline_passed_must_not_read_the_wall_clock():
    src = inspect.getsource(D)
    for call in ("today(", "now(", "time.time(", "utcnow", "localtime", "import time"):
        assert call not in src
    far = dl("Due 9999-12-31.", 1)
    assert far.text == "Due 9999-12-30."


def test_deadline_passed_deterministic():
    text = "Today is 2026-03-01. The form is due 2026-03-20."
    assert len({dl(text).text for _ in range(5)}) == 1
