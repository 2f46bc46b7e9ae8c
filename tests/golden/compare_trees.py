"""Compare the outputs of every native deterministic entry between another source tree and this one.

    git worktree add /tmp/old <commit>
    python tests/golden/compare_trees.py /tmp/old [--texts eval/corpus] [--texts more.json]

Both trees run in their own subprocess (``PYTHONPATH`` = the tree) over the golden cases (the
corpus of ``corpus.json`` x parameter sets x seeds) and over any extra texts given with ``--texts``
(a ``.json`` list of strings, or a folder of ``.txt`` files whose items are separated by ``%%``
lines), under the same parameter sets and seeds. It prints one line per entry whose outputs differ
(cases changed, old and new ``version``) and exits 1 when an entry's output changed while its
``version`` did not move: that entry needs a version bump and a CHANGELOG line. A test run on a
plain clone never needs it; it is the release check of the output contract.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent

#: Run inside each tree: reads ``[[name, text, params, seed], ...]`` on stdin, writes the versions
#: of the native entries and one ``[text, reason, edits]`` (or ``["error", code]``) per case.
WORKER = r"""
import json, sys
import perturber
from perturber import registry
cases = json.load(sys.stdin)
versions = {s.name: s.version for s in registry.entries() if s.category == "native"}
out = []
for name, text, params, seed in cases:
    if name not in versions:
        out.append(["missing"])
        continue
    try:
        r = perturber.apply(text, name, params, seed)
        out.append([r.text, r.reason, r.edits])
    except perturber.PerturberError as err:
        out.append(["error", err.code])
json.dump({"versions": versions, "outputs": out}, sys.stdout)
"""


def extra_texts(sources: list[str]) -> list[str]:
    """The texts of each ``--texts`` source, in order."""
    texts: list[str] = []
    for source in sources:
        path = pathlib.Path(source)
        if path.is_dir():
            for item in sorted(path.glob("*.txt")):
                body = item.read_text(encoding="utf-8")
                texts.extend(t.strip("\n") for t in body.split("\n%%\n") if t.strip())
        else:
            texts.extend(json.loads(path.read_text(encoding="utf-8")))
    return texts


def all_cases(texts: list[str]) -> list[tuple[str, str, dict, int]]:
    """Every golden case of every entry, then the same parameter sets and seeds on ``texts``."""
    import harness

    cases = []
    for spec in harness.deterministic_entries():
        cases.extend((spec.name, text, params, seed) for _, text, params, seed in harness.cases(spec))
        seeds = harness.SEEDS if spec.seed_sensitive else (0,)
        for params in harness.param_sets(spec).values():
            cases.extend((spec.name, text, params, seed) for text in texts for seed in seeds)
    return cases


def run_tree(tree: pathlib.Path, cases: list) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", WORKER],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        cwd=tree,
        env=env,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"{tree}: the worker failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def compare(old: dict, new: dict, cases: list) -> tuple[dict[str, int], list[str]]:
    """Changed-case counts per entry, and the entries that changed without a version bump."""
    changed: dict[str, int] = {}
    for case, before, after in zip(cases, old["outputs"], new["outputs"]):
        if before != ["missing"] and before != after:
            changed[case[0]] = changed.get(case[0], 0) + 1
    unbumped = [n for n in changed if old["versions"].get(n) == new["versions"][n]]
    return changed, unbumped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("old_tree", type=pathlib.Path, help="a checkout of the earlier version")
    parser.add_argument(
        "--texts", action="append", default=[], help="extra texts (.json list or folder of .txt)"
    )
    args = parser.parse_args(argv)
    cases = all_cases(extra_texts(args.texts))
    old, new = run_tree(args.old_tree.resolve(), cases), run_tree(HERE.parents[1], cases)
    changed, unbumped = compare(old, new, cases)
    print(f"{len(cases)} cases over {len(new['versions'])} entries")
    for name in sorted(changed):
        flag = "  NEEDS A VERSION BUMP" if name in unbumped else ""
        versions = f"v{old['versions'].get(name)} -> v{new['versions'][name]}"
        print(f"{name}: {changed[name]} case(s) changed, {versions}{flag}")
    return 1 if unbumped else 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    sys.exit(main())
