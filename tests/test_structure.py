"""structure family (docs/spec/catalog.md §15): reorder_bullets, question_to_end, markdown_structure,
irrelevant_preamble, irrelevant_trailer, key_sentence_to_middle."""

import re

import pytest
from helpers import NoDraws, run

import perturber
from perturber import registry
from perturber.data import load_table
from perturber.errors import InvalidParams
from perturber.rng import Draws
from perturber.text import word_tokens

NAMES = [
    "reorder_bullets",
    "question_to_end",
    "markdown_structure",
    "irrelevant_preamble",
    "irrelevant_trailer",
    "key_sentence_to_middle",
]

B2 = load_table("b02_filler")["sentences"]
B3 = load_table("b03_preambles")["sentences"]
B4 = load_table("b04_trailers")["sentences"]


# --------------------------------------------------------------------------------------------
# Declarations, shared reasons, validation
# --------------------------------------------------------------------------------------------


def test_declarations_match_catalog_table():
    rows = {s.name: s for s in registry.entries() if s.family == "structure"}
    assert sorted(rows) == sorted(NAMES)
    for name, spec in rows.items():
        assert spec.expectation == "invariant" and not spec.model_backed
        assert spec.in_scope == (name != "key_sentence_to_middle")
        assert spec.seed_sensitive == (
            name in ("reorder_bullets", "irrelevant_preamble", "irrelevant_trailer")
        )
    assert rows["reorder_bullets"].intensity == "rate"
    assert rows["reorder_bullets"].defaults == {"rate": 1.0}
    assert rows["question_to_end"].params == () and rows["question_to_end"].intensity is None
    (style,) = rows["markdown_structure"].params
    assert (style.default, style.choices) == ("bullets", ("bullets", "numbered", "quote", "bold_question"))
    assert rows["markdown_structure"].intensity is None
    for name in ("irrelevant_preamble", "irrelevant_trailer"):
        (c,) = rows[name].params
        assert (c.name, c.type, c.default, c.ge, c.le) == ("count", int, 1, 0, 3)
        assert rows[name].intensity == "count"
    c, d = rows["key_sentence_to_middle"].params
    assert (c.name, c.type, c.default, c.ge, c.le) == ("count", int, 40, 0, 500)
    assert (d.name, d.type, d.default, d.ge, d.le, d.step) == ("depth", float, 0.5, 0, 1, 0.01)
    assert rows["key_sentence_to_middle"].intensity == "count"


@pytest.mark.parametrize("name", NAMES)
def test_empty_input(name):
    r = run("", name)
    assert (r.text, r.applied, r.reason, r.edits) == ("", False, "empty_input", 0)


@pytest.mark.parametrize(
    "name,params",
    [
        ("reorder_bullets", {"rate": 0.0}),
        ("irrelevant_preamble", {"count": 0}),
        ("irrelevant_trailer", {"count": 0}),
        ("key_sentence_to_middle", {"count": 0}),
    ],
)
def test_zero_intensity(name, params):
    text = "What is 2+2? Think.\n- a\n- b\n"
    r = run(text, name, params)
    assert (r.text, r.applied, r.reason, r.edits) == (text, False, "zero_intensity", 0)


@pytest.mark.parametrize(
    "name,params",
    [
        ("reorder_bullets", {"rate": 1.5}),
        ("reorder_bullets", {"rate": 0.00005}),
        ("reorder_bullets", {"rate": True}),
        ("irrelevant_preamble", {"count": 4}),
        ("irrelevant_trailer", {"count": -1}),
        ("irrelevant_trailer", {"count": 1.0}),
        ("key_sentence_to_middle", {"count": 501}),
        ("key_sentence_to_middle", {"depth": 0.505}),
        ("key_sentence_to_middle", {"depth": 1.01}),
        ("markdown_structure", {"style": "Bullets"}),
        ("markdown_structure", {"style": "table"}),
        ("question_to_end", {"rate": 1.0}),
    ],
)
def test_parameter_validation(name, params):
    with pytest.raises(InvalidParams):
        run("What? Yes.", name, params)


@pytest.mark.parametrize(
    "name,params",
    [
        ("question_to_end", {}),
        ("markdown_structure", {"style": "bullets"}),
        ("markdown_structure", {"style": "numbered"}),
        ("markdown_structure", {"style": "quote"}),
        ("markdown_structure", {"style": "bold_question"}),
        ("key_sentence_to_middle", {"count": 3, "depth": 0.5}),
    ],
)
def test_seed_insensitive_entries_make_no_draws(name, params):
    spec = registry.get(name)
    text = "Why is it? It is so.\n\nMore text here. Is it?\nAnswer:"
    out = spec.function(text, NoDraws(), **params)
    assert out.text != text
    assert run(text, name, params, seed=0).text == run(text, name, params, seed=2**63 - 1).text


