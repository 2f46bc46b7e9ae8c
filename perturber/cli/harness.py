"""``perturber suite | evaluate | report | compare``: the robustness harness on the command line.

Examples::

    perturber suite examples/word_problems.jsonl --field question --answer-field answer \\
        --id-field id --select "family=character,padding" --ladder -o cases.jsonl
    perturber evaluate cases.jsonl --callable examples/toy_model.py:answer -o results.jsonl
    perturber evaluate cases.jsonl --base-url http://127.0.0.1:8000/v1 --model m -o results.jsonl
    perturber report results.jsonl --cases cases.jsonl -o report/ --fail-if "broken_rate>0.05"
    perturber compare baseline.jsonl candidate.jsonl -o compare/ --fail-on-regression
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..errors import InvalidParams
from .parser import Parser

if TYPE_CHECKING:
    from ..robustness.evaluate import EndpointModel


def cmd_suite(argv: Sequence[str]) -> int:
    from ..robustness import ladder, suite

    p = Parser(
        prog="perturber suite",
        description="Turn an eval set (JSONL, CSV, Parquet) into a robustness suite: "
        "passing cases to -o, rejected ones (with the gate's reason) to OUT.rejected.jsonl, "
        "counts and unreachable ladder levels to OUT.summary.json.",
    )
    p.add_argument("examples")
    p.add_argument("--field", required=True, help="field holding the input text")
    p.add_argument("--answer-field", help="field holding the gold answer (optional)")
    p.add_argument("--id-field", help="field holding the example id (default: line number)")
    p.add_argument(
        "--select", help='catalog filter, e.g. "family=word_level,character;expectation=invariant"'
    )
    p.add_argument("--in-scope", action="store_true", help="only in-scope entries")
    p.add_argument("--preset", help="graded-reasoning: the seven families of the graded framework")
    p.add_argument("--seeds", default="0", help="comma-separated seeds (default 0)")
    p.add_argument("--per-example", type=int, help="sample K perturbations per example (seeded)")
    p.add_argument("--ladder", action="store_true", help="scan each entry's intensity over L1..L5")
    p.add_argument("--bands", help="JSON/TOML file overriding the magnitude bands per family")
    p.add_argument(
        "--gate-judge",
        action="store_true",
        help="also ask an LLM judge (PERTURBER_LLM_BASE_URL / _DEFAULT_MODEL) whether the "
        "perturbed problem has the same answer",
    )
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None)
    p.add_argument("-o", "--output", required=True)
    args = p.parse_args(argv)
    judge = _gate_judge() if args.gate_judge else None
    stats = suite.write_suite(
        args.examples,
        args.output,
        field=args.field,
        answer_field=args.answer_field,
        id_field=args.id_field,
        select=args.select,
        in_scope=args.in_scope,
        preset=args.preset,
        seeds=suite.parse_seeds(args.seeds),
        per_example=args.per_example,
        ladder_scan=args.ladder,
        bands=ladder.load_bands(args.bands),
        judge=judge,
        progress=sys.stderr.isatty() if args.progress is None else args.progress,
    )
    info = stats.to_dict()
    sys.stderr.write(
        f"perturber: {info['examples']} examples -> {info['passed']} cases "
        f"({info['cases'] - info['passed']} rejected) in {args.output}\n"
    )
    for fam, missing in info["unavailable"].items():
        sys.stderr.write(f"perturber: {fam}: unavailable ({', '.join(missing)})\n")
    for flag in info["flagged"]:
        sys.stderr.write(f"perturber: warning: {flag['message']}\n")
    return 0


def _judge_ask():
    """A synchronous LLM judge through PERTURBER_LLM_BASE_URL / _DEFAULT_MODEL: messages -> reply."""
    from ..llm import Endpoint, LLMSettings

    settings = LLMSettings.from_env()
    endpoint = Endpoint.from_settings(settings)
    model = settings.default_model

    def ask(messages: list[dict]) -> str | None:
        return endpoint.chat(messages, model=model, temperature=0.0, max_tokens=8).text

    return ask


def _gate_judge():
    from ..robustness.gates import judge_messages, judge_says_same

    ask = _judge_ask()

    def judge(original: str, perturbed: str) -> bool:
        return judge_says_same(ask(judge_messages(original, perturbed)))

    return judge


EXIT_LIMIT = 5  # evaluate stopped at --max-calls / --max-cost (resumable)


def cmd_evaluate(argv: Sequence[str]) -> int:
    from ..robustness import budget, checking, evaluate

    p = Parser(
        prog="perturber evaluate",
        description="Run a model on a suite. Resumable and exactly once: results are keyed by case id, "
        "append-only; a re-run asks only what is missing or failed. Identical requests are sent once "
        "and answered from a reply cache shared across runs (endpoints; SQLite in the user cache "
        "directory). A line before the run gives the calls, distinct prompts, cache hits, estimated "
        "tokens and cost (--dry-run: only that line). A failed call (timeout, HTTP error, a reply "
        "without content) is recorded as an error, never scored. ^C stops cleanly (calls in flight get "
        "a few seconds to land). The API key comes from PERTURBER_LLM_API_KEY. Exit codes: 0 done, "
        f"2 bad input, 4 model backend failed, {EXIT_LIMIT} stopped at --max-calls/--max-cost "
        "(run again to continue), 130 interrupted.",
    )
    p.add_argument("cases", help="the cases of `perturber suite`")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1")
    src.add_argument("--callable", help="a Python model: module:function or path/file.py:function")
    p.add_argument("--model", help="model name (required with --base-url)")
    p.add_argument("--system-prompt", help="file holding a system prompt")
    p.add_argument("--concurrency", type=int, default=8, help="calls in flight at most (default 8)")
    p.add_argument("--max-tokens", type=int, default=512)
    p.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (default 0)")
    p.add_argument(
        "--samples",
        type=int,
        default=1,
        help="ask every text K times (endpoints get seed=0..K-1); the report gives per-case agreement "
        "and scores the most common answer (default 1)",
    )
    p.add_argument(
        "--timeout", type=float, help="seconds per attempt (default PERTURBER_LLM_TIMEOUT, else 30)"
    )
    p.add_argument(
        "--max-retries",
        type=int,
        help="retries of a timeout, 429, 5xx (0-2; default PERTURBER_LLM_MAX_RETRIES, else 2)",
    )
    p.add_argument(
        "--check",
        default="numeric",
        choices=("numeric", "exact", "judge"),
        help="how answers are compared: numeric (--tolerance), exact, or judge (an LLM judge through "
        "PERTURBER_LLM_BASE_URL / _DEFAULT_MODEL says whether the output gives the expected answer)",
    )
    p.add_argument("--tolerance", type=float, default=1e-3, help="relative tolerance (numeric)")
    p.add_argument("--answer-regex", help="regex extracting the answer (first group)")
    p.add_argument("--json-field", help="JSON field holding the answer (default ground_truth/answer)")
    p.add_argument(
        "--refusal-judge",
        action="store_true",
        help="score refusal cases with the LLM judge (4-point rubric) instead of the rule",
    )
    p.add_argument(
        "--cache",
        metavar="DIR",
        help="reply cache directory (default: the user cache directory, e.g. ~/.cache/perturber; "
        "with --callable, replies are cached across runs only when this is given)",
    )
    p.add_argument("--no-cache", action="store_true", help="no reply cache across runs")
    p.add_argument(
        "--cache-size", type=float, default=512, help="reply cache cap in MB (least recently used go)"
    )
    p.add_argument("--dry-run", action="store_true", help="print the plan (calls, tokens, cost) and stop")
    p.add_argument("--max-calls", type=int, help="stop cleanly before this many model calls")
    p.add_argument("--max-cost", type=float, help="stop cleanly before spending this many USD")
    p.add_argument("--price-in", type=float, help="USD per million input tokens")
    p.add_argument("--price-out", type=float, help="USD per million output tokens")
    p.add_argument(
        "--output-tokens",
        type=float,
        help=f"expected tokens per reply for the estimate (default: the mean of the replies already "
        f"recorded, else {budget.DEFAULT_OUTPUT_TOKENS})",
    )
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None)
    p.add_argument("-o", "--output", required=True)
    args = p.parse_args(argv)
    checker: checking.Scorer
    if args.check == "judge":
        checker = checking.JudgeScorer(_judge_ask())
    else:
        checker = checking.Checker(
            mode=args.check, tolerance=args.tolerance, regex=args.answer_regex, json_field=args.json_field
        )
    judge = None
    model: evaluate.EndpointModel | Callable
    if args.base_url:
        endpoint = _endpoint_model(args)
        if args.refusal_judge:
            judge = evaluate.rubric_judge(endpoint)
        model, name = endpoint, None
    else:
        model = evaluate.load_callable(args.callable)
        target, _, attr = args.callable.rpartition(":")
        name = f"{target.rsplit('/', 1)[-1].removesuffix('.py')}:{attr}"
    price = budget.price_for(args.model, args.price_in, args.price_out)
    limits = budget.Limits(args.max_calls, args.max_cost, price)
    show = sys.stderr.isatty() if args.progress is None else args.progress
    try:
        summary = evaluate.evaluate(
            args.cases,
            model,
            args.output,
            checker=checker,
            concurrency=args.concurrency,
            progress=show,
            refusal_judge=judge,
            model_name=name,
            cache=_reply_cache(args),
            samples=args.samples,
            limits=limits,
            price=price,
            output_tokens=args.output_tokens,
            dry_run=args.dry_run,
            announce=_announce,
        )
    except evaluate.Interrupted as stop:
        sys.stderr.write(("\n" if show else "") + f"perturber: {stop.summary.interrupt_message()}\n")
        return 130
    if args.dry_run:
        return 0
    sys.stderr.write(f"perturber: {summary.describe()}\n")
    if summary.stopped:
        sys.stderr.write(f"perturber: {summary.stop_message()}\n")
        return EXIT_LIMIT
    return 0


def _announce(plan) -> None:
    sys.stderr.write(f"perturber: {plan.describe()}\n")


def _reply_cache(args: argparse.Namespace):
    from ..robustness.cache import open_cache

    if args.cache_size <= 0:
        raise InvalidParams("--cache-size must be a positive number of MB", field="cache_size")
    persistent = not args.no_cache and (bool(args.base_url) or bool(args.cache))
    return open_cache(args.cache, persistent, int(args.cache_size * 1024 * 1024))


def _endpoint_model(args: argparse.Namespace) -> EndpointModel:
    from ..robustness.evaluate import EndpointModel

    if not args.model:
        raise InvalidParams("--model is required with --base-url", field="model")
    if args.timeout is not None and not 0 < args.timeout <= 900:
        raise InvalidParams("--timeout must be in (0, 900] seconds", field="timeout")
    system = None
    if args.system_prompt:
        try:
            with open(args.system_prompt, encoding="utf-8") as fh:
                system = fh.read()
        except OSError as err:
            raise InvalidParams(f"cannot read {args.system_prompt}: {err}", field="system_prompt") from None
    return EndpointModel(
        args.base_url,
        args.model,
        system_prompt=system,
        concurrency=args.concurrency,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        timeout=args.timeout,
        max_retries=args.max_retries,
    )


def cmd_report(argv: Sequence[str]) -> int:
    from ..robustness import report, thresholds
    from ..robustness.analysis import Options

    p = Parser(
        prog="perturber report",
        description="Write report.md, report.json, report.html and PNG plots from one or more results files "
        "(one per model): perturbations ranked by the answers they break (exact McNemar tests, "
        "adjusted), accuracies with 95 % intervals, paired and paper collapse points, Stability. "
        "Optionally export failing cases as a regression set. Exit codes: 0 written (and no --fail-if "
        "threshold holds), 1 a --fail-if threshold holds, 2 bad input.",
    )
    p.add_argument("results", nargs="+")
    p.add_argument("-o", "--output", help="report directory")
    p.add_argument(
        "--cases", help="the suite's cases file: its summary adds gate rejection rates and 'not re-tested'"
    )
    p.add_argument("--tau", type=float, default=0.8, help="collapse threshold (default 0.80)")
    _statistics_flags(p, "cells")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("--export-failures", metavar="FILE", help="write failing cases as suite input")
    p.add_argument(
        "--only",
        choices=("failing", "broken"),
        default="failing",
        help="export every failing case, or only broken ones (the original was right)",
    )
    p.add_argument(
        "--fail-if",
        nargs="+",
        metavar="EXPR",
        default=[],
        help="thresholds, e.g. 'broken_rate>0.05' 'collapse_point<=2' 'broken_rate[zero_width]>0.2': "
        "exit 1 when any holds for any model (metrics: accuracy, broken_rate, flip_rate, "
        "collapse_point, relative_stability, breaking, errors)",
    )
    p.add_argument("--perturbation", help="export filter: entry name")
    p.add_argument("--family", help="export filter: catalog or graded family")
    p.add_argument("--level", type=int, help="export filter: measured level")
    args = p.parse_args(argv)
    if not args.output and not args.export_failures:
        raise InvalidParams("give -o DIR and/or --export-failures FILE", field="output")
    _check_statistics(args)
    fail_if = [thresholds.parse(t) for t in args.fail_if]
    if fail_if and not args.output:
        raise InvalidParams(
            "--fail-if needs -o DIR (the thresholds are checked on the report)", field="fail_if"
        )
    failed: list[str] = []
    if args.output:
        options = Options(
            tau=args.tau,
            min_n=args.min_n,
            alpha=args.alpha,
            correction=args.correction,
            replicates=args.bootstrap,
            seed=args.seed,
        )
        data = report.write_report(
            args.results, args.output, options=options, cases=args.cases, plots_enabled=not args.no_plots
        )
        sys.stderr.write(f"perturber: report of {len(data['models'])} model(s) in {args.output}\n")
        failed = [
            f"{name}: {why}"
            for name in data["models"]
            for why in thresholds.check(fail_if, data["by_model"][name])
        ]
    if args.export_failures:
        n = report.export_failures(
            args.results,
            args.export_failures,
            perturbation=args.perturbation,
            family=args.family,
            level=args.level,
            only=args.only,
        )
        sys.stderr.write(f"perturber: exported {n} {args.only} cases to {args.export_failures}\n")
    for why in failed:
        sys.stderr.write(f"perturber: --fail-if {why}\n")
    return 1 if failed else 0


def cmd_compare(argv: Sequence[str]) -> int:
    import os

    from ..robustness import compare, compare_report

    p = Parser(
        prog="perturber compare",
        description="A regression gate: pair a baseline and a candidate run of the same suite case by "
        "case (only shared case ids; the output says when the suites differ) and report, per "
        "perturbation, per family x level and for the unperturbed originals, the accuracy drop and the "
        "broken-rate change with 95 % bootstrap intervals over examples, and an exact McNemar test on "
        "examples (adjusted across rows). Writes compare.md, compare.html and compare.json to -o; prints "
        "a short Markdown summary (appended to $GITHUB_STEP_SUMMARY when set). Exit codes: 0 no "
        "regression (or no --fail-on-regression), 1 a significant regression of at least --min-effect "
        "with --fail-on-regression, 2 bad input.",
    )
    p.add_argument("baseline", help="results.jsonl of the baseline run")
    p.add_argument("candidate", help="results.jsonl of the candidate run")
    p.add_argument("--cases", help="compare only the passing cases of this suite")
    p.add_argument("-o", "--output", required=True, help="directory for compare.md/.html/.json")
    p.add_argument("--fail-on-regression", action="store_true", help="exit 1 when a row regresses")
    p.add_argument(
        "--min-effect", type=float, default=0.02, help="smallest accuracy drop that counts (default 0.02)"
    )
    _statistics_flags(p, "rows")
    args = p.parse_args(argv)
    _check_statistics(args)
    gate = compare.Gate(
        alpha=args.alpha,
        min_effect=args.min_effect,
        min_n=args.min_n,
        correction=args.correction,
        replicates=args.bootstrap,
        seed=args.seed,
    )
    data = compare.compare(args.baseline, args.candidate, cases=args.cases, gate=gate)
    compare_report.write(data, args.output)
    summary = compare_report.summary_markdown(data)
    sys.stdout.write(summary)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        try:
            with open(step_summary, "a", encoding="utf-8") as fh:
                fh.write(summary + "\n")
        except OSError as err:
            raise InvalidParams(f"cannot append to $GITHUB_STEP_SUMMARY: {err}", field="output") from None
    return 1 if args.fail_on_regression and compare.failed(data) else 0


def _statistics_flags(p: Parser, what: str) -> None:
    """The flags of the tests and intervals, shared by `report` and `compare`."""
    p.add_argument(
        "--min-n", type=int, default=30, help=f"{what} with fewer cases are 'n too small' (default 30)"
    )
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument(
        "--correction",
        choices=("holm", "bh"),
        default="holm",
        help=f"p-value adjustment across {what}: holm (default) or bh (Benjamini-Hochberg)",
    )
    p.add_argument("--bootstrap", type=int, default=2000, help="bootstrap resamples (default 2000)")
    p.add_argument("--seed", type=int, default=20240601, help="bootstrap seed")


def _check_statistics(args: argparse.Namespace) -> None:
    if not 0 < args.alpha < 1:
        raise InvalidParams("--alpha must be in (0, 1)", field="alpha")
    if args.bootstrap < 100:
        raise InvalidParams("--bootstrap must be at least 100", field="bootstrap")


COMMANDS = {"suite": cmd_suite, "evaluate": cmd_evaluate, "report": cmd_report, "compare": cmd_compare}
