"""Small test helpers shared by the family test files."""

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
