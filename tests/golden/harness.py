"""Golden files for the deterministic tier: fixed corpus x parameter sets x seeds {0, 1, 7}.

One file per entry, ``tests/golden/<category>/<name>.json``, recording the entry's version and
every output. An output change fails the golden test; regenerating is refused unless the
entry's version was bumped (``python tests/golden/harness.py --regenerate``).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

import perturber
from perturber import registry

HERE = pathlib.Path(__file__).parent
SEEDS = (0, 1, 7)
CORPUS: dict[str, str] = json.loads((HERE / "corpus.json").read_text())


def deterministic_entries() -> list[registry.Perturbation]:
    # The brittlebench tier is checked against the engine's vectors instead (test_brittlebench.py).
    return [s for s in registry.entries() if not s.model_backed and s.category == "native"]


def param_sets(spec: registry.Perturbation) -> dict[str, dict]:
    """``default``, the intensity at its maximum, and every non-default choice."""
    sets: dict[str, dict] = {"default": {}}
    for p in spec.params:
        if p.name == spec.intensity and p.le is not None and p.le != p.default:
            sets[f"{p.name}=max"] = {p.name: p.le}
        if p.choices is not None:
            for c in p.choices:
                if c != p.default:
                    sets[f"{p.name}={c}"] = {p.name: c}
    return sets


def cases(spec: registry.Perturbation):
    """Every (case id, text, params, seed) of one entry, in a fixed order."""
    seeds = SEEDS if spec.seed_sensitive else (0,)
    for set_name, params in param_sets(spec).items():
        for corpus_id, text in CORPUS.items():
            for seed in seeds:
                yield f"{corpus_id}|{set_name}|{seed}", text, params, seed


def compute(spec: registry.Perturbation) -> dict:
    outputs = {}
    for case_id, text, params, seed in cases(spec):
        r = perturber.apply(text, spec.name, params, seed, spec.category)
        outputs[case_id] = {"text": r.text, "reason": r.reason, "edits": r.edits, "details": r.details}
    return {"name": spec.name, "category": spec.category, "version": spec.version, "outputs": outputs}


def path_for(spec: registry.Perturbation) -> pathlib.Path:
    return HERE / spec.category / f"{spec.name}.json"


def load(spec: registry.Perturbation) -> dict | None:
    path = path_for(spec)
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def differences(stored: dict, fresh: dict) -> list[str]:
    """Case ids whose stored and fresh outputs differ (missing or extra cases included)."""
    keys = sorted(set(stored["outputs"]) | set(fresh["outputs"]))
    return [k for k in keys if stored["outputs"].get(k) != fresh["outputs"].get(k)]


def only_new_cases(stored: dict, fresh: dict) -> bool:
    """True when every stored case still holds and ``fresh`` only adds cases (a corpus extension)."""
    return all(fresh["outputs"].get(k) == v for k, v in stored["outputs"].items())


def verdict(stored: dict | None, fresh: dict) -> str | None:
    """None when the golden file holds; otherwise what is wrong and what to do."""
    if stored is None:
        return "no golden file: run `python tests/golden/harness.py --regenerate`"
    changed = differences(stored, fresh)
    if not changed:
        if stored["version"] != fresh["version"]:
            return (
                f"version changed ({stored['version']} -> {fresh['version']}) but outputs did "
                "not: regenerate the golden file"
            )
        return None
    if stored["version"] == fresh["version"]:
        return (
            f"output changed without a version bump (still v{fresh['version']}) in "
            f"{len(changed)} case(s), first {changed[0]!r}: bump the entry's version"
        )
    return f"version bumped to v{fresh['version']}: regenerate the golden file"


def write(fresh: dict, spec: registry.Perturbation) -> None:
    path = path_for(spec)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(fresh, ensure_ascii=True, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--regenerate",
        action="store_true",
        help="write golden files that are missing or whose entry's version was bumped",
    )
    parser.add_argument(
        "--add-cases",
        action="store_true",
        help="after a corpus extension: add the new cases to golden files whose stored cases all hold",
    )
    parser.add_argument("names", nargs="*", help="only these entries")
    args = parser.parse_args(argv)
    refused = 0
    for spec in deterministic_entries():
        if args.names and spec.name not in args.names:
            continue
        fresh, stored = compute(spec), load(spec)
        problem = verdict(stored, fresh)
        if problem is None:
            continue
        bumped = stored is None or stored["version"] != spec.version
        extended = args.add_cases and stored is not None and only_new_cases(stored, fresh)
        if (args.regenerate and bumped) or extended:
            write(fresh, spec)
            print(f"wrote {path_for(spec).relative_to(HERE)}")
        else:
            refused += 1
            print(f"{spec.key}: {problem}", file=sys.stderr)
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
