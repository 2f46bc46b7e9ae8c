"""What a report says about how its results were made, from the ``run`` and ``run_end`` records of
the results (:mod:`.schema`): versions, catalog digest, suite file hash, model and sampling
settings, checker, start and end, the token usage (all runs) and the plan's estimate against the
usage of the runs that asked all they planned (not interrupted, not stopped at a limit), where the
replies came from; and, for runs asking several samples per text, the agreement between samples.

>>> from perturber.robustness.results import ModelRun
>>> run = ModelRun("m")
>>> run.add({"kind": "run", "run": "r1", "started": "2026-01-01T00:00:00+00:00", "samples": 1,
...          "model_settings": {"kind": "endpoint", "temperature": 0.0}, "plan": {"input_tokens": 100,
...          "output_tokens": 20, "tokenizer": "characters/4 estimate", "cost": None}})
>>> run.add({"kind": "run_end", "run": "r1", "ended": "2026-01-01T00:01:00+00:00", "calls": 5,
...          "cache_hits": 0, "deduplicated": 1, "usage": {"prompt_tokens": 110, "completion_tokens": 25,
...          "reported": 5}, "interrupted": False})
>>> p = provenance(run)
>>> p["estimated"]["input_tokens"], p["actual"]["prompt_tokens"], p["input_ratio"]
(100, 110, 1.1)
>>> sampling(run)["note"]
'sampled once per text, at temperature 0'
"""

from __future__ import annotations

from typing import Any

from . import stats
from .results import ModelRun


def _values(records: list[dict], key: str) -> list:
    return sorted({r[key] for r in records if r.get(key) is not None})


def _sum(records: list[dict], path: tuple[str, ...]) -> float | None:
    values: list[float] = []
    for r in records:
        value: Any = r
        for part in path:
            value = value.get(part) if isinstance(value, dict) else None
        if isinstance(value, (int, float)):
            values.append(value)
    return sum(values) if values else None


def provenance(run: ModelRun) -> dict:
    """The ``provenance`` of one model in ``report.json`` (``runs``: 0 for results written before
    run records existed)."""
    headers, ends = run.headers, run.ends
    if not headers:
        return {"runs": 0, "reply_sources": dict(run.sources)}
    last = headers[-1]
    reported = _sum(ends, ("usage", "reported"))
    actual = {
        "prompt_tokens": _sum(ends, ("usage", "prompt_tokens")) if reported else None,
        "completion_tokens": _sum(ends, ("usage", "completion_tokens")) if reported else None,
        "replies_reporting": reported,
        "cost": _sum(ends, ("cost",)),
    }
    # the estimate against the usage, on the runs that asked all they planned
    complete = {e["run"] for e in ends if not e.get("interrupted") and not e.get("stopped")}
    planned = [h for h in headers if h["run"] in complete]
    used = [e for e in ends if e["run"] in complete]
    estimated = {
        "runs": len(planned),
        "input_tokens": _sum(planned, ("plan", "input_tokens")),
        "output_tokens": _sum(planned, ("plan", "output_tokens")),
        "cost": _sum(planned, ("plan", "cost")),
        "tokenizer": (last.get("plan") or {}).get("tokenizer"),
        "actual_prompt_tokens": _sum(used, ("usage", "prompt_tokens")) if reported else None,
        "actual_completion_tokens": _sum(used, ("usage", "completion_tokens")) if reported else None,
        "actual_cost": _sum(used, ("cost",)),
    }
    return {
        "runs": len(headers),
        "perturber_version": _values(headers, "perturber_version"),
        "catalog_digest": _values(headers, "catalog_digest"),
        "suite_sha256": _values(headers, "suite_sha256"),
        "schema": _values(headers, "schema"),
        "model_settings": last.get("model_settings"),
        "samples": last.get("samples"),
        "checker": last.get("checker"),
        "started": min(h["started"] for h in headers),
        "ended": max((e["ended"] for e in ends), default=None),
        "calls": _sum(ends, ("calls",)),
        "cache_hits": _sum(ends, ("cache_hits",)),
        "deduplicated": _sum(ends, ("deduplicated",)),
        "estimated": estimated,
        "actual": actual,
        "input_ratio": _ratio(estimated["actual_prompt_tokens"], estimated["input_tokens"]),
        "output_ratio": _ratio(estimated["actual_completion_tokens"], estimated["output_tokens"]),
        "reply_sources": dict(run.sources),
    }


def _ratio(actual: float | None, estimate: float | None) -> float | None:
    return round(actual / estimate, 3) if actual is not None and estimate else None


def sampling(
    run: ModelRun, replicates: int = stats.BOOTSTRAP_REPLICATES, seed: int = stats.BOOTSTRAP_SEED
) -> dict:
    """How often the model was asked per text and, with several samples, how much its answers
    agree: the mean per-case agreement (share of samples giving the most common answer) and the
    accuracy as the mean over samples, each with a 95 % bootstrap interval over examples."""
    header = run.headers[-1] if run.headers else {}
    settings = header.get("model_settings") or {}
    temperature = settings.get("temperature")
    samples = header.get("samples") or 1
    out: dict = {"samples": samples, "temperature": temperature}
    if not run.sampled:
        if settings.get("kind") == "callable":
            out["note"] = "sampled once per text (a Python callable: no temperature)"
        elif temperature is not None:
            out["note"] = f"sampled once per text, at temperature {temperature:g}"
        else:
            out["note"] = "sampled once per text"
        return out
    examples = sorted({k.removeprefix("orig:") for k in run.sampled})
    cases = [run.sampled.get(e, [0, 0.0, 0.0, 0]) for e in examples]
    originals = [run.sampled.get("orig:" + e, [0, 0.0, 0.0, 0]) for e in examples]
    num = [[c[1], c[2], o[2]] for c, o in zip(cases, originals)]
    den = [[c[0], c[0], o[0]] for c, o in zip(cases, originals)]
    cis = stats.bootstrap_ratios(num, den, replicates=replicates, seed=seed)
    n_cases, n_orig = sum(c[0] for c in cases), sum(o[0] for o in originals)
    out.update(
        note=f"{samples} samples per text at temperature {temperature}; flips are judged on the most common answer",
        cases=n_cases,
        agreement=sum(c[1] for c in cases) / n_cases if n_cases else None,
        agreement_ci=list(cis[0]) if cis[0] else None,
        unanimous=sum(c[3] for c in cases) / n_cases if n_cases else None,
        mean_accuracy=sum(c[2] for c in cases) / n_cases if n_cases else None,
        mean_accuracy_ci=list(cis[1]) if cis[1] else None,
        original_mean_accuracy=sum(o[2] for o in originals) / n_orig if n_orig else None,
        original_mean_accuracy_ci=list(cis[2]) if cis[2] else None,
    )
    return out
