"""The regression gate (`perturber compare`) and thresholds on one run (`report --fail-if`): exact
values on hand-built runs, the CLI's exit codes and CI summary, and the GitHub Actions example."""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("text_to_num")

from perturber import cli
from perturber.errors import InvalidParams
from perturber.robustness import stats, thresholds
from perturber.robustness.compare import Gate, compare
from perturber.robustness.report import aggregate

ROOT = pathlib.Path(__file__).resolve().parent.parent


def write_run(path, model, originals, cases):
    """A results file: ``originals`` example -> sim; ``cases`` (key, example, name, sim, level)."""
    rows = [{"kind": "original", "key": f"orig:{e}", "example_id": e, "sim": s, "answer": 1, "model": model}
            for e, s in originals.items()]  # fmt: skip
    rows += [
        {"kind": "case", "key": key, "case_id": key, "example_id": e, "name": name, "family": "character",
         "graded_family": "Input Quality", "expectation": "invariant", "level": level, "magnitude": 0.1,
         "sim": sim, "original_sim": originals[e], "original": "q", "perturbed": "Q", "model": model}
        for key, e, name, sim, level in cases
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


EXAMPLES = [f"e{i}" for i in range(1, 21)]


@pytest.fixture
def runs(tmp_path):
    """Baseline right on e1..e18; the candidate breaks e1..e14 under `zero_width`, improves e19."""
    originals = {e: 1.0 if i < 18 else 0.0 for i, e in enumerate(EXAMPLES)}
    base = [(f"z{e}", e, "zero_width", originals[e], 2) for e in EXAMPLES]
    base += [(f"u{e}", e, "upper_case", originals[e], 3) for e in EXAMPLES]
    cand = [
        (f"z{e}", e, "zero_width", 0.0 if i < 14 or e == "e20" else 1.0, 2) for i, e in enumerate(EXAMPLES)
    ]
    cand += [(f"u{e}", e, "upper_case", originals[e], 3) for e in EXAMPLES]
    cand.append(("only-candidate", "e1", "upper_case", 1.0, 3))
    return (
        write_run(tmp_path / "base.jsonl", "m", originals, base),
        write_run(tmp_path / "cand.jsonl", "m", originals, cand),
    )


def row(data, name):
    return next(r for r in data["rows"] if r["name"] == name)


def bootstrap_by_hand(per_example, replicates, seed):
    """The percentile interval of sum(num)/sum(den) over resampled examples, recomputed here."""
    import random

    import numpy as np

    rng = random.Random(seed)
    values = []
    for _ in range(replicates):
        picks = rng.choices(range(len(per_example)), k=len(per_example))
        values.append(sum(per_example[i][0] for i in picks) / sum(per_example[i][1] for i in picks))
    return [round(float(v), 12) for v in np.percentile(values, [2.5, 97.5])]


def test_pairs_two_runs_case_by_case_with_exact_values(runs):
    data = compare(*runs, gate=Gate(min_n=5, replicates=500, seed=7))
    z = row(data, "zero_width")
    assert (z["n"], z["regressed"], z["improved"]) == (20, 14, 1)
    assert z["baseline_accuracy"] == 18 / 20 and z["candidate_accuracy"] == 5 / 20
    assert z["drop"] == pytest.approx(13 / 20)
    # 14 examples worse, 1 better: p = 2 * P(X <= 1), X ~ Binomial(15, 1/2) = 2 * 16 / 2**15
    assert z["test"]["p"] == 32 / 2**15 == 0.0009765625
    # Holm over the 6 tested rows (originals, 2 perturbations, family, 2 family x level cells)
    tested = [r["test"]["p"] for r in data["rows"]]
    assert len(tested) == 6 and z["test"]["p_adjusted"] == 6 * z["test"]["p"]
    assert z["test"]["p_adjusted"] == stats.holm(tested)[data["rows"].index(z)]
    # broken rate: baseline 0 of 20, candidate 14 of 20 (e19's original was wrong)
    assert (z["baseline_broken_rate"], z["candidate_broken_rate"]) == (0.0, 14 / 20)
    # the drop's interval: examples (in sorted order) resampled, seed 7, 500 resamples, one case each
    drop = {e: float(i < 14) - float(e == "e19") for i, e in enumerate(EXAMPLES)}
    assert z["drop_ci"] == bootstrap_by_hand([(drop[e], 1) for e in sorted(EXAMPLES)], 500, 7) == [0.4, 0.9]
    assert row(data, "upper_case")["drop"] == 0.0 and row(data, "unperturbed originals")["drop"] == 0.0
    assert data["shared"] == 40 and data["only_candidate"] == 1 and data["only_baseline"] == 0


def test_a_regression_needs_significance_and_the_minimum_effect(runs):
    regressed = ["zero_width", "Input Quality", "Input Quality L2"]
    assert compare(*runs, gate=Gate(min_n=5, replicates=200))["regressions"] == regressed
    assert compare(*runs, gate=Gate(min_n=5, correction="bh", replicates=200))["regressions"] == regressed
    assert compare(*runs, gate=Gate(min_n=5, min_effect=0.66, replicates=200))["regressions"] == []
    assert compare(*runs, gate=Gate(min_n=5, alpha=0.005, replicates=200))["regressions"] == []
    small = compare(*runs, gate=Gate(min_n=21, replicates=200))  # only the family has 21 cases
    assert small["regressions"] == ["Input Quality"] and row(small, "zero_width")["status"] == "n too small"


def test_compare_cli_exit_codes_summary_and_files(runs, tmp_path, capsys, monkeypatch):
    summary = tmp_path / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    argv = ["compare", *runs, "-o", str(tmp_path / "cmp"), "--min-n", "5", "--bootstrap", "200"]
    assert cli.main([*argv, "--fail-on-regression"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("### ❌ Robustness regression: 3 of 6 rows regress (m vs m, 40 shared cases)")
    assert "The suites differ: 0 cases only in the baseline, 1 only in the candidate" in out
    assert summary.read_text(encoding="utf-8") == out + "\n"
    assert cli.main(argv) == 0  # without --fail-on-regression the gate only reports
    capsys.readouterr()
    for name in ("compare.md", "compare.html", "compare.json"):
        assert (tmp_path / "cmp" / name).stat().st_size > 0
    assert cli.main(["compare", runs[0], runs[0], "-o", str(tmp_path / "same"), "--fail-on-regression"]) == 0
    assert capsys.readouterr().out.startswith("### ✅ No robustness regression")


def test_compare_restricted_to_a_suite_and_bad_inputs(runs, tmp_path, capsys):
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        "".join(json.dumps({"case_id": f"u{e}", "gate": "pass"}) + "\n" for e in EXAMPLES), "utf-8"
    )
    data = compare(*runs, cases=str(cases), gate=Gate(min_n=5, replicates=200))
    assert data["shared"] == 20 and data["regressions"] == [] and data["suite_restricted"]
    cases.write_text(json.dumps({"case_id": "nothing", "gate": "pass"}) + "\n", "utf-8")
    with pytest.raises(InvalidParams, match="share no answered case"):
        compare(*runs, cases=str(cases))
    for argv, needle in (
        (["compare", runs[0], "-o", "x"], "the following arguments are required"),
        (["compare", *runs, "-o", "x", "--alpha", "2"], "--alpha must be in (0, 1)"),
        (["compare", *runs, "-o", "x", "--min-effect", "-1"], "--min-effect must be in [0, 1]"),
        (["compare", str(cases), runs[1], "-o", "x"], "is not a result"),
    ):
        assert cli.main(argv) == 2
        err = capsys.readouterr().err
        assert needle in err and err.count("\n") == 1


# -- thresholds on one run ------------------------------------------------------------------------


def test_fail_if_expressions_parse_or_say_why_not():
    t = thresholds.parse(" collapse_point [Context Load] <= 2 ")
    assert (t.metric, t.qualifier, t.op, t.value) == ("collapse_point", "Context Load", "<=", 2.0)
    for bad in ("broken>0.1", "broken_rate=>0.1", "broken_rate>", "accuracy<abc"):
        with pytest.raises(InvalidParams, match="expected METRIC"):
            thresholds.parse(bad)


def test_fail_if_checks_exact_values(runs):
    data = aggregate([runs[1]])
    check = lambda *exprs: thresholds.check([thresholds.parse(e) for e in exprs], data)
    # the candidate: 14 broken of 41 cases (zero_width 14 of 20, upper_case 0 of 21); originals 18 of 20
    assert check("broken_rate>0.34") == ["broken_rate>0.34: all perturbations has 0.3415"]
    assert check("broken_rate>0.35", "broken_rate[upper_case]>0") == []
    assert check("broken_rate[zero_width]>=0.5") == ["broken_rate[zero_width]>=0.5: zero_width has 0.7000"]
    assert check("flip_rate[zero_width]>0.75") == ["flip_rate[zero_width]>0.75: zero_width has 0.7778"]
    assert check("accuracy<0.95") == ["accuracy<0.95: the originals has 0.9000"]
    assert check("errors>0", "breaking>1") == []
    with pytest.raises(InvalidParams, match="no perturbation 'nope'"):
        check("broken_rate[nope]>0")


def test_report_fail_if_exit_codes(runs, tmp_path, capsys):
    argv = [
        "report",
        runs[1],
        "-o",
        str(tmp_path / "rep"),
        "--no-plots",
        "--bootstrap",
        "100",
        "--min-n",
        "5",
    ]
    assert cli.main([*argv, "--fail-if", "broken_rate>0.05", "accuracy<0.5"]) == 1
    err = capsys.readouterr().err
    assert "perturber: --fail-if m: broken_rate>0.05: all perturbations has 0.3415\n" in err
    assert "accuracy<0.5" not in err
    assert cli.main([*argv, "--fail-if", "broken_rate>0.5"]) == 0
    assert cli.main([*argv, "--fail-if", "nonsense"]) == 2


# -- the GitHub Actions example -------------------------------------------------------------------


@pytest.mark.slow
def test_the_ci_example_fails_a_planted_regression_and_passes_a_clean_candidate(tmp_path):
    yaml = pytest.importorskip("yaml")
    workflow = yaml.safe_load((ROOT / "examples" / "robustness-gate.yml").read_text(encoding="utf-8"))
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(tmp_path / "s.md")}
    env["PATH"] = f"{pathlib.Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    outcomes = {}
    for name, job in workflow["jobs"].items():
        steps = [
            re.sub(r"--port [0-9]+", "--port 0", s["run"])  # any free port: a parallel test may hold 8601
            for s in job["steps"]
            if "run" in s and "pip install" not in s["run"]
        ]
        job_env = {**env, **{k: str(v) for k, v in job.get("env", {}).items()}}
        work = tmp_path / name  # a job's runner starts from a fresh checkout, with no cache
        shutil.copytree(ROOT / "examples", work / "examples")
        job_env["XDG_CACHE_HOME"] = str(work / "cache")
        done = [subprocess.run(["bash", "-e", "-c", step], cwd=work, env=job_env, capture_output=True, text=True)
                for step in steps]  # fmt: skip
        outcomes[name] = [d.returncode for d in done]
        assert all(code == 0 for code in outcomes[name][:-1]), [d.stderr for d in done]
    assert outcomes["clean-candidate"][-1] == 0
    assert outcomes["planted-regression"][-1] == 1
    summary = (tmp_path / "s.md").read_text(encoding="utf-8")
    assert "✅ No robustness regression" in summary and "❌ Robustness regression" in summary
    assert "| perturbation | extra_whitespace |" in summary
