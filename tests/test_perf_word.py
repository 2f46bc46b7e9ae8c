"""Issue 14 (word-level, formatting, directional entries): the fast paths compute the same bytes
as the straightforward code they replace, on random texts, seeds and parameters."""

import pytest
from helpers import realistic_typos_reference, typos_reference
from hypothesis import given, settings
from hypothesis import strategies as st
from test_typo_fast_paths import stretch_sites_reference

import perturber
from perturber import rng as rng_mod
from perturber import text as tm
from perturber.perturbations.word_level import batch, spacing, synonym, typos
from perturber.resources import nltk_data
from perturber.rng import Draws, select

FRAGMENTS = [
    "the",
    "Quick",
    "brown",
    "FOX",
    "jumps",
    "over",
    "Anna",
    "Anna's",
    "John",
    "is",
    "not",
    "can",
    "do",
    "I am",
    "it is",
    "do not",
    "will",
    "Will",
    "soooo",
    "café",
    "cafe\u0301",
    "naïve",
    "Straße",
    "日本語",
    "привет",
    "👍🏽",
    "1992",
    "-3.5",
    "12,000",
    "p.m.",
    "e.g.",
    "Dr.",
    "don't",
    "don’t",
    "3rd-grade",
    "https://example.com/a?b=c",
    "user@example.org",
    "`code span`",
    "```\nx = 1\n```",
    '{"key": "value", "n": [1, 2]}',
    '"quoted"',
    "(paren)",
    "- item",
    "> quote",
    "1. first",
    "Why?",
    "No!",
    "Wait...",
    "?!",
    "…",
    "\u200d",
    "\u00a0",
]
SEPARATORS = [" ", " ", " ", "  ", "   ", ", ", ". ", "? ", "! ", "\n", "\n\n", "\t", "\r\n", ""]

texts = st.lists(
    st.tuples(st.sampled_from(FRAGMENTS) | st.text(max_size=6), st.sampled_from(SEPARATORS)),
    max_size=40,
).map(lambda parts: "".join(a + b for a, b in parts))
seeds = st.integers(0, 2**32 - 1)


@settings(max_examples=300, deadline=None)
@given(seeds, st.integers(1, 255) | st.integers(1, 2**20), st.integers(0, 600), st.integers(0, 300))
def test_below_many_is_repeated_below(seed, n, k, before):
    fast, slow = Draws(seed), Draws(seed)
    for _ in range(before):  # start anywhere in the stream, also right at a batch boundary
        fast.below(5)
        slow.below(5)
    assert rng_mod.below_many(fast, n, k) == [slow.below(n) for _ in range(k)]
    assert fast.getrandbits(32) == slow.getrandbits(32)  # the same words were consumed


@given(st.integers(0, 50), st.integers(0, 5))
def test_below_many_falls_back_for_other_generators(seed, k):
    class Counting(Draws):
        pass

    assert rng_mod.below_many(Counting(seed), 3, k) == rng_mod.below_many(Draws(seed), 3, k)


def _sequence_spaces_reference(text, seed, rate):
    """The straightforward sequence_spaces: select the run ends, one randint(1, 4) each."""
    rng = Draws(seed)
    ends = spacing._inner_run_ends(text)
    if not ends:
        return text
    chosen = select(ends, rng, rate=rate)
    widths = [" " * rng.randint(1, 4) for _ in chosen]
    return tm.splice(text, [(e, e, w) for e, w in zip(chosen, widths)])


def _repeated_chars_reference(text, seed, rate):
    """The straightforward repeated_chars: select the sites, one randint(2, 3) each."""
    rng = Draws(seed)
    cands = stretch_sites_reference(text)
    if not cands:
        return text
    edits = [(pos, pos, unit * rng.randint(2, 3)) for pos, unit in select(cands, rng, rate=rate)]
    return tm.splice(text, edits)


rates = st.sampled_from([0.0001, 0.05, 0.3, 0.5, 0.9, 1.0]) | st.floats(0.0001, 1.0).map(
    lambda r: round(r, 4)
)


@settings(max_examples=300, deadline=None)
@given(texts, seeds, rates)
def test_sequence_spaces_matches_reference(text, seed, rate):
    assert perturber.perturb(text, "sequence_spaces", {"rate": rate}, seed) == _sequence_spaces_reference(
        text, seed, rate
    )


