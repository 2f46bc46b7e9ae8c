"""Turn an eval set into a robustness suite: one case per (example, entry, params, seed).

>>> cases = list(build_suite([{"id": "a", "q": "Is it 2 o'clock?"}], field="q",
...                          select="name=upper_case"))
>>> [(c["name"], c["perturbed"], c["gate"], c["level"]) for c in cases]
[('upper_case', "IS IT 2 O'CLOCK?", 'pass', 5)]
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .. import core, registry
from ..errors import InvalidParams, PerturberError
from ..number_words import numbers_in
from . import gates, ladder
from . import select as select_mod
from .io import AtomicJsonl, read_records

UNPERTURBED_LEVEL = 0


def case_id(example_id: str, entry: dict, params: dict, seed: int) -> str:
    """Deterministic id: hash of example id, entry (category/name), version, params and seed."""
    key = json.dumps(
        [str(example_id), entry["category"], entry["name"], entry["version"], params, seed],
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def _harness_rng(seed: int, example_id: str) -> random.Random:
    digest = hashlib.sha256(f"perturber-suite\0{seed}\0{example_id}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def measured_level(
    gfam: select_mod.GradedFamily | None,
    entry: dict,
    original: str,
    perturbed: str,
    magnitude: float | None,
    params: dict,
    bands: dict,
) -> int | None:
    """The level of a perturbed text: by the graded family's rule, else by magnitude bands."""
    if perturbed == original:
        return UNPERTURBED_LEVEL
    rule = gfam.level_by if gfam else "magnitude"
    if rule == "ratio" or (gfam is None and entry["name"] == "context_load"):
        return ladder.level_from_edges(
            len(perturbed) / max(len(original), 1), ladder.CONTEXT_LOAD_RATIO_BANDS
        )
    if rule.startswith("param:"):
        value: Any = params.get(rule[6:])
        return int(value) if ladder.is_number(value) and 1 <= value <= 5 else None
    if rule.startswith("choice:"):
        pname = rule[7:]
        spec = next((p for p in entry.get("params", []) if p["name"] == pname), None)
        choices = list(spec.get("choices", [])) if spec else []
        value = params.get(pname)
        return choices.index(value) + 1 if value in choices and choices.index(value) < 5 else None
    return ladder.level_for(magnitude, gfam.name if gfam else entry["family"], bands)


def _variants(entry: dict, gfam) -> list[dict]:
    """The parameter variants a ladder tries: the categorical choices of a ``choice:`` family
    (knowledge_boundary's five boundary types), else the intensity grid."""
    if gfam is not None and gfam.level_by.startswith("choice:"):
        pname = gfam.level_by[7:]
        spec = next((p for p in entry.get("params", []) if p["name"] == pname), None)
        if spec and spec.get("choices"):
            return [{pname: c} for c in spec["choices"][:5]]
    return ladder.grid_for(entry)


def _ratio_band(level: int | None) -> tuple[float, float] | None:
    if not level:
        return None
    edges = (1.0, *ladder.CONTEXT_LOAD_RATIO_BANDS)
    return edges[level - 1], edges[level]


def _requested_ratio_level(params: dict) -> int | None:
    ratio = params.get("ratio")
    return ladder.level_from_edges(ratio, ladder.CONTEXT_LOAD_RATIO_BANDS) if ratio else None


@dataclass
class SuiteStats:
    """Counts of a suite run, written next to the cases as ``<out>.summary.json``."""

    examples: int = 0
    cases: int = 0
    passed: int = 0
    rejected: Counter = field(default_factory=Counter)
    reached: dict = field(default_factory=lambda: defaultdict(Counter))
    attempted: Counter = field(default_factory=Counter)
    unavailable: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        unreachable = {
            name: {
                f"L{k}": self.attempted[name] - levels.get(k, 0)
                for k in ladder.LEVELS
                if self.attempted[name] - levels.get(k, 0)
            }
            for name, levels in sorted(self.reached.items())
        }
        for name in self.attempted:
            if name not in self.reached:
                unreachable[name] = {f"L{k}": self.attempted[name] for k in ladder.LEVELS}
        return {
            "examples": self.examples,
            "cases": self.cases,
            "passed": self.passed,
            "rejected": dict(sorted(self.rejected.items())),
            "ladder_unreachable": {k: v for k, v in sorted(unreachable.items()) if v},
            "unavailable": self.unavailable,
        }


