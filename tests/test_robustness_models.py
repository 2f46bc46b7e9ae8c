"""Stochastic models (--samples), comparisons across models (reversals, Kendall's tau, the variance
decomposition), provenance and the typed records."""

import hashlib
import json
import pathlib

import pytest

pytest.importorskip("openai")
pytest.importorskip("text_to_num")

from test_robustness import TOY_SELECT, own_reply_cache, read, suite_file, toy  # noqa: F401 (a fixture)
from test_robustness_compare import write_run

import perturber
from evalkit.chat_server import Reply
from perturber import cli
from perturber.errors import InvalidParams
from perturber.robustness import rankings, stats
from perturber.robustness.evaluate import EndpointModel, evaluate, load_callable
from perturber.robustness.report import aggregate
from perturber.robustness.schema import Case, Result
from perturber.robustness.suite import write_suite

ROOT = pathlib.Path(__file__).resolve().parent.parent


# -- samples --------------------------------------------------------------------------------------


def random_digit(body):
    """A model answering a digit drawn from the request's seed and text."""
    text = body["messages"][-1]["content"]
    digest = hashlib.sha256(f"{body.get('seed')}\0{text}".encode()).digest()
    return Reply(content=f"#### {digest[0] % 10}")


def test_samples_against_a_random_endpoint_report_low_agreement(llm_server, tmp_path):
    cases = suite_file(tmp_path, TOY_SELECT)
    llm_server.script(default=random_digit)
    out = tmp_path / "r.jsonl"
    model = EndpointModel(llm_server.base_url, "m", api_key="", temperature=1.0)
    summary = evaluate(str(cases), model, out, samples=5, cache=_persistent(tmp_path))
    assert summary.calls == 18 * 5 == len(llm_server.requests)
    texts = {r.body["messages"][-1]["content"] for r in llm_server.requests}
    for text in texts:  # each text asked once per sample, with seeds 0..4
        assert sorted(r.body["seed"] for r in llm_server.requests if r.body["messages"][-1]["content"] == text) == [
            0, 1, 2, 3, 4,
        ]  # fmt: skip
    rec = next(r for r in read(out) if r["kind"] == "case")
    assert rec["samples"] == 5 and len(rec["sample_extracted"]) == 5 == len(rec["reply_sources"])
    top = max(rec["sample_extracted"].count(x) for x in rec["sample_extracted"])
    assert rec["agreement"] == top / 5 and rec["extracted"] in rec["sample_extracted"]
    assert rec["sample_extracted"].count(rec["extracted"]) == top  # the most common answer counts
    assert rec["mean_sim"] == sum(rec["sample_sims"]) / 5
    sampling = aggregate([str(out)])["sampling"]
    assert sampling["samples"] == 5 and sampling["temperature"] == 1.0
    assert sampling["agreement"] < 0.6 and sampling["unanimous"] < 0.2
    assert sampling["agreement_ci"][0] <= sampling["agreement"] <= sampling["agreement_ci"][1]
    # the same run again: every sample from the cache (the sample index is in the key)
    again = evaluate(str(cases), EndpointModel(llm_server.base_url, "m", api_key="", temperature=1.0),
                     tmp_path / "r2.jsonl", samples=5, cache=_persistent(tmp_path))  # fmt: skip
    assert again.calls == 0 and again.cache_hits == 90 and len(llm_server.requests) == 90
    samples = lambda path: {r["key"]: r["sample_extracted"] for r in read(path) if r["kind"] == "case"}
    assert samples(tmp_path / "r2.jsonl") == samples(out)  # the same answers, sample by sample


def _persistent(tmp_path):
    from perturber.robustness.cache import ReplyCache

    return ReplyCache(tmp_path / "cache")


def test_a_deterministic_model_agrees_with_itself_and_one_sample_says_so(tmp_path, capsys):
    cases = suite_file(tmp_path, TOY_SELECT)
    evaluate(str(cases), toy, tmp_path / "k.jsonl", samples=3)
    sampling = aggregate([str(tmp_path / "k.jsonl")])["sampling"]
    assert sampling["agreement"] == 1.0 and sampling["unanimous"] == 1.0
    out = tmp_path / "one.jsonl"
    assert (
        cli.main(["evaluate", str(cases), "--callable", "examples/toy_model.py:answer", "-o", str(out)]) == 0
    )
    assert (
        aggregate([str(out)])["sampling"]["note"]
        == "sampled once per text (a Python callable: no temperature)"
    )
    assert (
        cli.main(["report", str(out), "-o", str(tmp_path / "rep"), "--no-plots", "--bootstrap", "100"]) == 0
    )
    report = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert "toy_model:answer: sampled once per text (a Python callable: no temperature)." in report


