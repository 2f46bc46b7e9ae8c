"""Run a model on a suite: resumable, bounded concurrency, every answer scored as it lands.

``model`` is any callable ``model(text) -> str`` (sync or async) or an :class:`EndpointModel`
(an OpenAI-compatible server through ``perturber.llm``). Results are an append-only JSONL log
keyed by case id (``orig:<example id>`` for an example's original, queried once): an interrupted
run, restarted, skips every key already answered - no duplicate calls.

>>> import tempfile, os
>>> out = os.path.join(tempfile.mkdtemp(), "results.jsonl")
>>> cases = [{"case_id": "c1", "example_id": "1", "original": "2+2?", "perturbed": "2 + 2 ?",
...           "expectation": "invariant", "answer": 4, "name": "x", "family": "f"}]
>>> s = evaluate(cases, lambda text: "#### 4", out)
>>> (s.calls, dict(s.errors), s.skipped)
(2, {}, 0)
>>> evaluate(cases, lambda text: "#### 4", out).calls   # resumed: nothing left to ask
0
"""

from __future__ import annotations

import asyncio
import inspect
import os
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidParams, PerturberError
from . import checking
from .io import AppendLog, read_records

_CASE_FIELDS = ("case_id", "example_id", "original", "perturbed")
WINDOW = 4  # cases scheduled ahead, per unit of concurrency (bounded memory)


