"""Read results files into per-example sums: the data every statistic of a report is computed from.

A result supersedes an error recorded for the same key (a re-run fixed it), and the first result of
a key counts (a key answered twice is counted once, as ``duplicates``). Per cell (a perturbation, a
family, a family x level) and per example, :class:`Sums` adds up the case's correctness ``sim``,
its original's correctness, its magnitude and the flips.

>>> run = ModelRun("m")
>>> run.add({"kind": "original", "key": "orig:1", "example_id": "1", "sim": 1.0, "answer": 4})
>>> run.add({"kind": "case", "key": "c1", "error": {"code": "model_timeout"}})
>>> run.add({"kind": "case", "key": "c1", "case_id": "c1", "example_id": "1", "name": "x",
...          "family": "f", "expectation": "invariant", "level": 2, "magnitude": 0.1, "sim": 0.0,
...          "original_sim": 1.0, "original": "2+2?", "perturbed": "2 + 2?"})
>>> dict(run.errors), run.superseded, run.cells[("perturbation", "native", "x")]["1"].broken
({}, 1, 1)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from pathlib import Path

from ..errors import InvalidParams
from ..records import read_records
from .schema import Case, Result, RunEnd, RunHeader
from .text import diff

FAIL_BELOW = 0.5  # a case (or an original) is correct when its sim >= 0.5
N_EXAMPLES = 3  # broken cases kept per perturbation to show


@dataclass
class Sums:
    """One example's contribution to one cell."""

    n: float = 0.0
    sim: float = 0.0
    orig: float = 0.0
    mag: float = 0.0
    sim_mag: float = 0.0
    orig_mag: float = 0.0
    broken: int = 0
    repaired: int = 0
    failures: int = 0
    failures_orig_wrong: int = 0
    orig_correct: int = 0

    def add(self, sim: float, orig: float, mag: float) -> None:
        was, now = orig >= FAIL_BELOW, sim >= FAIL_BELOW
        self.n += 1
        self.sim += sim
        self.orig += orig
        self.mag += mag
        self.sim_mag += sim * mag
        self.orig_mag += orig * mag
        self.broken += was and not now
        self.repaired += now and not was
        self.failures += not now
        self.failures_orig_wrong += not now and not was
        self.orig_correct += was


SUM_FIELDS = tuple(f.name for f in fields(Sums))


def scoring_of(expectation: str | None) -> str:
    """How a case is scored: ``answer`` (invariant: paired with its original), ``refusal`` (refusal
    accuracy only) or ``directional`` (did the answer move as stated).

    >>> scoring_of("invariant"), scoring_of("refusal")
    ('answer', 'refusal')
    """
    return {"refusal": "refusal", "directional": "directional"}.get(expectation or "", "answer")


def cell_keys(r: dict) -> list[tuple]:
    """The cells a case result counts in: its perturbation, its family (by scoring) and, when it
    has a level, its family x level.

    >>> cell_keys({"name": "x", "family": "f", "expectation": "invariant", "level": 2})
    [('perturbation', 'native', 'x'), ('family', 'f', 'answer'), ('level', 'f', 'answer', 2)]
    """
    family = r.get("graded_family") or r.get("family") or "?"
    scoring = scoring_of(r.get("expectation"))
    level = r.get("level")
    keys: list[tuple] = [
        ("perturbation", r.get("category", "native"), r["name"]),
        ("family", family, scoring),
    ]
    if isinstance(level, int) and 1 <= level <= 5:
        keys.append(("level", family, scoring, level))
    return keys


def total(per_example: dict[str, Sums]) -> Sums:
    """The sums of a cell over its examples."""
    out = Sums()
    for sums in per_example.values():
        for name in SUM_FIELDS:
            setattr(out, name, getattr(out, name) + getattr(sums, name))
    return out


