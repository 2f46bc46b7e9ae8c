"""Run a model on a suite: resumable, exactly once per key, bounded concurrency, every answer scored
as it lands.

``model`` is any callable ``model(text) -> str`` (sync or async) or an :class:`EndpointModel`
(an OpenAI-compatible server through ``perturber.llm``). Results are an append-only JSONL log
keyed by case id (``orig:<example id>`` for an example's original, queried once). A failed call
(a transport error, a malformed or empty reply) is recorded as an error, never scored, and asked
again by the next run; a later result for the same key supersedes it. An interrupted run,
restarted, skips every key already answered.

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
import dataclasses
import inspect
import os
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidParams, ModelBackendError, PerturberError
from ..records import AppendLog, Progress, read_records
from . import checking

_CASE_FIELDS = ("case_id", "example_id", "original", "perturbed")
WINDOW = 4  # cases scheduled ahead, per unit of concurrency (bounded memory)
DRAIN_SECONDS = 5.0  # after an interrupt, how long calls in flight may still land


class EndpointModel:
    """A model behind an OpenAI-compatible endpoint (``perturber.llm.Endpoint``). Timeout and
    retries come from ``PERTURBER_LLM_TIMEOUT`` / ``PERTURBER_LLM_MAX_RETRIES`` unless given; the
    API key from ``PERTURBER_LLM_API_KEY``, never written anywhere. A reply that is not a usable
    completion (not JSON, no choices, empty or missing content) is retried by the client and then
    raises ``ModelBadResponse`` (``model_bad_response`` / ``model_empty``): an error, never a score."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        system_prompt: str | None = None,
        concurrency: int = 8,
        temperature: float = 0.0,
        max_tokens: int = 512,
        timeout: float | None = None,
        max_retries: int | None = None,
        api_key: str | None = None,
    ) -> None:
        from .. import llm
        from ..urls import check_base_url

        settings = dataclasses.replace(llm.LLMSettings.from_env(), base_url=check_base_url(base_url))
        overrides: dict[str, Any] = {"concurrency": concurrency}
        if timeout is not None:
            overrides["timeout"] = timeout
        if max_retries is not None:
            overrides["max_retries"] = max_retries
        self.name = model
        self.system_prompt = system_prompt
        self.temperature, self.max_tokens = temperature, max_tokens
        self.endpoint = llm.Endpoint.from_settings(settings, api_key, **overrides)

    def messages(self, text: str) -> list[dict]:
        system = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        return [*system, {"role": "user", "content": text}]

    async def __call__(self, text: str) -> str:
        completion = await self.endpoint.achat(
            self.messages(text), model=self.name, temperature=self.temperature, max_tokens=self.max_tokens
        )
        return _text(completion)

    async def ask(self, messages: list[dict]) -> str:
        completion = await self.endpoint.achat(messages, model=self.name, temperature=0.0, max_tokens=16)
        return _text(completion)

    async def aclose(self) -> None:
        await self.endpoint.aclose()

    def __repr__(self) -> str:
        return f"EndpointModel(model={self.name!r}, endpoint={self.endpoint!r})"


def _text(completion) -> str:
    """A completion's text; the client returns none only for a reply cut at ``max_tokens``."""
    if completion.text is None:
        raise ModelBackendError("the reply was cut at max_tokens before any content", code="model_truncated")
    return completion.text


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
    """What one ``evaluate`` run did. ``resent``: calls this run sent again because an interrupted
    run had them in flight without a reply; ``abandoned``: calls this run had in flight when it was
    interrupted (recorded as ``inflight``: the next run asks them again)."""

    calls: int = 0
    skipped: int = 0
    written: int = 0
    errors: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    resent: int = 0
    abandoned: int = 0
    interrupted: bool = False

    def describe(self) -> str:
        errors = ", ".join(f"{k}: {v}" for k, v in self.errors.most_common()) or "none"
        return (
            f"{self.calls} model calls in {self.seconds:.1f} s, {self.skipped} already done, "
            f"{self.written} results written; errors by type: {errors}; "
            f"duplicate calls: {self.resent} (in flight at an earlier interrupt)"
        )

    def interrupt_message(self) -> str:
        return (
            f"interrupted: {self.written} results recorded, {self.abandoned} calls in flight "
            "abandoned (asked again on resume); run the same command to continue"
        )


