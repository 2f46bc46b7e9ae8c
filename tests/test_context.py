"""context family, deterministic entries (docs/spec/catalog.md §11.3 irrelevant_context, §11.4
context_load)."""

import pytest
from helpers import NoDraws, run

from perturber import registry
from perturber.data import load_table
from perturber.errors import InvalidParams
from perturber.rng import Draws
from perturber.text import answer_cue, sentences, split_body, word_tokens

B1 = load_table("b01_distractors")["sentences"]
B2 = load_table("b02_filler")["sentences"]
TOM = "Tom has 4 pens. He buys 3 more. How many pens does he have?"


def remove_inserted(out, ids):
    for i in ids:
        assert out.count(B1[i] + " ") + out.count(B1[i]) >= 1
        out = out.replace(B1[i] + " ", "", 1) if B1[i] + " " in out else out.replace(B1[i], "", 1)
    return out


# --------------------------------------------------------------------------------------------
# Declarations and shared reasons
# --------------------------------------------------------------------------------------------


def test_declarations_match_catalog_table():
    ic = registry.get("irrelevant_context")
    assert (ic.family, ic.in_scope, ic.expectation, ic.seed_sensitive, ic.model_backed) == (
        "context",
        False,
        "invariant",
        True,
        False,
    )
    (c,) = ic.params
    assert (c.name, c.type, c.default, c.ge, c.le) == ("count", int, 1, 0, 10)
    assert ic.intensity == "count"
    cl = registry.get("context_load")
    assert (cl.family, cl.in_scope, cl.expectation, cl.seed_sensitive, cl.model_backed) == (
        "context",
        False,
        "invariant",
        False,
        False,
    )
    r, p = cl.params
    assert (r.name, r.type, r.default, r.ge, r.le, r.step) == ("ratio", float, 2.0, 1.0, 8.0, 0.01)
    assert (p.name, p.default, p.choices) == ("position", "before", ("before", "after", "split"))
    assert cl.intensity == "ratio"


@pytest.mark.parametrize("name", ["irrelevant_context", "context_load"])
def test_empty_input(name):
    r = run("", name)
    assert (r.text, r.applied, r.reason, r.edits) == ("", False, "empty_input", 0)


def test_zero_intensity():
    r = run(TOM, "irrelevant_context", {"count": 0})
    assert (r.text, r.reason, r.edits) == (TOM, "zero_intensity", 0)
    r = run(TOM, "context_load", {"ratio": 1.0})
    assert (r.text, r.reason, r.edits) == (TOM, "zero_intensity", 0)
    r = run(TOM, "context_load", {"ratio": 1})  # an int is accepted for a float
    assert r.reason == "zero_intensity"


@pytest.mark.parametrize(
    "name,params",
    [
        ("irrelevant_context", {"count": 11}),
        ("irrelevant_context", {"count": -1}),
        ("irrelevant_context", {"count": 2.0}),
        ("irrelevant_context", {"count": True}),
        ("context_load", {"ratio": 0.99}),
        ("context_load", {"ratio": 8.01}),
        ("context_load", {"ratio": 2.005}),
        ("context_load", {"ratio": float("nan")}),
        ("context_load", {"position": "middle"}),
        ("context_load", {"position": "Before"}),
        ("context_load", {"seed": 1}),
    ],
)
def test_parameter_validation(name, params):
    with pytest.raises(InvalidParams):
        run(TOM, name, params)


# --------------------------------------------------------------------------------------------
# 11.3 irrelevant_context
# --------------------------------------------------------------------------------------------


def test_irrelevant_context_catalog_example():
    r = run(TOM, "irrelevant_context", seed=1)
    assert r.applied and r.edits == 1
    (i,) = r.details["inserted"]
    assert r.details == {"inserted": [i]}
    slots = ["Tom has 4 pens.", "He buys 3 more.", "How many pens does he have?"]
    options = [TOM.replace(s, B1[i] + " " + s, 1) for s in slots]
    assert r.text in options


def test_irrelevant_context_draws_follow_the_procedure():
    text = "One here. Two here.\n\nThree here? Four here."
    seed = 12345
    rng = Draws(seed)
    ids = rng.sample(range(24), 6)
    at = [rng.randrange(4) for _ in ids]
    starts = [s.start for s in sentences(text)]
    out = text
    for k in range(3, -1, -1):  # insert right to left so offsets stay valid
        mat = "".join(B1[i] + " " for i, a in zip(ids, at) if a == k)
        out = out[: starts[k]] + mat + out[starts[k] :]
    r = run(text, "irrelevant_context", {"count": 6}, seed=seed)
    assert (r.text, r.edits, r.details) == (out, 6, {"inserted": ids})