def test_sentence_banks_transcribed():
    for name, tag, size in [
        ("b01_distractors", "B1", 24),
        ("b02_filler", "B2", 20),
        ("b03_preambles", "B3", 12),
        ("b04_trailers", "B4", 12),
    ]:
        table = load_table(name)
        assert table["table"] == tag and len(table["sentences"]) == size
        assert len(set(table["sentences"])) == size
        for s in table["sentences"]:
            assert len(word_tokens(s)) <= 12 and not re.search(r"[0-9?]", s), s
    assert B2[0] == "This passage contains general background material."
    assert B2[17] == "Small cafés line the main road near the station."
    assert B3[0] == "Hi there!" and B3[11] == "I could use a hand with this."
    assert B4[0] == "Thank you so much." and B4[11] == "Hope you have a relaxing evening."


# --------------------------------------------------------------------------------------------
# 15.1 reorder_bullets
# --------------------------------------------------------------------------------------------

FACTS = "Facts:\n- Water boils at 100 C.\n- Ice is solid.\n- Steam is hot.\nWhich is a gas?"


def test_reorder_bullets_catalog_example():
    r = run(FACTS, "reorder_bullets")
    assert r.applied and r.edits == 1 and r.reason is None
    lines = r.text.split("\n")
    assert lines[0] == "Facts:" and lines[-1] == "Which is a gas?"
    assert sorted(lines[1:4]) == sorted(FACTS.split("\n")[1:4])
    assert lines[1:4] != FACTS.split("\n")[1:4]


def test_reorder_bullets_seeds():
    text = "List:\n" + "".join(f"- item {w}\n" for w in "abcdefgh")
    outs = {run(text, "reorder_bullets", seed=s).text for s in range(10)}
    assert len(outs) > 5
    assert run(text, "reorder_bullets", seed=3).text == run(text, "reorder_bullets", seed=3).text


def test_reorder_bullets_draws_follow_the_procedure():
    # Selection (rate rule) first, then P(m) for each chosen list in document order.
    text = "- a\n- b\n- c\n\nx\n\n* d\n* e\n\ny\n\n+ f\n+ g\n+ h\n"
    seed = 11
    rng = Draws(seed)
    chosen = sorted(rng.sample(range(3), 2))  # rate 0.5 of 3 lists: k = 2 (round half up)
    perms = []
    for i in chosen:
        m = [3, 2, 3][i]
        for _ in range(10):
            p = rng.sample(range(m), m)
            if p != list(range(m)):
                break
        else:
            p = list(range(1, m)) + [0]
        perms.append(p)
    lists = [["a", "b", "c"], ["d", "e"], ["f", "g", "h"]]
    for i, p in zip(chosen, perms):
        lists[i] = [lists[i][j] for j in p]
    expected = (
        "".join(f"- {w}\n" for w in lists[0])
        + "\nx\n\n"
        + "".join(f"* {w}\n" for w in lists[1])
        + "\ny\n\n"
        + "".join(f"+ {w}\n" for w in lists[2])
    )
    r = run(text, "reorder_bullets", {"rate": 0.5}, seed=seed)
    assert (r.text, r.edits) == (expected, 2)


def test_reorder_bullets_must_not_return_original_order():
    for seed in range(200):
        r = run("- a\n- b\n- c", "reorder_bullets", seed=seed)
        assert r.applied and r.text != "- a\n- b\n- c"
    # Two items: the only non-identity order is the swap.
    assert run("- a\n- b", "reorder_bullets", seed=5).text == "- b\n- a"


def test_reorder_bullets_must_not_reorder_numbered_lists_or_options():
    for text in ["1. one\n2. two\n3. three", "1) a\n2) b", "A. Mars\nB. Jupiter\nC. Venus", "(a) x\n(b) y"]:
        r = run(text, "reorder_bullets")
        assert (r.text, r.reason) == (text, "no_candidates")


def test_reorder_bullets_must_not_reorder_steps_nested_in_bullets():
    text = "- a\n  1. first\n  2. second\n- b"
    for seed in range(20):
        out = run(text, "reorder_bullets", seed=seed).text
        assert "  1. first\n  2. second" in out


