"""The ``brittlebench`` compatibility tier (docs/spec/catalog.md §17): ten entries, category ``brittlebench``.

They reproduce, byte for byte, the Brittlebench engine at commit ``fc86103c`` for a given seed
(the reference vectors in ``shared/vectors/brittlebench``). Declaring them is cheap: augly, nlpaug
and wordfreq (the optional extra ``perturber[brittlebench]``) load on the tier's first call, and
a missing extra raises ``ResourceUnavailable`` with code ``tier_unavailable``.

>>> from perturber import perturb
>>> perturb("Hi", "quotes", {"char_count": 2}, category="brittlebench")
'"" Hi ""'
>>> perturb("", "spaces", {"char_count": 1}, category="brittlebench")
'    '
"""

from __future__ import annotations

from functools import partial

from .. import registry
from ..errors import InvalidParams
from ..registry import Outcome, Param, choice
from . import runtime

CATEGORY = "brittlebench"
# The engine pads and edits "" and zero intensities itself (§17.2): no shortcut in ``apply``. Every
# entry of the tier needs its extra (§17.1).
TIER_NEEDS = ("brittlebench_extra",)
perturbation = partial(
    registry.perturbation,
    skip_empty=False,
    skip_zero_intensity=False,
    requires=TIER_NEEDS,
    available=runtime.available,
)
EMOTION_CODES = tuple(f"EP{i:02d}" for i in range(1, 21)) + tuple(f"EA{i:02d}" for i in range(1, 23))


def _outcome(text: str, out: str, **data_version: object) -> Outcome:
    """Edits 1 when applied (the engine counts no sites); ``empty_input`` for ``""`` (§17.2)."""
    details = {"data_version": runtime.data_version(**runtime.deps()["versions"], **data_version)}
    if out == text:
        return Outcome(out, 0, "empty_input" if text == "" else "no_change", details)
    return Outcome(out, 1, None, details)


def _behaviours():
    """The behaviours module, once the extra is known to be installed (every tier entry needs
    it, §17.1: the first call imports augly, nlpaug and wordfreq, or raises ``tier_unavailable``)."""
    runtime.deps()
    from . import behaviours

    return behaviours


# ---- word_level ----------------------------------------------------------------------------


@perturbation(
    "sequence_spaces",
    category=CATEGORY,
    family="word_level",
    seed_sensitive=True,
    intensity="prob",
    params=[
        Param("prob", float, 0.1, "chance of a run of spaces after each code point", 0.0, 1.0),
        Param("min_spaces", int, 1, "fewest spaces in a run", 0, 100),
        Param("max_spaces", int, 10, "most spaces in a run", 0, 100),
    ],
    description="Engine AddSpaceSeq: after any code point, with probability prob, "
    "insert min_spaces..max_spaces spaces.",
    fix_at="input_normalisation",
)
def sequence_spaces(text: str, rng, *, prob: float, min_spaces: int, max_spaces: int) -> Outcome:
    """One ``random.random()`` per code point; a ``randint`` run of spaces after each hit.

    >>> sequence_spaces("ab", type("R", (), {"seed": 0})(), prob=1.0, min_spaces=1, max_spaces=1).text
    'a b '
    """
    if min_spaces > max_spaces:
        raise InvalidParams(
            f"sequence_spaces: min_spaces ({min_spaces}) must not exceed max_spaces ({max_spaces})",
            field="min_spaces",
        )
    fn = _behaviours().sequence_spaces
    out = runtime.run_seeded(rng.seed, lambda: fn(text, prob, min_spaces, max_spaces))
    return _outcome(text, out)


@perturbation(
    "punctuation_spaces",
    category=CATEGORY,
    family="word_level",
    description="Engine PunctSpaces: a space on both sides of every ASCII punctuation mark.",
    fix_at="input_normalisation",
)
def punctuation_spaces(text: str, rng) -> Outcome:
    """No randomness, so no global state is touched.

    >>> punctuation_spaces("3.5?", None).text
    '3 . 5 ?'
    """
    return _outcome(text, _behaviours().punctuation_spaces(text))


