"""Small test helpers shared by the family test files."""

#: Entries whose golden outputs changed when JSON regions became protected spans (§1.8 kind 5,
#: catalog 1.1): version 2 (every other entry is still at version 1).
JSON_REGIONS_V2 = frozenset(
    {
        "drop_stop_words",
        "punctuation_spaces",
        "sequence_spaces",
        "synonym",
        "realistic_typos",
        "typos",
        "repeated_chars",
        "random_case",
        "upper_case",
        "lower_case",
        "title_case",
        "leetspeak",
        "disemvowel",
        "diacritics_add",
        "homoglyph",
        "zero_width",
        "bidi_override",
        "ocr_noise",
        "extra_whitespace",
        "tabs_for_spaces",
        "line_wrap",
        "scale_quantity",
    }
)


def expected_version(name: str) -> int:
    """The version an entry must declare."""
    return 2 if name in JSON_REGIONS_V2 else 1


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