def test_reorder_bullets_must_not_separate_sub_items_from_their_parent():
    text = "Intro\n- a\n  cont a\n  * x\n  * y\n- b\n  * z\n  * w\n- c"
    for seed in range(30):
        out = run(text, "reorder_bullets", seed=seed).text
        assert re.search(r"- a\n  cont a\n  \* [xy]\n  \* [xy]\n", out + "\n"), out
        assert re.search(r"- b\n  \* [zw]\n  \* [zw]\n", out + "\n"), out
        assert out.startswith("Intro\n")


def test_reorder_bullets_nested_list_is_a_candidate_of_its_own():
    text = "- a\n  * x\n  * y\n- b"
    seen = set()
    for seed in range(40):
        r = run(text, "reorder_bullets", seed=seed)
        assert r.edits == 2  # the outer and the nested list
        seen.add(r.text)
    assert seen == {"- b\n- a\n  * y\n  * x"}
    # rate 0.5 of 2 lists: exactly one of them.
    outs = {run(text, "reorder_bullets", {"rate": 0.5}, seed=s).text for s in range(40)}
    assert outs == {"- b\n- a\n  * x\n  * y", "- a\n  * y\n  * x\n- b"}


def test_reorder_bullets_must_not_change_markers_indentation_or_separators():
    text = "  -\tone\n\n  -   two\r\n  - three\n"
    for seed in range(20):
        out = run(text, "reorder_bullets", seed=seed).text
        m = re.fullmatch(r"  -\t(\w+)\n\n  -   (\w+)\r\n  - (\w+)\n", out)
        assert m and sorted(m.groups()) == ["one", "three", "two"] and m.groups() != ("one", "two", "three")


def test_reorder_bullets_list_boundaries():
    # Different markers or indentation are different lists; single items are not lists.
    text = "- a\n* b\n- c\n  - d"
    assert run(text, "reorder_bullets").reason == "no_candidates"
    # A blank line between items keeps the list; a plain line ends it.
    assert run("- a\n\n- b", "reorder_bullets").text == "- b\n\n- a"
    assert run("- a\ntext\n- b", "reorder_bullets").reason == "no_candidates"


def test_reorder_bullets_same_bodies_no_change():
    r = run("- same\n- same", "reorder_bullets")
    assert (r.text, r.applied, r.reason, r.edits) == ("- same\n- same", False, "no_change", 0)


def test_reorder_bullets_answer_cue_stays_last():
    text = "Pick one.\n- x\n- y\n  Answer:"
    assert run(text, "reorder_bullets").text == "Pick one.\n- y\n- x\n  Answer:"


def test_reorder_bullets_never_inside_code_and_protected_spans_intact():
    text = "```\n- a\n- b\n```\n- see `x - y`\n- mail a@b.co\n- visit https://ex.com/a?b=1"
    r = run(text, "reorder_bullets", seed=1)
    assert r.text.startswith("```\n- a\n- b\n```\n")
    for span in ["`x - y`", "a@b.co", "https://ex.com/a?b=1"]:
        assert span in r.text
    assert run("```\n- a\n- b\n```", "reorder_bullets").reason == "no_candidates"


def test_reorder_bullets_fenced_blocks_are_never_broken():
    # A fence opened in an item but closed outside it, or never closed, makes the list ineligible.
    for text in ["- a\n  ```\n  x\n```\n- b", "- a\n- b\n  ```\n  - x", "- a\n- b\n  ````\n  ```"]:
        r = run(text, "reorder_bullets")
        assert r.text == text
    # A closed fence inside an item travels with it.
    text = "- a\n  ```\n  x\n  ```\n- b"
    assert run(text, "reorder_bullets").text == "- b\n- a\n  ```\n  x\n  ```"


def test_reorder_bullets_crlf_and_clusters():
    text = "- e\u0301\r\n- 👍🏽\r\n"
    assert run(text, "reorder_bullets").text == "- 👍🏽\r\n- e\u0301\r\n"


# --------------------------------------------------------------------------------------------
# 15.2 question_to_end
# --------------------------------------------------------------------------------------------


def test_question_to_end_catalog_examples():
    r = run("What is the total cost? Apples cost $2 each and Sam buys 3.", "question_to_end")
    assert r.text == "Apples cost $2 each and Sam buys 3. What is the total cost?"
    assert (r.edits, r.reason) == (1, None)
    r = run("Which planet is largest?\n\nA. Mars\nB. Jupiter\nAnswer:", "question_to_end")
    assert r.text == "A. Mars\nB. Jupiter\n\nWhich planet is largest?\nAnswer:"


