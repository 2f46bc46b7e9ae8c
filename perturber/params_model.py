"""Pydantic models of each entry's parameters, built lazily from the registry declaration.

The service uses them for its OpenAPI schemas; a test checks that they accept exactly what the
library's own validator accepts. ``import perturber`` never imports pydantic.

>>> from perturber import registry
>>> params_model(registry.get("quotes")).model_validate({"n": 3}).n
3
"""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from . import registry


def _field(p: registry.Param):
    description = f"{p.description}; {p.describe_range()}"
    if p.choices is not None:
        # A one-value Literal becomes "const" in JSON Schema; keep the "enum" every choice has.
        single = {"enum": list(p.choices)} if len(p.choices) == 1 else None
        return Annotated[Literal[p.choices], Field(description=description,
                                                   json_schema_extra=single)], p.default
    extra = {}
    if p.step is not None:
        extra["multipleOf"] = p.step
    if p.forbidden:
        extra["not"] = {"enum": list(p.forbidden)}
    constraints = Field(ge=p.ge, le=p.le, description=description,
                        json_schema_extra=extra or None,
                        **({"allow_inf_nan": False} if p.type is float else {}))
    return Annotated[p.type, constraints], p.default


@lru_cache(maxsize=None)
def params_model(spec: registry.Perturbation) -> type[BaseModel]:
    """A strict pydantic model (unknown fields forbidden, no coercion) of ``spec``'s params."""
    fields = {p.name: _field(p) for p in spec.params}
    name = "".join(part.title() for part in spec.name.split("_")) + "Params"
    return create_model(name, __config__=ConfigDict(strict=True, extra="forbid"), **fields)
