"""The fast paths of ``typos`` and ``realistic_typos`` draw and edit exactly as the straightforward
code they stand in for (the memoised plans and the word model), on random words, texts and seeds."""

from operator import eq

from hypothesis import given, settings
from hypothesis import strategies as st
from test_bits import any_texts

from perturber import text as tm
from perturber.perturbations.word_level import typo_mechanics, typos
from perturber.rng import Draws
from perturber.text.byte_lanes import Flags

seeds = st.integers(0, 2**32 - 1)
# ASCII words, with repeats (filtered) and without, in both cases, and a few non-letters
words = st.text(alphabet="abcdeilmnoprstuyzABEILTZ", min_size=1, max_size=14) | st.text(
    alphabet="aAbB'-’é1", min_size=1, max_size=6
)


def _unfiltered_reference(word: str) -> bool:
    """:func:`typo_mechanics.unfiltered` as first written: letter pairs compared one by one."""
    if not (word.isascii() and word.isalpha()):
        return False
    low = word.lower()
    return not any(map(eq, low, low[1:])) and not any(map(eq, low, low[2:]))


@settings(max_examples=1000, deadline=None)
@given(words)
def test_unfiltered_is_the_pairwise_check(word):
    assert typo_mechanics.unfiltered(word) == _unfiltered_reference(word)


@settings(max_examples=1000, deadline=None)
@given(words, seeds)
def test_an_unfiltered_typo_is_the_planned_one(word, seed):
    """On a word that ``_keeps_every_typo`` (every ``unfiltered`` one among them),
    ``_unfiltered_typo`` makes the draws and edit of the memoised plan and ``_typo_edit``."""
    if typo_mechanics.unfiltered(word):
        assert typos._keeps_every_typo(word)
    if not (typos._keeps_every_typo(word) and len(word) >= typos._TY_MIN_CAND):
        return
    a, b = Draws(seed), Draws(seed)
    plan = typos._typo_plan.__wrapped__(word)
    op, positions, kept = plan[b.below(len(plan))]
    j = b.below(len(positions))
    want = typos._typo_edit(word, op, positions[j], None if kept is None else kept[j], b)
    assert typos._unfiltered_typo(word, a.below) == want
    assert a.below(1000) == b.below(1000)


@settings(max_examples=1000, deadline=None)
@given(words, seeds)
def test_an_unfiltered_realistic_typo_is_the_realised_one(word, seed):
    """``_unfiltered_realise`` draws and edits as ``_realise`` on the word model, for every
    mechanism that applies to an unfiltered word."""
    if not (typo_mechanics.unfiltered(word) and len(word) >= typos._RT_MIN):
        return
    w = typo_mechanics.Word(tm.Token(0, len(word), word))
    for mech in typos._rt_applicable_unfiltered(word):
        a, b = Draws(seed), Draws(seed)
        assert typos._unfiltered_realise(word, mech, a) == typos._realise(w, mech, b)
        assert a.below(1000) == b.below(1000)


# texts of words that run into each other across single spaces (missed_space and its run check),
# and of a word followed by one that starts with a run of its last letter
word_texts = st.lists(words | st.sampled_from(["phone", "the", "Back", "aab", "tomorrow"]), max_size=8).map(
    " ".join
) | st.tuples(words, st.integers(1, 3), words).map(lambda p: f"{p[0]} {p[0][-1:] * p[1]}{p[2]}")


@settings(max_examples=500, deadline=None)
@given(word_texts, seeds)
def test_an_unfiltered_token_draws_as_its_plan(text, seed):
    """``_rt_unfiltered_edit`` makes the draws, edit and joined run of ``_rt_planned``."""
    tokens = typo_mechanics.Tokens(text)
    for start in typo_mechanics.typo_starts(text, typos._RT_MIN):
        tok = tokens.at(start)
        if typos._rt_unfiltered(tok.text):
            a, b = Draws(seed), Draws(seed)
            assert typos._rt_unfiltered_edit(tokens, tok, a) == typos._rt_planned(tokens, tok, b)
            assert a.below(1000) == b.below(1000)


# words that may hold a Table A2 match or be a Table A1 key
table_words = st.lists(
    st.sampled_from(["ph", "Ph", "tion", "ck", "que", "QUE", "a", "e", "r", "s", "receive", "bb"]), max_size=4
).map("".join)


@settings(max_examples=1000, deadline=None)
@given(words | table_words)
def test_rt_unfiltered_is_its_definition(word):
    from perturber.perturbations.word_level.typo_tables import misspelling_table, phonetic_rule_table

    expected = (
        typo_mechanics.unfiltered(word)
        and word.lower() not in misspelling_table()[0]
        and phonetic_rule_table()[0].search(word) is None
    )
    assert typos._rt_unfiltered(word) == expected