@settings(max_examples=300, deadline=None)
@given(texts, seeds, rates)
def test_repeated_chars_matches_reference(text, seed, rate):
    assert perturber.perturb(text, "repeated_chars", {"rate": rate}, seed) == _repeated_chars_reference(
        text, seed, rate
    )


def test_long_texts_take_the_unmemoised_paths():
    """Above the memo limit the same functions run without the caches."""
    para = "Why? Anna said it is late, do not worry!  The bridge is   open, we left. " * 60  # > 4096 chars
    assert len(para) > 4096
    short = para[:75]
    for name, params in [
        ("sequence_spaces", {"rate": 0.5}),
        ("repeated_chars", {"rate": 0.3}),
        ("drop_stop_words", {}),
        ("contractions", {}),
        ("line_wrap", {"width": 20}),
        ("insert_negation", {"target": "first"}),
    ]:
        long_out = perturber.perturb(para, name, params, 3)
        assert long_out != para, name
        if name in ("drop_stop_words", "contractions"):  # per-sentence edits repeat
            assert long_out.startswith(perturber.perturb(short, name, params, 3))
    assert _sequence_spaces_reference(para, 3, 0.5) == perturber.perturb(
        para, "sequence_spaces", {"rate": 0.5}, 3
    )
    assert _repeated_chars_reference(para, 3, 0.3) == perturber.perturb(
        para, "repeated_chars", {"rate": 0.3}, 3
    )


def test_memoised_outcomes_are_not_shared_mutably():
    text = "The bridge is open today."
    a = perturber.apply(text, "insert_negation", seed=0)
    a.details["negated"]["token"] = "changed"
    b = perturber.apply(text, "insert_negation", seed=1)
    assert b.details["negated"] == {"token": "is", "offset": 11}
    assert b.text == "The bridge is not open today."


WORDY = [
    "receive",
    "definitely",
    "photograph",
    "Necessary",
    "BALLOON",
    "bookkeeper",
    "queue",
    "rhythm",
    "seperate",
    "Wednesday",
    "committee",
    "naïve",
    "café",
    "über",
    "aaah",
    "Mississippi",
]
wordy_texts = st.lists(
    st.tuples(st.sampled_from(WORDY + FRAGMENTS) | st.text(max_size=8), st.sampled_from(SEPARATORS)),
    max_size=30,
).map(lambda parts: "".join(a + b for a, b in parts))


@settings(max_examples=400, deadline=None)
@given(wordy_texts, seeds, st.integers(1, 40))
def test_typos_matches_reference(text, seed, count):
    assert perturber.perturb(text, "typos", {"count": count}, seed) == typos_reference(text, seed, count)


@settings(max_examples=400, deadline=None)
@given(wordy_texts, seeds, st.integers(1, 40))
def test_realistic_typos_matches_reference(text, seed, count):
    got = perturber.perturb(text, "realistic_typos", {"count": count}, seed)
    assert got == realistic_typos_reference(text, seed, count)


def _synonym_reference(text, seed, rate):
    """The straightforward synonym: candidates afresh, rng.choice then match_case per token."""
    rng = Draws(seed)
    candidates = synonym.find_candidates(text)
    if not candidates:
        return text
    chosen = select(candidates, rng, rate=rate)
    edits = [(tok.start, tok.end, tm.match_case(tok.text, rng.choice(options))) for tok, options in chosen]
    return tm.splice(text, edits)


PROSE = ["movie", "Movie", "film", "quickly", "buy", "purchase", "car", "automobile", "big", "large", "happy"]
prose_texts = st.lists(
    st.tuples(st.sampled_from(PROSE + WORDY + FRAGMENTS[:20]), st.sampled_from(SEPARATORS)), max_size=25
).map(lambda parts: "".join(a + b for a, b in parts))


def has_data():
    try:
        nltk_data.find_nltk_data()
        return True
    except perturber.ResourceUnavailable:
        return False


@pytest.mark.skipif(
    not has_data(), reason="NLTK data missing: run `bash infra/layers/nltk/build.sh build --with-tagger`"
)
@settings(max_examples=100, deadline=None)
@given(prose_texts, seeds, rates)
def test_synonym_matches_reference(text, seed, rate):
    if not tm.word_tokens(text):
        return
    got = perturber.perturb(text, "synonym", {"rate": rate}, seed)
    assert got == _synonym_reference(text, seed, rate)