def test_question_to_end_keeps_leading_and_trailing_whitespace_and_gap():
    text = "\n  Why is the sky blue?\n\nLight scatters.\nMore here.\n\n"
    assert run(text, "question_to_end").text == "\n  Light scatters.\nMore here.\n\nWhy is the sky blue?\n\n"


def test_question_to_end_must_not_change_q_or_r():
    q, r = "Is “x” > 2, see https://ex.com/?q=1?", "Here x = 3.\n- note `a?b`\n"
    out = run(q + " " + r, "question_to_end").text
    assert out == r.rstrip("\n") + " " + q + "\n"


def test_question_to_end_must_not_put_the_question_after_the_answer_cue():
    text = "What is 2+2? Think carefully.\r\n\r\nFinal Answer:  \r\n"
    out = run(text, "question_to_end").text
    assert out == "Think carefully. What is 2+2?\r\n\r\nFinal Answer:  \r\n"
    assert out.rstrip().endswith("Final Answer:")


def test_question_to_end_must_not_move_a_question_not_at_the_start():
    for text in [
        "Sam has 3 apples. How many?",
        "# Title?\nWhat is it? Yes.",
        "- Is it? Yes.\nText.",
        "Really! What?",
    ]:
        r = run(text, "question_to_end")
        assert (r.text, r.reason) == (text, "no_candidates")


def test_question_to_end_no_candidates_when_nothing_follows():
    for text in ["What is 2+2?", "What is 2+2?\nAnswer:", "  Why?  \n\n"]:
        r = run(text, "question_to_end")
        assert (r.text, r.reason) == (text, "no_candidates")


# --------------------------------------------------------------------------------------------
# 15.3 markdown_structure
# --------------------------------------------------------------------------------------------

SAM = "Sam has 3 apples. He buys 2 more. How many does he have?"


def test_markdown_structure_catalog_examples():
    r = run(SAM, "markdown_structure")
    assert r.text == "- Sam has 3 apples.\n- He buys 2 more.\n- How many does he have?"
    assert r.edits == 3
    r = run(SAM, "markdown_structure", {"style": "bold_question"})
    assert r.text == "Sam has 3 apples. He buys 2 more. **How many does he have?**"
    assert r.edits == 1


def test_markdown_structure_numbered_restarts_per_paragraph_and_keeps_paragraph_gaps():
    text = "One. Two.\n\n\nThree? Four.\r\nFive."
    r = run(text, "markdown_structure", {"style": "numbered"})
    assert r.text == "1. One.\n2. Two.\n\n\n1. Three?\n2. Four.\n3. Five."
    assert r.edits == 5


def test_markdown_structure_uses_the_text_newline_style():
    r = run("Ab cd.  Cd ef.\r\nEf gh.\r\n", "markdown_structure")
    assert r.text == "- Ab cd.\r\n- Cd ef.\r\n- Ef gh.\r\n"


def test_markdown_structure_quote():
    text = "Line one.\nLine two? Yes.\n\n- item\n\nLast."
    r = run(text, "markdown_structure", {"style": "quote"})
    assert r.text == "> Line one.\n> Line two? Yes.\n\n- item\n\n> Last."
    assert r.edits == 3


@pytest.mark.parametrize("style", ["bullets", "quote", "bold_question"])
def test_markdown_structure_must_not_add_words(style):
    text = SAM + "\n\nWhy? Because.\nAnswer:"
    out = run(text, "markdown_structure", {"style": style}).text
    assert [t.text for t in word_tokens(out)] == [t.text for t in word_tokens(text)]


def test_markdown_structure_numbered_adds_only_list_numbers():
    out = run(SAM, "markdown_structure", {"style": "numbered"}).text
    stripped = re.sub(r"(?m)^\d+\. ", "", out)
    assert [t.text for t in word_tokens(stripped)] == [t.text for t in word_tokens(SAM)]


@pytest.mark.parametrize("style", ["bullets", "numbered", "quote", "bold_question"])
def test_markdown_structure_must_not_alter_sentence_text(style):
    text = "Dr. Li left at 5 p.m. today. Is “that” OK?) See https://ex.com/a. Done!"
    out = run(text, "markdown_structure", {"style": style}).text
    for s in ["Dr. Li left at 5 p.m. today.", "Is “that” OK?)", "See https://ex.com/a.", "Done!"]:
        assert s in out


