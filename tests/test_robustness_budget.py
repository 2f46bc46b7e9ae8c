"""Know the cost first, never ask twice: the plan, --dry-run, --max-calls/--max-cost, token usage,
the reply cache (de-duplication in a run, persistence across runs, concurrency, its size cap)."""

import json
import sys
import threading
import types

import pytest

pytest.importorskip("openai")
pytest.importorskip("text_to_num")

from test_robustness import TOY_SELECT, own_reply_cache, read, suite_file, toy  # noqa: F401 (a fixture)

from evalkit.chat_server import Reply
from perturber import cli
from perturber.errors import InvalidParams
from perturber.robustness import budget
from perturber.robustness.cache import MemoryCache, ReplyCache, request_key, user_cache_dir
from perturber.robustness.evaluate import evaluate
from perturber.robustness.report import aggregate


def answering(body):
    user = [m["content"] for m in body["messages"] if m["role"] == "user"][-1]
    return Reply(content=toy(user), usage={"prompt_tokens": len(user) // 4 + 4, "completion_tokens": 5})


def evaluate_argv(cases, server, out, *extra):
    return ["evaluate", str(cases), "--base-url", server.base_url, "--model", "m", "-o", str(out), *extra]


CASE = {"example_id": "1", "original": "Mia has 12 apples and gives 5 away. How many are left?",
        "expectation": "invariant", "answer": 7, "name": "x", "family": "f"}  # fmt: skip


# -- tokens and prices ----------------------------------------------------------------------------


def test_tokens_are_estimated_by_characters_without_tiktoken(monkeypatch):
    monkeypatch.setitem(sys.modules, "tiktoken", None)
    counter = budget.token_counter("gpt-4o-mini")
    assert counter.name == "characters/4 estimate (tiktoken not installed)"
    assert counter.count("x" * 9) == 3  # ceil(9 / 4)
    assert counter.request(None, "x" * 8) == 2 + 4 and counter.request("y" * 4, "x" * 8) == (1 + 4) + (2 + 4)


def test_tiktoken_is_used_when_its_encoding_loads_and_the_failure_is_named_when_not(monkeypatch):
    class Encoding:
        name = "o200k_base"

        def encode(self, text, disallowed_special=()):
            return text.split()

    fake = types.SimpleNamespace(
        encoding_for_model=lambda model: (_ for _ in ()).throw(KeyError(model)),
        get_encoding=lambda name: Encoding(),
    )
    monkeypatch.setitem(sys.modules, "tiktoken", fake)
    counter = budget.token_counter("my-model")
    assert counter.name == "tiktoken o200k_base" and counter.count("one two three") == 3

    def offline(name):
        raise ConnectionError("no network")

    monkeypatch.setitem(sys.modules, "tiktoken", types.SimpleNamespace(encoding_for_model=offline))
    counter = budget.token_counter("gpt-4o")
    assert counter.encoding is None
    assert counter.name == "characters/4 estimate (tiktoken could not load its encoding: ConnectionError)"


def test_prices_come_from_the_flags_or_the_table():
    assert budget.price_for("gpt-4o-mini") == budget.Price(0.15, 0.60, "the price table (list prices)")
    assert budget.price_for("gpt-4o-mini", 1.0, 3.0).cost(2_000_000, 1_000_000) == 5.0
    assert budget.price_for("unknown-model") is None
    with pytest.raises(InvalidParams, match="both --price-in and --price-out"):
        budget.price_for("m", 1.0, None)
    with pytest.raises(InvalidParams, match="--max-cost needs a price"):
        budget.Limits(max_cost=1.0)


# -- the reply cache ------------------------------------------------------------------------------


def test_the_request_key_holds_everything_that_decides_a_reply():
    base = {"endpoint": "http://h/v1", "model": "m", "system": None, "temperature": 0.0, "max_tokens": 9}
    key = request_key(base, 0, "text")
    for change in ({"model": "n"}, {"system": "be brief"}, {"temperature": 0.7}, {"endpoint": "http://g/v1"}):
        assert request_key({**base, **change}, 0, "text") != key
    assert request_key(base, 1, "text") != key and request_key(base, 0, "text ") != key
    assert (
        request_key(dict(reversed(base.items())), 0, "text") == key
    )  # the order of settings does not matter


def test_the_cache_dir_follows_the_platform():
    assert str(user_cache_dir({"HOME": "/h"}, "linux")) == "/h/.cache/perturber"
    assert str(user_cache_dir({"LOCALAPPDATA": "C:/L", "HOME": "/h"}, "win32")) == "C:/L/perturber/Cache"


def test_the_cache_is_capped_and_evicts_the_least_recently_used(tmp_path):
    cache = ReplyCache(tmp_path, max_bytes=2_000)
    for i in range(40):
        cache.put(f"{i:064d}", "x" * 40, {})  # 104 bytes each with its key and usage
        if i == 0:
            first = f"{i:064d}"
        cache.get(first)  # kept in use: never the least recently used
    cache.evict()
    assert cache.size() <= 2_000 and cache.get(first) is not None
    assert cache.get(f"{1:064d}") is None  # an old reply nobody asked for again
    cache.close()
    memory = MemoryCache(entries=2)
    for key in "abc":
        memory.put(key, key, {})
    assert [memory.contains(k) for k in "abc"] == [False, True, True]


def _writer(path, start, count, errors):
    try:
        cache = ReplyCache(path)
        for i in range(start, start + count):
            cache.put(f"k{i}", f"reply {i}", {"completion_tokens": 1})
        cache.close()
    except Exception as err:  # pragma: no cover - reported below
        errors.append(err)


def test_the_cache_is_safe_with_concurrent_writers(tmp_path):
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), i * 300, 300, [])) for i in range(3)]
    errors: list = []
    threads = [
        threading.Thread(target=_writer, args=(str(tmp_path), 900 + i * 100, 100, errors)) for i in range(2)
    ]
    for worker in [*procs, *threads]:
        worker.start()
    for worker in [*procs, *threads]:
        worker.join(120)
    assert not errors and all(p.exitcode == 0 for p in procs)
    cache = ReplyCache(tmp_path)
    assert all(cache.get(f"k{i}") == (f"reply {i}", {"completion_tokens": 1}) for i in range(1100))
    cache.close()