def build_suite(
    records: Iterable[dict],
    *,
    field: str = "input",
    answer_field: str | None = None,
    id_field: str | None = None,
    select: str | None = None,
    in_scope: bool = False,
    preset: str | None = None,
    seeds: Iterable[int] = (0,),
    per_example: int | None = None,
    ladder_scan: bool = False,
    bands: dict | None = None,
    judge: Callable[[str, str], bool] | None = None,
    stats: SuiteStats | None = None,
    catalog: list[dict] | None = None,
) -> Iterator[dict]:
    """Yield the cases (passing and rejected, ``gate`` tells) of ``records``, streaming."""
    the_plan = select_mod.plan(select, in_scope=in_scope, preset=preset, catalog=catalog)
    seeds = [core.check_seed(s) for s in seeds] or [0]
    bands = bands or ladder.DEFAULT_BANDS
    digest = registry.catalog_digest()
    stats = stats if stats is not None else SuiteStats()
    stats.unavailable = the_plan.unavailable
    if per_example is not None and per_example < 1:
        raise InvalidParams("--per-example must be >= 1", field="per_example")
    for index, record in enumerate(records, 1):
        text = record.get(field)
        if not isinstance(text, str):
            raise InvalidParams(f"example {index}: no string field {field!r}", field="field", line=index)
        example_id = str(record[id_field]) if id_field and record.get(id_field) is not None else str(index)
        stats.examples += 1
        items = the_plan.items
        if per_example is not None and per_example < len(items):
            picks = sorted(_harness_rng(seeds[0], example_id).sample(range(len(items)), per_example))
            items = [items[i] for i in picks]
        base = {
            "example_id": example_id,
            "original": text,
            "input_field": field,
            "id_field": id_field,
            "answer_field": answer_field,
            "answer": record.get(answer_field) if answer_field else None,
            "example": {k: v for k, v in record.items() if k != field},
            "catalog_digest": digest,
        }
        if isinstance(record.get("provenance"), dict):
            base["exported_case_id"] = record["provenance"].get("case_id")
        orig_numbers = None
        for entry, gfam in items:
            for seed in seeds if entry["seed_sensitive"] else seeds[:1]:
                variants = _variants(entry, gfam) if ladder_scan else [{}]
                kept_levels: set[int] = set()
                if ladder_scan:
                    stats.attempted[entry["name"]] += 1
                for params in variants:
                    try:
                        result = core.apply(text, entry["name"], params, seed, entry["category"])
                    except PerturberError as err:
                        case = _case(base, entry, gfam, params, seed, None, None, None, f"error:{err.code}")
                        yield from _emit(case, stats)
                        break
                    level = measured_level(
                        gfam, entry, text, result.text, result.magnitude, result.params, bands
                    )
                    if ladder_scan:
                        if level in kept_levels or not level:
                            continue
                        kept_levels.add(level)
                    requested = level if ladder_scan else None
                    ratio_band = None
                    if entry["name"] == "context_load":
                        requested = _requested_ratio_level(result.params)
                        ratio_band = _ratio_band(requested)
                    if orig_numbers is None:
                        orig_numbers = numbers_in(text)
                    reason = gates.check_gate(
                        original=text,
                        perturbed=result.text,
                        applied=result.applied,
                        reason=result.reason,
                        expectation=result.expectation,
                        name=entry["name"],
                        details=result.details,
                        original_numbers=orig_numbers,
                        ratio_band=ratio_band,
                    )
                    if reason is None and judge is not None and not judge(text, result.text):
                        reason = "judge_rejected"
                    case = _case(base, entry, gfam, result.params, seed, result, requested, level, reason)
                    if ladder_scan and reason is None:
                        stats.reached[entry["name"]][level] += 1
                    yield from _emit(case, stats)


def _case(
    base: dict, entry: dict, gfam, params: dict, seed: int, result, requested, level, reason: str | None
) -> dict:
    return {
        **base,
        "case_id": case_id(base["example_id"], entry, params, seed),
        "category": entry["category"],
        "name": entry["name"],
        "family": entry["family"],
        "graded_family": gfam.name if gfam else None,
        "version": entry["version"],
        "params": params,
        "seed": seed,
        "expectation": entry["expectation"],
        "perturbed": result.text if result is not None else None,
        "magnitude": result.magnitude if result is not None else None,
        "requested_level": requested,
        "level": level,
        "gate": "pass" if reason is None else "rejected",
        "reason": reason,
    }


def _emit(case: dict, stats: SuiteStats) -> Iterator[dict]:
    stats.cases += 1
    if case["gate"] == "pass":
        stats.passed += 1
    else:
        stats.rejected[case["reason"]] += 1
    yield case


def write_suite(
    examples_path: str, out_path: str, rejected_path: str | None = None, **options: Any
) -> SuiteStats:
    """Stream ``examples_path`` into ``out_path`` (passing cases) and ``rejected_path``
    (default ``<out>.rejected.jsonl``), both written atomically; a summary goes to
    ``<out>.summary.json``. Returns the counts."""
    rejected_path = rejected_path or _sibling(out_path, ".rejected.jsonl")
    stats = SuiteStats()
    with AtomicJsonl(out_path) as good, AtomicJsonl(rejected_path) as bad:
        for case in build_suite(read_records(examples_path), stats=stats, **options):
            (good if case["gate"] == "pass" else bad).write(case)
    with open(_sibling(out_path, ".summary.json"), "w", encoding="utf-8") as fh:
        json.dump(stats.to_dict(), fh, indent=2, sort_keys=True)
        fh.write("\n")
    return stats


def _sibling(path: str, suffix: str) -> str:
    stem = path[:-6] if path.endswith(".jsonl") else path
    return stem + suffix


def parse_seeds(raw: str) -> list[int]:
    """``"0,1,2"`` -> ``[0, 1, 2]``."""
    try:
        return [int(s) for s in raw.split(",") if s.strip()]
    except ValueError:
        raise InvalidParams(f"--seeds {raw!r}: expected comma-separated integers", field="seeds") from None
