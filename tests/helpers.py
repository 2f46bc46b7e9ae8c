"""Small test helpers shared by the family test files."""


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
