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
from ..records import AtomicJsonl, Progress, read_records
from . import gates, ladder
from . import select as select_mod
from .facts import entry_facts

UNPERTURBED_LEVEL = 0
FLAG_RATE = 0.5  # an entry rejected at least this often is flagged as not usable on the data


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


def _choices(entry: dict, pname: str) -> list:
    spec = next((p for p in entry.get("params", []) if p["name"] == pname), None)
    return list(spec.get("choices", [])) if spec else []


def measured_level(
    gfam: select_mod.GradedFamily | None,
    entry: dict,
    original: str,
    perturbed: str,
    magnitude: float | None,
    params: dict,
    bands: dict,
) -> int | None:
    """The level of a perturbed text: by the entry's level rule (``entry_facts``), else by the
    magnitude bands of its graded (or catalog) family."""
    if perturbed == original:
        return UNPERTURBED_LEVEL
    rule = entry_facts(entry["name"], entry["category"]).level_rule
    if rule == "ratio":
        return ladder.level_from_edges(len(perturbed) / max(len(original), 1), ladder.RATIO_BANDS)
    if rule and rule.startswith("param:"):
        value: Any = params.get(rule[6:])
        return int(value) if ladder.is_number(value) and 1 <= value <= 5 else None
    if rule and rule.startswith("choice:"):
        choices = _choices(entry, rule[7:])
        value = params.get(rule[7:])
        return choices.index(value) + 1 if value in choices and choices.index(value) < 5 else None
    return ladder.level_for(magnitude, gfam.name if gfam else entry["family"], bands)


def _variants(entry: dict) -> list[dict]:
    """The parameter variants a ladder tries: the choices of a ``choice:`` level rule
    (knowledge_boundary's five boundary types), else the intensity grid."""
    rule = entry_facts(entry["name"], entry["category"]).level_rule or ""
    if rule.startswith("choice:") and _choices(entry, rule[7:]):
        return [{rule[7:]: c} for c in _choices(entry, rule[7:])[:5]]
    return ladder.grid_for(entry)


def _ratio_band(entry: dict, params: dict) -> tuple[int | None, tuple[float, float] | None]:
    """For a ``ratio`` level rule: the level its requested ratio asks for and that level's band."""
    if entry_facts(entry["name"], entry["category"]).level_rule != "ratio" or not params.get("ratio"):
        return None, None
    level = ladder.level_from_edges(params["ratio"], ladder.RATIO_BANDS)
    if not level:
        return level, None
    edges = (1.0, *ladder.RATIO_BANDS)
    return level, (edges[level - 1], edges[level])


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
    per_entry: dict = field(default_factory=lambda: defaultdict(Counter))
    exported: set = field(default_factory=set)

    def count(self, case: dict) -> None:
        """Count one emitted case."""
        self.cases += 1
        tally = self.per_entry[case["name"]]
        tally["cases"] += 1
        if case["gate"] == "pass":
            self.passed += 1
        else:
            self.rejected[case["reason"]] += 1
            tally["rejected"] += 1
            tally[f"reason:{case['reason']}"] += 1

    def rejection(self) -> dict:
        """Per entry: cases, rejected, rate and reasons (``cases.summary.json`` ``rejection``)."""
        out = {}
        for name, tally in sorted(self.per_entry.items()):
            reasons = {k[7:]: v for k, v in tally.items() if k.startswith("reason:")}
            out[name] = {
                "cases": tally["cases"],
                "rejected": tally["rejected"],
                "rate": round(tally["rejected"] / tally["cases"], 4),
                "reasons": dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))),
            }
        return out

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
        rejection = self.rejection()
        return {
            "examples": self.examples,
            "cases": self.cases,
            "passed": self.passed,
            "rejected": dict(sorted(self.rejected.items())),
            "rejection": rejection,
            "flagged": flagged(rejection),
            "ladder_unreachable": {k: v for k, v in sorted(unreachable.items()) if v},
            "unavailable": self.unavailable,
            "exported_case_ids": sorted(self.exported),
        }