# -- never ask twice ------------------------------------------------------------------------------


def test_identical_requests_are_sent_once_per_run(tmp_path):
    cases = [
        {**CASE, "case_id": "a", "perturbed": CASE["original"].upper()},
        {**CASE, "case_id": "b", "perturbed": CASE["original"].upper()},  # the same text as a
        {**CASE, "case_id": "c", "perturbed": CASE["original"]},  # the original's text
    ]
    asked = []

    def model(text):
        asked.append(text)
        return toy(text)

    summary = evaluate(cases, model, tmp_path / "r.jsonl", concurrency=4)
    assert len(asked) == 2 == summary.calls and summary.deduplicated == 2
    assert summary.plan.requests == 4 and summary.plan.distinct == 2 and summary.plan.duplicates == 2
    sources = {r["key"]: r["reply_sources"] for r in read(tmp_path / "r.jsonl")}
    assert sorted(s for v in sources.values() for s in v) == ["endpoint", "endpoint", "run", "run"]


def test_a_second_identical_run_makes_no_endpoint_call(llm_server, tmp_path, capsys):
    cases = suite_file(tmp_path, TOY_SELECT)
    llm_server.script(default=answering)
    assert cli.main(evaluate_argv(cases, llm_server, tmp_path / "r1.jsonl")) == 0
    first = len(llm_server.requests)
    assert first == 18
    capsys.readouterr()
    assert cli.main(evaluate_argv(cases, llm_server, tmp_path / "r2.jsonl")) == 0
    err = capsys.readouterr().err
    assert len(llm_server.requests) == first  # all 18 replies came from the cache
    assert "18 answered by the cache, 0 to send" in err and "0 model calls" in err
    assert "18 replies from the cache" in err
    results = [r for r in read(tmp_path / "r2.jsonl") if r["kind"] != "inflight"]
    assert {tuple(r["reply_sources"]) for r in results} == {("cache",)}
    assert sorted((r["key"], r["sim"]) for r in results) == sorted(
        (r["key"], r["sim"]) for r in read(tmp_path / "r1.jsonl")
    )
    assert cli.main(evaluate_argv(cases, llm_server, tmp_path / "r3.jsonl", "--no-cache")) == 0
    assert len(llm_server.requests) == 2 * first  # --no-cache: asked again
    data = aggregate([str(tmp_path / "r2.jsonl")])
    assert data["provenance"]["reply_sources"] == {"cache": 18}


def test_resume_and_cache_work_together(llm_server, tmp_path):
    """A reply received but not recorded (the run died) comes from the cache on resume."""
    cases = suite_file(tmp_path, TOY_SELECT)
    llm_server.script(default=answering)
    out = tmp_path / "r.jsonl"
    assert cli.main(evaluate_argv(cases, llm_server, out)) == 0
    lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
    out.write_text("".join(lines[:10]), encoding="utf-8")  # lost the last 9 results and the run's end
    assert cli.main(evaluate_argv(cases, llm_server, out)) == 0
    assert len(llm_server.requests) == 18
    results = [r for r in read(out) if r["kind"] in ("case", "original")]
    assert len({r["key"] for r in results}) == 18 == len(results)
    assert sum(r["reply_sources"] == ["cache"] for r in results) == 9


# -- the plan, limits and usage -------------------------------------------------------------------