class Interrupted(KeyboardInterrupt):
    """``evaluate`` was interrupted; everything answered is recorded. ``summary`` says what ran."""

    def __init__(self, summary: Summary) -> None:
        super().__init__(summary.interrupt_message())
        self.summary = summary


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


def _checked(output: Any) -> str:
    """A model's output, or an error: a callable must return a non-empty string."""
    if not isinstance(output, str):
        raise PerturberError(f"the model returned {type(output).__name__}, not a string", code="bad_output")
    if not output.strip():
        raise PerturberError("the model returned an empty answer", code="empty_output")
    return output


class _Interrupt(Exception):
    """Raised inside a call when the callable itself was interrupted (KeyboardInterrupt)."""


class _Run:
    """One run: the results log, what it already holds, and the steps that ask and record."""

    def __init__(self, model, out_path: str, checker, concurrency: int, name: str, judge, bar) -> None:
        self.log = AppendLog(out_path)
        self.summary = Summary()
        self.checker, self.name, self.judge, self.bar = checker, name, judge, bar
        self.originals: dict[str, dict] = {}
        self.done: set[str] = set()
        inflight: set[str] = set()
        for r in self.log.existing:
            if r.get("kind") == "inflight":
                inflight.add(r["key"])
            elif "error" not in r:
                self.done.add(r["key"])
                if r.get("kind") == "original":
                    self.originals[r["example_id"]] = r
        self.was_in_flight = inflight - self.done
        self.pool = ThreadPoolExecutor(max_workers=concurrency)
        self.call = _as_async(model, self.pool)
        self.concurrency = concurrency
        self.limit = asyncio.Semaphore(concurrency)
        self.stopping = False
        self.flying: set[str] = set()
        self.cut: set[str] = set()
        self.firsts: dict[str, asyncio.Task] = {}
        self.pending: set[asyncio.Task] = set()
        self.scheduled: set[str] = set()

    async def ask(self, key: str, text: str) -> tuple[str | None, BaseException | None, float]:
        """One model call for ``key``: (output, error, milliseconds)."""
        async with self.limit:
            if self.stopping:
                raise asyncio.CancelledError()
            self.summary.calls += 1
            self.summary.resent += key in self.was_in_flight
            self.flying.add(key)
            t0 = time.perf_counter()
            try:
                return _checked(await self.call(text)), None, (time.perf_counter() - t0) * 1000
            except KeyboardInterrupt:
                self.stopping = True
                self.cut.add(key)
                raise _Interrupt() from None
            except Exception as err:
                return None, err, 0.0
            finally:
                self.flying.discard(key)

    def record(self, rec: dict) -> None:
        if "error" in rec:
            self.summary.errors[rec["error"]["code"]] += 1
        self.log.append(rec)
        self.summary.written += 1

    async def original(self, case: dict) -> None:
        key = f"orig:{case['example_id']}"
        output, err, ms = await self.ask(key, case["original"])
        rec = {
            "kind": "original",
            "key": key,
            "example_id": case["example_id"],
            "original": case["original"],
            "answer": case.get("answer"),
            "model": self.name,
            "exported_case_id": case.get("exported_case_id"),
        }
        if err is not None:
            rec["error"] = _error(err)
        else:
            rec.update(
                output=output,
                extracted=self.checker.extract(output),
                latency_ms=round(ms, 1),
                sim=checking.score_original(self.checker, case.get("answer"), output),
            )
            self.originals[case["example_id"]] = rec
        self.record(rec)

    async def case(self, case: dict) -> None:
        first = self.firsts.get(case["example_id"])
        if first is not None:
            await asyncio.shield(first)
        orig = self.originals.get(case["example_id"])
        rec = {k: v for k, v in case.items() if k not in ("gate", "reason", "gate_detail")}
        rec.update(kind="case", key=case["case_id"], model=self.name)
        if orig is None:
            rec["error"] = {"code": "original_failed", "message": "the original could not be queried"}
        else:
            output, err, ms = await self.ask(case["case_id"], case["perturbed"])
            if err is None and self.judge is not None and case.get("expectation") == "refusal":
                try:
                    refusal = await self.judge(case["perturbed"], output)
                except Exception as jerr:
                    err = jerr
            else:
                refusal = None
            if err is not None:
                rec["error"] = _error(err)
            else:
                rec.update(
                    output=output,
                    extracted=self.checker.extract(output),
                    latency_ms=round(ms, 1),
                    original_output=orig["output"],
                    original_extracted=orig["extracted"],
                    original_sim=orig["sim"],
                    sim=checking.score_case(self.checker, case, output, orig["output"], refusal),
                )
        self.record(rec)
        self.bar.update()

    def wanted(self, index: int, case: dict) -> bool:
        """Is ``case`` to be asked now? (validates it; counts the ones already answered)."""
        if case.get("gate", "pass") != "pass":
            return False
        missing = [k for k in _CASE_FIELDS if not isinstance(case.get(k), str)]
        if missing:
            raise InvalidParams(
                f"case {index} lacks {', '.join(missing)}: evaluate reads the output of `perturber suite`",
                field="cases",
            )
        if case["case_id"] in self.done or case["case_id"] in self.scheduled:
            self.summary.skipped += case["case_id"] in self.done
            self.bar.update()
            return False
        self.scheduled.add(case["case_id"])
        return True

    def schedule(self, case: dict) -> None:
        ex = case["example_id"]
        if ex not in self.originals and ex not in self.firsts:
            self.firsts[ex] = asyncio.ensure_future(self.original(case))
        self.pending.add(asyncio.ensure_future(self.case(case)))

    async def settle(self, limit: int) -> None:
        """Wait until at most ``limit`` cases are pending; re-raise their failures."""
        while len(self.pending) > limit:
            finished, self.pending = await asyncio.wait(self.pending, return_when=asyncio.FIRST_COMPLETED)
            for task in finished:
                task.result()
        if len(self.firsts) > WINDOW * self.concurrency + len(self.pending):
            self.firsts = {k: t for k, t in self.firsts.items() if not (t.done() and k in self.originals)}

    async def drain(self, seconds: float) -> None:
        """After an interrupt: let calls in flight land for ``seconds``, drop the rest, and
        mark the calls still in flight (their keys are asked again by the next run)."""
        waiting = [t for t in self.pending | set(self.firsts.values()) if not t.done()]
        self.stopping = True  # nothing new starts
        if waiting and self.flying:
            await asyncio.wait(waiting, timeout=seconds)
        abandoned = sorted(self.flying | self.cut)
        for task in waiting:
            task.cancel()
        await asyncio.gather(*waiting, return_exceptions=True)
        for key in abandoned:
            self.log.append({"kind": "inflight", "key": key, "model": self.name})
        self.summary.abandoned = len(abandoned)
        self.summary.interrupted = True

    async def run(self, source: Iterable[dict], model: Any, drain_seconds: float) -> Summary:
        started = time.monotonic()
        try:
            try:
                for index, case in enumerate(source, 1):
                    if self.wanted(index, case):
                        self.schedule(case)
                        await self.settle(WINDOW * self.concurrency - 1)
                await self.settle(0)
            except (asyncio.CancelledError, _Interrupt):
                await self.drain(drain_seconds)
        finally:
            for task in self.pending | set(self.firsts.values()):
                task.cancel()
            await asyncio.gather(*self.pending, *self.firsts.values(), return_exceptions=True)
            self.log.close()
            self.pool.shutdown(wait=False, cancel_futures=True)
            if hasattr(model, "aclose"):
                await model.aclose()
            self.summary.seconds = time.monotonic() - started
        return self.summary


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
    drain_seconds: float = DRAIN_SECONDS,
) -> Summary:
    """Query ``model`` on every passing case (and each example's original once), append scored
    results to ``out_path``; returns a :class:`Summary`. On an interrupt (^C), calls in flight get
    ``drain_seconds`` to land, then :class:`Interrupted` is raised. See the module docstring."""
    if type(concurrency) is not int or not 1 <= concurrency <= 256:
        raise InvalidParams("--concurrency must be an int in [1, 256]", field="concurrency")
    checker = checker or checking.Checker()
    if isinstance(cases, (str, os.PathLike)):
        path = str(cases)
        total = sum(1 for c in read_records(path) if c.get("gate", "pass") == "pass")
        source: Iterable[dict] = read_records(path)
    else:
        source = list(cases)
        total = sum(1 for c in source if c.get("gate", "pass") == "pass")

    async def main() -> Summary:
        name = model_name or _model_name(model)
        run = _Run(model, str(out_path), checker, concurrency, name, refusal_judge, Progress(total, progress))
        return await run.run(source, model, drain_seconds)

    summary = asyncio.run(main())
    if summary.interrupted:
        raise Interrupted(summary)
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