def test_one_endpoint_sample_names_its_temperature(llm_server, tmp_path):
    cases = suite_file(tmp_path, TOY_SELECT)
    llm_server.script(default=lambda body: Reply(content=toy(body["messages"][-1]["content"])))
    out = tmp_path / "r.jsonl"
    evaluate(str(cases), EndpointModel(llm_server.base_url, "m", api_key="", temperature=0.7), out)
    assert "seed" not in llm_server.requests[0].body  # one sample: no seed is sent
    assert aggregate([str(out)])["sampling"]["note"] == "sampled once per text, at temperature 0.7"


# -- across models --------------------------------------------------------------------------------


def test_kendall_tau_b_by_hand():
    assert rankings.kendall_tau_b([1, 2, 3], [1, 2, 3]) == 1.0
    assert rankings.kendall_tau_b([1, 2, 3], [3, 2, 1]) == -1.0
    assert rankings.kendall_tau_b([1, 2, 3], [1, 3, 2]) == round(1 / 3, 6)  # C = 2, D = 1
    # ties in x: pairs (0,1) tied in x; C = 2, D = 0: 2 / sqrt((2 + 1) * 2)
    assert rankings.kendall_tau_b([1, 1, 2], [1, 2, 3]) == round(2 / 6**0.5, 6) == 0.816497
    assert rankings.kendall_tau_b([0.5, 0.5], [0.1, 0.9]) is None  # a tied clean ranking says nothing


@pytest.mark.parametrize(
    "grid, shares",
    [
        ([[1, 1], [0, 0]], (1.0, 0.0, 0.0)),  # rows (perturbations) differ, columns (examples) not
        ([[1, 0], [1, 0]], (0.0, 1.0, 0.0)),
        ([[1, 0], [0, 1]], (0.0, 0.0, 1.0)),  # only the interaction
        ([[1, 1], [1, 0]], (1 / 3, 1 / 3, 1 / 3)),  # grand mean .75; SS_p = SS_e = .25 of SS_total .75
    ],
)
def test_the_two_way_decomposition_on_2x2_toys(grid, shares):
    cells = {(f"p{i}", f"e{j}"): float(y) for i, row in enumerate(grid) for j, y in enumerate(row)}
    d = rankings.decompose(cells)
    assert d["cells"] == 4
    assert (d["perturbation"], d["example"], d["remainder"]) == pytest.approx(shares, abs=1e-6)


def test_reversals_on_hand_built_runs_with_exact_tests(tmp_path):
    """A beats B clean (9 vs 6 of 10); under `spaces` B beats A on 8 examples, A on none."""
    examples = [f"e{i}" for i in range(10)]
    clean_a = {e: float(i < 9) for i, e in enumerate(examples)}
    clean_b = {e: float(i < 6) for i, e in enumerate(examples)}
    cases_a = [(f"s{e}", e, "spaces", float(i >= 8), 2) for i, e in enumerate(examples)]
    cases_b = [(f"s{e}", e, "spaces", 1.0, 2) for e in examples]
    cases_a += [(f"u{e}", e, "upper_case", clean_a[e], 3) for e in examples]
    cases_b += [(f"u{e}", e, "upper_case", clean_b[e], 3) for e in examples]
    a = write_run(tmp_path / "a.jsonl", "A", clean_a, cases_a)
    b = write_run(tmp_path / "b.jsonl", "B", clean_b, cases_b)
    from perturber.robustness.results import load

    am = rankings.across_models(load([a, b], keep=True), min_n=5)
    pair = am["pairs"][0]
    assert (pair["a"], pair["b"], pair["clean_a"], pair["clean_b"]) == ("A", "B", 0.9, 0.6)
    assert pair["clean_p"] == stats.mcnemar_exact(3, 0) == 0.25
    pert = pair["perturbations"]
    assert (pert["compared"], pert["reversed"], pert["share"]) == (2, 1, 0.5)
    spaces = pert["reversals"][0]
    assert (spaces["name"], spaces["a"], spaces["b"], spaces["a_better"], spaces["b_better"]) == (
        "spaces", 0.2, 1.0, 0, 8,
    )  # fmt: skip
    assert spaces["p"] == 2 / 2**8 and spaces["p_adjusted"] == 2 * spaces["p"]  # Holm over 2
    assert spaces["significant"] and pert["significant"] == 1
    assert pair["levels"]["reversed"] == 1 and pair["levels"]["reversals"][0]["name"] == "Input Quality L2"
    taus = {t["name"]: t["tau"] for t in am["kendall_tau"]}
    assert taus == {"spaces": -1.0, "upper_case": 1.0}


