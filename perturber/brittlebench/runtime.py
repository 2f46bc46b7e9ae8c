"""The tier's call protocol (docs/spec/catalog.md §17.2): one process lock, seeded globals, state restored.

The engine draws from Python's module-level ``random`` (and so do augly and nlpaug), so a tier
call seeds the *global* generator. ``run_seeded`` saves the caller's global state, seeds, runs the
behaviour and restores the state even when the behaviour raises. The lock is held only by tier
calls: native entries use a private generator and never take it.

>>> import random
>>> random.seed(5); before = random.getstate()
>>> run_seeded(3, lambda: random.random()) == random.Random(3).random()
True
>>> random.getstate() == before
True
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import random
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from .. import settings
from ..errors import ResourceUnavailable

T = TypeVar("T")

ENGINE_COMMIT = "fc86103c275e3b6aab767003f7c46b98a815dcd7"
EXTRA = "brittlebench"
INSTALL_HINT = "pip install 'perturber[brittlebench]'"
# Exact versions the vectors were produced with (pyproject's `brittlebench` extra pins them).
PINS = {"augly": "1.0.0", "nlpaug": "1.1.3", "wordfreq": "3.1.1"}
MISSPELLING_SHA256 = "e2b38d5b410f23211067763f5fa39a9960c003ef7b6a80e341f52daa6dcb096c"
EMOTION_SHA256 = "36fc6462c9fa30388b344fdbcd6d12039102d82394c61a0b82c91d3b16f97d02"
EMOTION_ENV = "PERTURBER_BRITTLEBENCH_EMOTION_FILE"
STOPWORDS_FILE = "nltk_english_stopwords.txt"
STOPWORDS_SHA256 = "43e6ea0bd39a35f6b6a595a4935ac41a4d19e718961b89242a6a2a5928d239c9"

# Held only around tier calls (the documented exception of docs/spec/design.md); reentrant so that a
# behaviour may call a helper that also runs under it.
TIER_LOCK = threading.RLock()
_DEPS_LOCK = threading.Lock()
_DEPS: dict[str, Any] | None = None
_EMOTION_CACHE: dict[str, Any] = {}


def run_seeded(seed: int, behaviour: Callable[[], T], construct: Callable[[], None] | None = None) -> T:
    """Run ``behaviour()`` under the tier lock with the global generators seeded by ``seed``.

    ``construct`` is what building the engine object does before the seed is applied (§17.2
    step 2). Python's and numpy's global states are restored afterwards, also on error.
    """
    with TIER_LOCK:
        numpy = sys.modules.get("numpy")
        saved = random.getstate()
        saved_np = numpy.random.get_state() if numpy is not None else None
        try:
            if construct is not None:
                construct()
            random.seed(seed)
            if numpy is not None:
                numpy.random.seed(seed % 2**32)
            return behaviour()
        finally:
            random.setstate(saved)
            if numpy is not None:
                numpy.random.set_state(saved_np)


def tier_unavailable(message: str, **details: object) -> ResourceUnavailable:
    """A ``tier_unavailable`` error (HTTP 503, CLI exit 3)."""
    return ResourceUnavailable(message, code="tier_unavailable", extra=EXTRA, **details)


def extra_installed() -> bool:
    """True when the extra's libraries are importable (checked without importing them)."""
    return all(importlib.util.find_spec(m) is not None for m in ("augly", "nlpaug", "wordfreq"))


def available(name: str) -> bool:
    """Whether a tier entry can run here (checked without importing anything heavy): the extra
    is installed, and for ``emotion_prompt`` a stimulus table is configured or installed."""
    if name == "emotion_prompt" and not (settings.read(EMOTION_ENV) or _engine_stimulus_file()):
        return False
    return extra_installed()


