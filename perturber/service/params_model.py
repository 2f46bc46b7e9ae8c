"""Pydantic models of each entry's parameters, built lazily from the registry declaration.

They only *describe* parameters: the service takes its OpenAPI request schemas from them
(``model_json_schema()``), while every transport validates through one validator alone,
``registry.Param.validate`` (via ``Perturbation.resolve``). The step grid and forbidden values
appear in the schema (``multipleOf``, ``not``) but are enforced by ``Param.validate`` only.
``import perturber`` never imports pydantic.

>>> from perturber import registry
>>> params_model(registry.get("quotes")).model_json_schema()["properties"]["n"]["maximum"]
1000
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from .. import registry


def _field(p: registry.Param):
    description = f"{p.description}; {p.describe_range()}"
    choices = p.effective_choices()
    if p.type is str and p.default is None:  # the model-backed tier's ``model`` (configured default)
        default = p.catalog_schema()["default"]
        if choices is not None:
            return Annotated[Literal[choices], Field(description=description)], default
        pattern = p.schema().get("pattern")
        return Annotated[
            str,
            Field(
                description=description,
                min_length=1,
                max_length=128,
                pattern=pattern,
                json_schema_extra={"default": default},
            ),
        ], default
    if choices is not None:
        # A one-value Literal becomes "const" in JSON Schema; keep the "enum" every choice has.
        single: dict[str, Any] | None = {"enum": list(choices)} if len(choices) == 1 else None
        return Annotated[
            Literal[choices], Field(description=description, json_schema_extra=single)
        ], p.default
    extra: dict[str, Any] = {}
    if p.step is not None:
        extra["multipleOf"] = p.step
    if p.forbidden:
        extra["not"] = {"enum": list(p.forbidden)}
    options: dict[str, Any] = {"allow_inf_nan": False} if p.type is float else {}
    constraints = Field(ge=p.ge, le=p.le, description=description, json_schema_extra=extra or None, **options)
    return Annotated[p.type, constraints], p.default


def params_model(spec: registry.Perturbation) -> type[BaseModel]:
    """A strict pydantic model (unknown fields forbidden, no coercion) of ``spec``'s params."""
    configured = tuple(
        (p.effective_choices(), p.catalog_schema().get("default"))
        for p in spec.params
        if p.type is str and p.default is None
    )
    return _params_model(spec, configured)


@cache
def _params_model(spec: registry.Perturbation, configured: tuple) -> type[BaseModel]:
    """Cached per entry and per configured model list (the ``model`` param's choices)."""
    fields = {p.name: _field(p) for p in spec.params}
    name = "".join(part.title() for part in spec.name.split("_")) + "Params"
    return create_model(name, __config__=ConfigDict(strict=True, extra="forbid"), **fields)
