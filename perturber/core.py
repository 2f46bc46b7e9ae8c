"""The primitive: apply exactly one named perturbation to a text.

>>> perturb("Hi there", "quotes", {"n": 1})
'" Hi there "'
>>> r = apply("Hi", "spaces", {"n": 2})
>>> (r.text, r.applied, r.edits, r.reason)
('   Hi   ', True, 1, None)
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import wraps
from typing import Any

from . import registry
from .errors import InputTooLarge, InvalidParams, PerturberError
from .memo import per_text
from .rng import Draws
from .settings import Limits, default_limits

MAX_SEED = 2**63 - 1
# The declared entries by (category, name), read directly on the hot path; ``registry.get``
# loads the catalog on first use and raises for unknown names.
_ENTRIES = registry.declared()


@dataclass
class Result:
    """The call result of docs/spec/catalog.md §1.2 (the same fields over every transport)."""

    text: str
    applied: bool
    reason: str | None
    edits: int
    magnitude: float | None
    name: str
    category: str
    family: str
    version: int
    in_scope: bool
    expectation: str
    kind: str
    seed: int
    params: dict
    details: dict = field(default_factory=dict)
    model: dict | None = None

    def to_dict(self) -> dict:
        """JSON-safe dict; ``model`` only for model-backed entries."""
        out = {k: getattr(self, k) for k in _RESULT_FIELDS}
        if self.model is not None:
            out["model"] = self.model
        return out

    def outcome(self) -> dict:
        """What happened to this text (the per-text part of an HTTP response); ``model`` only
        for model-backed entries.

        >>> sorted(apply("Hi", "quotes", {"n": 1}).outcome())
        ['applied', 'details', 'edits', 'magnitude', 'reason', 'text']
        """
        out = {k: getattr(self, k) for k in _OUTCOME_FIELDS}
        if self.model is not None:
            out["model"] = self.model
        return out


_OUTCOME_FIELDS = ("text", "applied", "reason", "edits", "magnitude", "details")
_RESULT_FIELDS = (
    "text",
    "applied",
    "reason",
    "edits",
    "magnitude",
    "name",
    "category",
    "family",
    "version",
    "in_scope",
    "expectation",
    "kind",
    "seed",
    "params",
    "details",
)


def check_seed(seed: Any) -> int:
    """A seed is an int in [0, 2**63 - 1]; bool, float, negative and None are rejected."""
    if type(seed) is not int:
        raise InvalidParams(
            f"seed must be an int in [0, {MAX_SEED}], got {type(seed).__name__}",
            field="seed",
            allowed=f"int in [0, {MAX_SEED}]",
        )
    if not 0 <= seed <= MAX_SEED:
        raise InvalidParams(
            f"seed must be in [0, {MAX_SEED}], got {seed}", field="seed", allowed=f"int in [0, {MAX_SEED}]"
        )
    return seed


def check_text(text: Any, limits: Limits | None = None) -> str:
    """A text is a ``str`` without lone surrogates, at most ``max_text_chars`` code points
    (of ``limits``, default ``default_limits()``)."""
    if type(text) is not str:
        raise InvalidParams(f"text must be a string, got {type(text).__name__}", field="text")
    limit = (limits or default_limits()).max_text_chars
    if len(text) > limit:
        raise InputTooLarge(
            f"text has {len(text)} characters; the limit is {limit}", field="text", limit=limit
        )
    global _last_clean
    if not text.isascii() and text != _last_clean:
        try:
            text.encode("utf-8")  # a C-level pass that fails only on a lone surrogate
        except UnicodeEncodeError as error:
            raise InvalidParams(
                f"text contains a lone surrogate U+{ord(text[error.start]):04X} at offset {error.start}",
                field="text",
            ) from None
        _last_clean = text
    return text


# The last non-ASCII text found free of lone surrogates: a study checks each text once, not once
# per entry and seed (a one-text memo; comparing equal strings is a memcmp, a fraction of a pass).
_last_clean = ""


def _run(spec: registry.Perturbation, text: str, params: dict, seed: int) -> registry.Outcome:
    if spec.skip_empty and text == "":
        return registry.unchanged(text, "empty_input")
    if spec.skip_zero_intensity and spec.at_zero_intensity(params):
        return registry.unchanged(text, "zero_intensity")
    if spec.memoise_outcome:
        memo = _OUTCOME_MEMOS.get(spec.function) or outcome_memo(spec)
        return memo(text, tuple(params.values())) if params else memo(text)
    rng = Draws(seed) if spec.draws else None
    if not params:  # a call without ``**{}`` is measurably cheaper (parameterless entries)
        return spec.function(text, rng)
    return spec.function(text, rng, **params)


# The per-text memo of each entry declared ``memoise_outcome``, by its function; made on first use.
_OUTCOME_MEMOS: dict[Callable, Callable[..., registry.Outcome]] = {}
_OUTCOME_MEMOS_LOCK = threading.Lock()


def outcome_memo(spec: registry.Perturbation) -> Callable[..., registry.Outcome]:
    """The memo of a seedless entry's outcomes, by text (and the values of its params, in
    declaration order), named after the entry's function in ``memo_usage()``.

    >>> outcome_memo(registry.get("title_case")).memo.name
    'perturber.perturbations.character.title_case'
    """
    with _OUTCOME_MEMOS_LOCK:
        memo = _OUTCOME_MEMOS.get(spec.function)
        if memo is None:
            function, names = spec.function, tuple(spec.defaults)
            if names:

                def outcome(text: str, values: tuple) -> registry.Outcome:
                    return function(text, None, **dict(zip(names, values)))

            else:

                def outcome(text: str) -> registry.Outcome:  # type: ignore[misc]
                    return function(text, None)

            memo = _OUTCOME_MEMOS[spec.function] = per_text(wraps(function)(outcome))
        return memo


def perturb(
    text: str,
    name: str,
    params: Mapping[str, Any] | None = None,
    seed: int = 0,
    category: str = "native",
    *,
    limits: Limits | None = None,
) -> str:
    """Apply one perturbation and return the perturbed text (``limits``: see ``apply``)."""
    spec = _ENTRIES.get((category, name)) or registry.get(name, category)
    resolved = spec.resolve(params) if params or spec.configured else spec.defaults
    # The common case passes these inline guards; anything else gets the full checks (and their
    # errors). A hot loop of a study calls this function millions of times.
    if type(seed) is not int or not 0 <= seed <= MAX_SEED:
        check_seed(seed)
    if (
        type(text) is not str
        or len(text) > (limits or default_limits()).max_text_chars
        or not (text.isascii() or text == _last_clean)
    ):
        check_text(text, limits)
    return _run(spec, text, resolved, seed).text


def _sequence_matcher():
    """``cydifflib.SequenceMatcher`` (a compiled port of difflib's algorithm, with the same
    results: tests/test_core.py checks it) when installed, else ``difflib.SequenceMatcher``."""
    global _SequenceMatcher
    if _SequenceMatcher is None:
        try:
            from cydifflib import SequenceMatcher
        except ImportError:  # pragma: no cover - the pure-Python original
            SequenceMatcher = difflib.SequenceMatcher
        _SequenceMatcher = SequenceMatcher
    return _SequenceMatcher


_SequenceMatcher = None


def magnitude(original: str, perturbed: str, limits: Limits | None = None) -> float | None:
    """``1 - difflib.SequenceMatcher(None, a, b).ratio()``, or None above the cost guard (§1.13).

    >>> magnitude("abcd", "abxd")
    0.25
    """
    if original == perturbed:
        return 0.0
    if len(original) + len(perturbed) > (limits or default_limits()).magnitude_max_chars:
        return None
    return 1.0 - _sequence_matcher()(None, original, perturbed).ratio()


def apply(
    text: str,
    name: str,
    params: Mapping[str, Any] | None = None,
    seed: int = 0,
    category: str = "native",
    *,
    limits: Limits | None = None,
) -> Result:
    """Apply one perturbation and return the full ``Result`` (docs/spec/catalog.md §1.2).

    ``limits`` (a ``perturber.Limits``) overrides the process defaults for this call only.

    >>> apply("Hello", "spaces", {"n": 1}, limits=Limits(magnitude_max_chars=0)).magnitude is None
    True
    """
    limits = limits or default_limits()
    spec = registry.get(name, category)
    resolved = spec.resolve(params)
    check_seed(seed)
    return _result(spec, text, resolved, seed, _run(spec, check_text(text, limits), resolved, seed), limits)


def apply_many(
    texts: list[str],
    name: str,
    params: Mapping[str, Any] | None = None,
    seed: int = 0,
    category: str = "native",
    on_done=None,
    *,
    limits: Limits | None = None,
) -> list[Result]:
    """``apply`` to every text (all validated first). Model-backed entries send their requests
    concurrently (at most ``PERTURBER_LLM_CONCURRENCY`` in flight); the first failing text (in
    order) raises its error, with ``index`` in its details (``limits``: see ``apply``).

    >>> [r.text for r in apply_many(["a", "b"], "quotes", {"n": 1})]
    ['" a "', '" b "']
    """
    spec = registry.get(name, category)
    resolved = spec.resolve(params)
    check_seed(seed)
    for i, text in enumerate(texts):
        try:
            check_text(text, limits)
        except PerturberError as err:
            raise _at(err, i) from None
    if spec.model_backed:
        from .model_tier import TASKS, run_many

        outcomes = run_many(TASKS[spec.name], texts, resolved, seed, on_done=on_done)
    else:
        outcomes = [_run(spec, text, resolved, seed) for text in texts]
    results = []
    for i, (text, outcome) in enumerate(zip(texts, outcomes)):
        if isinstance(outcome, PerturberError):
            raise _at(outcome, i)
        results.append(_result(spec, text, resolved, seed, outcome, limits))
    return results


def _at(err: PerturberError, index: int) -> PerturberError:
    err.message = f"texts[{index}]: {err.message}"
    err.details["index"] = index
    err.args = (err.message,)
    return err


def _result(
    spec: registry.Perturbation,
    text: str,
    resolved: dict,
    seed: int,
    outcome: registry.Outcome,
    limits: Limits | None,
) -> Result:
    applied = outcome.text != text
    details = dict(outcome.details) if outcome.details else {}
    mag = magnitude(text, outcome.text, limits)
    if mag is None:
        details["magnitude_skipped"] = True
    return Result(
        text=outcome.text,
        applied=applied,
        reason=None if applied else (outcome.reason or "no_change"),
        edits=outcome.edits if applied else 0,
        magnitude=mag,
        name=spec.name,
        category=spec.category,
        family=spec.family,
        version=spec.version,
        in_scope=spec.in_scope,
        expectation=spec.expectation,
        kind=spec.kind,
        seed=seed,
        params=dict(resolved),
        details=details,
        model=outcome.model,
    )


def list_perturbations(
    *,
    category: str | None = None,
    family: str | None = None,
    in_scope: bool | None = None,
    expectation: str | None = None,
    model_backed: bool | None = None,
    seed_sensitive: bool | None = None,
) -> list[dict]:
    """Catalog entries matching every given filter, in catalog order.

    >>> [e["name"] for e in list_perturbations(family="padding")][:2]
    ['quotes', 'spaces']
    """
    wanted = {
        "category": category,
        "family": family,
        "in_scope": in_scope,
        "expectation": expectation,
        "model_backed": model_backed,
        "seed_sensitive": seed_sensitive,
    }
    wanted = {k: v for k, v in wanted.items() if v is not None}
    return [
        spec.info() for spec in registry.entries() if all(getattr(spec, k) == v for k, v in wanted.items())
    ]


def describe(name: str, category: str = "native") -> dict:
    """The catalog entry of one perturbation (fields of §1.1 and its parameter schema)."""
    return registry.get(name, category).info()