@perturbation(
    "drop_stop_words",
    category=CATEGORY,
    family="word_level",
    params=[
        choice(
            "stopword_list",
            "nltk-2025",
            ("nltk-2025", "nltk-2023"),
            "NLTK English list: 198 entries (Feb 2025) or 179 (2023)",
        )
    ],
    description="Engine DropStopWords: drop NLTK English stop words (minus 43 protected), "
    "flattening whitespace.",
    fix_at="prompt",
)
def drop_stop_words(text: str, rng, *, stopword_list: str) -> Outcome:
    """Tokens whose lower-cased form is a stop word are dropped; ``you,`` survives.

    >>> drop_stop_words("What is the  capital\\nof France?", None, stopword_list="nltk-2025").text
    'What capital France?'
    """
    out = _behaviours().drop_stop_words(text, stopword_list)
    return _outcome(text, out, stopword_list=stopword_list, stopword_list_sha256=runtime.STOPWORDS_SHA256)


_TYPO_DEFAULTS = {
    "aug_word_p": 0.5,
    "aug_char_p": 0.5,
    "aug_word_min": 1,
    "aug_word_max": 1000,
    "min_word_frequency": 0.0,
    "typos_count": 1,
    "language": "en",
}


def _check_typo_mode(params: dict) -> None:
    mode = params["mode"]
    free = ("typos_count",) if mode == "count" else tuple(k for k in _TYPO_DEFAULTS if k != "typos_count")
    for key, default in _TYPO_DEFAULTS.items():
        if key not in free and params[key] != default:
            raise InvalidParams(
                f"typos: parameter '{key}' cannot be changed in mode '{mode}' (the engine's "
                f"{'TypoCountPerturbation' if mode == 'count' else 'TypoPerturbation'} has no such "
                f"knob); leave it at {default!r}",
                field=key,
            )


@perturbation(
    "typos",
    category=CATEGORY,
    family="word_level",
    seed_sensitive=True,
    intensity="aug_word_p",
    params=[
        choice(
            "mode",
            "proportional",
            ("proportional", "count"),
            "engine TypoPerturbation (proportional) or TypoCountPerturbation (count)",
        ),
        choice("typo_type", "all", ("all", "charmix", "keyboard", "misspelling"), "augly typo kinds"),
        Param("aug_word_p", float, 0.5, "share of natural words to edit", 0.0, 1.0),
        Param("aug_char_p", float, 0.5, "augly per-character probability", 0.0, 1.0),
        Param("aug_word_min", int, 1, "fewest words to edit", 0, 1000),
        Param("aug_word_max", int, 1000, "most words to edit", 0, 100000),
        Param(
            "min_word_frequency", float, 0.0, "wordfreq frequency a word must exceed to be natural", 0.0, 1.0
        ),
        Param("typos_count", int, 1, "words to edit in count mode", 0, 1000),
        choice("language", "en", ("en",), "wordfreq language"),
    ],
    description="Engine Typo/TypoCount: augly typo simulation on natural words only "
    "(wordfreq filter, units skipped), whitespace preserved.",
)
def typos(text: str, rng, **params) -> Outcome:
    """augly's ``simulate_typos`` on chosen natural words (needs the extra).

    >>> typos("", type("R", (), {"seed": 0})(), **dict(_TYPO_DEFAULTS, mode="count",
    ...       typo_type="all")).reason
    'empty_input'
    """
    _check_typo_mode(params)
    fn = _behaviours().typos
    out = runtime.run_seeded(rng.seed, lambda: fn(text, **params))
    return _outcome(
        text, out, misspelling_sha256=runtime.MISSPELLING_SHA256, units_table="t01_brittlebench_units"
    )


