"""``python -m perturber.data``: rewrite SHA256SUMS after a deliberate table change."""

from . import write_sums

if __name__ == "__main__":
    print(f"wrote {write_sums()}")
