"""Small test helpers shared by the family test files."""


class NoDraws:
    """An rng stand-in that fails on any draw (seed-insensitive entries make none)."""

    def __getattr__(self, name):
        raise AssertionError(f"unexpected draw: rng.{name}")