def test_irrelevant_context_seeds():
    outs = {run(TOM, "irrelevant_context", {"count": 2}, seed=s).text for s in range(20)}
    assert len(outs) > 10
    assert run(TOM, "irrelevant_context", seed=4).text == run(TOM, "irrelevant_context", seed=4).text


def test_irrelevant_context_must_not_repeat_a_bank_sentence():
    for seed in range(30):
        r = run(TOM, "irrelevant_context", {"count": 10}, seed=seed)
        ids = r.details["inserted"]
        assert len(set(ids)) == 10 and r.edits == 10
        for i in ids:
            assert r.text.count(B1[i]) == 1
        assert remove_inserted(r.text, ids) == TOM


def test_irrelevant_context_must_not_insert_after_the_final_sentence_or_the_answer_cue():
    text = "Tom has 4 pens.\nHow many pens?\nAnswer:\n"
    for seed in range(40):
        out = run(text, "irrelevant_context", {"count": 3}, seed=seed).text
        assert out.endswith("How many pens?\nAnswer:\n")


def test_irrelevant_context_must_not_split_a_sentence():
    text = "Dr. Smith paid $3.50 at 5 p.m. on the dot. Is it e.g. fair?"
    for seed in range(40):
        r = run(text, "irrelevant_context", {"count": 2}, seed=seed)
        assert "Dr. Smith paid $3.50 at 5 p.m. on the dot." in r.text
        assert "Is it e.g. fair?" in r.text
        assert remove_inserted(r.text, r.details["inserted"]) == text


def test_irrelevant_context_must_not_insert_into_lists_tables_or_code():
    structure = "- item one\n- item two\n\n| a | b |\n\n```\ncode line.\n```\n\n1. step\nA. option\n"
    text = structure + "\nThe plain sentence. Another one?"
    for seed in range(40):
        out = run(text, "irrelevant_context", {"count": 4}, seed=seed).text
        assert out.startswith(structure)


def test_irrelevant_context_without_sentences_prepends_a_paragraph():
    text = "- a\r\n- b\r\n"
    r = run(text, "irrelevant_context", {"count": 2}, seed=8)
    ids = r.details["inserted"]
    assert ids == Draws(8).sample(range(24), 2)
    assert r.text == B1[ids[0]] + " " + B1[ids[1]] + "\r\n\r\n" + text
    # a single-line list item: sep is still forced to NL NL
    r = run("| x |", "irrelevant_context", seed=8)
    assert r.text == B1[r.details["inserted"][0]] + "\n\n| x |"
    # whitespace only: material + text
    r = run("  ", "irrelevant_context", seed=8)
    assert r.text == B1[r.details["inserted"][0]] + "  "


def test_irrelevant_context_protected_spans_untouched():
    text = "Visit https://ex.com/a.b. Mail me@ex.com. Run `a. b` now."
    for seed in range(20):
        out = run(text, "irrelevant_context", {"count": 3}, seed=seed).text
        for span in ["https://ex.com/a.b", "me@ex.com", "`a. b`"]:
            assert span in out


# --------------------------------------------------------------------------------------------
# 11.4 context_load
# --------------------------------------------------------------------------------------------


def test_context_load_catalog_example():
    text = "Tom has 4 pens. How many pens does Tom have?"
    assert len(text) == 44
    r = run(text, "context_load")
    assert r.text == (
        "This passage contains general background material.\n\nTom has 4 pens. How many pens does Tom have?"
    )
    assert len(r.text) == 96 and r.edits == 1
    assert r.details == {"achieved_ratio": round(96 / 44, 4), "word_ratio": 1.6}  # (10 + 6) / 10 word tokens


