"""Choosing catalog entries: ``--select`` expressions over any catalog field, and presets.

An expression is ``field=v1,v2;field2=v3``: values of one field are alternatives, fields must all
match. Fields: family, name, category, expectation, kind, intensity, in_scope, model_backed,
seed_sensitive.

>>> [e["name"] for e in select_entries("family=padding;name=spaces,quotes")]
['quotes', 'spaces']
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import core
from ..errors import InvalidParams
from ..settings import parse_bool

FIELDS = (
    "family",
    "name",
    "category",
    "expectation",
    "kind",
    "intensity",
    "in_scope",
    "model_backed",
    "seed_sensitive",
)
# Entries that are not text perturbations of a question: the identity and JSON-Schema rewrites.
_DEFAULT_EXCLUDED_FAMILIES = ("control", "schema")


def parse_select(expr: str | None) -> dict[str, set]:
    """``"family=a,b;in_scope=true"`` -> ``{"family": {"a", "b"}, "in_scope": {True}}``."""
    wanted: dict[str, set] = {}
    for part in (expr or "").split(";"):
        if not part.strip():
            continue
        key, sep, values = part.partition("=")
        key = key.strip()
        if not sep or key not in FIELDS:
            raise InvalidParams(
                f"--select {part.strip()!r}: expected FIELD=V1,V2 with FIELD in {', '.join(FIELDS)}",
                field="select",
            )
        vals: set = {v.strip() for v in values.split(",") if v.strip()}
        if key in ("in_scope", "model_backed", "seed_sensitive"):
            try:
                vals = {parse_bool(v, key) for v in vals}
            except ValueError:
                raise InvalidParams(f"--select {key}: expected true or false", field="select") from None
        wanted.setdefault(key, set()).update(vals)
    return wanted


def select_entries(
    expr: str | None = None, *, in_scope: bool = False, catalog: list[dict] | None = None
) -> list[dict]:
    """Catalog entries matching ``expr`` (catalog order). Without a family or name filter the
    ``control`` and ``schema`` families are left out; without a category filter, only the
    ``native`` category is used (the brittlebench tier is chosen explicitly)."""
    wanted = parse_select(expr)
    wanted.setdefault("category", {"native"})
    if in_scope:
        wanted["in_scope"] = {True}
    entries = catalog if catalog is not None else core.list_perturbations()
    out = []
    for e in entries:
        if not ("family" in wanted or "name" in wanted) and e["family"] in _DEFAULT_EXCLUDED_FAMILIES:
            continue
        if all(e.get(k) in vals for k, vals in wanted.items()):
            out.append(e)
    if not out:
        raise InvalidParams(f"--select {expr!r} matches no catalog entry", field="select")
    return out


@dataclass(frozen=True)
class GradedFamily:
    """One family of the graded framework and how it maps onto the catalog (an entry's level
    rule, when it has one, is a fact about the entry: ``facts.entry_facts``)."""

    name: str
    families: tuple[str, ...] = ()
    names: tuple[str, ...] = ()

    def matches(self, entry: dict) -> bool:
        return entry["family"] in self.families or entry["name"] in self.names


# The seven families of the graded multi-family framework, mapped onto the catalog.
GRADED_REASONING = (
    GradedFamily("Semantic Variation", families=("paraphrasing",)),
    GradedFamily(
        "Input Quality",
        families=("character",),
        names=(
            "realistic_typos",
            "typos",
            "confusable_words",
            "repeated_chars",
            "word_merge",
            "word_split",
            "typo_paraphrase",
        ),
    ),
    GradedFamily("Structural/Format", families=("formatting", "structure")),
    GradedFamily("Context Interference", names=("irrelevant_context", "distractor_injection")),
    GradedFamily("Context Load", names=("context_load",)),
    GradedFamily("Conflict Instruction Stress", names=("conflicting_instruction",)),
    GradedFamily("Knowledge Boundary", names=("knowledge_boundary",)),
)
PRESETS = {"graded-reasoning": GRADED_REASONING}
# The names the preset expects; those missing from the catalog are reported as unavailable.
PRESET_EXPECTED = {
    "graded-reasoning": {
        "Context Interference": ("irrelevant_context", "distractor_injection"),
        "Context Load": ("context_load",),
        "Conflict Instruction Stress": ("conflicting_instruction",),
        "Knowledge Boundary": ("knowledge_boundary",),
    }
}


@dataclass
class Plan:
    """What a suite runs: (entry, graded family or None) pairs and what is unavailable."""

    items: list[tuple[dict, GradedFamily | None]]
    unavailable: dict[str, list[str]]


def plan(
    expr: str | None = None,
    *,
    in_scope: bool = False,
    preset: str | None = None,
    catalog: list[dict] | None = None,
) -> Plan:
    """Resolve ``--select``/``--in-scope``/``--preset`` into the entries to run."""
    entries = catalog if catalog is not None else core.list_perturbations()
    if preset is None:
        return Plan([(e, None) for e in select_entries(expr, in_scope=in_scope, catalog=entries)], {})
    if preset not in PRESETS:
        raise InvalidParams(f"unknown preset {preset!r}; known: {', '.join(PRESETS)}", field="preset")
    narrowed = parse_select(expr)
    narrowed.setdefault("category", {"native"})
    if in_scope:
        narrowed["in_scope"] = {True}
    items: list[tuple[dict, GradedFamily | None]] = []
    unavailable: dict[str, list[str]] = {}
    names = {e["name"] for e in entries}
    families = PRESETS[preset]

    def home(entry: dict) -> GradedFamily | None:
        """An entry belongs to one graded family: one that names it, else one of its family."""
        return next((f for f in families if entry["name"] in f.names), None) or next(
            (f for f in families if entry["family"] in f.families), None
        )

    for fam in families:
        chosen = [e for e in entries if home(e) is fam and all(e.get(k) in v for k, v in narrowed.items())]
        missing = [n for n in PRESET_EXPECTED[preset].get(fam.name, ()) if n not in names]
        if not chosen and not missing:
            missing = [f"family {f}" for f in fam.families] or list(fam.names)
        if missing:
            unavailable[fam.name] = missing
        items.extend((e, fam) for e in chosen)
    return Plan(items, unavailable)
