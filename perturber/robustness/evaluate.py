"""Run a model on a suite: resumable, exactly once per key, never the same request twice, bounded
concurrency and cost, every answer scored as it lands.

``model`` is any callable ``model(text) -> str`` (sync or async) or an :class:`EndpointModel`.
Results are an append-only JSONL log keyed by case id (``orig:<example id>`` for an example's
original, queried once), opened by a ``run`` record (the provenance: versions, suite hash, model
and sampling settings, checker, plan) and closed by a ``run_end`` record (end time, token usage,
calls, cache hits). A failed call is recorded as an error, never scored, and asked again by the
next run; a later result for the same key supersedes it. An interrupted run, restarted, skips
every key already answered.

Identical requests (same model settings, sample index and text) are sent once per run and, with
a persistent ``cache`` (:mod:`.cache`), once across runs: each result says where its replies came
from (``reply_sources``: ``endpoint``, ``cache``: an earlier run, ``run``: an identical request of
this run). With ``samples=K`` every text is asked K times (sample index in the request; an
endpoint gets ``seed=k``): a result keeps each sample's answer and score, the agreement (share of
samples giving the most common answer), the mean score, and scores the most common answer.

>>> import tempfile, os
>>> out = os.path.join(tempfile.mkdtemp(), "results.jsonl")
>>> cases = [{"case_id": "c1", "example_id": "1", "original": "2+2?", "perturbed": "2 + 2 ?",
...           "expectation": "invariant", "answer": 4, "name": "x", "family": "f"},
...          {"case_id": "c2", "example_id": "1", "original": "2+2?", "perturbed": "2+2?",
...           "expectation": "invariant", "answer": 4, "name": "y", "family": "f"}]
>>> s = evaluate(cases, lambda text: "#### 4", out)
>>> (s.calls, s.deduplicated, dict(s.errors), s.skipped)   # c2's text is the original's
(2, 1, {}, 0)
>>> evaluate(cases, lambda text: "#### 4", out).calls   # resumed: nothing left to ask
0
"""

from __future__ import annotations

import asyncio
import datetime
import hashlib
import os
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .. import __version__
from ..errors import InvalidParams, PerturberError
from ..records import AppendLog, Progress, read_log, read_records
from ..registry import catalog_digest
from . import budget, checking
from .cache import MemoryCache, request_key
from .models import Asker, EndpointModel, Reply, load_callable, rubric_judge
from .planning import answered, expected_output, plan, to_ask
from .schema import RESULTS_SCHEMA, RunEnd, RunHeader

__all__ = ["EndpointModel", "Interrupted", "Summary", "evaluate", "load_callable", "plan", "rubric_judge"]

WINDOW = 4  # cases scheduled ahead, per unit of concurrency (bounded memory)
DRAIN_SECONDS = 5.0  # after an interrupt, how long calls in flight may still land
MAX_SAMPLES = 50


