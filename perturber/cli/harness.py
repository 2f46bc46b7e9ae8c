"""``perturber suite | evaluate | report``: the robustness harness on the command line.

Examples::

    perturber suite examples/word_problems.jsonl --field question --answer-field answer \\
        --id-field id --select "family=character,padding" --ladder -o cases.jsonl
    perturber evaluate cases.jsonl --callable examples/toy_model.py:answer -o results.jsonl
    perturber evaluate cases.jsonl --base-url http://127.0.0.1:8000/v1 --model m -o results.jsonl
    perturber report results.jsonl --cases cases.jsonl -o report/
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


def _gate_judge():
    from ..llm import Endpoint, LLMSettings
    from ..robustness.gates import judge_messages, judge_says_same

    settings = LLMSettings.from_env()
    endpoint = Endpoint.from_settings(settings)
    model = settings.default_model

    def judge(original: str, perturbed: str) -> bool:
        return judge_says_same(
            endpoint.chat(
                judge_messages(original, perturbed), model=model, temperature=0.0, max_tokens=8
            ).text
        )

    return judge


def cmd_evaluate(argv: Sequence[str]) -> int:
    from ..robustness import checking, evaluate

    p = Parser(
        prog="perturber evaluate",
        description="Run a model on a suite. Resumable and exactly once: results are keyed by case id, "
        "append-only; a re-run asks only what is missing or failed. A failed call (timeout, HTTP "
        "error, a reply without content) is recorded as an error, never scored. ^C stops cleanly "
        "(calls in flight get a few seconds to land). The API key comes from PERTURBER_LLM_API_KEY.",
    )
    p.add_argument("cases", help="the cases of `perturber suite`")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1")
    src.add_argument("--callable", help="a Python model: module:function or path/file.py:function")
    p.add_argument("--model", help="model name (required with --base-url)")
    p.add_argument("--system-prompt", help="file holding a system prompt")
    p.add_argument("--concurrency", type=int, default=8, help="calls in flight at most (default 8)")
    p.add_argument("--max-tokens", type=int, default=512)
    p.add_argument(
        "--timeout", type=float, help="seconds per attempt (default PERTURBER_LLM_TIMEOUT, else 30)"
    )
    p.add_argument(
        "--max-retries",
        type=int,
        help="retries of a timeout, 429, 5xx (0-2; default PERTURBER_LLM_MAX_RETRIES, else 2)",
    )
    p.add_argument("--check", default="numeric", choices=("numeric", "exact"))
    p.add_argument("--tolerance", type=float, default=1e-3, help="relative tolerance (numeric)")
    p.add_argument("--answer-regex", help="regex extracting the answer (first group)")
    p.add_argument("--json-field", help="JSON field holding the answer (default ground_truth/answer)")
    p.add_argument(
        "--refusal-judge",
        action="store_true",
        help="score refusal cases with the LLM judge (4-point rubric) instead of the rule",
    )
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None)
    p.add_argument("-o", "--output", required=True)
    args = p.parse_args(argv)
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
        )
    except evaluate.Interrupted as stop:
        sys.stderr.write(("\n" if show else "") + f"perturber: {stop.summary.interrupt_message()}\n")
        return 130
    sys.stderr.write(f"perturber: {summary.describe()}\n")
    return 0


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
        max_tokens=args.max_tokens,
        timeout=args.timeout,
        max_retries=args.max_retries,
    )


def cmd_report(argv: Sequence[str]) -> int:
    from ..robustness import report
    from ..robustness.analysis import Options

    p = Parser(
        prog="perturber report",
        description="Write report.md, report.json, report.html and PNG plots from one or more results files "
        "(one per model): perturbations ranked by the answers they break (exact McNemar tests, "
        "adjusted), accuracies with 95 % intervals, paired and paper collapse points, Stability. "
        "Optionally export failing cases as a regression set.",
    )
    p.add_argument("results", nargs="+")
    p.add_argument("-o", "--output", help="report directory")
    p.add_argument(
        "--cases", help="the suite's cases file: its summary adds gate rejection rates and 'not re-tested'"
    )
    p.add_argument("--tau", type=float, default=0.8, help="collapse threshold (default 0.80)")
    p.add_argument(
        "--min-n", type=int, default=30, help="cells with fewer cases are 'n too small' (default 30)"
    )
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument(
        "--correction",
        choices=("holm", "bh"),
        default="holm",
        help="p-value adjustment across perturbations: holm (default) or bh (Benjamini-Hochberg)",
    )
    p.add_argument("--bootstrap", type=int, default=2000, help="bootstrap resamples (default 2000)")
    p.add_argument("--seed", type=int, default=20240601, help="bootstrap seed")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("--export-failures", metavar="FILE", help="write failing cases as suite input")
    p.add_argument(
        "--only",
        choices=("failing", "broken"),
        default="failing",
        help="export every failing case, or only broken ones (the original was right)",
    )
    p.add_argument("--perturbation", help="export filter: entry name")
    p.add_argument("--family", help="export filter: catalog or graded family")
    p.add_argument("--level", type=int, help="export filter: measured level")
    args = p.parse_args(argv)
    if not args.output and not args.export_failures:
        raise InvalidParams("give -o DIR and/or --export-failures FILE", field="output")
    if not 0 < args.alpha < 1 or args.bootstrap < 100:
        raise InvalidParams("--alpha must be in (0, 1) and --bootstrap at least 100", field="alpha")
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
    return 0


COMMANDS = {"suite": cmd_suite, "evaluate": cmd_evaluate, "report": cmd_report}