@pytest.mark.slow
def test_two_scripted_models_with_opposite_weak_spots_reverse_where_planted(tmp_path):
    cases = tmp_path / "cases.jsonl"
    write_suite(str(ROOT / "examples" / "gsm8k_style.jsonl"), str(cases), field="question",
                answer_field="answer", id_field="id",
                select="name=upper_case,title_case,random_case,extra_whitespace,tabs_for_spaces,line_wrap,spaces")  # fmt: skip
    outs = []
    for name in ("casing_weak", "formatting_weak"):
        model = load_callable(f"{ROOT / 'examples' / 'scripted_model.py'}:{name}")
        outs.append(str(tmp_path / f"{name}.jsonl"))
        evaluate(str(cases), model, outs[-1], model_name=name)
    data = aggregate(outs)
    am = data["across_models"]
    pair = am["pairs"][0]
    assert am["clean_ranking"] == ["casing_weak", "formatting_weak"]  # a fifth vs a quarter already wrong
    reversed_names = sorted(r["name"] for r in pair["perturbations"]["reversals"])
    assert reversed_names == ["random_case", "title_case", "upper_case"]
    assert pair["perturbations"]["significant"] == 3 and pair["perturbations"]["compared"] == 7
    assert all(t["tau"] == (-1.0 if t["name"] in reversed_names else 1.0) for t in am["kendall_tau"])
    for model, d in am["decomposition"].items():
        assert d["perturbation"] > d["example"], model  # a planted weak spot is a perturbation effect
    doc = (pathlib.Path(tmp_path) / "rep").as_posix()
    assert cli.main(["report", *outs, "-o", doc, "--bootstrap", "200"]) == 0
    md = pathlib.Path(doc, "report.md").read_text(encoding="utf-8")
    assert "## Across models" in md and "3 of 7 (0.43)" in md and pathlib.Path(doc, "rankings.png").exists()


# -- provenance and records -----------------------------------------------------------------------


def test_results_record_the_run(llm_server, tmp_path, monkeypatch):
    cases = suite_file(tmp_path, TOY_SELECT)
    llm_server.script(default=lambda body: Reply(content=toy(body["messages"][-1]["content"])))
    system = tmp_path / "system.txt"
    system.write_text("Answer with #### N.", encoding="utf-8")
    out = tmp_path / "r.jsonl"
    argv = ["evaluate", str(cases), "--base-url", llm_server.base_url, "--model", "m", "--system-prompt",
            str(system), "--temperature", "0.2", "--check", "numeric", "--tolerance", "0.01", "-o", str(out)]  # fmt: skip
    assert cli.main(argv) == 0
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    head, end = lines[0], lines[-1]
    assert head["kind"] == "run" and head["schema"] == "perturber.robustness.results/2"
    assert head["perturber_version"] == perturber.__version__
    assert head["catalog_digest"] == perturber.catalog_digest()
    assert head["suite_sha256"] == hashlib.sha256(cases.read_bytes()).hexdigest()
    assert head["model_settings"] == {
        "kind": "endpoint", "name": "m", "endpoint": llm_server.base_url, "temperature": 0.2, "max_tokens": 512,
        "system_prompt_sha256": hashlib.sha256(b"Answer with #### N.").hexdigest(),
    }  # fmt: skip
    assert head["checker"]["mode"] == "numeric" and head["checker"]["tolerance"] == 0.01
    assert end["kind"] == "run_end" and end["run"] == head["run"] and end["ended"] >= head["started"]
    assert all(r["run"] == head["run"] for r in lines[1:-1])
    p = aggregate([str(out)])["provenance"]
    assert p["runs"] == 1 and p["catalog_digest"] == [perturber.catalog_digest()] and p["calls"] == 18
    assert "Answer with" not in out.read_text(encoding="utf-8")  # the prompt is recorded by its hash