@dataclass
class Summary:
    """What one ``evaluate`` run did. ``calls``: requests sent to the model; ``cache_hits``:
    replies from the persistent cache (earlier runs); ``deduplicated``: requests answered by an
    identical request of this run; ``resent``: calls sent again because an interrupted run had
    them in flight without a reply; ``abandoned``: calls in flight at this run's interrupt;
    ``stopped``: the limit (``--max-calls``/``--max-cost``) that stopped the run early."""

    calls: int = 0
    skipped: int = 0
    written: int = 0
    errors: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    resent: int = 0
    abandoned: int = 0
    interrupted: bool = False
    cache_hits: int = 0
    deduplicated: int = 0
    usage: budget.Usage = field(default_factory=budget.Usage)
    spent: float | None = None
    stopped: str | None = None
    left: int = 0
    plan: budget.Plan | None = None

    def describe(self) -> str:
        errors = ", ".join(f"{k}: {v}" for k, v in self.errors.most_common()) or "none"
        spent = "" if self.spent is None else f", ${self.spent:,.4f}"
        return (
            f"{self.calls} model calls in {self.seconds:.1f} s, {self.skipped} already done, "
            f"{self.written} results written; {self.cache_hits} replies from the cache, "
            f"{self.deduplicated} identical requests answered once; tokens used: "
            f"{self.usage.prompt_tokens:,} in, {self.usage.completion_tokens:,} out "
            f"(reported by {self.usage.reported} of {self.usage.replies} replies{spent}); "
            f"errors by type: {errors}; duplicate calls: {self.resent} (in flight at an earlier interrupt)"
        )

    def stop_message(self) -> str:
        return (
            f"stopped at {self.stopped}: {self.calls} calls made, {self.written} results recorded, "
            f"{self.left} results still to get; run again (with a higher limit) to continue"
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


def _error(err: BaseException) -> dict:
    if isinstance(err, PerturberError):
        return {"code": err.code, "message": err.message}
    return {"code": type(err).__name__, "message": str(err)[:300]}


class _Interrupt(Exception):
    """Raised inside a call when the callable itself was interrupted (KeyboardInterrupt)."""


class _LimitReached(Exception):
    """The next call would pass ``--max-calls`` or ``--max-cost``."""


_STOPS = (_Interrupt, _LimitReached, asyncio.CancelledError)


@dataclass(frozen=True)
class Answers:
    """The K samples of one text, scored: the most common answer is the one that counts."""

    outputs: list[str]
    extracted: list[str | None]
    sims: list[float]
    sources: list[str]
    usage: dict

    def majority(self, checker: checking.Scorer) -> int:
        """Index of the first sample giving the most common answer."""
        counts = Counter(checker.canonical(e) for e in self.extracted)
        top = max(counts.values())
        return next(i for i, e in enumerate(self.extracted) if counts[checker.canonical(e)] == top)

    def fields(self, checker: checking.Scorer, latency_ms: float) -> dict:
        m = self.majority(checker)
        out: dict[str, Any] = {
            "output": self.outputs[m],
            "extracted": self.extracted[m],
            "sim": self.sims[m],
            "latency_ms": round(latency_ms, 1),
            "reply_sources": self.sources,
            "usage": self.usage,
        }
        if len(self.outputs) > 1:
            agree = sum(checker.canonical(e) == checker.canonical(self.extracted[m]) for e in self.extracted)
            out.update(
                samples=len(self.outputs),
                sample_extracted=self.extracted,
                sample_sims=self.sims,
                mean_sim=sum(self.sims) / len(self.sims),
                agreement=agree / len(self.outputs),
            )
        return out


def _sum_usage(replies) -> dict:
    total: Counter = Counter()
    for reply, source in replies:
        if source == "endpoint":
            total.update(
                {k: v for k, v in reply.usage.items() if k in ("prompt_tokens", "completion_tokens")}
            )
    return dict(total)


class _Run:
    """One run: the results log, what it already holds, and the steps that ask and record."""

    def __init__(self, asker: Asker, out_path: str, options: _Options, bar: Progress) -> None:
        self.asker, self.o, self.bar = asker, options, bar
        self.log = AppendLog(out_path)
        self.summary = Summary(plan=options.plan)
        self.run_id = uuid.uuid4().hex[:16]
        self.originals: dict[str, dict] = {}
        self.done, self.was_in_flight = answered(self.log.existing)
        for r in self.log.existing:
            if r.get("kind") == "original" and "error" not in r and r["key"] in self.done:
                self.originals[r["example_id"]] = r
        self.limit = asyncio.Semaphore(options.concurrency)
        self.stopping = False
        self.flying: set[str] = set()
        self.cut: set[str] = set()
        self.firsts: dict[str, asyncio.Task] = {}
        self.pending: set[asyncio.Task] = set()
        self.scheduled: set[str] = set()
        self.requests: dict[str, asyncio.Future] = {}  # request key -> its reply, while in flight
        self.sent: set[str] = set()  # request keys this run sent
        self.committed = 0.0  # dollars spent or in flight (estimated until the usage is known)
        self.answered = 0  # results (originals and cases) this run recorded without an error

    # -- asking -----------------------------------------------------------------------------------
    async def call(self, key: str, text: str, sample: int):
        """One model call (under the concurrency and budget limits)."""
        async with self.limit:
            estimate = self.o.call_cost(text)
            if self.stopping:
                raise (
                    _LimitReached(self.summary.stopped) if self.summary.stopped else asyncio.CancelledError()
                )
            reason = self.o.limits.reached(self.summary.calls, self.committed + estimate)
            if reason is not None:
                self.stopping, self.summary.stopped = True, reason
                raise _LimitReached(reason)
            self.summary.calls += 1
            self.summary.resent += key in self.was_in_flight
            self.committed += estimate
            self.flying.add(key)
            try:
                reply = await self.asker.reply(text, sample)
            except KeyboardInterrupt:
                self.stopping = True
                self.cut.add(key)
                raise _Interrupt() from None
            finally:
                self.flying.discard(key)
            self.summary.usage.add(reply.usage)
            self.committed += self.o.actual_cost(reply.usage, estimate) - estimate
            return reply

    async def reply(self, key: str, text: str, sample: int):
        """(Reply, source) for one request: from a call in flight, the cache, or the model."""
        rkey = request_key(self.asker.request, sample, text)
        if rkey in self.requests:
            self.summary.deduplicated += 1
            return await asyncio.shield(self.requests[rkey]), "run"
        found = self.o.cache.get(rkey)
        if found is not None:
            from_run = rkey in self.sent
            self.summary.deduplicated += from_run
            self.summary.cache_hits += not from_run
            return Reply(*found), "run" if from_run else "cache"
        future = asyncio.get_running_loop().create_future()
        self.requests[rkey] = future
        try:
            reply = await self.call(key, text, sample)
        except Exception as err:
            future.set_exception(err)
            future.exception()  # retrieved: the waiters, if any, get it through shield
            raise
        except BaseException:  # cancelled: so are the waiters
            future.cancel()
            raise
        finally:
            self.requests.pop(rkey, None)
        self.sent.add(rkey)
        self.o.cache.put(rkey, reply.text, reply.usage)
        future.set_result(reply)
        return reply, "endpoint"

    async def ask_all(self, key: str, text: str) -> tuple[list[tuple[Reply, str]], float]:
        """The K samples of ``text`` with their sources, and the milliseconds they took; raises
        the first failure."""
        t0 = time.perf_counter()
        got = await asyncio.gather(
            *(self.reply(key, text, s) for s in range(self.o.samples)), return_exceptions=True
        )
        failures = [g for g in got if isinstance(g, BaseException)]
        if failures:
            raise next((f for f in failures if isinstance(f, _STOPS)), failures[0])
        return [g for g in got if not isinstance(g, BaseException)], (time.perf_counter() - t0) * 1000

    async def scores(self, score: Callable[[str], float], replies: list[tuple[Reply, str]]) -> list[float]:
        """Each reply's score; a blocking scorer (an LLM judge) runs off the event loop."""
        if getattr(self.o.checker, "blocking", False):
            return await asyncio.to_thread(lambda: [score(r.text) for r, _ in replies])
        return [score(r.text) for r, _ in replies]

    def answers(self, replies: list[tuple[Reply, str]], sims: list[float]) -> Answers:
        outputs = [r.text for r, _ in replies]
        return Answers(
            outputs,
            [self.o.checker.extract(o) for o in outputs],
            sims,
            [source for _, source in replies],
            _sum_usage(replies),
        )

    # -- recording --------------------------------------------------------------------------------
    def record(self, rec: dict) -> None:
        if "error" in rec:
            self.summary.errors[rec["error"]["code"]] += 1
        rec["run"] = self.run_id
        self.log.append(rec)
        self.summary.written += 1
        self.answered += "error" not in rec

    async def original(self, case: dict) -> None:
        key = f"orig:{case['example_id']}"
        rec = {
            "kind": "original",
            "key": key,
            "example_id": case["example_id"],
            "original": case["original"],
            "answer": case.get("answer"),
            "model": self.asker.name,
            "exported_case_id": case.get("exported_case_id"),
        }
        checker = self.o.checker
        try:
            replies, ms = await self.ask_all(key, case["original"])
        except _STOPS:
            raise
        except Exception as err:
            rec["error"] = _error(err)
        else:
            sims = await self.scores(
                lambda text: checking.score_original(checker, case.get("answer"), text), replies
            )
            rec.update(self.answers(replies, sims).fields(checker, ms))
            self.originals[case["example_id"]] = rec
        self.record(rec)

    async def case(self, case: dict) -> None:
        first = self.firsts.get(case["example_id"])
        if first is not None:
            await asyncio.shield(first)
        orig = self.originals.get(case["example_id"])
        rec = {k: v for k, v in case.items() if k not in ("gate", "reason", "gate_detail")}
        rec.update(kind="case", key=case["case_id"], model=self.asker.name)
        if orig is None:
            rec["error"] = {"code": "original_failed", "message": "the original could not be queried"}
        else:
            try:
                rec.update(await self._scored(case, orig))
            except _STOPS:
                raise
            except Exception as err:
                rec["error"] = _error(err)
        self.record(rec)
        self.bar.update()

    async def _scored(self, case: dict, orig: dict) -> dict:
        replies, ms = await self.ask_all(case["case_id"], case["perturbed"])
        checker, judge = self.o.checker, self.o.judge
        if judge is not None and case.get("expectation") == "refusal":
            sims = [await judge(case["perturbed"], r.text) for r, _ in replies]
        else:
            sims = await self.scores(
                lambda text: checking.score_case(checker, case, text, orig["output"]), replies
            )
        return {
            **self.answers(replies, sims).fields(checker, ms),
            "original_output": orig["output"],
            "original_extracted": orig["extracted"],
            "original_sim": orig["sim"],
        }

    # -- scheduling -------------------------------------------------------------------------------
    def wanted(self, index: int, case: dict) -> bool:
        """Is ``case`` to be asked now? (validates it; counts the ones already answered)."""
        if not to_ask(index, case):
            return False
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
            failures: list[BaseException] = []
            for task in finished:  # every finished task's outcome is retrieved ...
                failure = asyncio.CancelledError() if task.cancelled() else task.exception()
                if failure is not None:
                    failures.append(failure)
            if failures:  # ... then the one that stops the run is raised
                raise next((f for f in failures if isinstance(f, _STOPS)), failures[0])
        if len(self.firsts) > WINDOW * self.o.concurrency + len(self.pending):
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
            self.log.append({"kind": "inflight", "key": key, "model": self.asker.name, "run": self.run_id})
        self.summary.abandoned = len(abandoned)
        self.summary.interrupted = True

    async def finish(self) -> None:
        """After a limit is reached: every call in flight lands and is recorded; nothing new starts."""
        waiting = [t for t in self.pending | set(self.firsts.values()) if not t.done()]
        await asyncio.gather(*waiting, return_exceptions=True)

    async def run(self, source: Iterable[dict], drain_seconds: float) -> Summary:
        started = time.monotonic()
        self.log.append(RunHeader(**self.o.header, run=self.run_id, started=_now()).to_dict())
        try:
            try:
                for index, case in enumerate(source, 1):
                    if self.wanted(index, case):
                        self.schedule(case)
                        await self.settle(WINDOW * self.o.concurrency - 1)
                await self.settle(0)
            except _LimitReached:
                await self.finish()
            except (asyncio.CancelledError, _Interrupt):
                await self.drain(drain_seconds)
        finally:
            for task in self.pending | set(self.firsts.values()):
                task.cancel()
            await asyncio.gather(*self.pending, *self.firsts.values(), return_exceptions=True)
            self.summary.seconds = time.monotonic() - started
            self.summary.left = self.o.plan.keys - self.answered
            self.summary.spent = round(self.committed, 6) if self.o.price is not None else None
            self.log.append(self._end())
            self.log.close()
            self.o.cache.close()
            await self.asker.aclose()
        return self.summary

    def _end(self) -> dict:
        s = self.summary
        return RunEnd(
            kind="run_end",
            run=self.run_id,
            ended=_now(),
            seconds=round(s.seconds, 3),
            calls=s.calls,
            cache_hits=s.cache_hits,
            deduplicated=s.deduplicated,
            written=s.written,
            usage=s.usage.to_dict(),
            errors=dict(s.errors),
            interrupted=s.interrupted,
            cost=s.spent,
            stopped=s.stopped,
        ).to_dict()


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


@dataclass
class _Options:
    """Everything a run needs besides the model and the cases."""

    checker: checking.Scorer
    concurrency: int
    judge: Callable[[str, str], Awaitable[float]] | None
    cache: Any
    samples: int
    limits: budget.Limits
    price: budget.Price | None
    counter: budget.TokenCounter
    system: str | None
    output_tokens: float
    header: dict
    plan: budget.Plan

    def call_cost(self, text: str) -> float:
        if self.price is None:
            return 0.0
        return self.price.cost(self.counter.request(self.system, text), self.output_tokens)

    def actual_cost(self, usage: dict, estimate: float) -> float:
        if self.price is None or not usage:
            return estimate
        return self.price.cost(usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0))