@settings(max_examples=500, deadline=None)
@given(texts | st.text(max_size=60))
def test_token_scan_matches_finditer(text):
    from perturber.text import tokens

    expected = tuple(tm.Token(m.start(), m.end(), m.group()) for m in tokens.WORD_RE.finditer(text))
    assert tm.word_tokens(text) == expected
    assert all(type(t) is tm.Token for t in tm.word_tokens(text))


ascii_texts = st.lists(
    st.tuples(
        st.sampled_from(
            [f for f in FRAGMENTS if f.isascii()] + ["a.b.", "x-1", "-2", "A.B.C.", "it's", "e.g"]
        )
        | st.text(st.characters(max_codepoint=127), max_size=6),
        st.sampled_from(SEPARATORS),
    ),
    max_size=30,
).map(lambda parts: "".join(a + b for a, b in parts))


@settings(max_examples=500, deadline=None)
@given(ascii_texts)
def test_ascii_punctuation_patterns_match_the_unicode_ones(text):
    for fast, slow in [
        (spacing._ASCII_PUNCT_RUN, spacing._PUNCT_RUN),
        (spacing._ASCII_IN_TOKEN_JOINER, spacing._IN_TOKEN_JOINER),
        (spacing._ASCII_SIGN, spacing._SIGN),
    ]:
        assert [m.span() for m in fast.finditer(text)] == [m.span() for m in slow.finditer(text)]
    assert spacing._dotted_spans(text, True) == spacing._dotted_spans(text, False)


def test_ascii_punctuation_run_class_is_the_unicode_class_on_ascii():
    chars = "".join(map(chr, range(128)))
    assert spacing._ASCII_PUNCT_RUN.findall(chars) == spacing._PUNCT_RUN.findall(chars)


HSPACE = frozenset(tm.HSPACE)


def all_hspace(text, s, e):
    return s < e and all(text[k] in HSPACE for k in range(s, e))


def _drop_stop_words_reference(text):
    """The straightforward drop_stop_words (per-token Python loops), as it was before issue 14."""
    tokens = tm.word_tokens(text)
    stop = spacing._stop_words()
    flags = bytearray(len(tokens))
    hit = False
    for i, tok in enumerate(tokens):
        w = tok.text
        if len(w) <= 12:
            w = w.lower()
            if w in stop or ("’" in w and w.replace("’", "'") in stop):
                flags[i] = 1
                hit = True
    if not hit:
        return (text, 0)
    spans = tm.Spans(tm.protected_spans(text))
    free = {t.start for t in tm.free_tokens(text, [t for i, t in enumerate(tokens) if flags[i]], spans)}
    for i, tok in enumerate(tokens):
        if flags[i] and tok.start not in free:
            flags[i] = 0
    if not any(flags):
        return (text, 0)
    # Sentence guard: a unit whose word tokens are all candidates keeps them all.  A token
    # outside every unit (none are expected) is never dropped.
    drop = bytearray(len(tokens))
    ti, n_tok = 0, len(tokens)
    for u in tm.units(text):
        while ti < n_tok and tokens[ti].start < u.start:
            ti += 1
        tj = ti
        while tj < n_tok and tokens[tj].start < u.end:
            tj += 1
        block = flags[ti:tj]
        if 0 in block:  # some word token of the unit stays, so it is not emptied
            drop[ti:tj] = block
        ti = tj
    if not any(drop):
        return (text, 0)
    # Group dropped tokens separated only by horizontal whitespace, then remove each group with
    # at most one adjacent horizontal-whitespace run.
    edits = []
    dropped = 0
    i = 0
    n = len(text)
    while i < n_tok:
        if not drop[i]:
            i += 1
            continue
        j = i
        while j + 1 < n_tok and drop[j + 1] and all_hspace(text, tokens[j].end, tokens[j + 1].start):
            j += 1
        dropped += j - i + 1
        gs, ge = tokens[i].start, tokens[j].end
        rs = gs
        while rs > 0 and text[rs - 1] in HSPACE:
            rs -= 1
        starts_line = rs == 0 or text[rs - 1] in "\r\n"
        if rs < gs and not starts_line:
            edits.append((rs, ge, ""))
        else:
            re_ = ge
            while re_ < n and text[re_] in HSPACE:
                re_ += 1
            edits.append((gs, re_, ""))
        i = j + 1
    return (tm.splice(text, edits), dropped)