def test_records_are_checked_by_their_schema(tmp_path, capsys):
    assert Case.from_dict(
        {
            "case_id": "c",
            "example_id": "1",
            "original": "a",
            "perturbed": "b",
            "name": "n",
            "family": "f",
            "level": 3,
            "params": {"rate": 0.1},
            "x_extra": 1,
        }  # fmt: skip
    ).extra == {"x_extra": 1}
    with pytest.raises(InvalidParams, match=r"r:2: level must be an integer, not str"):
        Case.from_dict({"case_id": "c", "example_id": "1", "original": "a", "perturbed": "b", "name": "n",
                        "family": "f", "level": "3"}, "r:2")  # fmt: skip
    with pytest.raises(InvalidParams, match="lacks sim"):
        Result.from_dict({"kind": "case", "key": "k", "example_id": "1"})
    bad = tmp_path / "results.jsonl"
    bad.write_text(json.dumps({"kind": "original", "key": "orig:1", "example_id": "1", "sim": "yes"}) + "\n")
    assert cli.main(["report", str(bad), "-o", str(tmp_path / "rep")]) == 2
    err = capsys.readouterr().err
    assert "record 1 (original): sim must be a number, not str" in err and err.count("\n") == 1


def test_an_llm_judge_scores_free_text_answers(llm_server, tmp_path, monkeypatch):
    from perturber.robustness.checking import ANSWER_JUDGE_PROMPT

    words = {7: "seven", 36: "thirty-six", 6: "six"}

    def server(body):
        first = body["messages"][0]["content"]
        if first == ANSWER_JUDGE_PROMPT:  # the judge: does the response name the expected number?
            expected, response = (
                body["messages"][-1]["content"].removeprefix("Expected answer:\n").split("\n\nResponse:\n")
            )
            return Reply(content="SAME" if words[int(expected)] in response else "DIFFERENT")
        value = int(toy(body["messages"][-1]["content"]).rsplit(" ", 1)[-1])
        return Reply(content=f"The answer is {words.get(value, 'unknown')}.")

    llm_server.script(default=server)
    monkeypatch.setenv("PERTURBER_LLM_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("PERTURBER_LLM_DEFAULT_MODEL", "judge")
    cases = suite_file(tmp_path, "name=upper_case,zero_width")
    out = tmp_path / "r.jsonl"
    argv = [
        "evaluate",
        str(cases),
        "--base-url",
        llm_server.base_url,
        "--model",
        "m",
        "--check",
        "judge",
        "-o",
        str(out),
    ]
    assert cli.main(argv) == 0
    sims = {(r["name"], r["example_id"]): r["sim"] for r in read(out) if r["kind"] == "case"}
    assert {k: v for k, v in sims.items() if k[0] == "upper_case"} == {("upper_case", e): 1.0 for e in "abc"}
    assert all(v == 0.0 for k, v in sims.items() if k[0] == "zero_width")  # the toy is off by one there
    originals = {r["example_id"]: r["extracted"] for r in read(out) if r["kind"] == "original"}
    assert originals == {
        "a": "The answer is seven.",
        "b": "The answer is thirty-six.",
        "c": "The answer is six.",
    }
    assert json.loads(out.read_text(encoding="utf-8").splitlines()[0])["checker"] == {"mode": "judge"}


def test_the_estimate_is_compared_with_the_runs_that_asked_all_they_planned():
    from perturber.robustness.provenance import provenance
    from perturber.robustness.results import ModelRun

    run = ModelRun("m")
    for rid, planned, used, interrupted in (("r1", 1000, 150, True), ("r2", 800, 840, False)):
        run.add({"kind": "run", "run": rid, "started": f"2026-01-01T00:0{rid[1]}:00+00:00", "samples": 1,
                 "plan": {"input_tokens": planned, "output_tokens": 10, "cost": None, "tokenizer": "t"}})  # fmt: skip
        run.add({"kind": "run_end", "run": rid, "ended": "2026-01-01T00:09:00+00:00", "calls": 1, "cache_hits": 0,
                 "deduplicated": 0, "interrupted": interrupted,
                 "usage": {"prompt_tokens": used, "completion_tokens": 12, "reported": 1}})  # fmt: skip
    p = provenance(run)
    assert p["runs"] == 2 and p["actual"]["prompt_tokens"] == 990  # everything used ...
    assert (
        p["estimated"]["runs"] == 1 and p["estimated"]["input_tokens"] == 800
    )  # ... the complete run compared
    assert (p["input_ratio"], p["output_ratio"]) == (1.05, 1.2)
