"""What a run will ask, before it asks: the keys a results file still lacks, the requests they
need, how many are duplicates or already in the reply cache, and the tokens and cost of the rest
(:class:`perturber.robustness.budget.Plan`).

>>> from perturber.robustness.cache import MemoryCache
>>> from perturber.robustness.models import Asker
>>> cases = [{"case_id": "c1", "example_id": "1", "original": "2+2?", "perturbed": "2 + 2?",
...           "name": "spaces", "family": "padding"},
...          {"case_id": "c2", "example_id": "1", "original": "2+2?", "perturbed": "2 + 2?",
...           "name": "extra_whitespace", "family": "formatting"}]
>>> p = plan(cases, Asker.of(str.upper), [], MemoryCache(), 1, budget.TokenCounter("chars", None), None)
>>> (p.keys, p.requests, p.distinct, p.to_send, p.input_tokens)   # (2 + 4) + (1 + 4) tokens
(3, 3, 2, 2, 11)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from . import budget
from .cache import request_key
from .models import Asker
from .schema import Case


def answered(existing: list[dict]) -> tuple[set[str], set[str]]:
    """(keys with a result, keys in flight at an interrupt and not answered since)."""
    done, inflight = set(), set()
    for r in existing:
        if r.get("kind") == "inflight":
            inflight.add(r["key"])
        elif r.get("kind") in ("original", "case") and "error" not in r:
            done.add(r["key"])
    return done, inflight - done


def to_ask(index: int, case: dict) -> bool:
    """Does ``case`` pass its gate? (raises when it is not a case of ``perturber suite``)."""
    return Case.from_dict(case, f"case {index}").gate == "pass"


def plan(
    cases: Iterable[dict],
    asker: Asker,
    existing: list[dict],
    cache: Any,
    samples: int,
    counter: budget.TokenCounter,
    price: budget.Price | None,
    output_tokens: float | None = None,
) -> budget.Plan:
    """What a run of ``cases`` will ask given the results it already has (``existing``): see
    :class:`perturber.robustness.budget.Plan`. Assumes every original succeeds."""
    done, _ = answered(existing)
    system = asker.endpoint.system_prompt if asker.endpoint else None
    ceiling = asker.endpoint.max_tokens if asker.endpoint else None
    p = budget.Plan(tokenizer=counter.name)
    seen_examples: set[str] = set()
    seen_cases: set[str] = set()
    seen_requests: set[str] = set()
    for index, case in enumerate(cases, 1):
        if not to_ask(index, case) or case["case_id"] in done or case["case_id"] in seen_cases:
            continue
        seen_cases.add(case["case_id"])
        texts = [case["perturbed"]]
        if case["example_id"] not in seen_examples and f"orig:{case['example_id']}" not in done:
            texts.append(case["original"])
            p.keys += 1
        seen_examples.add(case["example_id"])
        p.keys += 1
        for text in texts:
            for sample in range(samples):
                p.requests += 1
                rkey = request_key(asker.request, sample, text)
                if rkey in seen_requests:
                    continue
                seen_requests.add(rkey)
                p.distinct += 1
                if cache.contains(rkey):
                    p.cached += 1
                else:
                    p.input_tokens += counter.request(system, text)
    expected, p.output_basis = expected_output(existing, output_tokens)
    p.output_tokens = round(expected * p.to_send)
    p.output_ceiling = p.to_send * (ceiling or round(expected))
    p.price = price
    p.cost = None if price is None else price.cost(p.input_tokens, p.output_tokens)
    return p


def expected_output(existing: list[dict], given: float | None) -> tuple[float, str]:
    """Expected output tokens per reply: ``given``, else the mean the endpoint reported for the
    replies already recorded, else :data:`budget.DEFAULT_OUTPUT_TOKENS`."""
    if given is not None:
        return given, f"{given:g} per reply (--output-tokens)"
    reported = [
        r["usage"]["completion_tokens"] / max(1, r["reply_sources"].count("endpoint"))
        for r in existing
        if (r.get("usage") or {}).get("completion_tokens") and "endpoint" in r.get("reply_sources", ())
    ]
    if reported:
        mean = sum(reported) / len(reported)
        return mean, f"{mean:.0f} per reply, the mean of {len(reported)} recorded replies"
    return (
        budget.DEFAULT_OUTPUT_TOKENS,
        f"{budget.DEFAULT_OUTPUT_TOKENS} per reply (default; --output-tokens)",
    )