def _cases_source(cases) -> tuple[Iterable[dict], int, str | None]:
    """(the cases, how many pass their gate, the sha256 of the cases file)."""
    if isinstance(cases, (str, os.PathLike)):
        path = str(cases)
        total = sum(1 for c in read_records(path) if c.get("gate", "pass") == "pass")
        digest = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        return read_records(path), total, digest.hexdigest()
    source = list(cases)
    return source, sum(1 for c in source if c.get("gate", "pass") == "pass"), None


def evaluate(
    cases: str | os.PathLike | Iterable[dict],
    model: Any,
    out_path: str | os.PathLike,
    *,
    checker: checking.Scorer | None = None,
    concurrency: int = 8,
    model_name: str | None = None,
    progress: bool = False,
    refusal_judge: Callable[[str, str], Awaitable[float]] | None = None,
    drain_seconds: float = DRAIN_SECONDS,
    cache: Any = None,
    samples: int = 1,
    limits: budget.Limits | None = None,
    price: budget.Price | None = None,
    output_tokens: float | None = None,
    dry_run: bool = False,
    announce: Callable[[budget.Plan], None] | None = None,
) -> Summary:
    """Query ``model`` on every passing case (and each example's original once), append scored
    results to ``out_path``; returns a :class:`Summary` (with its :class:`~.budget.Plan`).

    ``cache``: a :class:`~.cache.ReplyCache` shared across runs (default: this run's replies
    only); ``samples``: K answers per text; ``limits``: ``--max-calls``/``--max-cost``;
    ``price``: USD per million tokens; ``dry_run``: plan only, ask nothing, write nothing;
    ``announce``: called with the plan before the first call. On an interrupt (^C), calls in
    flight get ``drain_seconds`` to land, then :class:`Interrupted` is raised."""
    if type(concurrency) is not int or not 1 <= concurrency <= 256:
        raise InvalidParams("--concurrency must be an int in [1, 256]", field="concurrency")
    if type(samples) is not int or not 1 <= samples <= MAX_SAMPLES:
        raise InvalidParams(f"--samples must be an int in [1, {MAX_SAMPLES}]", field="samples")
    checker = checker or checking.Checker()
    cache = cache if cache is not None else MemoryCache()
    asker = Asker.of(model, model_name, concurrency)
    if asker.endpoint is not None:
        asker.endpoint.seeded = samples > 1
    counter = budget.token_counter(asker.endpoint.name if asker.endpoint else None)
    source, total, suite_hash = _cases_source(cases)
    existing, _ = read_log(out_path)
    the_plan = plan(source, asker, existing, cache, samples, counter, price, output_tokens)
    if announce is not None:
        announce(the_plan)
    if dry_run:
        cache.close()
        asyncio.run(asker.aclose())
        return Summary(plan=the_plan, left=the_plan.keys)
    if isinstance(cases, (str, os.PathLike)):
        source = read_records(cases)
    expected, _ = expected_output(existing, output_tokens)
    options = _Options(
        checker=checker,
        concurrency=concurrency,
        judge=refusal_judge,
        cache=cache,
        samples=samples,
        limits=limits or budget.Limits(),
        price=price,
        counter=counter,
        system=asker.endpoint.system_prompt if asker.endpoint else None,
        output_tokens=expected,
        header=_header(asker, checker, samples, suite_hash, cache, the_plan),
        plan=the_plan,
    )

    async def main() -> Summary:
        run = _Run(asker, str(out_path), options, Progress(total, progress))
        return await run.run(source, drain_seconds)

    summary = asyncio.run(main())
    if summary.interrupted:
        raise Interrupted(summary)
    return summary


def _header(asker: Asker, checker: checking.Scorer, samples: int, suite_hash, cache, the_plan) -> dict:
    """The fields of the ``run`` record known before the run starts."""
    return {
        "kind": "run",
        "schema": RESULTS_SCHEMA,
        "perturber_version": __version__,
        "catalog_digest": catalog_digest(),
        "suite_sha256": suite_hash,
        "model": asker.name,
        "model_settings": asker.settings(),
        "samples": samples,
        "checker": checker.describe(),
        "cache": "persistent" if getattr(cache, "persistent", False) else "this run only",
        "plan": the_plan.to_dict(),
    }
