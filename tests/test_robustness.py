"""The robustness harness: metrics, suites, gates, evaluate (callables), reports, CLI."""

import asyncio
import json
import re
import unicodedata

import pytest

from perturber import cli
from perturber.errors import InvalidParams
from perturber.robustness import assert_invariant, ladder, metrics, select
from perturber.robustness.analysis import Options
from perturber.robustness.checking import Checker, score_case
from perturber.robustness.evaluate import evaluate
from perturber.robustness.report import aggregate, export_failures, write_report
from perturber.robustness.suite import build_suite, case_id, write_suite

pytest.importorskip("text_to_num")


@pytest.fixture(autouse=True)
def own_reply_cache(tmp_path, monkeypatch):
    """Every test gets its own reply cache, never the user's (the other test modules import it)."""
    from perturber.robustness import cache

    monkeypatch.setattr(cache, "user_cache_dir", lambda: tmp_path / "reply-cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))  # for the commands run in a child


EXAMPLES = [
    {"id": "a", "q": "Mia has 12 apples and gives 5 away. How many are left?", "gold": 7},
    {"id": "b", "q": "A box holds a dozen eggs. How many eggs are in 3 boxes?", "gold": 36},
    {"id": "c", "q": "Ben walks twice as far as Carl, who walks 3 km. How far does Ben walk?", "gold": 6},
]
ANSWERS = {re.sub(r"[^a-z0-9]", "", e["q"].lower()): e["gold"] for e in EXAMPLES}
TOY_SELECT = "name=zero_width,spaces,upper_case,quotes,trailing_newline"


def toy(text: str) -> str:
    """Knows the answers; wrong on zero-width characters and on space padding."""
    key = re.sub(r"[^a-z0-9]", "", unicodedata.normalize("NFKC", text).lower())
    value = ANSWERS[key]
    if "\u200b" in text or text.startswith(" ") or text.endswith(" "):
        value += 1
    return f"Let me think.\n#### {value}"


def refusal_result(text, name, params, seed=0, category="native"):
    """What a model-backed refusal entry (knowledge_boundary) returns, with ``text`` as its rewrite."""
    from perturber.core import Result

    return Result(
        text=text,
        applied=True,
        reason=None,
        edits=1,
        magnitude=0.3,
        name=name,
        category=category,
        family="reasoning",
        version=1,
        in_scope=False,
        expectation="refusal",
        kind="model_backed",
        seed=seed,
        params=params,
    )


def write_examples(path, rows=EXAMPLES):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def suite_file(tmp_path, select_expr=TOY_SELECT, **options):
    examples = write_examples(tmp_path / "examples.jsonl")
    out = tmp_path / "cases.jsonl"
    write_suite(
        str(examples), str(out), field="q", answer_field="gold", id_field="id", select=select_expr, **options
    )
    return out


def read(path):
    """The records of a JSONL file, without a results file's run headers and ends."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [r for r in records if r.get("kind") not in ("run", "run_end")]


# -- metrics --------------------------------------------------------------------------------------


def test_stability_with_known_weights():
    # sims 1, 0, 1, 0.5 with magnitudes 0.1, 0.4, 0.2, 0.3: (0.1 + 0 + 0.2 + 0.15) / 1.0
    assert metrics.stability([1, 0, 1, 0.5], [0.1, 0.4, 0.2, 0.3]) == pytest.approx(0.45)
    assert metrics.stability([1, 0], [0.0, 0.0]) is None
    assert metrics.stability([], []) is None


@pytest.mark.parametrize(
    "levels, tau, expected",
    [
        ({0: 1.0, 1: 0.9, 2: 0.8, 3: 0.79, 4: 0.1}, 0.8, 3),  # a tie at exactly tau*L0 is no collapse
        ({0: 0.75, 1: 0.6, 2: 0.59}, 0.8, 2),  # 0.8*0.75 = 0.6000000000000001: a tie
        ({0: 1.0, 1: 0.95, 2: 0.9, 3: 0.85, 4: 0.81, 5: 0.8}, 0.8, None),  # never collapses: "—"
        ({0: 1.0, 1: None, 2: 0.5}, 0.8, 2),  # a level with no tests is skipped
        ({0: 0.0, 1: 0.0, 2: 0.0}, 0.8, None),  # baseline 0: nothing is below 0
        ({1: 0.0}, 0.8, None),  # no baseline
        ({0: 1.0, 1: 0.6, 2: 0.9}, 0.5, None),  # tau configurable
        ({0: 1.0, 1: 0.6, 2: 0.9}, 0.7, 1),
    ],
)
def test_collapse_point(levels, tau, expected):
    assert metrics.collapse_point(levels, tau) == expected


@pytest.mark.parametrize(
    "magnitude, level",
    [
        (0.0, 0),
        (1e-9, 1),
        (0.02, 1),
        (0.020001, 2),
        (0.05, 2),
        (0.1, 3),
        (0.1000001, 4),
        (0.2, 4),
        (0.2000001, 5),
        (1.0, 5),
        (None, None),
    ],
)
def test_level_binning_at_band_edges(magnitude, level):
    assert ladder.level_for(magnitude, "Input Quality") == level


def test_bands_from_json_and_toml(tmp_path):
    (tmp_path / "b.json").write_text('{"character": [0.1, 0.2, 0.3, 0.4, 0.5]}')
    (tmp_path / "b.toml").write_text('[bands]\n"Input Quality" = [0.01, 0.02, 0.03, 0.04, 1]\n')
    assert ladder.load_bands(tmp_path / "b.json")["character"] == (0.1, 0.2, 0.3, 0.4, 0.5)
    assert ladder.level_for(0.025, "Input Quality", ladder.load_bands(tmp_path / "b.toml")) == 3
    (tmp_path / "bad.json").write_text('{"character": [0.3, 0.2, 0.1, 0.4, 0.5]}')
    with pytest.raises(InvalidParams, match="5 increasing numbers"):
        ladder.load_bands(tmp_path / "bad.json")


# -- selection, suites, gates ---------------------------------------------------------------------


def test_select_by_catalog_fields():
    names = [e["name"] for e in select.select_entries("family=padding;name=spaces,new_lines")]
    assert names == ["spaces", "new_lines"]
    assert all(e["expectation"] == "directional" for e in select.select_entries("expectation=directional"))
    assert not any(e["family"] in ("control", "schema") for e in select.select_entries(None))
    with pytest.raises(InvalidParams, match="FIELD=V1,V2"):
        select.parse_select("colour=red")
    with pytest.raises(InvalidParams, match="matches no catalog entry"):
        select.select_entries("name=no_such_entry")


def test_preset_reports_missing_entries_as_unavailable():
    catalog = [
        e
        for e in __import__("perturber").list_perturbations()
        if e["name"] not in ("conflicting_instruction",)
    ]
    plan = select.plan(preset="graded-reasoning", catalog=catalog)
    assert plan.unavailable["Conflict Instruction Stress"] == ["conflicting_instruction"]
    fams = {g.name for _, g in plan.items}
    assert {"Input Quality", "Structural/Format", "Context Load"} <= fams
    with pytest.raises(InvalidParams, match="unknown preset"):
        select.plan(preset="nope")


def test_suite_cases_are_complete_and_byte_identical(tmp_path):
    out1 = suite_file(tmp_path)
    blob1 = out1.read_bytes()
    out2 = suite_file(tmp_path)
    assert out2.read_bytes() == blob1
    cases = read(out1)
    assert len(cases) == 15
    c = next(c for c in cases if c["example_id"] == "a" and c["name"] == "zero_width")
    assert c["case_id"] == case_id(
        "a", {"category": "native", "name": "zero_width", "version": c["version"]}, c["params"], 0
    )
    for key in (
        "original",
        "perturbed",
        "category",
        "family",
        "version",
        "params",
        "seed",
        "expectation",
        "magnitude",
        "requested_level",
        "level",
        "gate",
        "catalog_digest",
    ):
        assert key in c
    assert c["gate"] == "pass" and c["answer"] == 7 and "\u200b" in c["perturbed"]
    assert c["catalog_digest"] == __import__("perturber").catalog_digest()
    assert len({c["case_id"] for c in cases}) == 15


def test_gates_reject_changed_numbers_and_not_applied(tmp_path):
    rows = [{"id": "n", "q": "She walks with four dogs and 2 cats."}]
    cases = list(
        build_suite(
            rows,
            field="q",
            id_field="id",
            select="name=disemvowel,insert_negation,question_to_end",
            seeds=[0],
        )
    )
    by = {c["name"]: c for c in cases}
    assert by["disemvowel"]["gate"] == "rejected" and by["disemvowel"]["reason"] == "numbers_changed"
    assert by["question_to_end"]["reason"].startswith("not_applied:")
    assert by["insert_negation"]["expectation"] == "directional"  # directional: numbers exempt
    out = suite_file(tmp_path, select_expr="name=disemvowel", seeds=[0, 1])
    rejected = read(tmp_path / "cases.rejected.jsonl")
    assert all(r["gate"] == "rejected" and r["reason"] for r in rejected)
    assert len(read(out)) + len(rejected) == 6


def test_per_example_sampling_is_seeded():
    kw = dict(field="q", id_field="id", select="family=character", per_example=2)
    a = [(c["example_id"], c["name"]) for c in build_suite(EXAMPLES, **kw)]
    b = [(c["example_id"], c["name"]) for c in build_suite(EXAMPLES, **kw)]
    assert a == b
    for ex in "abc":
        assert len({n for e, n in a if e == ex}) == 2
    assert len(set(a)) > 2


def test_ladder_levels_and_context_load_ratio_gate():
    cases = list(
        build_suite(
            EXAMPLES[:1],
            field="q",
            id_field="id",
            ladder_scan=True,
            preset="graded-reasoning",
            select="name=zero_width,context_load,conflicting_instruction",
        )
    )
    zw = [c for c in cases if c["name"] == "zero_width"]
    assert [c["level"] for c in zw] == sorted({c["level"] for c in zw})  # one variant per level
    assert all(c["level"] == c["requested_level"] for c in zw)
    assert all(ladder.level_for(c["magnitude"], "Input Quality") == c["level"] for c in zw)
    ci = [c for c in cases if c["name"] == "conflicting_instruction"]
    assert [(c["params"]["tier"], c["level"]) for c in ci] == [(k, k) for k in range(1, 6)]
    for c in (c for c in cases if c["name"] == "context_load"):
        ratio = len(c["perturbed"]) / len(c["original"])
        edges = (1.0, *ladder.RATIO_BANDS)
        inside = edges[c["requested_level"] - 1] < ratio <= edges[c["requested_level"]]
        assert (c["gate"] == "pass") == inside


def test_csv_input_streams(tmp_path):
    path = tmp_path / "ex.csv"
    path.write_text('id,q,gold\na,"Mia has 12 apples, right?",12\n', encoding="utf-8")
    out = tmp_path / "c.jsonl"
    stats = write_suite(
        str(path), str(out), field="q", answer_field="gold", id_field="id", select="name=upper_case"
    )
    assert stats.passed == 1 and read(out)[0]["answer"] == "12"


def test_parquet_input(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(EXAMPLES), tmp_path / "ex.parquet")
    out = tmp_path / "c.jsonl"
    write_suite(str(tmp_path / "ex.parquet"), str(out), field="q", id_field="id", select="name=upper_case")
    assert [c["example_id"] for c in read(out)] == ["a", "b", "c"]


# -- checking -------------------------------------------------------------------------------------


def test_answer_checking_modes():
    c = Checker()
    assert c.extract('reasoning... {"ground_truth": 42}') == "42"
    assert c.extract("so 3 + 4 = 7 apples") == "7"
    assert Checker(regex=r"Answer: (\d+)").extract("x 9\nAnswer: 12 ok") == "12"
    assert c.same("1,000", 1000) and not c.same("1002", 1000) and c.same("1000.9", 1000)
    assert c.same("0", 0) and not c.same("0.1", 0)
    assert Checker(mode="exact").same(" Paris ", "paris")
    inv = {"expectation": "invariant", "answer": None}
    assert score_case(c, inv, "#### 5", "#### 5.0") == 1.0
    assert score_case(c, inv, "#### 6", "#### 5") == 0.0
    d = {"expectation": "directional", "name": "scale_quantity", "params": {"exponent": 1}}
    assert score_case(c, d, "#### 50", "#### 5") == 1.0
    assert score_case(c, d, "#### 0.5", "#### 5") == 0.0
    assert score_case(c, {**d, "name": "insert_negation"}, "#### 5", "#### 5") == 0.0
    r = {"expectation": "refusal"}
    assert score_case(c, r, "There is not enough information to answer.", None) == 1.0
    assert score_case(c, r, "#### 12", None) == 0.0
    assert score_case(c, r, "#### 12", None, refusal_score=0.75) == 0.75
    fn = Checker(mode="callable", function=lambda out, gold: str(gold) in out)
    assert score_case(fn, {"expectation": "invariant", "answer": 7}, "it is 7", "x") == 1.0


# -- evaluate with callables ----------------------------------------------------------------------


def test_evaluate_sync_and_async_callables_agree(tmp_path):
    cases = suite_file(tmp_path)

    async def atoy(text):
        await asyncio.sleep(0)
        return toy(text)

    s1 = evaluate(str(cases), toy, tmp_path / "r1.jsonl", concurrency=4)
    s2 = evaluate(str(cases), atoy, tmp_path / "r2.jsonl", concurrency=4)
    assert s1.calls == s2.calls == 15 + 3 and not s1.errors
    key = lambda r: (r["key"], r["sim"])
    assert sorted(map(key, read(tmp_path / "r1.jsonl"))) == sorted(map(key, read(tmp_path / "r2.jsonl")))


def test_evaluate_resumes_without_duplicate_calls(tmp_path):
    cases = suite_file(tmp_path)
    out = tmp_path / "results.jsonl"
    calls = []

    def flaky(text):
        calls.append(text)
        if len(calls) == 9:
            raise KeyboardInterrupt  # the user pressed ^C mid-run, inside the model call
        return toy(text)

    with pytest.raises(KeyboardInterrupt) as info:
        evaluate(str(cases), flaky, out, concurrency=1)
    assert info.value.summary.abandoned == 1 and info.value.summary.written == 8
    done = [r for r in read(out) if r["kind"] != "inflight"]
    assert len(done) == 8 and [r["kind"] for r in read(out)].count("inflight") == 1
    with open(out, "a", encoding="utf-8") as fh:
        fh.write('{"kind": "case", "key": "torn')  # a write torn by the interruption
    asked = []

    def counting(text):
        asked.append(text)
        return toy(text)

    summary = evaluate(str(cases), counting, out, concurrency=3)
    assert len(done) + len(asked) == 18 and summary.skipped == len([d for d in done if d["kind"] == "case"])
    assert summary.resent == 1  # the call cut by the interrupt, asked again and counted
    results = [r for r in read(out) if r["kind"] != "inflight"]
    assert len(results) == 18 and len({r["key"] for r in results}) == 18
    assert evaluate(str(cases), counting, out).calls == 0


def test_an_interrupt_records_every_reply_and_marks_the_calls_in_flight(tmp_path, caplog, request):
    import gc
    import signal

    from perturber.robustness.evaluate import Interrupted

    # ^C reaches evaluate as in a terminal, whatever handler an earlier test of this process left
    # (asyncio.run turns SIGINT into a cancellation only over Python's default handler)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    request.addfinalizer(lambda: signal.signal(signal.SIGINT, previous))

    cases = suite_file(tmp_path)
    out = tmp_path / "results.jsonl"
    asked = []

    async def model(text):
        asked.append(text)
        if len(asked) == 7:
            signal.raise_signal(signal.SIGINT)  # ^C while calls are in flight
        if "\u200b" in text:
            await asyncio.sleep(60)  # still in flight at the interrupt (a missed ^C fails, not hangs)
        return toy(text)

    with pytest.raises(Interrupted) as info:
        evaluate(str(cases), model, out, concurrency=4, drain_seconds=0.2)
    first = info.value.summary
    records = read(out)
    answered = {r["key"] for r in records if r["kind"] in ("case", "original") and "error" not in r}
    markers = [r["key"] for r in records if r["kind"] == "inflight"]
    assert first.abandoned == len(markers) > 0 and first.written == len(answered)
    gc.collect()
    assert "never retrieved" not in caplog.text  # every task was awaited before the log closed
    again = []

    def counting(text):
        again.append(text)
        return toy(text)

    second = evaluate(str(cases), counting, out)
    texts = {
        **{f"orig:{c['example_id']}": c["original"] for c in read(cases)},
        **{c["case_id"]: c["perturbed"] for c in read(cases)},
    }
    assert not {texts[k] for k in answered} & set(again)  # no reply received before ^C is asked again
    assert second.resent == len(markers)  # the abandoned calls are asked again, and counted
    final = {r["key"] for r in read(out) if r["kind"] != "inflight" and "error" not in r}
    assert len(final) == 18


def test_evaluate_records_errors_by_type_and_retries_them(tmp_path):
    cases = suite_file(tmp_path)
    out = tmp_path / "r.jsonl"

    def broken(text):
        if text.isupper():
            raise ValueError("boom")
        return toy(text)

    s = evaluate(str(cases), broken, out)
    assert dict(s.errors) == {"ValueError": 3}
    s2 = evaluate(str(cases), toy, out)
    assert s2.calls == 3 and not s2.errors


# -- end to end: the toy model ----------------------------------------------------------------


@pytest.fixture
def toy_run(tmp_path):
    cases = suite_file(tmp_path)
    results = tmp_path / "results.jsonl"
    evaluate(str(cases), toy, results)
    return tmp_path, results, read(cases)


def test_report_structure_on_a_tiny_run(toy_run):
    tmp_path, results, cases = toy_run
    data = write_report([str(results)], str(tmp_path / "report"), options=Options(min_n=1))
    groups = [
        (g["name"], g["n"], g["failures"], g["broken"], g["repaired"], g["net"])
        for g in data["perturbations"]
    ]
    assert groups[:2] == [("spaces", 3, 3, 3, 0, -3), ("zero_width", 3, 3, 3, 0, -3)]
    assert all(g[2] == 0 for g in groups[2:]) and len(groups) == 5
    zw = data["perturbations"][1]
    # 3 of 3 broken is p = 2 * 0.5**3 = 0.25 before adjustment: not significant, so no hint
    assert zw["test"] == {"examples_broken": 3, "examples_repaired": 0, "p": 0.25, "p_adjusted": 1.0}
    assert zw["status"] == "no significant change" and zw["hint"] is None
    assert "⟨ZWSP⟩" in zw["examples"][0]["diff"] and len(zw["examples"]) == 3
    assert data["baseline_accuracy"] == 1.0
    fams = {f["name"]: f for f in data["families"]}
    # character: zero_width lands on L3 (acc 0), upper_case on L5 (acc 1) -> collapse at L3.
    # padding: trailing_newline L1 (acc 1); quotes + spaces L2 (acc 1/2 < 0.8) -> collapse at L2.
    assert [(lv["level"], lv["n"], lv["accuracy"]) for lv in fams["character"]["levels"]] == [
        (0, 3, 1.0),
        (1, 0, None),
        (2, 0, None),
        (3, 3, 0.0),
        (4, 0, None),
        (5, 3, 1.0),
    ]
    assert fams["character"]["collapse_point"] == 3 and fams["character"]["collapse_label"] == "L3"
    assert [lv["accuracy"] for lv in fams["padding"]["levels"]][:3] == [1.0, 1.0, 0.5]
    assert fams["padding"]["collapse_point"] == 2
    mags = {c["case_id"]: c["magnitude"] for c in cases if c["family"] == "character"}
    upper = sum(
        m for c, m in mags.items() if next(x for x in cases if x["case_id"] == c)["name"] == "upper_case"
    )
    assert fams["character"]["stability"] == pytest.approx(upper / sum(mags.values()))
    md = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert md.index("| `spaces` |") < md.index("| `zero_width` |") < md.index("| `upper_case` |")
    saved = json.loads((tmp_path / "report" / "report.json").read_text(encoding="utf-8"))
    assert saved["schema"] == "perturber.robustness.report/2"
    assert {"n", "accuracy", "magnitude", "stability"} <= set(saved["families"][0]["levels"][0])
    assert {"failures", "broken", "repaired", "net", "churn"} <= set(saved["perturbations"][0])
    assert (tmp_path / "report" / "degradation.png").read_bytes()[:4] == b"\x89PNG"
    html = (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    assert html.count("data:image/png;base64,") == 3


def test_default_minimum_n_keeps_a_tiny_run_from_concluding(toy_run):
    tmp_path, results, _ = toy_run
    data = aggregate([str(results)])
    assert {g["status"] for g in data["perturbations"]} == {"n too small"}
    assert not any(g["hint"] for g in data["perturbations"])
    assert all(f["collapse_point"] is None and f["paired_collapse_point"] is None for f in data["families"])
    assert all(f["quadrant"] is None for f in data["families"])


def test_flip_table_counts_repairs(tmp_path):
    cases = suite_file(tmp_path)

    def case_sensitive(text):  # wrong whenever it sees "Mia " (so upper-casing repairs it)
        out = toy(text)
        return out + "1" if "Mia " in text else out

    evaluate(str(cases), case_sensitive, tmp_path / "r.jsonl")
    data = aggregate([str(tmp_path / "r.jsonl")], Options(min_n=1))
    upper = next(g for g in data["perturbations"] if g["name"] == "upper_case")
    assert (upper["broken"], upper["repaired"], upper["net"]) == (0, 1, 1)
    assert upper["churn"] == pytest.approx(1 / 3)
    assert data["baseline_accuracy"] == pytest.approx(2 / 3)


def test_several_models_get_columns(toy_run, tmp_path):
    _, results, _ = toy_run
    other = tmp_path / "other.jsonl"
    evaluate(str(tmp_path / "cases.jsonl"), lambda t: toy(t.strip()), other, model_name="strip-first")
    options = Options(min_n=1)
    data = write_report(
        [str(results), str(other)], str(tmp_path / "rep2"), options=options, plots_enabled=False
    )
    assert data["models"] == ["toy", "strip-first"]
    pad = {f["name"]: f for f in data["by_model"]["strip-first"]["families"]}["padding"]
    assert pad["collapse_point"] is None
    md = (tmp_path / "rep2" / "report.md").read_text(encoding="utf-8")
    assert "| model | family | paired | paper | note |" in md
    assert "| toy | padding | L2 | L2 |" in md and "| strip-first | padding | — | — |" in md


def test_export_failures_and_regressions_stay_fixed(toy_run):
    tmp_path, results, _ = toy_run
    reg = tmp_path / "regression.jsonl"
    assert export_failures([str(results)], str(reg), perturbation="zero_width") == 3
    rows = read(reg)
    assert {r["provenance"]["name"] for r in rows} == {"zero_width"}
    assert all("\u200b" in r["q"] and r["gold"] in (7, 36, 6) for r in rows)
    assert rows[0]["provenance"]["catalog_digest"] and rows[0]["id"].startswith(
        rows[0]["provenance"]["example_id"] + "~"
    )
    cases2 = tmp_path / "cases2.jsonl"
    write_suite(
        str(reg), str(cases2), field="q", answer_field="gold", id_field="id", select="name=upper_case"
    )

    def fixed(text):  # the model after input normalisation: zero-width stripped
        return toy(text.replace("\u200b", ""))

    evaluate(str(cases2), fixed, tmp_path / "r2.jsonl")
    data = aggregate([str(tmp_path / "r2.jsonl")], Options(min_n=1))
    assert data["regressions"]["exported"] == 3
    assert sorted(data["regressions"]["fixed"]) == sorted(r["provenance"]["case_id"] for r in rows)
    assert export_failures([str(results)], str(tmp_path / "none.jsonl"), family="padding", level=5) == 0


def test_exported_items_that_do_not_come_back_are_counted_as_not_retested(toy_run):
    tmp_path, results, _ = toy_run
    reg = tmp_path / "regression.jsonl"
    export_failures([str(results)], str(reg), perturbation="zero_width")
    rows = read(reg)
    rows[0]["q"] = rows[0]["q"].upper()  # upper_case cannot apply to it: no case in the next suite
    reg.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    cases2 = tmp_path / "cases2.jsonl"
    write_suite(
        str(reg), str(cases2), field="q", answer_field="gold", id_field="id", select="name=upper_case"
    )
    evaluate(str(cases2), toy, tmp_path / "r2.jsonl")
    data = write_report(
        [str(tmp_path / "r2.jsonl")], str(tmp_path / "rep"), cases=str(cases2), plots_enabled=False
    )
    regressions = data["regressions"]
    assert regressions["not_retested"] == [rows[0]["provenance"]["case_id"]]
    assert regressions["exported"] == 3 and len(regressions["still_failing"]) == 2
    md = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert "| not re-tested (no case in this suite) | 1 |" in md
    without = aggregate([str(tmp_path / "r2.jsonl")])
    assert without["regressions"]["not_retested"] is None and without["regressions"]["exported"] == 2


def test_export_only_broken_cases(tmp_path):
    cases = suite_file(tmp_path)

    def wrong_on_mia(text):  # wrong on every question about Mia: her original fails too
        out = toy(text)
        return out + "1" if "mia" in text.lower() else out

    evaluate(str(cases), wrong_on_mia, tmp_path / "r.jsonl")
    failing = export_failures([str(tmp_path / "r.jsonl")], str(tmp_path / "f.jsonl"))
    broken = export_failures([str(tmp_path / "r.jsonl")], str(tmp_path / "b.jsonl"), only="broken")
    # failing: 5 cases of Mia's example, plus zero_width and spaces on the two others
    assert (failing, broken) == (9, 4)
    assert all(r["provenance"]["example_id"] != "a" for r in read(tmp_path / "b.jsonl"))


# -- assert_invariant -----------------------------------------------------------------------------


def test_assert_invariant_passes_and_fails_with_grouped_table():
    questions = [e["q"] for e in EXAMPLES]
    assert_invariant(toy, questions, perturbations=["upper_case", "trailing_newline"], checker=Checker())
    with pytest.raises(AssertionError) as info:
        assert_invariant(
            toy, questions, perturbations=["upper_case", "zero_width", "spaces"], checker=Checker()
        )
    msg = str(info.value)
    assert msg.splitlines()[0] == (
        "6 of 9 perturbed inputs changed the model's answer (max allowed rate 0.0):"
    )
    assert "  spaces: 3/3 failing" in msg and "  zero_width: 3/3 failing" in msg
    assert "upper_case" not in msg
    assert_invariant(
        toy,
        questions,
        perturbations=["upper_case", "zero_width", "spaces"],
        checker=Checker(),
        max_failure_rate=0.7,
    )


# -- CLI ------------------------------------------------------------------------------------------


def test_cli_walkthrough(tmp_path, capsys):
    examples = write_examples(tmp_path / "ex.jsonl")
    model_file = tmp_path / "model.py"
    model_file.write_text(
        f"import sys\nsys.path.insert(0, {str(__import__('pathlib').Path(__file__).parent)!r})\n"
        "from test_robustness import toy as answer\n"
    )
    cases, results, rep = tmp_path / "cases.jsonl", tmp_path / "results.jsonl", tmp_path / "rep"
    assert (
        cli.main(
            [
                "suite",
                str(examples),
                "--field",
                "q",
                "--answer-field",
                "gold",
                "--id-field",
                "id",
                "--select",
                TOY_SELECT,
                "--seeds",
                "0,1",
                "-o",
                str(cases),
            ]
        )
        == 0
    )
    assert "3 examples -> " in capsys.readouterr().err
    assert cli.main(["evaluate", str(cases), "--callable", f"{model_file}:answer", "-o", str(results)]) == 0
    assert "errors by type: none" in capsys.readouterr().err
    assert (
        cli.main(
            [
                "report",
                str(results),
                "-o",
                str(rep),
                "--no-plots",
                "--export-failures",
                str(tmp_path / "reg.jsonl"),
            ]
        )
        == 0
    )
    assert "exported 9 failing cases" in capsys.readouterr().err
    argv = ["report", str(results), "--export-failures", str(tmp_path / "b.jsonl"), "--only", "broken"]
    assert cli.main(argv) == 0 and "exported 9 broken cases" in capsys.readouterr().err
    data = json.loads((rep / "report.json").read_text(encoding="utf-8"))
    # zero_width is seeded: 3 examples x 2 seeds; spaces is not seeded: one case per example
    assert [(g["name"], g["failures"]) for g in data["perturbations"][:2]] == [
        ("zero_width", 6),
        ("spaces", 3),
    ]
    assert len(read(tmp_path / "reg.jsonl")) == 9
    summary = json.loads((tmp_path / "cases.summary.json").read_text())
    assert summary["examples"] == 3


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["suite", "nope.jsonl", "--field", "q", "-o", "x.jsonl"], "no such file"),
        (["suite", "EX", "--field", "missing", "-o", "x.jsonl"], "no string field 'missing'"),
        (["suite", "EX", "--field", "q", "--select", "colour=red", "-o", "x.jsonl"], "FIELD=V1,V2"),
        (["suite", "EX", "--field", "q", "--seeds", "a,b", "-o", "x.jsonl"], "--seeds"),
        (["evaluate", "EX", "--base-url", "http://127.0.0.1:9/v1", "-o", "r.jsonl"], "--model is required"),
        (["evaluate", "EX", "--callable", "nomodule_xyz:f", "-o", "r.jsonl"], "--callable"),
        (["report", "missing.jsonl", "-o", "rep"], "no such file"),
        (["report", "EX"], "give -o DIR"),
        (["report", "EX", "-o", "rep"], "is not a result"),
        (
            ["evaluate", "EX", "--callable", "os.path:basename", "-o", "r.jsonl"],
            "the output of `perturber suite`",
        ),
    ],
)
def test_cli_errors_are_one_line(tmp_path, capsys, monkeypatch, argv, needle):
    monkeypatch.chdir(tmp_path)
    write_examples(tmp_path / "EX")
    code = cli.main(argv)
    err = capsys.readouterr().err
    assert code == 2 and needle in err and "Traceback" not in err and err.count("\n") == 1


def test_a_failing_original_is_asked_once_and_its_cases_not_at_all(tmp_path):
    cases = suite_file(tmp_path)
    asked = []

    def fails_on_a(text):
        asked.append(text)
        if text == EXAMPLES[0]["q"]:
            raise TimeoutError("slow")
        return toy(text)

    s = evaluate(str(cases), fails_on_a, tmp_path / "r.jsonl", concurrency=2)
    assert asked.count(EXAMPLES[0]["q"]) == 1 and len(asked) == 1 + 2 + 10
    assert dict(s.errors) == {"TimeoutError": 1, "original_failed": 5}


def test_categorical_levels_and_model_gates():
    from perturber.robustness import gates
    from perturber.robustness.suite import measured_level

    kb = next(g for g in select.GRADED_REASONING if g.name == "Knowledge Boundary")
    entry = {
        "name": "knowledge_boundary",
        "category": "native",
        "family": "reasoning",
        "params": [
            {
                "name": "boundary",
                "type": "str",
                "choices": [
                    "missing_information",
                    "fabricated_evidence",
                    "unknowable_value",
                    "fabricated_entity",
                    "impossible_premise",
                ],
            }
        ],
    }
    levels = [
        measured_level(kb, entry, "q", "q2", 0.3, {"boundary": b}, ladder.DEFAULT_BANDS)
        for b in entry["params"][0]["choices"]
    ]
    assert levels == [1, 2, 3, 4, 5]
    assert measured_level(kb, entry, "q", "q", 0.0, {"boundary": "unknowable_value"}, {}) == 0
    common = dict(
        original="Buy 4 eggs",
        perturbed="Purchase 4 eggs",
        applied=True,
        reason=None,
        expectation="invariant",
        name="lexical_paraphrasing",
    )
    assert gates.check_gate(**common, details={"numbers_preserved": False}).reason == "model_numbers_changed"
    assert gates.check_gate(**common, details={"numbers_preserved": True}).reason is None
    assert (
        gates.check_gate(**{**common, "applied": False, "reason": "no_candidates"}, details={}).reason
        == "not_applied:no_candidates"
    )


def test_an_entry_that_errors_is_rejected_and_the_suite_goes_on(monkeypatch):
    from perturber import core
    from perturber.errors import ResourceUnavailable

    real = core.apply

    def apply(text, name, *args, **kwargs):
        if name == "upper_case":
            raise ResourceUnavailable("no endpoint", code="model_unavailable")
        return real(text, name, *args, **kwargs)

    monkeypatch.setattr(core, "apply", apply)
    cases = list(build_suite(EXAMPLES, field="q", id_field="id", select="name=upper_case,spaces"))
    assert [(c["name"], c["gate"], c["reason"]) for c in cases if c["example_id"] == "a"] == [
        ("upper_case", "rejected", "error:model_unavailable"),
        ("spaces", "pass", None),
    ]


def test_progress_shows_rate_and_eta():
    import io

    from perturber.records import Progress

    buf = io.StringIO()
    bar = Progress(4, True, stream=buf)
    for _ in range(4):
        bar.update()
    line = buf.getvalue().rsplit("\r", 1)[-1]
    assert line.startswith("[" + "#" * 30 + "] 4/4 ") and "/s ETA 0s" in line and line.endswith("\n")
    quiet = io.StringIO()
    Progress(4, False, stream=quiet).update()
    assert quiet.getvalue() == ""


def test_preset_puts_each_entry_in_one_family_and_ladders_categories(monkeypatch):
    from perturber import core

    catalog = [
        {
            "name": "typo_paraphrase",
            "category": "native",
            "family": "paraphrasing",
            "version": 1,
            "expectation": "invariant",
            "seed_sensitive": False,
            "intensity": None,
            "params": [],
        },
        {
            "name": "lexical_paraphrasing",
            "category": "native",
            "family": "paraphrasing",
            "version": 1,
            "expectation": "invariant",
            "seed_sensitive": False,
            "intensity": None,
            "params": [],
        },
        {
            "name": "knowledge_boundary",
            "category": "native",
            "family": "reasoning",
            "version": 1,
            "expectation": "refusal",
            "seed_sensitive": False,
            "intensity": None,
            "params": [
                {
                    "name": "boundary",
                    "type": "str",
                    "choices": [
                        "missing_information",
                        "fabricated_evidence",
                        "unknowable_value",
                        "fabricated_entity",
                        "impossible_premise",
                    ],
                }
            ],
        },
    ]
    plan = select.plan(preset="graded-reasoning", catalog=catalog)
    homes = [(e["name"], g.name) for e, g in plan.items]
    assert homes == [
        ("lexical_paraphrasing", "Semantic Variation"),
        ("typo_paraphrase", "Input Quality"),
        ("knowledge_boundary", "Knowledge Boundary"),
    ]

    def fake_apply(text, name, params=None, seed=0, category="native"):
        params = dict(params or {})
        boundary = params.get("boundary", "x")  # a valid rewrite: removes a fact, or adds one
        out = text.replace("tall", "") if boundary == "missing_information" else f"{text} [{boundary}]"
        return refusal_result(out, name, params, seed, category)

    monkeypatch.setattr(core, "apply", fake_apply)
    cases = list(
        build_suite(
            [{"q": "How tall is Zorblax?"}],
            field="q",
            preset="graded-reasoning",
            select="name=knowledge_boundary",
            ladder_scan=True,
            catalog=catalog,
        )
    )
    assert [(c["params"]["boundary"], c["level"], c["gate"]) for c in cases] == [
        ("missing_information", 1, "pass"),
        ("fabricated_evidence", 2, "pass"),
        ("unknowable_value", 3, "pass"),
        ("fabricated_entity", 4, "pass"),
        ("impossible_premise", 5, "pass"),
    ]


def test_assert_invariant_defaults_run_native_deterministic_entries_once(monkeypatch):
    from perturber import core
    from perturber.robustness.assertions import default_perturbations

    monkeypatch.delenv("PERTURBER_LLM_BASE_URL", raising=False)  # no endpoint: must not be needed
    names = default_perturbations()
    catalog = {e["name"]: e for e in core.list_perturbations(category="native")}
    assert len(names) == len(set(names)) and names
    assert all(catalog[n]["kind"] == "deterministic" and catalog[n]["in_scope"] for n in names)
    assert all(catalog[n]["expectation"] == "invariant" for n in names)
    assert not {catalog[n]["family"] for n in names} & {"control", "schema"}
    applied = []
    real = core.apply

    def spy(text, name, params=None, seed=0, category="native"):
        applied.append((name, seed, category))
        return real(text, name, params, seed, category)

    monkeypatch.setattr(core, "apply", spy)
    assert_invariant(lambda text: "same", ["Mia has 12 apples."], seeds=[0, 1])
    seeded = {n for n in names if catalog[n]["seed_sensitive"]}
    assert {c for _, _, c in applied} == {"native"}
    assert len(applied) == len(names) + len(seeded)  # seed-insensitive entries run once


def test_the_example_problems_are_the_generators_output():
    import importlib.util
    import pathlib

    root = pathlib.Path(__file__).resolve().parent.parent / "examples"
    spec = importlib.util.spec_from_file_location("make_word_problems", root / "make_word_problems.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    committed = [json.loads(line) for line in (root / "gsm8k_style.jsonl").read_text().splitlines()]
    assert committed == module.problems(300)