def test_dry_run_prints_the_plan_and_asks_nothing(llm_server, tmp_path, capsys):
    cases = suite_file(tmp_path, TOY_SELECT)
    llm_server.script(default=answering)
    out = tmp_path / "r.jsonl"
    argv = evaluate_argv(cases, llm_server, out, "--dry-run", "--price-in", "1", "--price-out", "4")
    assert cli.main([*argv, "--output-tokens", "10"]) == 0
    err = capsys.readouterr().err
    assert not llm_server.requests and not out.exists()
    texts = [c["perturbed"] for c in read(cases) if c["gate"] == "pass"]
    texts += sorted({c["original"] for c in read(cases)})
    tokens = sum(-(-len(t) // 4) + 4 for t in texts)
    cost = round((tokens * 1 + 18 * 10 * 4) / 1e6, 6)
    assert err == (
        f"perturber: plan: 18 results to get, 18 model requests, 18 distinct (0 duplicates sent once), "
        f"0 answered by the cache, 18 to send; estimated tokens: {tokens:,} in (characters/4 estimate "
        f"(tiktoken not installed)), 180 out (10 per reply (--output-tokens); at most 9,216); "
        f"estimated cost ${cost:,.4f} (--price-in/--price-out)\n"
    )


def test_usage_is_summed_and_compared_with_the_estimate(llm_server, tmp_path, capsys):
    cases = suite_file(tmp_path, TOY_SELECT)
    llm_server.script(default=answering)
    out = tmp_path / "r.jsonl"
    assert cli.main(evaluate_argv(cases, llm_server, out, "--price-in", "1", "--price-out", "2")) == 0
    expected_in = sum(len(r.body["messages"][-1]["content"]) // 4 + 4 for r in llm_server.requests)
    end = json.loads(out.read_text(encoding="utf-8").splitlines()[-1])
    assert end["kind"] == "run_end" and end["calls"] == 18
    assert end["usage"] == {
        "prompt_tokens": expected_in,
        "completion_tokens": 90,
        "replies": 18,
        "reported": 18,
    }
    assert end["cost"] == pytest.approx((expected_in * 1 + 90 * 2) / 1e6)
    assert f"tokens used: {expected_in:,} in, 90 out" in capsys.readouterr().err
    p = aggregate([str(out)])["provenance"]
    assert p["actual"]["prompt_tokens"] == expected_in and p["actual"]["completion_tokens"] == 90
    assert p["input_ratio"] == round(expected_in / p["estimated"]["input_tokens"], 3)
    assert 0.8 < p["input_ratio"] < 1.2
    # a resumed run expects replies as long as the ones recorded (5 tokens each)
    lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
    out.write_text("".join(lines[:9]), encoding="utf-8")  # the header and 8 results
    assert cli.main(evaluate_argv(cases, llm_server, out, "--dry-run", "--no-cache")) == 0
    assert "50 out (5 per reply, the mean of 8 recorded replies; at most 5,120)" in capsys.readouterr().err


def test_max_calls_stops_cleanly_and_the_run_resumes(llm_server, tmp_path, capsys, caplog):
    import gc

    cases = suite_file(tmp_path, TOY_SELECT)
    llm_server.script(default=answering)
    out = tmp_path / "r.jsonl"
    code = cli.main(evaluate_argv(cases, llm_server, out, "--max-calls", "7", "--concurrency", "8"))
    gc.collect()
    assert "never retrieved" not in caplog.text  # every task stopped by the limit was awaited
    err = capsys.readouterr().err
    assert code == 5 and len(llm_server.requests) == 7
    stop = err.strip().splitlines()[-1]
    done = len([r for r in read(out) if r["kind"] in ("case", "original") and "error" not in r])
    assert stop.startswith("perturber: stopped at --max-calls 7: 7 calls made, ")
    assert f"{18 - done} results still to get; run again (with a higher limit) to continue" in stop
    assert json.loads(out.read_text(encoding="utf-8").splitlines()[-1])["stopped"] == "--max-calls 7"
    assert cli.main(evaluate_argv(cases, llm_server, out)) == 0
    assert len(llm_server.requests) == 18  # nothing asked twice
    assert len({r["key"] for r in read(out) if r["kind"] in ("case", "original") and "error" not in r}) == 18


def test_max_cost_stops_before_the_budget_is_passed(llm_server, tmp_path, capsys):
    cases = suite_file(tmp_path, TOY_SELECT)
    llm_server.script(default=answering)
    out = tmp_path / "r.jsonl"
    argv = evaluate_argv(
        cases, llm_server, out, "--price-in", "1000", "--price-out", "1000", "--concurrency", "1"
    )
    code = cli.main([*argv, "--max-cost", "0.1", "--output-tokens", "5"])
    err = capsys.readouterr().err
    end = json.loads(out.read_text(encoding="utf-8").splitlines()[-1])
    assert code == 5 and "stopped at --max-cost 0.1" in err
    assert 0 < end["cost"] <= 0.1 and 0 < end["calls"] < 18


def test_bad_budget_flags_are_one_line_errors(tmp_path, capsys):
    cases = suite_file(tmp_path, TOY_SELECT)
    for extra, needle in (
        (["--max-cost", "1"], "--max-cost needs a price"),
        (["--price-in", "1"], "both --price-in and --price-out"),
        (["--samples", "0"], "--samples must be an int in [1, 50]"),
        (["--cache-size", "0"], "--cache-size must be a positive number"),
    ):
        argv = [
            "evaluate",
            str(cases),
            "--callable",
            "examples/toy_model.py:answer",
            "-o",
            str(tmp_path / "r"),
        ]
        assert cli.main([*argv, *extra]) == 2
        err = capsys.readouterr().err
        assert needle in err and err.count("\n") == 1 and "Traceback" not in err