stop_texts = st.lists(
    st.tuples(
        st.sampled_from(
            ["The", "the", "a", "is", "of", "it’s", "it's", "WHAT", "what", "I", "you’re", "and", "x"]
        )
        | st.sampled_from(FRAGMENTS)
        | st.text(max_size=4),
        st.sampled_from(SEPARATORS + ["\u00a0", "\u3000"]),
    ),
    max_size=30,
).map(lambda parts: "".join(a + b for a, b in parts))


@settings(max_examples=500, deadline=None)
@given(stop_texts)
def test_drop_stop_words_matches_reference(text):
    got = spacing.drop_stop_words(text, None)
    assert (got.text, got.edits) == _drop_stop_words_reference(text)[:2]


plain_stop_texts = st.lists(
    st.tuples(
        st.sampled_from(["The", "the", "a", "IS", "of", "it’s", "its", "x", "Cat", "5", "e.g", "Dr", "‑a"]),
        st.sampled_from(
            [" ", "  ", ", ", ". ", "? ", "! ", "… ", ".", "\n", "\n\n", "\t", "\u00a0", "-", "'", "_"]
        ),
    ),
    max_size=30,
).map(lambda parts: "".join(a + b for a, b in parts))


@settings(max_examples=500, deadline=None)
@given(plain_stop_texts)
def test_drop_stop_words_of_a_plain_text_matches_reference(text):
    """The plain path (stop words found by a pattern, the units read only when a stop word may
    be alone in its unit) against the straightforward loops."""
    got = spacing.drop_stop_words(text, None)
    assert (got.text, got.edits) == _drop_stop_words_reference(text)[:2]
    b = tm.bits.bits(text)
    if b is not None and not tm.bits.may_protect(b.view):
        spans = tm.bits.free_word_spans(b.view, spacing._stop_finder())
        if spans and not spacing._exposed(spacing._marked(text, spans)):
            assert spacing._dropped_plain(text, b) == spans  # no unit of stop words only


@settings(max_examples=500, deadline=None)
@given(stop_texts, st.randoms(use_true_random=False))
def test_group_removal_by_patterns_is_the_edit_loop(text, random):
    """Removing marked groups with two patterns gives the text of the §5.10 deletions, for any
    choice of dropped tokens."""
    spans = [(t.start, t.end) for t in tm.word_tokens(text) if random.random() < 0.5]
    if spans and "\x00" not in text:
        assert spacing._without_groups(text, spans) == tm.splice(text, spacing._removal_edits(text, spans))


def test_lower_casing_never_shortens_a_token():
    """drop_stop_words lower-cases every token (no length pre-filter): that is only equivalent
    because no code point lower-cases to nothing, so lowering never shortens a token."""
    assert all(len(chr(c).lower()) >= 1 for c in range(0x110000) if not 0xD800 <= c < 0xE000)


@settings(max_examples=500, deadline=None)
@given(ascii_texts.map(lambda t: t + " km kg Ab AB aB x-ray it's 3rd ok"))
def test_ascii_stretch_sites_match_the_general_rule(text):
    free = tm.free_tokens(text)
    assert typos._ascii_word_sites(free) == typos._word_sites(text, free)


@settings(max_examples=500, deadline=None)
@given(ascii_texts | st.text(st.characters(max_codepoint=127), max_size=60))
def test_ascii_token_split_matches_the_unicode_pattern(text):
    from perturber.text import tokens

    assert tokens._ASCII_WORD_SPLIT.split(text) == tokens._WORD_SPLIT.split(text)


@given(texts, st.sampled_from(["aux", "firsts", "stop"]))
def test_token_indices_match_the_loop(text, table):
    from perturber.perturbations import directional
    from perturber.perturbations.word_level import typo_tables

    words = {
        "aux": directional._aux().all,
        "firsts": typo_tables.contraction_first_words(),
        "stop": spacing._stop_words(),
    }[table]
    toks = tm.word_tokens(text)
    assert batch.token_indices(toks, words) == [i for i, t in enumerate(toks) if t.text.lower() in words]


