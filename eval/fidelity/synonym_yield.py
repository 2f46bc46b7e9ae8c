"""``synonym``'s candidate yield on the corpus: candidate words per 1,000 word tokens under
version 1's rule (any lemma of the first synset) and version 2's (the catalog's current rule)."""

from __future__ import annotations

import perturber


def synonym_yield(corpus) -> dict | None:
    """Candidate words per 1,000 word tokens on the corpus: synonym v1's rule vs v2's."""
    try:
        from perturber import text as tm
        from perturber.perturbations.word_level import synonym as syn
        from perturber.resources import nltk_data

        nltk_data.wordnet()
    except perturber.PerturberError as exc:
        return {"note": f"not measured: {exc}"}

    def v1(word: str, pos: str) -> tuple[str, ...]:
        """Version 1's rule: any lemma of the first synset, up to two words, no digits/capitals."""
        wn = nltk_data.wordnet()
        if wn.morphy(word, pos) != word or not wn.synsets(word, pos):
            return ()
        out = []
        for name in wn.synsets(word, pos)[0].lemma_names():
            lemma = name.replace("_", " ")
            if (
                lemma != word
                and not any(c.isupper() or c.isdigit() for c in lemma)
                and len(lemma.split(" ")) <= 2
                and lemma not in out
            ):
                out.append(lemma)
        return tuple(out)

    tokens = sum(len(tm.word_tokens(item["text"])) for item in corpus)
    count_v1 = sum(len(syn.find_candidates(item["text"], v1)) for item in corpus)
    count_v2 = sum(len(syn.find_candidates(item["text"])) for item in corpus)
    return {
        "tokens": tokens,
        "v1_candidates": count_v1,
        "v2_candidates": count_v2,
        "v1_per_1000": round(1000 * count_v1 / tokens, 1),
        "v2_per_1000": round(1000 * count_v2 / tokens, 1),
    }
