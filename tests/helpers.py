"""Small test helpers shared by the family test files."""

import perturber.perturbations.word_level.typos as T
from perturber import text as tm
from perturber.rng import Draws

#: Declared versions above 1 (every other native entry is at version 1). Each entry below changed
#: its outputs when JSON regions became protected spans (docs/spec/catalog.md §1.8 kind 5, catalog
#: 1.1); the second group was bumped after the fact, when a comparison on JSON inputs showed that
#: their outputs had changed then too (CHANGELOG.md). ``synonym`` is at 3 (v2: §5.5).
JSON_REGIONS_V2 = (
    "drop_stop_words punctuation_spaces sequence_spaces realistic_typos typos repeated_chars random_case "
    "upper_case lower_case title_case leetspeak disemvowel diacritics_add homoglyph zero_width "
    "bidi_override ocr_noise extra_whitespace tabs_for_spaces line_wrap scale_quantity"
).split()
JSON_REGIONS_LATE_V2 = (
    "abbreviations apostrophe_drop confusable_words contractions date_unit deadline_passed "
    "diacritics_strip emoji emoji_shortcode emoticon insert_negation irrelevant_context "
    "key_sentence_to_middle markdown_structure name_swap number_format punctuation_drop "
    "question_to_end quote_style shortcode_emoji smart_to_ascii spelling_uk word_merge word_split"
).split()
VERSIONS = {**dict.fromkeys(JSON_REGIONS_V2 + JSON_REGIONS_LATE_V2, 2), "synonym": 3}


def expected_version(name: str) -> int:
    """The version an entry must declare."""
    return VERSIONS.get(name, 1)


class NoDraws:
    """An rng stand-in that fails on any draw (seed-insensitive entries make none)."""

    def __getattr__(self, name):
        raise AssertionError(f"unexpected draw: rng.{name}")


def run(text, name, params=None, seed=0):
    """``perturber.apply`` under the library's hard limit (the 1 MB tests pass through it)."""
    from conftest import BIG

    import perturber

    return perturber.apply(text, name, params, seed, limits=BIG)


def out(text, name, params=None, seed=0):
    """The perturbed text of ``run``."""
    return run(text, name, params, seed).text


def outputs(text, name, params=None, seeds=range(150)):
    """The perturbed texts of ``run`` over ``seeds``."""
    return [run(text, name, params, seed).text for seed in seeds]


# --- The typo entries' straightforward algorithms (a fresh Word per chosen token, options found
# on the spot), which their fast paths must match ---


def typos_reference(text: str, seed: int, count: int = 5) -> str:
    """``typos`` as first written: a ``Word`` per chosen token, options found on the spot."""
    from perturber.perturbations.word_level.typo_mechanics import (
        Word,
        _typo_starts_general,
        edit_double,
        edit_drop,
        edit_sub,
        edit_swap,
        shift_letter,
    )
    from perturber.rng import select

    rng = Draws(seed)
    free = {t.start: t for t in tm.free_tokens(text)}
    starts = _typo_starts_general(text, T._TY_MIN_CAND)
    if not starts:
        return text
    edits = []
    for start in select(starts, rng, count=count):
        w = Word(free[start])
        found = ((op, list(producer(w, T._TY_MIN))) for op, producer in T._TY_OPS)
        op, positions = rng.choice([(op, positions) for op, positions in found if positions])
        i = rng.choice(positions)
        if op == "swap":
            edits.append(edit_swap(w, i))
        elif op == "delete":
            edits.append(edit_drop(w, i))
        elif op == "duplicate":
            edits.append(edit_double(w, i))
        else:
            edits.append(edit_sub(w, i, shift_letter(w.keys[i], rng.choice(w.shift_options(i)))))
    return tm.splice(text, edits)


def realistic_typos_reference(text: str, seed: int, count: int = 3) -> str:
    """``realistic_typos`` with every token handled by the unmemoised path (a fresh ``Word``,
    options and ``missed_space`` computed on the spot)."""
    from perturber.perturbations.word_level.typo_mechanics import Tokens, _typo_starts_general
    from perturber.rng import select

    rng = Draws(seed)
    free = {t.start: t for t in tm.free_tokens(text)}
    starts = _typo_starts_general(text, T._RT_MIN)
    if not starts:
        return text
    edits, inherit_at, inherit = [], -1, None
    for start in select(starts, rng, count=count):
        tok = free[start]
        edit, joined = T._rt_inherited(Tokens(text), tok, inherit if start == inherit_at else None, rng)
        edits.append(edit)
        if joined is not None:
            inherit_at, inherit = tok.end + 1, joined
    return tm.splice(text, edits)
