"""Data resources the perturbations load lazily (never downloaded at run time)."""