@dataclass
class ModelRun:
    """The results of one model, streamed in record by record."""

    name: str
    originals: dict[str, float] = field(default_factory=dict)
    gold: Counter = field(default_factory=Counter)
    exported: dict[str, float] = field(default_factory=dict)
    cells: dict[tuple, dict[str, Sums]] = field(default_factory=dict)
    meta: dict[tuple, dict] = field(default_factory=dict)
    examples: dict[tuple, list] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    seen: set = field(default_factory=set)
    superseded: int = 0
    duplicates: int = 0
    headers: list[dict] = field(default_factory=list)
    ends: list[dict] = field(default_factory=list)
    sources: Counter = field(default_factory=Counter)
    sampled: dict[str, list] = field(default_factory=dict)
    keep: bool = False  # keep every case's (example, sim, original sim, magnitude, cells) in ``kept``
    kept: dict[str, tuple] = field(default_factory=dict)

    def add(self, r: dict) -> None:
        if r.get("kind") == "run":
            self.headers.append(r)
            return
        if r.get("kind") == "run_end":
            self.ends.append(r)
            return
        key = str(r.get("key"))
        if "error" in r:
            if key not in self.seen:
                self.errors[key] = r["error"].get("code", "error")  # the latest error of a key
            return
        if key in self.seen:
            self.duplicates += 1
            return
        self.seen.add(key)
        if self.errors.pop(key, None) is not None:
            self.superseded += 1
        self.sources.update(r.get("reply_sources") or ())
        if r.get("agreement") is not None:
            # per example: [cases, sum of agreement, sum of mean sim, unanimous] (originals: "orig:<id>")
            where = ("orig:" if r["kind"] == "original" else "") + r["example_id"]
            cell = self.sampled.setdefault(where, [0, 0.0, 0.0, 0])
            cell[0] += 1
            cell[1] += r["agreement"]
            cell[2] += r["mean_sim"]
            cell[3] += r["agreement"] == 1
        if r.get("kind") == "original":
            self._original(r)
        else:
            self._case(r)

    def _original(self, r: dict) -> None:
        self.originals[r["example_id"]] = float(r["sim"])
        self.gold["gold" if r.get("answer") not in (None, "") else "none"] += 1
        if r.get("exported_case_id"):
            self.exported[r["exported_case_id"]] = float(r["sim"])

    def _case(self, r: dict) -> None:
        sim, orig = float(r["sim"]), float(r.get("original_sim", 1.0))
        mag = float(r.get("magnitude") or 0.0)
        keys = cell_keys(r)
        pkey = keys[0]
        if self.keep:
            self.kept[r["key"]] = (r["example_id"], sim, orig, mag, keys)
        self.pair(keys, r["example_id"], sim, orig, mag)
        if pkey not in self.meta:
            self.meta[pkey] = {
                "name": r["name"],
                "category": r.get("category", "native"),
                "family": r.get("family"),
                "graded_family": r.get("graded_family"),
                "expectation": r.get("expectation"),
            }
            self.examples[pkey] = []
        shown = self.examples[pkey]
        if orig >= FAIL_BELOW > sim and len(shown) < N_EXAMPLES:
            shown.append(_shown(r))

    def pair(self, cells: list[tuple], example_id: str, sim: float, reference: float, mag: float) -> None:
        """Add one paired observation to ``cells``: a case's correctness against its reference's
        (here the same example's original; comparing two runs, the baseline run's same case)."""
        for cell in cells:
            self.cells.setdefault(cell, {}).setdefault(example_id, Sums()).add(sim, reference, mag)

    def standing_errors(self) -> dict[str, int]:
        """Errors no later result superseded, by code (most first)."""
        return dict(Counter(self.errors.values()).most_common())


def _shown(r: dict) -> dict:
    return {
        "case_id": r["case_id"],
        "example_id": r["example_id"],
        "original": r["original"],
        "perturbed": r["perturbed"],
        "diff": diff(r["original"], r["perturbed"]),
        "output": (r.get("output") or "")[:300],
        "original_output": (r.get("original_output") or "")[:300],
        "extracted": r.get("extracted"),
        "original_extracted": r.get("original_extracted"),
    }


_KINDS = {"original": Result, "case": Result, "run": RunHeader, "run_end": RunEnd, "inflight": None}


def _check(r: dict, path: str, index: int) -> None:
    """Raise a clear error unless ``r`` is a record of a results file (its schema checked)."""
    kind = r.get("kind")
    if kind not in _KINDS:
        raise InvalidParams(
            f"{path}: record {index} is not a result (no 'kind'); is this a cases "
            "file? Run `perturber evaluate` on it first",
            field="results",
        )
    schema = _KINDS[kind]
    if schema is None or "error" in r:
        return
    schema.from_dict(r, f"{path}: record {index} ({kind})")
    if kind == "case":
        Case.from_dict(r, f"{path}: record {index} (case)")


def load(paths: Iterable[str], keep: bool = False) -> dict[str, ModelRun]:
    """The runs of one or more results files (one model per file, or per ``model`` field);
    ``keep``: also keep every case (:attr:`ModelRun.kept`), to pair two runs case by case."""
    runs: dict[str, ModelRun] = {}
    owners: dict[str, str] = {}  # run id -> model
    for path in paths:
        for index, r in enumerate(read_records(path), 1):
            _check(r, path, index)
            if r["kind"] == "inflight":
                continue
            name = r.get("model") or Path(path).stem
            if r["kind"] == "run_end":
                name = owners.get(r["run"], name)
            elif r["kind"] == "run":
                owners[r["run"]] = name
            runs.setdefault(name, ModelRun(name, keep=keep)).add(r)
    runs = {name: run for name, run in runs.items() if run.seen or run.errors}
    if not runs:
        raise InvalidParams("no results to report", field="results")
    return runs
