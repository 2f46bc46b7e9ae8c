"""Choosing catalog entries: ``--select`` expressions over any catalog field, and presets.

An expression is ``field=v1,v2;field2=v3``: values of one field are alternatives, fields must all
match. Fields: family, name, category, expectation, kind, intensity, in_scope, model_backed,
seed_sensitive.

>>> [e["name"] for e in select_entries("family=padding;name=spaces,quotes")]
['quotes', 'spaces']
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import core, registry
from ..errors import InvalidParams
from ..settings import parse_bool
from .facts import entry_facts

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
# The graded families that take catalog families whole (the others take the entries naming them).
CATALOG_FAMILIES = {
    "Semantic Variation": ("paraphrasing",),
    "Input Quality": ("character",),
    "Structural/Format": ("formatting", "structure"),
}
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
    """One family of the graded framework: the catalog families it takes whole; the entries that
    name it in their declaration (``graded_family``) belong to it too, wherever they stand.

    >>> GRADED_REASONING[-1].name, GRADED_REASONING[-1].declared()
    ('Knowledge Boundary', ['knowledge_boundary'])
    """

    name: str
    families: tuple[str, ...] = ()

    def declared(self) -> list[str]:
        """The entries that name this family in their declaration, in catalog order."""
        return [spec.name for spec in registry.entries() if spec.graded_family == self.name]


# The seven families of the graded multi-family framework, mapped onto the catalog's families.
GRADED_REASONING = tuple(
    GradedFamily(name, families=CATALOG_FAMILIES.get(name, ())) for name in registry.GRADED_FAMILIES
)
PRESETS = {"graded-reasoning": GRADED_REASONING}


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
        """An entry belongs to one graded family: the one it declares, else one of its family."""
        declared = entry_facts(entry["name"], entry.get("category", "native")).graded_family
        return next((f for f in families if f.name == declared), None) or next(
            (f for f in families if entry["family"] in f.families), None
        )

    for fam in families:
        chosen = [e for e in entries if home(e) is fam and all(e.get(k) in v for k, v in narrowed.items())]
        missing = [] if fam.families else [n for n in fam.declared() if n not in names]
        if not chosen and not missing:
            missing = [f"family {f}" for f in fam.families] or fam.declared()
        if missing:
            unavailable[fam.name] = missing
        items.extend((e, fam) for e in chosen)
    return Plan(items, unavailable)
