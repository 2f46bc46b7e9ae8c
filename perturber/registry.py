"""The one registry: every perturbation is declared once, here, through ``@perturbation``.

A declaration gives the entry's catalog fields and its typed, bounded parameters. The library's
validation, the CLI flags, the HTTP routes and the catalog digest are all derived from it.

>>> spec = get("quotes")
>>> spec.family, spec.resolve({"n": 3}), spec.defaults
('padding', {'n': 3}, {'n': 5})
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import json
import math
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

from .errors import InvalidParams, UnknownPerturbation

CATEGORIES = ("native", "brittlebench")
FAMILIES = (
    "control",
    "word_level",
    "character",
    "formatting",
    "schema",
    "normalization",
    "padding",
    "context",
    "paraphrasing",
    "reasoning",
    "adversarial",
    "structure",
    "directional",
)
EXPECTATIONS = ("invariant", "directional", "refusal")
#: The reason codes of docs/spec/catalog.md §1.2 in precedence order: why an entry left a text
#: unchanged. ``control``, ``empty_input``, ``zero_intensity``, ``no_change`` and
#: ``model_returned_input`` follow from the declaration; an entry declares the others it reports.
REASONS = {
    "control": "the control entry never changes its input",
    "empty_input": "the input is the empty string",
    "not_json_schema": "the input is not a JSON object",
    "structured_input": "the entry leaves structured input (JSON) alone",
    "zero_intensity": "the intensity parameter is at its do-nothing value",
    "no_candidates": "nothing in the input is eligible",
    "already_passed": "the deadline already lies before the reference date",
    "size_limit": "the result would exceed the entry's size bound",
    "no_change": "the edits reproduce the input",
    "model_returned_input": "the model's rewrite came back identical to the input",
}
DECLARED_REASONS = ("not_json_schema", "structured_input", "no_candidates", "already_passed", "size_limit")
#: Where a failure an entry causes is best fixed (the robustness report's triage hint).
FIX_AT = ("input_normalisation", "prompt")
#: Rules of their own that replace the harness's number gates.
GATES = ("boundary",)
#: The families of the graded multi-family framework (the harness's ``graded-reasoning`` preset);
#: an entry names its own when its catalog family does not say it.
GRADED_FAMILIES = (
    "Semantic Variation",
    "Input Quality",
    "Structural/Format",
    "Context Interference",
    "Context Load",
    "Conflict Instruction Stress",
    "Knowledge Boundary",
)

#: What an entry can need beyond the base install (its declaration's ``requires``). The reference
#: shows no computed example for such an entry, so it reads the same in every environment.
REQUIREMENTS = {
    "nltk_data": "the NLTK data bundle (WordNet 3.0 and the POS tagger), built offline and not "
    "shipped in the wheel: `make nltk-data`, or the Lambda layer",
    "brittlebench_extra": "the `brittlebench` extra: `pip install 'perturber[brittlebench]'`",
    "emotion_stimuli": "the engine's emotion stimulus table (CC BY-NC, never shipped with perturber): "
    "`PERTURBER_BRITTLEBENCH_EMOTION_FILE` or the installed engine",
    "model_endpoint": "a configured OpenAI-compatible endpoint and the `llm` extra",
}
TYPE_NAMES = {int: "int", float: "float", str: "str", bool: "bool"}

# Modules that declare perturbations, imported on first use of the registry.
FAMILY_MODULES = tuple(
    f"perturber.perturbations.{m}"
    for m in (
        "control",
        "word_level",
        "character",
        "formatting",
        "schema",
        "normalization",
        "padding",
        "context",
        "paraphrasing",
        "reasoning",
        "adversarial",
        "structure",
        "directional",
    )
) + (
    "perturber.brittlebench",
)  # the optional compatibility tier (declarations only; docs/spec/catalog.md §17)


class Outcome(NamedTuple):
    """What a perturbation function returns: the text, the edit count, why nothing changed."""

    text: str
    edits: int = 0
    reason: str | None = None
    details: dict | None = None
    model: dict | None = None  # model-backed entries: the ``model`` object of docs/spec/catalog.md §1.2


def unchanged(text: str, reason: str) -> Outcome:
    """The input returned as is, with the reason code of docs/spec/catalog.md §1.2.

    >>> unchanged("Hi", "control")
    Outcome(text='Hi', edits=0, reason='control', details=None, model=None)
    """
    return _new_tuple(Outcome, (text, 0, reason, None, None))  # Outcome(text, 0, reason), faster


_new_tuple = tuple.__new__


@dataclass(frozen=True)
class Param:
    """A typed, bounded parameter. Ranges are inclusive; ``step`` is 0.0001 or 0.01 for floats."""

    name: str
    type: type
    default: Any
    description: str
    ge: float | None = None
    le: float | None = None
    choices: tuple | None = None
    step: float | None = None
    forbidden: tuple = ()

    #: True when the default comes from configuration at call time (``default_value``).
    configured_default = False

    def default_value(self) -> Any:
        """The default filled in when the caller gives none (a configured value for the ``model``
        param of the model-backed tier, which overrides this)."""
        return self.default

    def effective_choices(self) -> tuple | None:
        """The enforced choices (static here; the ``model`` param reads them from configuration)."""
        return self.choices

    def documented_range(self) -> str:
        """``describe_range()`` as the reference prints it: independent of any configuration."""
        return self.describe_range()

    def describe_range(self) -> str:
        if self.choices is not None:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        text = f"{TYPE_NAMES[self.type]} in [{self.ge}, {self.le}]"
        if self.step is not None:
            text += f", a multiple of {self.step}"
        if self.forbidden:
            text += ", not " + ", ".join(str(v) for v in self.forbidden)
        return text

    def validate(self, value: Any, owner: str) -> Any:
        """Return ``value`` if it is allowed (strict types, §1.3), else raise ``InvalidParams``."""
        kind = type(value)
        ok = kind is self.type or (self.type is float and kind is int)
        if not ok:
            raise self._error(owner, value, f"expected {TYPE_NAMES[self.type]}, got {_type_name(value)}")
        if self.type is float and not math.isfinite(value):
            raise self._error(owner, value, "must be finite")
        if self.choices is not None and value not in self.choices:
            raise self._error(owner, value, "not an allowed choice")
        if self.ge is not None and not (self.ge <= value <= self.le):
            raise self._error(owner, value, "out of range")
        if self.step is not None:
            scaled = value * round(1 / self.step)
            if abs(scaled - round(scaled)) >= 1e-9:
                raise self._error(owner, value, "not on the step grid")
        if value in self.forbidden:
            raise self._error(owner, value, "not allowed")
        return value

    def _error(self, owner: str, value: Any, problem: str) -> InvalidParams:
        return InvalidParams(
            f"{owner}: parameter '{self.name}' = {value!r} is invalid ({problem}); "
            f"allowed: {self.describe_range()}",
            field=self.name,
            allowed=self.describe_range(),
        )

    def schema(self) -> dict:
        """JSON-safe description (used by the catalog, its digest and the playground)."""
        out = {
            "name": self.name,
            "type": TYPE_NAMES[self.type],
            "default": self.default,
            "description": self.description,
        }
        if self.choices is not None:
            out["choices"] = list(self.choices)
        if self.ge is not None:
            out["minimum"], out["maximum"] = self.ge, self.le
        if self.step is not None:
            out["step"] = self.step
        if self.forbidden:
            out["forbidden"] = list(self.forbidden)
        return out

    def catalog_schema(self) -> dict:
        """What the catalog advertises: ``schema()`` plus run-time configuration, if any."""
        return self.schema()


def _type_name(value: Any) -> str:
    return TYPE_NAMES.get(type(value), type(value).__name__)


def rate(default: float, description: str = "fraction of eligible candidates to edit") -> Param:
    """The ``rate`` intensity of §1.11: a float in [0, 1], multiple of 0.0001."""
    return Param("rate", float, default, description, 0.0, 1.0, step=0.0001)


def count(default: int, maximum: int = 1000, description: str = "number of edits") -> Param:
    """A ``count`` intensity: an int in [0, maximum]."""
    return Param("count", int, default, description, 0, maximum)


def choice(name: str, default: str, choices: Iterable[str], description: str) -> Param:
    """A string parameter restricted to an exact, case-sensitive choice list."""
    return Param(name, str, default, description, choices=tuple(choices))


# The value of each intensity parameter that means "do nothing" (§1.2 zero_intensity).
ZERO_INTENSITY = {"rate": 0.0, "count": 0, "ratio": 1.0}


@dataclass(frozen=True)
class Perturbation:
    """One catalog entry: its declaration and the function that implements it."""

    name: str
    category: str
    family: str
    version: int
    in_scope: bool
    expectation: str
    seed_sensitive: bool
    model_backed: bool
    description: str
    params: tuple[Param, ...]
    intensity: str | None
    function: Callable[..., Outcome] = field(repr=False, compare=False)
    defaults: dict = field(default_factory=dict, repr=False, compare=False)
    #: An empty text comes back ``unchanged(..., "empty_input")`` without calling ``function``.
    skip_empty: bool = field(default=True, repr=False, compare=False)
    #: At zero intensity the text comes back ``unchanged(..., "zero_intensity")`` uncalled.
    skip_zero_intensity: bool = field(default=True, repr=False, compare=False)
    #: What the entry needs beyond the base install (keys of ``REQUIREMENTS``).
    requires: tuple[str, ...] = field(default=(), repr=False, compare=False)
    #: Whether the entry can run here (an optional tier's hook); None: always.
    available: Callable[[str], bool] | None = field(default=None, repr=False, compare=False)
    #: The params whose default is read from configuration when the call is made.
    configured: tuple[Param, ...] = field(default=(), repr=False, compare=False)
    #: Reason codes of ``DECLARED_REASONS`` the entry reports (the others follow from the declaration).
    reasons: tuple[str, ...] = field(default=(), repr=False, compare=False)
    #: Facts the robustness harness reads: where a failure is best fixed (``FIX_AT``); the parameter
    #: whose sign states a directional entry's direction; how its severity level is read (``ratio``:
    #: the achieved expansion ratio, ``param:NAME``: the parameter's value, ``choice:NAME``: the
    #: index of the choice, None: magnitude bands); whether it may move text (its numbers are then
    #: checked as a multiset); a gate of its own (``GATES``); its family of the graded framework
    #: (``GRADED_FAMILIES``) when its catalog family does not give it.
    fix_at: str | None = field(default=None, repr=False, compare=False)
    direction_param: str | None = field(default=None, repr=False, compare=False)
    level_rule: str | None = field(default=None, repr=False, compare=False)
    moves_text: bool = field(default=False, repr=False, compare=False)
    gate: str | None = field(default=None, repr=False, compare=False)
    graded_family: str | None = field(default=None, repr=False, compare=False)
    #: A seedless entry whose outcome is worth keeping per text and params: ``apply`` keeps it
    #: in the entry's own per-text memo (a study repeats each text with several seeds).
    memoise_outcome: bool = field(default=False, repr=False, compare=False)
    #: Whether the function is given a ``Draws`` (seed-sensitive and model-backed entries); a
    #: seedless deterministic entry is given None. Derived, kept as a field for the hot path.
    draws: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "draws", self.seed_sensitive or self.model_backed)

    @property
    def kind(self) -> str:
        return "model-backed" if self.model_backed else "deterministic"

    @property
    def key(self) -> str:
        return f"{self.category}/{self.name}"

    def resolve(self, params: Mapping[str, Any] | None) -> dict:
        """Validated effective parameters with defaults filled in (§1.3)."""
        if not params:
            return self._configured_defaults(self.defaults) if self.configured else self.defaults
        if not isinstance(params, Mapping):
            raise InvalidParams(
                f"{self.name}: params must be an object, got {_type_name(params)}", field="params"
            )
        by_name = {p.name: p for p in self.params}
        for key in params:
            if key not in by_name:
                allowed = ", ".join(by_name) or "none"
                raise InvalidParams(
                    f"{self.name}: unknown parameter {key!r} (allowed: {allowed})",
                    field=str(key),
                    allowed=list(by_name),
                )
        resolved = dict(self.defaults)
        for key, value in params.items():
            resolved[key] = by_name[key].validate(value, self.name)
        return self._configured_defaults(resolved) if self.configured else resolved

    def _configured_defaults(self, resolved: dict) -> dict:
        """Fill the params left at None whose default comes from configuration."""
        for p in self.configured:
            if resolved.get(p.name) is None:
                value = p.default_value()
                if value is not None:
                    resolved = {**resolved, p.name: value}
        return resolved

    def at_zero_intensity(self, params: Mapping[str, Any]) -> bool:
        if self.intensity not in ZERO_INTENSITY:
            return False
        return params[self.intensity] == ZERO_INTENSITY[self.intensity]

    def reason_codes(self) -> list[str]:
        """Every code the entry can report when it leaves a text unchanged, in §1.2 order.

        >>> get("quote_style").reason_codes()
        ['empty_input', 'structured_input', 'no_candidates', 'no_change']
        """
        if self.family == "control":
            return ["control"]
        codes = {"empty_input", "no_change", *self.reasons}
        if self.intensity in ZERO_INTENSITY:
            codes.add("zero_intensity")
        if self.model_backed:
            codes.add("model_returned_input")
        return [c for c in REASONS if c in codes]

    def info(self) -> dict:
        """The catalog entry as JSON-safe data."""
        return {
            "name": self.name,
            "category": self.category,
            "family": self.family,
            "version": self.version,
            "in_scope": self.in_scope,
            "expectation": self.expectation,
            "kind": self.kind,
            "seed_sensitive": self.seed_sensitive,
            "model_backed": self.model_backed,
            "intensity": self.intensity,
            "description": self.description,
            "params": [p.catalog_schema() for p in self.params],
            "requires": list(self.requires),
            "reasons": self.reason_codes(),
            "fix_at": self.fix_at,
            "direction_param": self.direction_param,
            "level_rule": self.level_rule,
            "moves_text": self.moves_text,
            **self._availability(),
        }

    def _availability(self) -> dict:
        """``available`` for an entry declared with that hook (the optional tier, §17.1)."""
        return {} if self.available is None else {"available": self.available(self.name)}


_REGISTRY: dict[tuple[str, str], Perturbation] = {}
_LOADED = False
_READ_ONLY = MappingProxyType(_REGISTRY)
_LOAD_LOCK = threading.Lock()


def perturbation(
    name: str,
    *,
    family: str,
    description: str,
    params: Iterable[Param] = (),
    in_scope: bool = True,
    expectation: str = "invariant",
    seed_sensitive: bool = False,
    model_backed: bool = False,
    version: int = 1,
    intensity: str | None = None,
    category: str = "native",
    skip_empty: bool = True,
    skip_zero_intensity: bool = True,
    requires: Iterable[str] = (),
    available: Callable[[str], bool] | None = None,
    reasons: Iterable[str] = (),
    fix_at: str | None = None,
    direction_param: str | None = None,
    level_rule: str | None = None,
    moves_text: bool = False,
    gate: str | None = None,
    graded_family: str | None = None,
    memoise_outcome: bool = False,
):
    """Declare a perturbation. The decorated function is called as ``fn(text, rng, **params)``,
    ``rng`` a ``Draws`` over the call's seed, or None for a seedless deterministic entry.

    The intensity defaults to the ``rate``/``count`` parameter when there is one. ``skip_empty``
    and ``skip_zero_intensity`` (default on) let ``apply`` answer those cases without a call.
    ``requires`` names what the entry needs beyond the base install (``REQUIREMENTS``); a
    model-backed entry always needs ``model_endpoint``. ``available(name)``, given by an optional
    tier, tells the catalog whether the entry can run here. ``reasons`` lists the reason codes of
    ``DECLARED_REASONS`` the entry reports; ``fix_at``, ``direction_param``, ``level_rule``,
    ``moves_text``, ``gate`` and ``graded_family`` are the facts the robustness harness reads (see
    ``Perturbation``). ``memoise_outcome`` (seedless deterministic entries only) asks ``apply`` to
    keep each outcome by text and params: worth it when finding the edits costs more than a memo
    look-up.
    """
    params = tuple(params)
    requires = tuple(requires) + (("model_endpoint",) if model_backed else ())
    reasons = tuple(reasons)
    names = {p.name for p in params}
    rule_param = (level_rule or "").partition(":")[2]
    if (
        family not in FAMILIES
        or expectation not in EXPECTATIONS
        or category not in CATEGORIES
        or not set(requires) <= REQUIREMENTS.keys()
        or not set(reasons) <= set(DECLARED_REASONS)
        or fix_at not in (None, *FIX_AT)
        or gate not in (None, *GATES)
        or graded_family not in (None, *GRADED_FAMILIES)
        or (direction_param is not None and direction_param not in names)
        or (level_rule is not None and level_rule != "ratio" and rule_param not in names)
        or (memoise_outcome and (seed_sensitive or model_backed))
    ):
        raise ValueError(f"bad declaration for {name}")
    if intensity is None:
        intensity = next((p.name for p in params if p.name in ("rate", "count")), None)

    def register(function: Callable[..., Outcome]) -> Callable[..., Outcome]:
        key = (category, name)
        if key in _REGISTRY:
            raise ValueError(f"perturbation {category}/{name} declared twice")
        _REGISTRY[key] = Perturbation(
            name=name,
            category=category,
            family=family,
            version=version,
            in_scope=in_scope,
            expectation=expectation,
            seed_sensitive=seed_sensitive,
            model_backed=model_backed,
            description=description,
            params=params,
            intensity=intensity,
            function=function,
            defaults={p.name: p.default for p in params},
            skip_empty=skip_empty,
            skip_zero_intensity=skip_zero_intensity and intensity in ZERO_INTENSITY,
            requires=requires,
            available=available,
            configured=tuple(p for p in params if p.configured_default),
            reasons=reasons,
            fix_at=fix_at,
            direction_param=direction_param,
            level_rule=level_rule,
            moves_text=moves_text,
            gate=gate,
            graded_family=graded_family,
            memoise_outcome=memoise_outcome,
        )
        return function

    return register


def _load() -> None:
    global _LOADED
    with _LOAD_LOCK:
        if not _LOADED:
            for module in FAMILY_MODULES:
                importlib.import_module(module)
            _LOADED = True


def entries() -> list[Perturbation]:
    """Every declared perturbation in catalog order: by category, then by the module order of
    ``FAMILY_MODULES``, then in declaration order (whatever order the modules were imported in)."""
    if not _LOADED:
        _load()
    return sorted(_REGISTRY.values(), key=_catalog_position)


def _catalog_position(spec: Perturbation) -> tuple[int, int]:
    module = spec.function.__module__
    rank = next(
        (i for i, m in enumerate(FAMILY_MODULES) if module == m or module.startswith(m + ".")),
        len(FAMILY_MODULES),
    )
    return CATEGORIES.index(spec.category), rank


def declared() -> Mapping[tuple[str, str], Perturbation]:
    """A read-only live view of the entries declared so far, by ``(category, name)``.

    >>> get("baseline") is declared()[("native", "baseline")]
    True
    """
    return _READ_ONLY


def get(name: str, category: str = "native") -> Perturbation:
    """Look an entry up, or raise ``UnknownPerturbation`` with close-match suggestions."""
    if not _LOADED:
        _load()
    spec = _REGISTRY.get((category, name))
    if spec is not None:
        return spec
    if category not in CATEGORIES:
        raise UnknownPerturbation(
            f"unknown category {category!r}; categories: {', '.join(CATEGORIES)}",
            category=str(category),
            suggestions=[],
        )
    names = [n for (c, n) in _REGISTRY if c == category]
    close = difflib.get_close_matches(str(name), names, n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `perturber list` shows all"
    raise UnknownPerturbation(
        f"unknown perturbation {category}/{name}{hint}", name=str(name), category=category, suggestions=close
    )


def catalog_digest() -> str:
    """sha256 over every entry's name, category, version and parameter schema."""
    payload = [
        [s.category, s.name, s.version, [p.schema() for p in s.params]]
        for s in sorted(entries(), key=lambda s: (s.category, s.name))
    ]
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(blob.encode()).hexdigest()