def flagged(rejection: dict, threshold: float = FLAG_RATE) -> list[dict]:
    """Entries rejected at least ``threshold`` of the time, with a one-line message.

    >>> flagged({"leetspeak": {"cases": 10, "rejected": 9, "rate": 0.9,
    ...                        "reasons": {"numbers_changed": 9}}})[0]["message"]
    'leetspeak is not usable on numeric text: 90 % of its cases were rejected (mostly numbers_changed)'
    """
    out = []
    for name, row in rejection.items():
        if not row["cases"] or row["rate"] < threshold:
            continue
        top = next(iter(row["reasons"]), "?")
        share = f"{round(row['rate'] * 100)} % of its cases"
        if top.startswith("error:"):
            message = f"{name} could not run: {share} failed ({top})"
        else:
            what = "numeric text" if top == "numbers_changed" else "this data"
            message = f"{name} is not usable on {what}: {share} were rejected (mostly {top})"
        out.append({"name": name, "rate": row["rate"], "message": message})
    return sorted(out, key=lambda f: (-f["rate"], f["name"]))


@dataclass
class _Builder:
    """The options of one suite and the steps that turn an example into its cases."""

    field: str
    answer_field: str | None
    id_field: str | None
    seeds: list[int]
    per_example: int | None
    ladder_scan: bool
    bands: dict
    judge: Callable[[str, str], bool] | None
    stats: SuiteStats
    items: list
    digest: str

    def example(self, index: int, record: dict) -> tuple[dict, list]:
        """The fields every case of this example shares, and the (entry, family) pairs to run."""
        text = record.get(self.field)
        if not isinstance(text, str):
            raise InvalidParams(f"example {index}: no string field {self.field!r}", field="field", line=index)
        example_id = (
            str(record[self.id_field])
            if self.id_field and record.get(self.id_field) is not None
            else str(index)
        )
        items = self.items
        if self.per_example is not None and self.per_example < len(items):
            picks = sorted(
                _harness_rng(self.seeds[0], example_id).sample(range(len(items)), self.per_example)
            )
            items = [items[i] for i in picks]
        base = {
            "example_id": example_id,
            "original": text,
            "input_field": self.field,
            "id_field": self.id_field,
            "answer_field": self.answer_field,
            "answer": record.get(self.answer_field) if self.answer_field else None,
            "example": {k: v for k, v in record.items() if k != self.field},
            "catalog_digest": self.digest,
        }
        provenance = record.get("provenance")
        if isinstance(provenance, dict) and provenance.get("case_id"):
            base["exported_case_id"] = provenance["case_id"]
            self.stats.exported.add(provenance["case_id"])
        return base, items

    def entry_cases(self, base: dict, entry: dict, gfam) -> Iterator[dict]:
        """Every case of one entry on one example: per seed, one variant (or one per level)."""
        for seed in self.seeds if entry["seed_sensitive"] else self.seeds[:1]:
            if self.ladder_scan:
                self.stats.attempted[entry["name"]] += 1
            kept_levels: set[int] = set()
            for params in _variants(entry) if self.ladder_scan else [{}]:
                case = self.variant_case(base, entry, gfam, params, seed)
                if case["reason"] and case["reason"].startswith("error:"):
                    yield case
                    break
                level = case["level"]
                if self.ladder_scan:
                    if not level or level in kept_levels:
                        continue
                    kept_levels.add(level)
                    if case["gate"] == "pass":
                        self.stats.reached[entry["name"]][level] += 1
                yield case

    def variant_case(self, base: dict, entry: dict, gfam, params: dict, seed: int) -> dict:
        """Apply one parameter variant and gate it."""
        text = base["original"]
        try:
            result = core.apply(text, entry["name"], params, seed, entry["category"])
        except PerturberError as err:
            return _case(
                base, entry, gfam, params, seed, None, None, None, gates.Verdict(f"error:{err.code}")
            )
        level = measured_level(gfam, entry, text, result.text, result.magnitude, result.params, self.bands)
        requested = level if self.ladder_scan else None
        ratio_level, band = _ratio_band(entry, result.params)
        if ratio_level is not None:
            requested = ratio_level
        verdict = gates.check_gate(
            original=text,
            perturbed=result.text,
            applied=result.applied,
            reason=result.reason,
            expectation=result.expectation,
            name=entry["name"],
            category=entry["category"],
            details=result.details,
            params=result.params,
            ratio_band=band,
        )
        if verdict.reason is None and self.judge is not None:
            same = self.judge(text, result.text)
            if same == (result.expectation == "refusal"):
                verdict = gates.Verdict("judge_rejected")
        return _case(base, entry, gfam, result.params, seed, result, requested, level, verdict)


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
    if per_example is not None and per_example < 1:
        raise InvalidParams("--per-example must be >= 1", field="per_example")
    the_plan = select_mod.plan(select, in_scope=in_scope, preset=preset, catalog=catalog)
    stats = stats if stats is not None else SuiteStats()
    stats.unavailable = the_plan.unavailable
    builder = _Builder(
        field=field,
        answer_field=answer_field,
        id_field=id_field,
        seeds=[core.check_seed(s) for s in seeds] or [0],
        per_example=per_example,
        ladder_scan=ladder_scan,
        bands=bands or ladder.DEFAULT_BANDS,
        judge=judge,
        stats=stats,
        items=the_plan.items,
        digest=registry.catalog_digest(),
    )
    for index, record in enumerate(records, 1):
        base, items = builder.example(index, record)
        stats.examples += 1
        for entry, gfam in items:
            for case in builder.entry_cases(base, entry, gfam):
                stats.count(case)
                yield case


