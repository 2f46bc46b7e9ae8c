"""synonym (CATALOG.md §5.5): WordNet 3.0 from the offline bundle, POS-aware, reproducible."""

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


needs_data = pytest.mark.skipif(not has_data(), reason="NLTK data missing: run "
                                "`bash infra/layers/nltk/build.sh build --with-tagger` (CI does)")


@needs_data
def test_catalog_example_replaces_movie_with_a_first_sense_synonym():
    outputs = {perturber.perturb("The movie was long.", "synonym", {"rate": 1.0}, s) for s in range(12)}
    assert "The film was long." in outputs
    assert all(o.endswith(" was long.") and o.startswith("The ") for o in outputs)
    assert outputs <= {"The film was long.", "The picture was long.", "The moving picture was long.",
                       "The moving-picture show was long.", "The motion picture was long.",
                       "The motion-picture show was long.", "The picture show was long.",
                       "The pic was long.", "The flick was long."}


@needs_data
def test_details_report_the_data_version():
    r = perturber.apply("The movie was long.", "synonym", {"rate": 1.0})
    version = r.details["data_version"]
    assert version == nltk_data.data_version()
    assert len(version["content_sha256"]) == 64 and version["nltk_version"]


@needs_data
def test_synonyms_follow_the_catalog_rule():
    assert syn.synonyms("movie", "n")[0] == "film"
    assert "movie" not in syn.synonyms("movie", "n")
    assert syn.synonyms("movies", "n") == ()          # not in base form
    for word, pos in (("happy", "a"), ("quickly", "r"), ("buy", "v"), ("house", "n")):
        for lemma in syn.synonyms(word, pos):
            assert lemma != word and len(lemma.split(" ")) <= 2
            assert not any(c.isupper() or c.isdigit() for c in lemma)


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
    syn.synonyms.cache_clear()
    syn.pos_tags.cache_clear()
    assert perturber.perturb("The movie was long.", "synonym", {"rate": 1.0}, 2)


def test_empty_input_needs_no_data(monkeypatch):
    monkeypatch.setattr(nltk_data, "find_nltk_data",
                        lambda: pytest.fail("data looked up for empty input"))
    r = perturber.apply("", "synonym")
    assert (r.applied, r.reason) == (False, "empty_input")


def test_missing_data_is_data_unavailable(monkeypatch, tmp_path):
    monkeypatch.setenv("NLTK_DATA", str(tmp_path))
    monkeypatch.setattr(nltk_data, "LAMBDA_DIR", tmp_path / "none")
    monkeypatch.setattr(nltk_data, "REPO_BUILD_DIR", tmp_path / "none")
    monkeypatch.setattr(nltk_data, "_wordnet", None)
    monkeypatch.setattr(nltk_data, "_tagger", None)
    syn.synonyms.cache_clear()
    syn.pos_tags.cache_clear()
    with pytest.raises(perturber.ResourceUnavailable) as err:
        perturber.apply("The movie was long.", "synonym")
    assert err.value.code == "data_unavailable" and "build.sh" in err.value.message
    syn.synonyms.cache_clear()
    syn.pos_tags.cache_clear()