def deps() -> dict[str, Any]:
    """The third-party functions the tier uses, imported on its first call.

    Raises ``tier_unavailable`` naming the extra when they are missing.
    """
    global _DEPS
    if _DEPS is not None:
        return _DEPS
    with _DEPS_LOCK:
        if _DEPS is None:
            saved = random.getstate()  # importing them draws from the global generator
            try:
                from augly.text import functional as augly_text
                from augly.text.augmenters import TypoAugmenter
                from augly.utils import MISSPELLING_DICTIONARY_PATH
                from wordfreq import word_frequency
            except ImportError as err:
                raise tier_unavailable(
                    f"the brittlebench tier needs the optional extra '{EXTRA}' ({INSTALL_HINT}); "
                    f"missing: {err.name or err}"
                ) from None
            finally:
                random.setstate(saved)
            with open(MISSPELLING_DICTIONARY_PATH, "rb") as fh:
                digest = hashlib.sha256(fh.read()).hexdigest()
            if digest != MISSPELLING_SHA256:
                raise tier_unavailable(
                    f"augly's misspelling table has sha256 {digest}, expected {MISSPELLING_SHA256}; "
                    f"install the pinned versions ({INSTALL_HINT})"
                )
            versions = {name: _version(name) for name in PINS}
            _DEPS = {
                "simulate_typos": augly_text.simulate_typos,
                "merge_words": augly_text.merge_words,
                "split_words": augly_text.split_words,
                "TypoAugmenter": TypoAugmenter,
                "misspelling_path": MISSPELLING_DICTIONARY_PATH,
                "word_frequency": word_frequency,
                "versions": versions,
            }
    return _DEPS


def _version(dist: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:  # pragma: no cover - importable but not installed
        return None


def stopwords() -> tuple[str, ...]:
    """The 198-entry NLTK English stop-word list (sha256-checked); its first 179 = nltk-2023."""
    from importlib import resources

    raw = resources.files(__package__).joinpath(STOPWORDS_FILE).read_bytes()
    if hashlib.sha256(raw).hexdigest() != STOPWORDS_SHA256:  # pragma: no cover - packaging defect
        raise tier_unavailable(f"{STOPWORDS_FILE} does not match its pinned sha256")
    return tuple(raw.decode("utf-8").splitlines())


def _engine_stimulus_file() -> str | None:
    spec = importlib.util.find_spec("brittlebench")
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        path = os.path.join(root, "perturbations", "resources", "emotion_prompts.json")
        if os.path.isfile(path):
            return path
    return None


def emotion_table() -> tuple[dict[str, tuple[str, str]], str]:
    """``({code: (type, text)}, source)`` from the user file or the installed engine.

    The file's sha256 must be the pinned one; the table is never shipped with perturber.
    """
    import json

    path = str(settings.read(EMOTION_ENV)) or _engine_stimulus_file()
    how = (
        f"set {EMOTION_ENV} to a copy of the engine's "
        f"brittlebench/perturbations/resources/emotion_prompts.json (commit {ENGINE_COMMIT}, "
        f"sha256 {EMOTION_SHA256}) or install the brittlebench engine"
    )
    if not path:
        raise tier_unavailable(
            f"emotion_prompt needs the engine's stimulus table (CC BY-NC, not shipped with perturber): {how}"
        )
    try:
        stat = os.stat(path)
        key = (path, stat.st_mtime_ns, stat.st_size)
        if _EMOTION_CACHE.get("key") == key:
            return _EMOTION_CACHE["table"], path
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as err:
        raise tier_unavailable(
            f"cannot read the stimulus table {path!r} ({err.strerror}): {how}", path=path
        ) from None
    digest = hashlib.sha256(raw).hexdigest()
    if digest != EMOTION_SHA256:
        raise tier_unavailable(
            f"the stimulus table {path!r} has sha256 {digest}, expected {EMOTION_SHA256}: {how}",
            path=path,
            sha256=digest,
            expected_sha256=EMOTION_SHA256,
        )
    data = json.loads(raw)
    table = {code: (entry["type"], entry["text"]) for code, entry in data.items()}
    _EMOTION_CACHE.update(key=key, table=table)
    return table, path


def data_version(**extra: object) -> dict:
    """What the outputs depend on: engine commit, library versions, tables (``details``)."""
    out: dict[str, object] = {"engine_commit": ENGINE_COMMIT}
    out.update(extra)
    return out
