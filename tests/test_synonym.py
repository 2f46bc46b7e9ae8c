"""synonym (docs/spec/catalog.md §5.5): WordNet 3.0 from the offline bundle, POS-aware, reproducible."""

import socket

import pytest

import perturber
from perturber.perturbations.word_level import synonym as syn
from perturber.resources import nltk_data


def has_data():
    try:
        nltk_data.find_nltk_data()
        return True
    except perturber.ResourceUnavailable:
        return False


needs_data = pytest.mark.skipif(
    not has_data(),
    reason="NLTK data missing: run `bash infra/layers/nltk/build.sh build --with-tagger` (CI does)",
)


@needs_data
def test_catalog_example_replaces_movie_with_a_first_sense_synonym():
    outputs = {perturber.perturb("The movie was long.", "synonym", {"rate": 1.0}, s) for s in range(12)}
    # v2: of movie.n.01's lemmas only `film` is one word, mutually first-sense and attested
    assert outputs == {"The film was long."}


@needs_data
@pytest.mark.parametrize(
    "text, banned",
    [
        ("What is the capital of France?", "working capital"),
        ("Please call 0049 30 1234567 for the office.", "telephone"),
        ("Call 0049 30 1234567 tomorrow.", "telephone"),
        ("Pick a number between one and ten.", "figure"),
        ('Reply with a string, not an integer: {"type": "string"}', "twine"),
    ],
)
def test_catalog_v1_meaning_changes_are_gone(text, banned):
    for seed in range(10):
        assert banned not in perturber.perturb(text, "synonym", {"rate": 1.0}, seed)


@needs_data
def test_capital_and_number_have_no_v2_synonym():
    assert syn.synonyms("capital", "n") == ()  # v1: `working capital`, `capital` (two-word)
    assert syn.synonyms("number", "n") == ()  # v1: `figure` (figure's first sense differs)
    assert syn.synonyms("string", "n") == ()  # v1: `twine`
    assert syn.synonyms("call", "n") == ()  # v1: `phone call`, `telephone call`
    text = "What is the capital of France?"
    r = perturber.apply(text, "synonym", {"rate": 1.0})
    assert (r.text, r.reason) == (text, "no_candidates")


@needs_data
def test_v2_filters_each_reject_what_the_catalog_says():
    wn = nltk_data.wordnet()
    movie = wn.synsets("movie", "n")[0]
    lemmas = {lem.name(): lem for lem in movie.lemmas()}
    # one word: `motion_picture` is mutual and attested (count 9) but two words
    assert lemmas["motion_picture"].count() >= 1 and wn.synsets("motion_picture", "n")[0] == movie
    # mutual first sense: `picture` is attested in movie.n.01 but its first sense is another
    assert lemmas["picture"].count() >= 1 and wn.synsets("picture", "n")[0] != movie
    # attested: `pic` is one word with movie.n.01 as its first sense, but no SemCor count
    assert lemmas["pic"].count() == 0 and wn.synsets("pic", "n")[0] == movie
    assert syn.synonyms("movie", "n") == ("film",)
    assert syn.synonyms("buy", "v") == ("purchase",)
    assert syn.synonyms("quickly", "r") == ("rapidly", "speedily")


@needs_data
def test_details_report_the_data_version():
    r = perturber.apply("The movie was long.", "synonym", {"rate": 1.0})
    version = r.details["data_version"]
    assert version == nltk_data.data_version()
    assert len(version["content_sha256"]) == 64 and version["nltk_version"]


@needs_data
def test_synonyms_follow_the_catalog_rule():
    wn = nltk_data.wordnet()
    assert syn.synonyms("movies", "n") == ()  # not in base form
    for word, pos in (
        ("movie", "n"),
        ("happy", "a"),
        ("quickly", "r"),
        ("buy", "v"),
        ("answer", "n"),
        ("begin", "v"),
        ("large", "a"),
        ("house", "n"),
    ):
        first = wn.synsets(word, pos)[0]
        for lemma in syn.synonyms(word, pos):
            assert lemma != word and lemma.isalpha() and lemma.islower()
            assert wn.synsets(lemma, pos)[0] == first
            assert next(lem for lem in first.lemmas() if lem.name() == lemma).count() >= 1


@needs_data
def test_synonym_must_not_replace_inflected_forms():
    r = perturber.apply("The movies were longer.", "synonym", {"rate": 1.0})
    assert "movies" in r.text and "longer" in r.text


@needs_data
def test_synonym_must_not_replace_proper_nouns_stop_words_or_short_words():
    text = "Paris and London are big. It is so."
    assert perturber.apply(text, "synonym", {"rate": 1.0}).text == text


@needs_data
def test_synonym_keeps_leading_case_and_whitespace():
    for seed in range(6):
        out = perturber.perturb("Movie\tnights  are\nfun.", "synonym", {"rate": 1.0}, seed)
        assert out[0].isupper() and "\t" in out and "  are\n" in out


@needs_data
def test_synonym_leaves_protected_spans():
    text = "See https://example.com/movie and `movie` please."
    for seed in range(4):
        out = perturber.perturb(text, "synonym", {"rate": 1.0}, seed)
        assert " https://example.com/movie and `movie` please." in out


@needs_data
def test_synonym_must_not_download_or_touch_the_network(monkeypatch):
    import nltk

    def refuse(*args, **kwargs):
        raise AssertionError("network or download attempted")

    monkeypatch.setattr(nltk, "download", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    perturber.clear_caches()
    assert perturber.perturb("The movie was long.", "synonym", {"rate": 1.0}, 2)


def test_empty_input_needs_no_data(monkeypatch):
    monkeypatch.setattr(nltk_data, "find_nltk_data", lambda: pytest.fail("data looked up for empty input"))
    r = perturber.apply("", "synonym")
    assert (r.applied, r.reason) == (False, "empty_input")


def test_missing_data_is_data_unavailable(monkeypatch, tmp_path):
    monkeypatch.setenv("NLTK_DATA", str(tmp_path))
    monkeypatch.setattr(nltk_data, "LAMBDA_DIR", tmp_path / "none")
    monkeypatch.setattr(nltk_data, "REPO_BUILD_DIR", tmp_path / "none")
    monkeypatch.setattr(nltk_data, "_wordnet", None)
    monkeypatch.setattr(nltk_data, "_tagger", None)
    perturber.clear_caches()
    with pytest.raises(perturber.ResourceUnavailable) as err:
        perturber.apply("The movie was long.", "synonym")
    assert err.value.code == "data_unavailable" and "build.sh" in err.value.message
    perturber.clear_caches()


@needs_data
def test_semcor_counts_match_nltks_own_lookup():
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    wn = nltk_data.wordnet()
    lemmas = [
        lem
        for w in ("dog", "movie", "number", "call", "run", "good", "quickly", "buy")
        for s in wn.synsets(w)
        for lem in s.lemmas()
    ]
    counts = [lem.count() for lem in lemmas]
    assert counts == [WordNetCorpusReader.lemma_count(wn, lem) for lem in lemmas]  # upstream seeks
    assert sum(c > 0 for c in counts) > 20 and wn.lemma("dog.n.01.dog").count() == 42
