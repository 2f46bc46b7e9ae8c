"""The ten engine behaviours (docs/spec/catalog.md §17.4), written for perturber.

Each function takes the text and the engine's parameters and draws from Python's module-level
``random`` exactly as the engine does; callers run them through ``runtime.run_seeded``. augly,
nlpaug and wordfreq are used, not re-derived (they are imported by ``runtime.deps()``).

>>> punctuation_spaces("Wait... What?!")
'Wait . . . What ? !'
>>> padding("Hi", '"', 2)
'"" Hi ""'
"""

from __future__ import annotations

import random
import re
import string
from functools import cache, lru_cache

from ..data import load_table
from . import runtime

_WHITESPACE_RUNS = re.compile(r"(\s+)")
_PUNCT = re.escape(string.punctuation)
_BEFORE_PUNCT = re.compile(r"(\S)([" + _PUNCT + r"])")
_AFTER_PUNCT = re.compile(r"([" + _PUNCT + r"])(\S)")
_WORD_EDGES = ".,!?;:\"'()-[]{}"
_SPACE_RUNS = re.compile(r"\s+")

# 43 words kept out of the NLTK stop list (§17.4 drop_stop_words).
PROTECTED = frozenset(
    "what which who when where why how "
    "not no nor don't doesn't didn't haven't aren't isn't hasn't "
    "all each every few least less many more most some exactly per "
    "if then before after at between during in into on over under without y".split()
)
STOPLIST_SIZES = {"nltk-2025": 198, "nltk-2023": 179}


def sequence_spaces(text: str, prob: float, min_spaces: int, max_spaces: int) -> str:
    """After each code point, with probability ``prob``, 1 draw of ``randint(min, max)`` spaces."""
    out = []
    for char in text:
        out.append(char)
        if random.random() < prob:
            out.append(" " * random.randint(min_spaces, max_spaces))
    return "".join(out)


def punctuation_spaces(text: str) -> str:
    """Two non-overlapping passes: a space before, then after, each ASCII punctuation mark."""
    return _AFTER_PUNCT.sub(r"\1 \2", _BEFORE_PUNCT.sub(r"\1 \2", text))


@cache
def stop_set(stopword_list: str) -> frozenset:
    """The NLTK English list (``nltk-2025`` or ``nltk-2023``) minus the 43 protected words."""
    words = runtime.stopwords()[: STOPLIST_SIZES[stopword_list]]
    return frozenset(words) - PROTECTED


def drop_stop_words(text: str, stopword_list: str) -> str:
    """Drop whitespace tokens whose lower-cased form is a stop word; rejoin with single spaces."""
    stops = stop_set(stopword_list)
    kept = " ".join(word for word in text.split() if word.lower() not in stops)
    return _SPACE_RUNS.sub(" ", kept).strip()


@lru_cache(maxsize=1)
def units() -> frozenset:
    """perturber's own measurement-unit list (``perturber/data/t01_brittlebench_units.json``)."""
    table = load_table("t01_brittlebench_units")
    return frozenset(u for group in table["groups"] for u in group["units"])


def is_natural_word(token: str, min_word_frequency: float, language: str = "en") -> bool:
    """The typo filter: alphabetic, not a unit, lower or title case, known to wordfreq."""
    clean = token.strip(_WORD_EDGES)
    if not clean or not clean.isalpha():
        return False
    unit_list = units()
    if clean in unit_list or clean.lower() in unit_list:
        return False
    if not (clean.islower() or clean.istitle()):
        return False
    return runtime.deps()["word_frequency"](clean, language) > min_word_frequency


def typos(
    text: str,
    *,
    mode: str,
    typo_type: str,
    aug_word_p: float,
    aug_char_p: float,
    aug_word_min: int,
    aug_word_max: int,
    min_word_frequency: float,
    typos_count: int,
    language: str,
) -> str:
    """Typos in natural words only, via augly's ``simulate_typos`` one token at a time."""
    if mode == "count" and not text:
        return text
    tokens = _WHITESPACE_RUNS.split(text)
    natural = [
        i
        for i, tok in enumerate(tokens)
        if tok and tok.strip() and is_natural_word(tok, min_word_frequency, language)
    ]
    if not natural:
        return text
    n = len(natural)
    chosen: list[int] | set[int]
    if mode == "count":
        chosen = random.sample(natural, min(typos_count, n))
        char_p = 1.0
    else:
        k = max(round(n * aug_word_p), min(aug_word_min, n))
        k = min(k, aug_word_max, n)
        # The engine iterates a set of ints: CPython's set order fixes the order of later draws.
        chosen = set(random.sample(natural, k))
        char_p = aug_char_p
    augmenter = typo_augmenter(typo_type, char_p)
    for i in chosen:
        tokens[i] = augmenter.augment([tokens[i]], 1)[0]
    return "".join(tokens)


@lru_cache(maxsize=32)
def typo_augmenter(typo_type: str, aug_char_p: float):
    """The augmenter augly's ``simulate_typos([token], typo_type=..., aug_word_p=1.0,
    aug_char_p=..., aug_word_min=1, aug_word_max=1)`` builds (its other defaults: ``min_char``
    2, char min/max 1, ``max_typo_length`` 1, the bundled misspelling table), built once:
    building it reads the table, and it draws nothing. ``augment([token], 1)`` is the call
    ``simulate_typos`` makes (tests/test_brittlebench.py checks both give the same text).
    """
    dep = runtime.deps()
    return dep["TypoAugmenter"](
        min_char=2,
        aug_char_min=1,
        aug_char_max=1,
        aug_char_p=aug_char_p,
        aug_word_min=1,
        aug_word_max=1,
        aug_word_p=1.0,
        typo_type=typo_type,
        misspelling_dict_path=dep["misspelling_path"],
        max_typo_length=1,
        priority_words=None,
    )


def word_manipulation(text: str, kind: str) -> str:
    """augly's ``merge_words`` or ``split_words`` on each line of ``str.splitlines()``."""
    fn = runtime.deps()["merge_words" if kind == "merge" else "split_words"]
    return "\n".join(fn(line) for line in text.splitlines())


def padding(text: str, char: str, char_count: int) -> str:
    """``pad + " " + text + " " + pad`` (the empty text is padded too)."""
    pad = char * char_count
    return pad + " " + text + " " + pad


def emotion_prompt(text: str, stimulus_type: str, stimulus: str) -> str:
    """A suffix stimulus goes after the text, a prefix one before, joined by a line feed."""
    if stimulus_type == "suffix":
        return text + "\n" + stimulus
    return stimulus + "\n" + text