@pytest.mark.parametrize("style", ["bullets", "numbered", "quote", "bold_question"])
def test_markdown_structure_must_not_restructure_existing_markdown(style):
    md = "# Title?\n\n- a? b.\n1. c? d.\n> e? f.\n| g? |\n\n```\nh? i.\n```\n"
    text = md + "\nWhat now? Go.\nAnswer:"
    out = run(text, "markdown_structure", {"style": style}).text
    assert out.startswith(md)
    assert out.endswith("\nAnswer:")


@pytest.mark.parametrize("style", ["bullets", "numbered", "quote", "bold_question"])
def test_markdown_structure_no_candidates(style):
    text = "- a?\n- b\n\n# T?\n```\nx?\n```"
    r = run(text, "markdown_structure", {"style": style})
    assert (r.text, r.reason) == (text, "no_candidates")


def test_markdown_structure_bold_question_needs_a_question():
    r = run("No question here. None.", "markdown_structure", {"style": "bold_question"})
    assert r.reason == "no_candidates"


# --------------------------------------------------------------------------------------------
# 15.4 irrelevant_preamble, 15.5 irrelevant_trailer
# --------------------------------------------------------------------------------------------


def test_irrelevant_preamble_catalog_example():
    r = run("What is 7 × 8?", "irrelevant_preamble")
    assert r.applied and r.edits == 1
    material, rest = r.text[: -len(" What is 7 × 8?")], r.text[-len(" What is 7 × 8?") :]
    assert rest == " What is 7 × 8?" and material in B3


def test_irrelevant_preamble_draws_and_count():
    rng = Draws(42)
    ids = rng.sample(range(12), 3)
    r = run("Hi.\nQ?", "irrelevant_preamble", {"count": 3}, seed=42)
    assert r.text == " ".join(B3[i] for i in ids) + "\n\nHi.\nQ?"
    assert r.edits == 3 and r.details == {}
    outs = {run("Q?", "irrelevant_preamble", {"count": 2}, seed=s).text for s in range(20)}
    assert len(outs) > 5


def test_irrelevant_preamble_keeps_text_byte_identical():
    text = "  \r\nWhat is `x`?\r\nAnswer:\r\n"
    out = run(text, "irrelevant_preamble", {"count": 2}, seed=3).text
    # The body (without the cue) has no line break, so sep is one space.
    assert out.startswith("  \r\n") and out.endswith(". What is `x`?\r\nAnswer:\r\n")
    ids = Draws(3).sample(range(12), 1)
    assert run("   ", "irrelevant_preamble", seed=3).text == B3[ids[0]] + "   "


def test_irrelevant_trailer_catalog_example():
    r = run("What is 7 × 8?\nAnswer:", "irrelevant_trailer")
    assert r.text.startswith("What is 7 × 8? ") and r.text.endswith("\nAnswer:")
    assert r.text[len("What is 7 × 8? ") : -len("\nAnswer:")] in B4
    assert r.edits == 1 and r.details == {}


def test_irrelevant_trailer_draws():
    rng = Draws(7)
    ids = rng.sample(range(12), 3)
    r = run("Q?", "irrelevant_trailer", {"count": 3}, seed=7)
    assert r.text == "Q? " + " ".join(B4[i] for i in ids)
    outs = {run("Q?", "irrelevant_trailer", seed=s).text for s in range(20)}
    assert len(outs) > 5


def test_irrelevant_trailer_must_not_place_material_after_the_answer_cue():
    for seed in range(12):
        out = run("Question one.\nWhat is it?\n\nA:", "irrelevant_trailer", seed=seed).text
        assert out.endswith("\n\nA:")
        assert out.startswith("Question one.\nWhat is it?\n\n")


def test_irrelevant_trailer_must_not_drop_trailing_newlines():
    out = run("What is 2+2?\n\n\n", "irrelevant_trailer", seed=1).text
    assert out.endswith("\n\n\n") and out.startswith("What is 2+2? ")
    out = run("Q?\r\nAnswer:\r\n", "irrelevant_trailer", seed=1).text
    assert out.endswith(".\r\nAnswer:\r\n") or out.endswith("!\r\nAnswer:\r\n")


# --------------------------------------------------------------------------------------------
# 15.6 key_sentence_to_middle
# --------------------------------------------------------------------------------------------