ascii_words = st.text(alphabet="abcdeilmnoprstuyABEILT", min_size=1, max_size=12)
# words made of runs of one to four equal letters (the option filter's hard cases)
runny_words = st.lists(st.tuples(st.sampled_from("abzAZ"), st.integers(1, 4)), min_size=1, max_size=5).map(
    lambda runs: "".join(c * k for c, k in runs)
)


# words of several parts with a joiner between each two (a joiner breaks a run of letters)
joined_words = st.tuples(
    st.lists(ascii_words | runny_words, min_size=2, max_size=3), st.sampled_from(["'", "’", "-", "‐"])
).map(lambda parts: parts[1].join(parts[0]))


@settings(max_examples=1000, deadline=None)
@given(ascii_words | runny_words | joined_words | st.sampled_from(WORDY), seeds)
def test_typo_plan_and_edits_match_the_word_model(word, seed):
    """The memoised plan of ``typos`` (ops, positions and, for an ASCII word, the kept shifts,
    found from runs of letters) and its edits are those of the position producers."""
    from perturber.perturbations.word_level.typo_mechanics import (
        Word,
        edit_double,
        edit_drop,
        edit_sub,
        edit_swap,
        shift_letter,
    )

    w = Word(tm.Token(0, len(word), word))
    found = ((op, tuple(producer(w, typos._TY_MIN))) for op, producer in typos._TY_OPS)
    expected = [(op, list(p)) for op, p in found if p]
    got = typos._typo_plan.__wrapped__(word)
    assert [(op, list(p)) for op, p, _ in got] == expected
    for op, positions, kept in got:
        for j, i in enumerate(positions):
            if kept is not None:
                assert list(kept[j]) == w.shift_options(i)
            a, b = Draws(seed), Draws(seed)
            edit = typos._typo_edit(word, op, i, None if kept is None else kept[j], a)
            if op == "substitute":
                shifts = w.shift_options(i)
                want = edit_sub(w, i, shift_letter(w.keys[i], shifts[b.below(len(shifts))]))
            else:
                want = {"swap": edit_swap, "delete": edit_drop, "duplicate": edit_double}[op](w, i)
            assert edit == want and a.below(1000) == b.below(1000)


@settings(max_examples=1000, deadline=None)
@given(
    ascii_words | runny_words | joined_words | st.sampled_from(WORDY),
    st.one_of(st.none(), st.tuples(st.sampled_from("abl"), st.integers(1, 3), st.integers(2, 4))),
    st.lists(st.sampled_from("abeilzé"), max_size=6),
)
def test_option_lists_check_only_the_letters_of_a_neighbour(word, ext, letters):
    """``Word.sub_options`` and ``insert_options`` (the filter checked only for a letter equal
    to a neighbouring one) keep the letters the filter keeps, at every position, with or
    without a run carried in."""
    from perturber.perturbations.word_level.typo_mechanics import Word

    w = Word(tm.Token(0, len(word), word), ext)
    for i in range(w.n):
        assert w.sub_options(i, letters) == [c for c in letters if w.ok(i, i + 1, [c])]
        assert w.insert_options(i, letters) == [c for c in letters if w.ok(i, i, [c])]


def test_realistic_typos_replacements_are_json_safe():
    # realistic_typos writes its edits without text.splice's JSON-interior filter: none would apply
    from perturber.perturbations.word_level.typo_tables import (
        misspelling_table,
        phonetic_rule_table,
        qwerty_table,
    )

    words = list(misspelling_table()[0].values()) + [r for _, r in phonetic_rule_table()[1] if r is not None]
    words += [c for options in qwerty_table()[0].values() for c in options]
    assert words and not any(c in '"\\' or c < " " for w in words for c in w)


@settings(max_examples=500, deadline=None)
@given(ascii_words | st.sampled_from(WORDY))
def test_rt_applicable_of_an_unfiltered_word_is_the_producers(word):
    from perturber.perturbations.word_level.typo_mechanics import Word, unfiltered

    if unfiltered(word) and len(word) >= typos._RT_MIN:
        assert typos._rt_applicable_unfiltered(word) == typos._rt_applicable(
            Word(tm.Token(0, len(word), word))
        )