def _word_manipulation(text: str, seed: int, kind: str) -> Outcome:
    import random

    fn = _behaviours().word_manipulation
    # The engine's constructor reseeds the global generator with 42 before the call's seed.
    out = runtime.run_seeded(seed, lambda: fn(text, kind), construct=lambda: random.seed(42))
    return _outcome(text, out)


@perturbation(
    "word_merge",
    category=CATEGORY,
    family="word_level",
    seed_sensitive=True,
    description="Engine WordManipulation(merge): augly merge_words on each line.",
)
def word_merge(text: str, rng) -> Outcome:
    """augly glues ~30% of each line's words to the next one (needs the extra)."""
    return _word_manipulation(text, rng.seed, "merge")


@perturbation(
    "word_split",
    category=CATEGORY,
    family="word_level",
    seed_sensitive=True,
    description="Engine WordManipulation(split): augly split_words on each line.",
)
def word_split(text: str, rng) -> Outcome:
    """augly cuts ~30% of each line's words in two (needs the extra)."""
    return _word_manipulation(text, rng.seed, "split")


# ---- padding -------------------------------------------------------------------------------


def _char_count() -> Param:
    return Param("char_count", int, 10, "padding characters on each side (before the space)", 0, 1000)


def _pad(text: str, char: str, char_count: int) -> Outcome:
    return _outcome(text, _behaviours().padding(text, char, char_count))


@perturbation(
    "quotes",
    category=CATEGORY,
    family="padding",
    params=[_char_count()],
    intensity="char_count",
    description='Engine Padding("\\""): char_count double quotes and a space on each side.',
    fix_at="input_normalisation",
)
def quotes(text: str, rng, *, char_count: int) -> Outcome:
    """The empty text is padded too.

    >>> quotes("", None, char_count=1).text
    '"  "'
    """
    return _pad(text, '"', char_count)


@perturbation(
    "spaces",
    category=CATEGORY,
    family="padding",
    params=[_char_count()],
    intensity="char_count",
    description='Engine Padding(" "): char_count spaces and a space on each side.',
    fix_at="input_normalisation",
)
def spaces(text: str, rng, *, char_count: int) -> Outcome:
    """``char_count`` 0 still adds the two single spaces.

    >>> spaces("Hi", None, char_count=0).text
    ' Hi '
    """
    return _pad(text, " ", char_count)


@perturbation(
    "new_lines",
    category=CATEGORY,
    family="padding",
    params=[_char_count()],
    intensity="char_count",
    description='Engine Padding("\\n"): char_count line feeds and a space on each side.',
    fix_at="input_normalisation",
)
def new_lines(text: str, rng, *, char_count: int) -> Outcome:
    """Always LF.

    >>> new_lines("Hi", None, char_count=1).text
    '\\n Hi \\n'
    """
    return _pad(text, "\n", char_count)


# ---- context -------------------------------------------------------------------------------


@perturbation(
    "emotion_prompt",
    category=CATEGORY,
    requires=(*TIER_NEEDS, "emotion_stimuli"),
    family="context",
    params=[choice("stimuli_code", "EP01", EMOTION_CODES, "EmotionPrompt/EmotionAttack code")],
    description="Engine EmotionPerturbation: a fixed stimulus sentence (user-supplied "
    "table) before or after the text.",
)
def emotion_prompt(text: str, rng, *, stimuli_code: str) -> Outcome:
    """Needs the stimulus table (``PERTURBER_BRITTLEBENCH_EMOTION_FILE`` or the installed engine)."""
    behaviours = _behaviours()
    table, _source = runtime.emotion_table()
    if stimuli_code not in table:
        raise runtime.tier_unavailable(f"the stimulus table has no code {stimuli_code!r}")
    kind, stimulus = table[stimuli_code]
    out = behaviours.emotion_prompt(text, kind, stimulus)
    return _outcome(text, out, stimulus_table_sha256=runtime.EMOTION_SHA256)