def test_key_sentence_to_middle_catalog_example():
    r = run("The code is 7341. What is the code?", "key_sentence_to_middle", {"count": 4, "depth": 0.5})
    assert r.text == (
        "This passage contains general background material. These notes were gathered from "
        "routine sources. The code is 7341. Much of this text concerns ordinary everyday "
        "matters. These sentences describe common situations in plain terms.\n\nWhat is the code?"
    )
    assert (r.edits, r.details) == (4, {"key_position": 2})


def test_key_sentence_to_middle_depth_and_cycle():
    r = run("Key fact.", "key_sentence_to_middle", {"count": 22, "depth": 1.0})
    assert r.text == " ".join([B2[i % 20] for i in range(22)] + ["Key fact."])
    assert r.details == {"key_position": 22}
    r = run("Key fact.", "key_sentence_to_middle", {"count": 3, "depth": 0.0})
    assert r.text == "Key fact. " + " ".join(B2[:3])
    # b = (count * round(depth * 100) + 50) // 100: 3 * 50 = 150 -> 2
    assert run("K.", "key_sentence_to_middle", {"count": 3, "depth": 0.5}).details == {"key_position": 2}
    assert run("K.", "key_sentence_to_middle", {"count": 40}).details == {"key_position": 20}


def test_key_sentence_to_middle_must_not_alter_the_key_or_the_rest():
    text = "\n The code is `7341` (see https://ex.com/x).\nWhy?  Tell me.\n\n- a\n\n"
    out = run(text, "key_sentence_to_middle", {"count": 2}).text
    assert out == (
        "\n "
        + B2[0]
        + " The code is `7341` (see https://ex.com/x). "
        + B2[1]
        + "\n\nWhy?  Tell me.\n\n- a\n\n"
    )


def test_key_sentence_to_middle_must_not_move_the_answer_cue():
    text = "Paris is in France.\r\nWhere is Paris?\r\nAnswer:\r\n"
    out = run(text, "key_sentence_to_middle", {"count": 1, "depth": 1.0}).text
    assert out == B2[0] + " Paris is in France.\r\n\r\nWhere is Paris?\r\nAnswer:\r\n"


def test_key_sentence_to_middle_must_not_depend_on_the_seed():
    outs = {run("A fact. A question?", "key_sentence_to_middle", seed=s).text for s in range(5)}
    assert len(outs) == 1


def test_key_sentence_to_middle_whitespace_only():
    r = run(" \n\t ", "key_sentence_to_middle")
    assert (r.text, r.reason) == (" \n\t ", "no_candidates")


def test_key_sentence_to_middle_single_unit():
    assert run("Only this.\n", "key_sentence_to_middle", {"count": 1}).text == B2[0] + " Only this.\n"


# --------------------------------------------------------------------------------------------
# Robustness
# --------------------------------------------------------------------------------------------

ODD = [
    "\x00",
    "\u202e- a\n- b",
    "- \u200d\n- \u0301",
    "\r\r\n\n",
    "?",
    "- ",
    "-\t\n-\t",
    "Q?\u2028A.",
    "```\n",
    "\ud83d\udc4d".encode("utf-16", "surrogatepass").decode("utf-16"),
    "Answer:\nAnswer:",
    "a\x85b? c.",
    "- a\n  \t- b\n\t- c\n  - d",
]


@pytest.mark.parametrize("text", ODD)
@pytest.mark.parametrize(
    "name,params",
    [
        ("reorder_bullets", {}),
        ("question_to_end", {}),
        ("markdown_structure", {"style": "bullets"}),
        ("markdown_structure", {"style": "numbered"}),
        ("markdown_structure", {"style": "quote"}),
        ("markdown_structure", {"style": "bold_question"}),
        ("irrelevant_preamble", {"count": 3}),
        ("irrelevant_trailer", {"count": 3}),
        ("key_sentence_to_middle", {"count": 5}),
    ],
)
def test_never_raises(text, name, params):
    r = run(text, name, params, seed=9)
    assert r.applied == (r.text != text)


def test_reorder_bullets_deep_nesting_does_not_recurse():
    depth = 900
    text = "".join(" " * d + "- a\n" + " " * d + "- b\n" for d in range(depth))
    r = run(text, "reorder_bullets")
    assert sorted(r.text) == sorted(text)


def test_key_sentence_to_middle_must_not_break_a_leading_code_block():
    text = "```\nprint(1)\n```\nWhat does it print?"
    r = perturber.apply(text, "key_sentence_to_middle", {"count": 4})
    assert (r.text, r.applied, r.reason) == (text, False, "no_candidates")