@settings(max_examples=1000, deadline=None)
@given(any_texts | word_texts)
def test_the_view_shows_the_unfiltered_tokens_of_a_plain_text(text):
    """In a plain text, ``_UNFILTERED_TOKEN`` matches at a token's start exactly when the token
    is :func:`unfiltered`, and ends with it."""
    lanes = typo_mechanics.typo_lanes(text)
    if lanes is None:
        return
    for tok in tm.word_tokens(text):
        whole = typos._UNFILTERED_TOKEN.match(lanes.view, tok.start)
        assert (whole is not None) == typo_mechanics.unfiltered(tok.text)
        assert whole is None or whole.end() == tok.end


tails = st.tuples(
    st.sampled_from(["a", "b", "e", "é", "e\u0301", "i", "ß"]), st.integers(1, 3), st.integers(2, 4)
)


# a token, then one that starts with a run of a letter a tail may end with
joined_texts = st.tuples(
    st.sampled_from(["a", "b", "e", "é", "e\u0301", "E\u0301", "i", "İ", "ß"]), st.integers(1, 3), words
).map(lambda p: f"x {p[0] * p[1]}{p[2]}")


# tokens with digits, joiners, binders and protected spans next to each other, after one space or not
next_texts = st.lists(
    st.tuples(
        st.sampled_from(
            ["ab", "Ab", "b9", "9b", "a-b", "a’b", "b'", "-b", "ab-9", "$b", "b.c", "`b`", "http://b.c"]
        ),
        st.sampled_from([" ", "  ", "\u00a0", "", ", "]),
    ).map("".join),
    max_size=8,
).map("".join)


@settings(max_examples=1000, deadline=None)
@given(any_texts | word_texts | joined_texts | next_texts, tails)
def test_the_next_token_joins_as_its_runs_say(text, tail):
    """``_next_to_join`` (the runs of the next token looked up only when it starts with the
    letter of ``tail``; in a plain text, the token found in the view) agrees with
    ``_joined_run`` on the next free alpha token of the token model."""
    tokens = typo_mechanics.Tokens(text)
    for tok in tm.word_tokens(text):
        nxt = tokens.next_free(tok)
        if nxt is None or typo_mechanics.alpha_letters(nxt.text) < 1:
            assert typos._next_to_join(tokens, tok, tail) is None
        else:
            expected = nxt.text if typos._joined_run(nxt.text, tail) is not None else None
            assert typos._next_to_join(tokens, tok, tail) == expected


def stretch_sites_reference(text):
    """``(insertion offset, unit)`` of each repeated_chars candidate, in text order, one free
    token and one terminal run at a time (any text)."""
    words = [(e, unit) for _, e, unit in typos._word_sites(text, tm.free_tokens(text))]
    return sorted(words + [(e, text[e - 1]) for _, e in typos._terminal_runs(text)])


stretch_texts = st.lists(
    words
    | st.sampled_from(["Why?", "no!!", "km", "Hi", "x-ray", "`a`", "ok?!?", "(yes!)", "Ab!", "a\n\n- b?"]),
    max_size=10,
).map(" ".join)


@settings(max_examples=1000, deadline=None)
@given(any_texts | stretch_texts, st.data())
def test_stretch_sites_list_the_candidates(text, data):
    """``_stretch_sites`` of a plain text (the repeated code points as ``Flags``, or a list from
    the C scan) and of any other text (offsets and units) gives the candidates of the
    straightforward listing, and a pick of some of them finds theirs."""
    sites, units = typos._stretch_sites.__wrapped__(text)
    expected = stretch_sites_reference(text)
    plain = isinstance(sites, (Flags, list))
    if plain:
        assert units == ()
        listed = [(p + 1, text[p]) for p in sites]
    else:
        listed = list(zip(sites, units))
    assert listed == expected
    indices = sorted(data.draw(st.sets(st.integers(0, len(expected) - 1))) if expected else [])
    if plain:
        assert [p + 1 for p in typos._picked(sites, indices)] == [expected[i][0] for i in indices]


@settings(max_examples=1000, deadline=None)
@given(words | st.text(alphabet="pqPQeo", min_size=1, max_size=8))
def test_the_mechanisms_of_a_word_of_letters_are_the_producers(word):
    """``_rt_applicable_letters`` (four mechanisms settled from the letters) lists what the
    eight position producers find, on a token of ASCII letters with no run carried in."""
    if not (word.isascii() and word.isalpha()):
        return
    w = typo_mechanics.Word(tm.Token(0, len(word), word))
    assert typos._rt_applicable_letters(w) == typos._rt_applicable(w)
