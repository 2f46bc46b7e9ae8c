"""Catalog stage: what the catalog holds, counted by family, category, scope, expectation,
seed-sensitivity and kind, with the catalog digest (the hash every result cites).

    python eval/run_all.py run catalog        (python -m fidelity.catalog)

Writes eval/out/catalog.json and eval/out/sections/catalog.md.
"""

from __future__ import annotations

import collections
import sys

import perturber
from evalkit import cli, sections

FIELDS = ("family", "category", "in_scope", "expectation", "seed_sensitive", "kind")


def counts(entries: list[dict]) -> dict:
    """``{field: {value: count}}`` for every field of :data:`FIELDS`, values in first-seen order.

    >>> counts([{"family": "a", "category": "native", "in_scope": True, "expectation": "invariant",
    ...          "seed_sensitive": False, "kind": "deterministic"}])["family"]
    {'a': 1}
    """
    out = {}
    for field in FIELDS:
        out[field] = dict(
            collections.Counter(
                str(e[field]).lower() if isinstance(e[field], bool) else e[field] for e in entries
            )
        )
    return out


def main(argv: list[str] | None = None) -> int:
    cli.parser("catalog", __doc__).parse_args(argv)
    entries = perturber.list_perturbations()
    data = {
        "entries": len(entries),
        "catalog_digest": perturber.catalog_digest(),
        "counts": counts(entries),
        "names": [f"{e['category']}/{e['name']}" for e in entries],
    }
    lines = [
        "## Catalog",
        "",
        f"{len(entries)} entries; catalog digest "
        f"`{data['catalog_digest']}` (`perturber.catalog_digest()`, also served by "
        "`GET /version`).",
        "",
    ]
    titles = {"in_scope": "in scope", "seed_sensitive": "seed-sensitive"}
    for field, values in data["counts"].items():
        lines.append(f"* **{titles.get(field, field)}**: " + ", ".join(f"{k} {v}" for k, v in values.items()))
    sections.write_outputs("catalog", data, "\n".join(lines))
    print(f"  [catalog] {len(entries)} entries, digest {data['catalog_digest'][:12]}…", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
