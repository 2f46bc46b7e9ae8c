"""word_level: ``synonym`` (docs/spec/catalog.md §5.5), POS-aware WordNet synonyms from the offline bundle.

Needs the NLTK data tree built by ``infra/layers/nltk/build.sh`` (WordNet 3.0 + tagger); without
it the call raises ``ResourceUnavailable`` (``data_unavailable``) and never downloads.
"""

from __future__ import annotations

import regex

from ... import text as tm
from ...data import load_table
from ...memo import loaded_once, per_text, per_word
from ...registry import Outcome, perturbation, rate, unchanged
from ...resources import nltk_data
from ...rng import Draws, select

# Penn Treebank tag prefix -> WordNet POS; proper nouns (NNP*) and every other tag are skipped.
_COARSE = (("NNP", None), ("NN", "n"), ("VB", "v"), ("JJ", "a"), ("RB", "r"))
_ALPHA = regex.compile(r"[\p{L}\p{M}'’\-‐‑]+")
_LETTER = regex.compile(r"\p{L}")
_ONE_WORD = regex.compile(r"\p{Ll}+")


def coarse_pos(tag: str) -> str | None:
    """``NN*``→n, ``VB*``→v, ``JJ*``→a, ``RB*``→r; ``NNP*`` and the rest → None.

    >>> coarse_pos("NNS"), coarse_pos("NNP"), coarse_pos("VBD"), coarse_pos("DT")
    ('n', None, 'v', None)
    """
    for prefix, pos in _COARSE:
        if tag.startswith(prefix):
            return pos
    return None


@loaded_once
def _excluded() -> frozenset:
    """Tables A6a and A6b: stop words and meaning-bearing words are never replaced."""
    words = set(load_table("a06a_stop_words")["words"])
    for group in load_table("a06b_never_dropped")["groups"]:
        words.update(group["words"])
    return frozenset(words)


@per_word
def synonyms(word: str, pos: str) -> tuple[str, ...]:
    """Synonyms of a base-form ``word`` in its most frequent sense, in WordNet order (version 2).

    The lemmas of the first synset ``S`` of ``synsets(word, pos)`` that are one lower-case word
    (not ``word``), whose own first sense is ``S`` (mutual first sense) and whose SemCor count in
    ``S`` is at least 1 (attested). Empty when ``word`` is not in base form or nothing survives.

    >>> synonyms("movie", "n"), synonyms("number", "n")   # doctest: +SKIP
    (('film',), ())
    """
    wn = nltk_data.wordnet()
    if wn.morphy(word, pos) != word:
        return ()
    found = wn.synsets(word, pos)
    if not found:
        return ()
    first = found[0]
    out: list[str] = []
    for lemma in first.lemmas():
        name = lemma.name()
        if name == word or name in out or not _ONE_WORD.fullmatch(name):
            continue
        senses = wn.synsets(name, pos)
        if not senses or senses[0] != first or lemma.count() < 1:
            continue
        out.append(name)
    return tuple(out)


@loaded_once
def data_version() -> dict:
    """The data build and nltk version the outputs depend on (cite it with the results)."""
    return nltk_data.data_version()


@per_text
def pos_tags(text: str) -> tuple[str, ...]:
    """Penn Treebank tags of the word tokens of ``text``, tagged once as a whole (memoised: the
    tagger is deterministic and studies perturb the same text under many seeds and rates)."""
    return tuple(tag for _, tag in nltk_data.tagger().tag([t.text for t in tm.word_tokens(text)]))


def find_candidates(text: str, lookup=None) -> list:
    """``(token, synonyms)`` for every candidate token of ``text`` (§5.5), in text order.

    ``lookup(word, pos)`` defaults to :func:`synonyms` (evaluation code passes other rules).
    """
    lookup = lookup or synonyms
    tokens = tm.word_tokens(text)
    tags = pos_tags(text)
    free = {(t.start, t.end) for t in tm.free_tokens(text, tokens)}
    excluded = _excluded()
    candidates = []
    for token, tag in zip(tokens, tags):
        word = token.text
        if (token.start, token.end) not in free or not _ALPHA.fullmatch(word):
            continue
        if len(_LETTER.findall(word)) < 4 or tm.case_class(word) not in ("lower", "title"):
            continue
        lower = word.lower()
        pos = coarse_pos(tag)
        if pos is None or lower in excluded:
            continue
        options = lookup(lower, pos)
        if options:
            candidates.append((token, options))
    return candidates


@perturbation(
    "synonym",
    family="word_level",
    seed_sensitive=True,
    requires=("nltk_data",),
    params=[rate(0.3)],
    version=3,
    description="Replace a fraction of content words by a WordNet synonym of their "
    "most frequent sense (POS-aware; needs the NLTK data bundle).",
    reasons=("no_candidates",),
)
def synonym(text: str, rng: Draws, *, rate: float) -> Outcome:
    """>>> synonym("The movie was long.", Draws(0), rate=1.0).text   # doctest: +SKIP
    'The film was long.'
    """
    if not tm.word_tokens(text):
        return unchanged(text, "no_candidates")
    # The data in use is part of the memo key: the tagger is loaded (or raises
    # ResourceUnavailable) before anything is reused, as when the tags are computed afresh.
    tagger = nltk_data.tagger()
    candidates = _candidates(text, tagger)
    details = {"data_version": dict(data_version())}
    if not candidates:
        return Outcome(text, 0, "no_candidates", details)
    chosen = select(candidates, rng, rate=rate)
    edits = [(tok.start, tok.end, tm.match_case(tok.text, rng.choice(options))) for tok, options in chosen]
    return Outcome(tm.splice(text, edits), len(edits), None, details)


@per_text
def _candidates(text: str, tagger: object) -> tuple[tuple[tm.Token, tuple[str, ...]], ...]:
    """:func:`find_candidates` memoised per text and loaded tagger: the per-text part of
    ``synonym`` (tokenising, tagging, WordNet look-ups)."""
    return tuple(find_candidates(text))
