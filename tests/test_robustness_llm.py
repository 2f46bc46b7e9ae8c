"""``perturber evaluate`` against a real OpenAI-compatible server on 127.0.0.1 (evalkit.chat_server, through the llm_server fixture)."""

import json
import logging

import pytest

pytest.importorskip("openai")
pytest.importorskip("text_to_num")


from test_robustness import TOY_SELECT, own_reply_cache, read, suite_file, toy  # noqa: F401 (a fixture)

from evalkit.chat_server import Reply  # the llm_server fixtures come from conftest.py
from evalkit.cli import perturber_argv
from perturber import cli
from perturber.robustness.evaluate import EndpointModel, evaluate
from perturber.robustness.report import aggregate

KEY = "sk-test-SECRET-robustness-77"


def answering(body):
    """The server plays the toy model on the last user message."""
    user = [m["content"] for m in body["messages"] if m["role"] == "user"][-1]
    return Reply(content=toy(user))


@pytest.fixture
def cases(tmp_path):
    return suite_file(tmp_path, TOY_SELECT)


def test_evaluate_against_the_server(llm_server, cases, tmp_path, monkeypatch, caplog):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("PERTURBER_LLM_API_KEY", KEY)
    llm_server.script(Reply(status=500, headers={"retry-after": "0"}), default=answering)
    model = EndpointModel(llm_server.base_url, "toy-m", system_prompt="Answer with #### N.", concurrency=4)
    out = tmp_path / "results.jsonl"
    summary = evaluate(str(cases), model, out, concurrency=4)
    assert not summary.errors and summary.calls == 18
    assert len(llm_server.requests) == 19  # one 500, retried
    assert 1 <= llm_server.max_in_flight <= 4
    first = llm_server.requests[0]
    assert first.headers["authorization"] == f"Bearer {KEY}"  # the key is used ...
    assert first.body["messages"][0] == {"role": "system", "content": "Answer with #### N."}
    assert first.body["model"] == "toy-m"
    blob = out.read_text(encoding="utf-8")
    assert KEY not in blob and KEY not in caplog.text and KEY not in repr(model)  # ... never kept
    results = read(out)
    case = next(r for r in results if r["kind"] == "case" and r["name"] == "upper_case")
    assert case["extracted"] == str(case["answer"]) and case["sim"] == 1.0 and case["model"] == "toy-m"
    data = aggregate([str(out)])
    assert [(g["name"], g["failures"]) for g in data["perturbations"][:2]] == [
        ("spaces", 3),
        ("zero_width", 3),
    ]


def test_resumption_makes_no_duplicate_calls(llm_server, cases, tmp_path):
    llm_server.script(default=answering)
    out = tmp_path / "results.jsonl"
    evaluate(str(cases), EndpointModel(llm_server.base_url, "m", api_key=""), out)
    lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
    assert len(lines) == 1 + 18 + 1  # the run's header, the results, the run's end
    assert [json.loads(line)["kind"] for line in (lines[0], lines[-1])] == ["run", "run_end"]
    out.write_text("".join(lines[:8]) + lines[8][:25], encoding="utf-8")  # interrupted mid-write
    llm_server.reset()
    llm_server.script(default=answering)
    summary = evaluate(str(cases), EndpointModel(llm_server.base_url, "m", api_key=""), out)
    asked = [r.body["messages"][-1]["content"] for r in llm_server.requests]
    assert len(asked) == 11 == summary.calls and len(set(asked)) == 11
    results = read(out)
    assert len(results) == 18 and len({r["key"] for r in results}) == 18
    assert "authorization" not in llm_server.requests[0].headers  # no key: no header


