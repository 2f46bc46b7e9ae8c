"""Which entries the fidelity stage holds to which rule: the negative control group, and the
entries allowed to change JSON regions (docs/spec/catalog.md §1.8)."""

from __future__ import annotations

#: Entries allowed to change JSON regions: the schema family edits JSON Schemas by design; these
#: three change protected spans by design.
JSON_EXEMPT_ENTRIES = frozenset({"full_width", "strip_markdown", "url_email_mask"})
JSON_EXEMPT_FAMILIES = frozenset({"schema"})


def json_exempt(spec) -> bool:
    return spec.family in JSON_EXEMPT_FAMILIES or spec.name in JSON_EXEMPT_ENTRIES


def control_group(spec) -> bool:
    """Negative control: entries outside the invariance scope, or meant to change the answer."""
    return (not spec.in_scope) or spec.expectation != "invariant"


def failures_of_json(rows, by_spec) -> dict:
    """``{entry: count}`` of applied outputs that broke a JSON region, non-exempt entries only."""
    failures: dict[str, int] = {}
    for r in rows:
        if r["json_preserved"] is False and not json_exempt(by_spec[r["entry"]]):
            failures[r["entry"]] = failures.get(r["entry"], 0) + 1
    return failures