def _case(
    base: dict, entry: dict, gfam, params: dict, seed: int, result, requested, level, verdict: gates.Verdict
) -> dict:
    case = {
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
        "gate": "pass" if verdict.reason is None else "rejected",
        "reason": verdict.reason,
    }
    if verdict.detail:
        case["gate_detail"] = verdict.detail
    return case


def write_suite(
    examples_path: str,
    out_path: str,
    rejected_path: str | None = None,
    *,
    progress: bool = False,
    **options: Any,
) -> SuiteStats:
    """Stream ``examples_path`` into ``out_path`` (passing cases) and ``rejected_path``
    (default ``<out>.rejected.jsonl``), both written atomically; a summary goes to
    ``<out>.summary.json`` (:func:`summary_path`). ``progress``: a bar over the examples on
    stderr. Returns the counts."""
    rejected_path = rejected_path or _sibling(out_path, ".rejected.jsonl")
    stats = SuiteStats()
    bar = Progress(sum(1 for _ in read_records(examples_path)) if progress else 0, progress)
    with AtomicJsonl(out_path) as good, AtomicJsonl(rejected_path) as bad:
        for case in build_suite(read_records(examples_path), stats=stats, **options):
            (good if case["gate"] == "pass" else bad).write(case)
            if stats.examples > bar.done + 1:
                bar.update(stats.examples - 1 - bar.done)
    bar.update(stats.examples - bar.done)
    with open(summary_path(out_path), "w", encoding="utf-8") as fh:
        json.dump(stats.to_dict(), fh, indent=2, sort_keys=True)
        fh.write("\n")
    return stats


def summary_path(cases_path: str) -> str:
    """``cases.jsonl`` -> ``cases.summary.json``."""
    return _sibling(cases_path, ".summary.json")


def _sibling(path: str, suffix: str) -> str:
    stem = path[:-6] if path.endswith(".jsonl") else path
    return stem + suffix


def parse_seeds(raw: str) -> list[int]:
    """``"0,1,2"`` -> ``[0, 1, 2]``."""
    try:
        return [int(s) for s in raw.split(",") if s.strip()]
    except ValueError:
        raise InvalidParams(f"--seeds {raw!r}: expected comma-separated integers", field="seeds") from None