@pytest.mark.parametrize("ratio", [1.01, 1.5, 2.0, 3.33, 8.0])
@pytest.mark.parametrize("position", ["before", "after", "split"])
def test_context_load_reaches_the_target_with_the_fewest_sentences(ratio, position):
    text = "Paris is the capital of France. What is the capital of France?\nAnswer:\n"
    r = run(text, "context_load", {"ratio": ratio, "position": position})
    target = (len(text) * round(ratio * 100) + 99) // 100
    m = r.edits
    assert len(r.text) >= target
    fillers = [B2[i % 20] for i in range(m)]
    for s in set(fillers):
        assert r.text.count(s) == fillers.count(s)
    head = (m + 1) // 2 if position == "split" else m
    if position == "before" or position == "split":
        assert r.text.startswith(" ".join(fillers[:head]) + "\n\n")
    body = split_body(text)
    if m > 1 or position == "after":
        after = fillers if position == "after" else fillers[head:]
        if after:
            assert r.text.endswith(body.body + "\n\n" + " ".join(after) + "\nAnswer:\n")
    prev = m - 1
    if prev >= 1:
        # rebuild the output with m - 1 sentences and check it is shorter than the target
        f = [B2[i % 20] for i in range(prev)]
        if position == "before":
            alt = " ".join(f) + "\n\n" + text
        elif position == "after":
            alt = body.body + "\n\n" + " ".join(f) + "\nAnswer:\n"
        else:
            h = (prev + 1) // 2
            alt = (
                " ".join(f[:h])
                + "\n\n"
                + body.body
                + ("\n\n" + " ".join(f[h:]) if prev > h else "")
                + "\nAnswer:\n"
            )
        assert len(alt) < target
    assert r.details["achieved_ratio"] == round(len(r.text) / len(text), 4)
    assert r.details["word_ratio"] == round(len(word_tokens(r.text)) / len(word_tokens(text)), 4)


def test_context_load_split_with_one_sentence_has_no_block_after():
    text = "Tom has 4 pens. How many pens does Tom have?"
    r = run(text, "context_load", {"position": "split"})
    assert r.edits == 1
    assert r.text == B2[0] + "\n\n" + text


def test_context_load_split():
    text = "Tom has 4 pens. How many pens does Tom have?"
    r = run(text, "context_load", {"position": "split", "ratio": 4.0})
    assert r.text == B2[0] + " " + B2[1] + "\n\n" + text + "\n\n" + B2[2]
    assert r.edits == 3


def test_context_load_must_not_alter_the_original_text():
    text = "  \r\nSee `x. y` at https://ex.com.\r\nWhy?\r\n\r\n"
    for position in ["before", "after", "split"]:
        out = run(text, "context_load", {"ratio": 5.0, "position": position}).text
        body = split_body(text).body
        assert (
            body in out
            and out.startswith("  \r\n")
            and out.endswith(body + "\r\n\r\n") == (position == "before")
        )
        assert out.endswith("\r\n\r\n")


def test_context_load_must_not_put_filler_after_the_answer_cue():
    text = "Tom has 4 pens.\nHow many?\n\nFinal answer:\n"
    for position in ["before", "after", "split"]:
        for ratio in [1.5, 4.0, 8.0]:
            out = run(text, "context_load", {"ratio": ratio, "position": position}).text
            assert out.endswith("\n\nFinal answer:\n")
            assert answer_cue(out) is not None
            assert out[answer_cue(out)[1] :] == "\n"


def test_context_load_must_not_depend_on_the_seed():
    spec = registry.get("context_load")
    out = spec.function(TOM, NoDraws(), ratio=3.0, position="split")
    assert out.text != TOM
    assert {run(TOM, "context_load", {"ratio": 3.0}, seed=s).text for s in range(5)} == {
        run(TOM, "context_load", {"ratio": 3.0}).text
    }


def test_context_load_cycles_through_the_bank():
    text = "Why?"
    r = run(text, "context_load", {"ratio": 8.0, "position": "after"})
    assert r.text == "Why?\n\n" + B2[0]  # 4 * 8 = 32 <= 4 + 2 + 50
    long = "x" * 500 + " y."
    r = run(long, "context_load", {"ratio": 4.0})
    m = r.edits
    assert m > 20
    assert r.text == " ".join(B2[i % 20] for i in range(m)) + "\n\n" + long


def test_context_load_no_word_is_no_candidates():
    for text in ["   ", "?!", "\n\n", "— … —"]:
        r = run(text, "context_load")
        assert (r.text, r.reason) == (text, "no_candidates")


def test_context_load_uses_crlf():
    r = run("Q?\r\nMore.", "context_load")
    assert r.text == B2[0] + "\r\n\r\nQ?\r\nMore."


@pytest.mark.parametrize(
    "text",
    ["\x00", "\u202e", "a\u0301", "👍🏽 ok", "\r", "Answer:\nAnswer:", "```\nx.\n", "- a", "a\x85b? c."],
)
def test_never_raises(text):
    for name, params in [
        ("irrelevant_context", {"count": 10}),
        ("context_load", {"ratio": 8.0, "position": "split"}),
    ]:
        r = run(text, name, params, seed=3)
        assert r.applied == (r.text != text)
