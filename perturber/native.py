"""The optional C module ``perturber._native`` (faster twins of a few hot loops), or None.

A wheel or a source install with a C compiler builds it; without it every entry runs its pure-Python
path, with the same outputs (tests/test_native.py compares the two). ``c`` is read at each call, so
a test can set it to None to run the pure paths.

>>> c is None or callable(c.typo_starts)
True
"""

from __future__ import annotations

from types import ModuleType

c: ModuleType | None
try:
    from . import _native as c
except ImportError:  # pragma: no cover - an install without the compiled module
    c = None