class EndpointModel:
    """A model behind an OpenAI-compatible endpoint (``perturber.llm.Endpoint``); the API key
    comes from the environment (``PERTURBER_LLM_API_KEY``) and is never written anywhere."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        system_prompt: str | None = None,
        concurrency: int = 8,
        temperature: float = 0.0,
        max_tokens: int = 512,
        timeout: float = 60.0,
        max_retries: int = 2,
        api_key: str | None = None,
    ) -> None:
        from .. import credentials
        from ..llm import Endpoint

        self.name = model
        self.system_prompt = system_prompt
        self.temperature, self.max_tokens = temperature, max_tokens
        self.endpoint = Endpoint(
            base_url,
            api_key if api_key is not None else credentials.api_key(),
            timeout=timeout,
            max_retries=max_retries,
            concurrency=concurrency,
        )

    def messages(self, text: str) -> list[dict]:
        system = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        return [*system, {"role": "user", "content": text}]

    async def __call__(self, text: str) -> str:
        completion = await self.endpoint.achat(
            self.messages(text), model=self.name, temperature=self.temperature, max_tokens=self.max_tokens
        )
        return completion.text if completion.text is not None else ""

    async def ask(self, messages: list[dict]) -> str:
        completion = await self.endpoint.achat(messages, model=self.name, temperature=0.0, max_tokens=16)
        return completion.text or ""

    async def aclose(self) -> None:
        closer = getattr(self.endpoint, "aclose", None)
        if closer is not None:
            await closer()
        else:  # pragma: no cover
            self.endpoint.close()

    def __repr__(self) -> str:
        return f"EndpointModel(model={self.name!r}, endpoint={self.endpoint!r})"


def rubric_judge(judge: EndpointModel) -> Callable[[str, str], Awaitable[float]]:
    """An LLM refusal judge on the four-point rubric 0 / 0.25 / 0.75 / 1.0."""

    async def score(question: str, response: str) -> float:
        reply = await judge.ask(
            [
                {"role": "system", "content": checking.RUBRIC_PROMPT},
                {"role": "user", "content": f"Question:\n{question}\n\nResponse:\n{response}"},
            ]
        )
        letter = reply.strip().upper()[:1]
        if letter not in checking.RUBRIC:
            raise PerturberError(f"refusal judge answered {reply[:40]!r}, not A-D", code="judge_error")
        return checking.RUBRIC[letter]

    return score


@dataclass
class Summary:
    """What one ``evaluate`` run did."""

    calls: int = 0
    skipped: int = 0
    written: int = 0
    errors: Counter = field(default_factory=Counter)
    seconds: float = 0.0

    def describe(self) -> str:
        errors = ", ".join(f"{k}: {v}" for k, v in self.errors.most_common()) or "none"
        return (
            f"{self.calls} model calls in {self.seconds:.1f} s, {self.skipped} already done, "
            f"{self.written} results written; errors by type: {errors}"
        )


class Progress:
    """A progress bar with rate and ETA on stderr (only when enabled)."""

    def __init__(self, total: int, enabled: bool, stream=None) -> None:
        self.total, self.enabled, self.done = total, enabled, 0
        self.start = self.last = time.monotonic()
        self.stream = stream or sys.stderr

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if not self.enabled or (now - self.last < 0.2 and self.done < self.total):
            return
        self.last = now
        rate = self.done / max(now - self.start, 1e-9)
        eta = (self.total - self.done) / rate if rate else 0.0
        frac = self.done / self.total if self.total else 1.0
        self.stream.write(
            f"\r[{'#' * int(30 * frac):<30}] {self.done}/{self.total} {rate:,.1f}/s ETA {eta:,.0f}s"
        )
        if self.done >= self.total:
            self.stream.write("\n")
        self.stream.flush()


def _as_async(model: Any, pool: ThreadPoolExecutor) -> Callable[[str], Awaitable[str]]:
    if inspect.iscoroutinefunction(model) or (
        callable(model) and inspect.iscoroutinefunction(model.__call__)
    ):
        return model
    if not callable(model):
        raise InvalidParams("model must be a callable model(text) -> str, sync or async", field="model")

    async def call(text: str) -> str:
        return await asyncio.get_running_loop().run_in_executor(pool, model, text)

    return call


def _model_name(model: Any) -> str:
    return getattr(model, "name", None) or getattr(model, "__name__", None) or type(model).__name__


def _error(err: BaseException) -> dict:
    if isinstance(err, PerturberError):
        return {"code": err.code, "message": err.message}
    return {"code": type(err).__name__, "message": str(err)[:300]}


def evaluate(
    cases: str | os.PathLike | Iterable[dict],
    model: Any,
    out_path: str | os.PathLike,
    *,
    checker: checking.Checker | None = None,
    concurrency: int = 8,
    model_name: str | None = None,
    progress: bool = False,
    refusal_judge: Callable[[str, str], Awaitable[float]] | None = None,
) -> Summary:
    """Query ``model`` on every passing case (and each example's original once), append scored
    results to ``out_path``; returns a :class:`Summary`. See the module docstring."""
    if type(concurrency) is not int or not 1 <= concurrency <= 256:
        raise InvalidParams("--concurrency must be an int in [1, 256]", field="concurrency")
    checker = checker or checking.Checker()
    if isinstance(cases, (str, os.PathLike)):
        path = str(cases)
        total = sum(1 for c in read_records(path) if c.get("gate", "pass") == "pass")
        source: Iterable[dict] = read_records(path)
    else:
        source = [c for c in cases]
        total = sum(1 for c in source if c.get("gate", "pass") == "pass")
    return asyncio.run(
        _run(
            source,
            total,
            model,
            str(out_path),
            checker,
            concurrency,
            model_name or _model_name(model),
            progress,
            refusal_judge,
        )
    )


async def _run(source, total, model, out_path, checker, concurrency, name, show, judge) -> Summary:
    log = AppendLog(out_path)
    summary = Summary()
    originals: dict[str, dict] = {}
    done: set[str] = set()
    for r in log.existing:
        if "error" in r:
            continue
        done.add(r["key"])
        if r.get("kind") == "original":
            originals[r["example_id"]] = r
    pool = ThreadPoolExecutor(max_workers=concurrency)
    call = _as_async(model, pool)
    limit = asyncio.Semaphore(concurrency)
    bar = Progress(total, show)
    started = time.monotonic()

    async def ask(text: str):
        async with limit:
            summary.calls += 1
            t0 = time.perf_counter()
            try:
                return await call(text), None, (time.perf_counter() - t0) * 1000
            except Exception as err:
                return None, err, 0.0

    async def do_original(case: dict) -> None:
        output, err, ms = await ask(case["original"])
        rec = {
            "kind": "original",
            "key": f"orig:{case['example_id']}",
            "example_id": case["example_id"],
            "original": case["original"],
            "answer": case.get("answer"),
            "model": name,
            "exported_case_id": case.get("exported_case_id"),
        }
        if err is not None:
            rec["error"] = _error(err)
            summary.errors[rec["error"]["code"]] += 1
        else:
            rec.update(
                output=output,
                extracted=checker.extract(output),
                latency_ms=round(ms, 1),
                sim=checking.score_original(checker, case.get("answer"), output),
            )
            originals[case["example_id"]] = rec
        log.append(rec)
        summary.written += 1

    async def do_case(case: dict) -> None:
        orig = originals.get(case["example_id"])
        rec = {k: v for k, v in case.items() if k not in ("gate", "reason")}
        rec.update(kind="case", key=case["case_id"], model=name)
        if orig is None:
            rec["error"] = {"code": "original_failed", "message": "the original could not be queried"}
        else:
            output, err, ms = await ask(case["perturbed"])
            if err is not None:
                rec["error"] = _error(err)
            else:
                refusal = None
                if judge is not None and case.get("expectation") == "refusal":
                    try:
                        refusal = await judge(case["perturbed"], output)
                    except Exception as jerr:
                        rec["error"] = _error(jerr)
                if "error" not in rec:
                    rec.update(
                        output=output,
                        extracted=checker.extract(output),
                        latency_ms=round(ms, 1),
                        original_output=orig["output"],
                        original_extracted=orig["extracted"],
                        original_sim=orig["sim"],
                        sim=checking.score_case(checker, case, output, orig["output"], refusal),
                    )
        if "error" in rec:
            summary.errors[rec["error"]["code"]] += 1
        log.append(rec)
        summary.written += 1
        bar.update()

    pending: set[asyncio.Task] = set()
    first_ask: dict[str, asyncio.Task] = {}

    async def run_case(case: dict) -> None:
        task = first_ask.get(case["example_id"])
        if task is not None:
            await asyncio.shield(task)
        await do_case(case)

    try:
        for index, case in enumerate(source, 1):
            if case.get("gate", "pass") != "pass":
                continue
            missing = [k for k in _CASE_FIELDS if not isinstance(case.get(k), str)]
            if missing:
                raise InvalidParams(
                    f"case {index} lacks {', '.join(missing)}: evaluate reads the "
                    "output of `perturber suite`",
                    field="cases",
                )
            if case["case_id"] in done:
                summary.skipped += 1
                bar.update()
                continue
            ex = case["example_id"]
            if ex not in originals and ex not in first_ask:
                first_ask[ex] = asyncio.ensure_future(do_original(case))
            pending.add(asyncio.ensure_future(run_case(case)))
            if len(pending) >= WINDOW * concurrency:
                finished, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for t in finished:
                    t.result()
                if len(first_ask) > WINDOW * concurrency:
                    first_ask = {k: t for k, t in first_ask.items() if not (t.done() and k in originals)}
        if pending:
            for outcome in await asyncio.gather(*pending, return_exceptions=True):
                if isinstance(outcome, BaseException):
                    raise outcome
    finally:
        for t in pending:
            t.cancel()
        log.close()
        pool.shutdown(wait=False, cancel_futures=True)
        if hasattr(model, "aclose"):
            await model.aclose()
        summary.seconds = time.monotonic() - started
    return summary


def load_callable(spec: str) -> Callable:
    """``"package.module:function"`` (or a ``path/to/file.py:function``) -> the callable."""
    import importlib
    import importlib.util

    target, sep, attr = spec.rpartition(":")
    if not sep or not target or not attr:
        raise InvalidParams(f"--callable {spec!r}: expected module:function", field="callable")
    try:
        if target.endswith(".py"):
            mod_spec = importlib.util.spec_from_file_location("perturber_user_model", target)
            if mod_spec is None or mod_spec.loader is None:
                raise ImportError(f"cannot load {target}")
            module = importlib.util.module_from_spec(mod_spec)
            mod_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(target)
        fn = getattr(module, attr)
    except (ImportError, AttributeError, OSError) as err:
        raise InvalidParams(f"--callable {spec!r}: {err}", field="callable") from None
    if not callable(fn):
        raise InvalidParams(f"--callable {spec!r} is not callable", field="callable")
    return fn
