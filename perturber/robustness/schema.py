"""The harness's records, one typed schema each, versioned: a suite's :class:`Case`
(``cases.jsonl``), a run's :class:`RunHeader` and :class:`RunEnd` and its :class:`Result` lines
(``results.jsonl``). Readers go through ``from_dict``, which names the first field that is
missing or of the wrong type; writers through ``to_dict``. docs/robustness.md lists every field.

>>> Case.from_dict({"case_id": "c", "example_id": "1", "original": "a", "perturbed": "b",
...                 "name": "upper_case", "family": "character"}).expectation
'invariant'
>>> Case.from_dict({"case_id": "c", "example_id": 1}, where="cases.jsonl:3")
Traceback (most recent call last):
...
perturber.errors.InvalidParams: cases.jsonl:3: example_id must be a string, not int (is this the output of `perturber suite`?)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..errors import InvalidParams

CASE_SCHEMA = "perturber.robustness.case/1"
RESULTS_SCHEMA = "perturber.robustness.results/2"

_TYPES: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "int": (int,),
    "number": (int, float),
    "dict": (dict,),
    "list": (list,),
    "bool": (bool,),
}


class _Record:
    """``from_dict``/``to_dict`` for a dataclass whose fields declare ``metadata={"type": ...}``;
    fields without a default are required; unknown keys go to ``extra``."""

    HINT: ClassVar[str] = ""

    @classmethod
    def from_dict(cls, data: dict, where: str = "record"):
        values: dict[str, Any] = {}
        fields, known = _field_specs(cls)
        for name, required, kind in fields:
            value = data.get(name)
            if value is None:
                if required:
                    raise InvalidParams(f"{where}: lacks {name}{cls.HINT}", field=name)
                continue
            if kind and (not isinstance(value, _TYPES[kind]) or (kind != "bool" and isinstance(value, bool))):
                raise InvalidParams(
                    f"{where}: {name} must be {_NAMES[kind]}, not {type(value).__name__}{cls.HINT}",
                    field=name,
                )
            values[name] = value
        extra = {k: v for k, v in data.items() if k not in known}
        return cls(**values, extra=extra)  # type: ignore[call-arg]

    def to_dict(self) -> dict:
        out = {name: getattr(self, name) for name, _, _ in _field_specs(type(self))[0]}
        return {**out, **getattr(self, "extra", {})}


_FieldSpecs = tuple[tuple[tuple[str, bool, str | None], ...], frozenset[str]]
_SPECS: dict[type, _FieldSpecs] = {}  # by record class (four of them)


def _field_specs(cls: type) -> _FieldSpecs:
    """A record class's fields as ``(name, required, type)`` (``extra`` aside), and every field
    name; read once per class."""
    found = _SPECS.get(cls)
    if found is not None:
        return found
    fields = dataclasses.fields(cls)
    specs = tuple(
        (
            f.name,
            f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
            f.metadata.get("type"),
        )
        for f in fields
        if f.name != "extra"
    )
    found = _SPECS[cls] = (specs, frozenset(f.name for f in fields))
    return found


_NAMES = {
    "str": "a string",
    "int": "an integer",
    "number": "a number",
    "dict": "an object",
    "list": "a list",
    "bool": "a boolean",
}


def _f(kind: str, default: Any = dataclasses.MISSING) -> Any:
    if default is dataclasses.MISSING:
        return field(metadata={"type": kind})
    return field(default=default, metadata={"type": kind})


@dataclass(frozen=True)
class Case(_Record):
    """One line of ``cases.jsonl`` (schema ``perturber.robustness.case/1``)."""

    HINT: ClassVar[str] = " (is this the output of `perturber suite`?)"

    case_id: str = _f("str")
    example_id: str = _f("str")
    original: str = _f("str")
    perturbed: str = _f("str")
    name: str = _f("str")
    family: str = _f("str")
    expectation: str = _f("str", "invariant")
    category: str = _f("str", "native")
    graded_family: str | None = _f("str", None)
    version: int | None = _f("int", None)
    params: dict = field(default_factory=dict, metadata={"type": "dict"})
    seed: int | None = _f("int", None)
    magnitude: float | None = _f("number", None)
    requested_level: int | None = _f("int", None)
    level: int | None = _f("int", None)
    gate: str = _f("str", "pass")
    reason: str | None = _f("str", None)
    answer: Any = None
    example: dict = field(default_factory=dict, metadata={"type": "dict"})
    catalog_digest: str | None = _f("str", None)
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Result(_Record):
    """One answered line of ``results.jsonl`` (``kind`` ``original`` or ``case``; schema
    ``perturber.robustness.results/2``). A case result also carries its case's fields."""

    HINT: ClassVar[str] = " (is this the output of `perturber evaluate`?)"

    kind: str = _f("str")
    key: str = _f("str")
    example_id: str = _f("str")
    sim: float = _f("number")
    model: str | None = _f("str", None)
    run: str | None = _f("str", None)
    output: str | None = _f("str", None)
    extracted: str | None = _f("str", None)
    latency_ms: float | None = _f("number", None)
    reply_sources: list = field(default_factory=list, metadata={"type": "list"})
    usage: dict = field(default_factory=dict, metadata={"type": "dict"})
    samples: int | None = _f("int", None)
    sample_extracted: list | None = _f("list", None)
    sample_sims: list | None = _f("list", None)
    mean_sim: float | None = _f("number", None)
    agreement: float | None = _f("number", None)
    original_sim: float | None = _f("number", None)
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class RunHeader(_Record):
    """The first line a run appends to ``results.jsonl``: how its results were made."""

    kind: str = _f("str")
    schema: str = _f("str")
    run: str = _f("str")
    started: str = _f("str")
    perturber_version: str = _f("str")
    catalog_digest: str = _f("str")
    model: str = _f("str")
    model_settings: dict = _f("dict")
    samples: int = _f("int")
    checker: dict = _f("dict")
    cache: str = _f("str")
    plan: dict = _f("dict")
    cases_schema: str = _f("str", CASE_SCHEMA)
    suite_sha256: str | None = _f("str", None)
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class RunEnd(_Record):
    """The last line a run appends: when it ended, what it asked and spent, why it stopped."""

    kind: str = _f("str")
    run: str = _f("str")
    ended: str = _f("str")
    seconds: float = _f("number")
    calls: int = _f("int")
    cache_hits: int = _f("int")
    deduplicated: int = _f("int")
    written: int = _f("int")
    usage: dict = _f("dict")
    errors: dict = _f("dict")
    interrupted: bool = _f("bool")
    cost: float | None = _f("number", None)
    stopped: str | None = _f("str", None)
    extra: dict = field(default_factory=dict)