def test_server_errors_are_recorded_by_type_and_keyless(llm_server, cases, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PERTURBER_LLM_API_KEY", KEY)
    llm_server.script(*[Reply(status=401, content=None)] * 3, default=answering)
    out = tmp_path / "results.jsonl"
    code = cli.main(
        [
            "evaluate",
            str(cases),
            "--base-url",
            llm_server.base_url,
            "--model",
            "m",
            "--concurrency",
            "1",
            "-o",
            str(out),
        ]
    )
    err = capsys.readouterr().err
    # the three originals are asked first and fail: their cases are not asked at all
    assert code == 0 and "errors by type: original_failed: 15, model_error: 3" in err and KEY not in err
    assert "3 model calls" in err
    errors = [r for r in read(out) if "error" in r]
    assert sorted({r["error"]["code"] for r in errors}) == ["model_error", "original_failed"]
    assert all("401" in r["error"]["message"] or r["error"]["code"] == "original_failed" for r in errors)
    assert KEY not in out.read_text(encoding="utf-8")
    code = cli.main(
        ["evaluate", str(cases), "--base-url", llm_server.base_url, "--model", "m", "-o", str(out)]
    )
    assert code == 0 and "errors by type: none" in capsys.readouterr().err
    good = {r["key"] for r in read(out) if "error" not in r}
    assert len(good) == 18


def test_refusal_judge_rubric(llm_server, tmp_path):
    from perturber.robustness.checking import Checker
    from perturber.robustness.evaluate import rubric_judge

    cases = [
        {
            "case_id": f"r{i}",
            "example_id": "1",
            "original": "How tall is Zorblax?",
            "perturbed": f"How tall is the fictional Zorblax {i}?",
            "expectation": "refusal",
            "answer": None,
            "name": "knowledge_boundary",
            "family": "reasoning",
        }
        for i in range(4)
    ]
    grades = iter("ABCD")

    def server(body):
        if body["messages"][0]["content"].startswith("The question below"):
            return Reply(content=next(grades))
        return Reply(content="It is 3 meters tall.")

    llm_server.script(default=server)
    model = EndpointModel(llm_server.base_url, "m", api_key="")
    out = tmp_path / "r.jsonl"
    evaluate(cases, model, out, concurrency=1, checker=Checker(), refusal_judge=rubric_judge(model))
    sims = sorted(r["sim"] for r in read(out) if r["kind"] == "case")
    assert sims == [0.0, 0.25, 0.75, 1.0]
    assert read(out)[0]["kind"] == "original"


def test_gate_judge_rejects_what_it_calls_different(llm_server, tmp_path, monkeypatch, capsys):
    from test_robustness import write_examples

    monkeypatch.setenv("PERTURBER_LLM_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("PERTURBER_LLM_DEFAULT_MODEL", "judge")
    monkeypatch.setenv("PERTURBER_LLM_API_KEY", KEY)

    def judge(body):
        second = body["messages"][-1]["content"].split("Second version:")[1]
        return Reply(content="DIFFERENT" if "\u200b" in second else "SAME")

    llm_server.script(default=judge)
    examples = write_examples(tmp_path / "ex.jsonl")
    out = tmp_path / "cases.jsonl"
    assert (
        cli.main(
            [
                "suite",
                str(examples),
                "--field",
                "q",
                "--id-field",
                "id",
                "--select",
                "name=zero_width,upper_case",
                "--gate-judge",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    assert {c["name"] for c in read(out)} == {"upper_case"}
    rejected = read(tmp_path / "cases.rejected.jsonl")
    assert [(c["name"], c["reason"]) for c in rejected] == [("zero_width", "judge_rejected")] * 3
    assert len(llm_server.requests) == 6 and KEY not in capsys.readouterr().err


# -- transport vs model -------------------------------------------------------------------------

GARBAGE = [
    Reply(raw=b"<html><body>502 Bad Gateway</body></html>"),  # HTTP 200, not JSON
    Reply(raw=b'{"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": []}'),
    Reply(content=""),  # empty content
]


def test_garbage_replies_are_errors_never_scores_and_a_rerun_supersedes_them(llm_server, cases, tmp_path):
    llm_server.script(*GARBAGE, default=answering)  # the three originals get garbage
    out = tmp_path / "results.jsonl"
    model = EndpointModel(llm_server.base_url, "m", api_key="", concurrency=1, max_retries=0)
    first = evaluate(str(cases), model, out, concurrency=1)
    assert first.errors == {"model_bad_response": 2, "model_empty": 1, "original_failed": 15}
    assert not [r for r in read(out) if "sim" in r]  # nothing was scored
    assert aggregate([str(out)])["errors"] == dict(first.errors)
    llm_server.script(Reply(content=None))  # missing content, on the next run's first call: retried
    sent = len(llm_server.requests)
    second = evaluate(
        str(cases), EndpointModel(llm_server.base_url, "m", api_key="", concurrency=1), out, concurrency=1
    )
    assert not second.errors and second.calls == 18 and len(llm_server.requests) - sent == 19
    assert all(r["output"].strip() for r in read(out) if "sim" in r)
    third = evaluate(str(cases), EndpointModel(llm_server.base_url, "m", api_key=""), out)
    assert (third.calls, third.skipped) == (0, 15)  # nothing left to ask
    data = aggregate([str(out)])
    assert data["errors"] == {} and data["errors_superseded"] == 18  # keys that failed, now answered


def test_timeout_and_retries_come_from_the_settings_and_the_flags(
    llm_server, cases, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("PERTURBER_LLM_TIMEOUT", "7")
    monkeypatch.setenv("PERTURBER_LLM_MAX_RETRIES", "1")
    model = EndpointModel(llm_server.base_url, "m", api_key="")
    assert (model.endpoint.timeout, model.endpoint.max_retries) == (7.0, 1)
    model = EndpointModel(llm_server.base_url, "m", api_key="", timeout=0.5, max_retries=0)
    assert (model.endpoint.timeout, model.endpoint.max_retries) == (0.5, 0)
    # the CLI flags reach the endpoint: a slow reply times out once, with no retry
    slow = "Mia has 12 apples and gives 5 away. How many are left?"
    llm_server.script(
        default=lambda body: (
            Reply(content="#### 7", delay=2.0) if body["messages"][-1]["content"] == slow else answering(body)
        )
    )
    out = tmp_path / "r.jsonl"
    argv = ["evaluate", str(cases), "--base-url", llm_server.base_url, "--model", "m", "-o", str(out)]
    assert cli.main([*argv, "--timeout", "0.3", "--max-retries", "0", "--concurrency", "4"]) == 0
    err = capsys.readouterr().err
    assert "model_timeout: 1" in err and "original_failed: 5" in err
    asked = [r.body["messages"][-1]["content"] for r in llm_server.requests]
    assert asked.count(slow) == 1  # --max-retries 0: asked once
    assert cli.main([*argv, "--max-retries", "3"]) == 2
    assert "max_retries must be an int in [0, 2]" in capsys.readouterr().err


# -- knowledge boundary: its own gate, five levels ------------------------------------------------


def test_knowledge_boundary_ladder_reaches_all_five_levels(tier, tmp_path):
    from perturber.perturbations.reasoning import BOUNDARIES
    from perturber.robustness.suite import SuiteStats, build_suite

    question = "A baker sells 12 muffins per hour. How many muffins does she sell in 5 hours?"

    def rewrite(body):
        system, text = body["messages"][0]["content"], body["messages"][-1]["content"]
        boundary = next(b for b, intent in BOUNDARIES.items() if intent in system)
        if boundary == "missing_information":
            return Reply(content=text.replace("12 muffins per hour", "muffins at a steady rate"))
        return Reply(
            content=f"{text} (This follows the {boundary.replace('_', ' ')} of the Zentrix Institute.)"
        )

    tier.script(default=rewrite)
    stats = SuiteStats()
    cases = list(
        build_suite(
            [{"q": question}],
            field="q",
            preset="graded-reasoning",
            select="name=knowledge_boundary",
            ladder_scan=True,
            stats=stats,
        )
    )
    assert [(c["level"], c["gate"]) for c in cases] == [(k, "pass") for k in range(1, 6)]
    assert stats.to_dict()["ladder_unreachable"] == {}


# -- exactly once across ^C -----------------------------------------------------------------------


def test_sigint_then_resume_makes_no_duplicate_call(llm_server, cases, tmp_path):
    import signal
    import subprocess
    import threading
    import time

    replied: list[str] = []
    lock = threading.Lock()

    def slow_answer(body):
        reply = answering(body)
        reply.delay = 0.15
        with lock:
            replied.append(body["messages"][-1]["content"])
        return reply

    llm_server.script(default=slow_answer)
    out = tmp_path / "results.jsonl"
    argv = perturber_argv("evaluate", str(cases), "--base-url", llm_server.base_url, "--model", "m",
                          "--concurrency", "3", "-o", str(out))  # fmt: skip
    child = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while len(replied) < 5 and time.monotonic() < deadline and child.poll() is None:
        time.sleep(0.02)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=60)
    first_run = set(replied)
    assert child.returncode == 130, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 2 and lines[0].startswith("perturber: plan: "), err  # the plan, then ...
    assert lines[1].startswith("perturber: interrupted: "), err  # ... one line for the interrupt
    assert "Traceback" not in err and "never retrieved" not in err
    llm_server.reset()
    llm_server.script(default=answering)
    resumed = subprocess.run(argv, stderr=subprocess.PIPE, text=True, timeout=60)
    assert resumed.returncode == 0, resumed.stderr
    asked_again = [r.body["messages"][-1]["content"] for r in llm_server.requests]
    assert not first_run & set(asked_again)  # 0 duplicates for replies received before ^C
    assert "duplicate calls: 0" in resumed.stderr
    results = [r for r in read(out) if r["kind"] != "inflight" and "error" not in r]
    assert len(results) == 18 and len({r["key"] for r in results}) == 18
