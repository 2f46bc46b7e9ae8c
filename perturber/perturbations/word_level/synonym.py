"""word_level: ``synonym`` (CATALOG.md §5.5), POS-aware WordNet synonyms from the offline bundle.

Needs the NLTK data tree built by ``infra/layers/nltk/build.sh`` (WordNet 3.0 + tagger); without
it the call raises ``ResourceUnavailable`` (``data_unavailable``) and never downloads.
"""

from __future__ import annotations

from functools import lru_cache

import regex

from ... import text as tm
from ...data import load_table
from ...registry import Outcome, perturbation, rate, unchanged
from ...resources import nltk_data
from ...rng import Draws, select

# Penn Treebank tag prefix -> WordNet POS; proper nouns (NNP*) and every other tag are skipped.
_COARSE = (("NNP", None), ("NN", "n"), ("VB", "v"), ("JJ", "a"), ("RB", "r"))
_ALPHA = regex.compile(r"[\p{L}\p{M}'’\-‐‑]+")
_LETTER = regex.compile(r"\p{L}")
_UNUSABLE_LEMMA = regex.compile(r"[A-Z0-9]")


def coarse_pos(tag: str) -> str | None:
    """``NN*``→n, ``VB*``→v, ``JJ*``→a, ``RB*``→r; ``NNP*`` and the rest → None.

    >>> coarse_pos("NNS"), coarse_pos("NNP"), coarse_pos("VBD"), coarse_pos("DT")
    ('n', None, 'v', None)
    """
    for prefix, pos in _COARSE:
        if tag.startswith(prefix):
            return pos
    return None


@lru_cache(maxsize=1)
def _excluded() -> frozenset:
    """Tables A6a and A6b: stop words and meaning-bearing words are never replaced."""
    words = set(load_table("a06a_stop_words")["words"])
    for group in load_table("a06b_never_dropped")["groups"]:
        words.update(group["words"])
    return frozenset(words)


@lru_cache(maxsize=65536)
def synonyms(word: str, pos: str) -> tuple[str, ...]:
    """Synonyms of a base-form ``word`` in its most frequent sense (first synset), in WordNet order.

    Empty when the word is not in base form for ``pos`` or has no usable lemma.
    """
    wn = nltk_data.wordnet()
    if wn.morphy(word, pos) != word:
        return ()
    found = wn.synsets(word, pos)
    if not found:
        return ()
    out: list[str] = []
    for name in found[0].lemma_names():
        lemma = name.replace("_", " ")
        if lemma == word or _UNUSABLE_LEMMA.search(lemma) or len(lemma.split(" ")) > 2:
            continue
        if lemma not in out:
            out.append(lemma)
    return tuple(out)


@lru_cache(maxsize=1)
def data_version() -> dict:
    """The data build and nltk version the outputs depend on (cite it with the results)."""
    return nltk_data.data_version()


@lru_cache(maxsize=1024)
def pos_tags(words: tuple[str, ...]) -> tuple[str, ...]:
    """Penn Treebank tags of a token sequence, tagged once as a whole (memoised: the tagger is
    deterministic and studies perturb the same text under many seeds and rates)."""
    return tuple(tag for _, tag in nltk_data.tagger().tag(list(words)))


@perturbation("synonym", version=2, family="word_level", seed_sensitive=True, params=[rate(0.3)],
              description="Replace a fraction of content words by a WordNet synonym of their "
                          "most frequent sense (POS-aware; needs the NLTK data bundle).")
def synonym(text: str, rng: Draws, *, rate: float) -> Outcome:
    """>>> synonym("The movie was long.", Draws(0), rate=1.0).text   # doctest: +SKIP
    'The film was long.'
    """
    tokens = tm.word_tokens(text)
    if not tokens:
        return unchanged(text, "no_candidates")
    tags = pos_tags(tuple(t.text for t in tokens))
    free = {(t.start, t.end) for t in tm.free_tokens(text, tokens)}
    excluded = _excluded()
    candidates = []
    details = {"data_version": dict(data_version())}
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
        options = synonyms(lower, pos)
        if options:
            candidates.append((token, options))
    if not candidates:
        return Outcome(text, 0, "no_candidates", details)
    chosen = select(candidates, rng, rate=rate)
    edits = [(tok.start, tok.end, tm.match_case(tok.text, rng.choice(options)))
             for tok, options in chosen]
    return Outcome(tm.splice(text, edits), len(edits), None, details)
