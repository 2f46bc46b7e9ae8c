"""Optional LLM judge for the fidelity stage: "do these two prompts ask for the same thing?"

Uses the model-tier client ``perturber.llm`` (imported lazily) with the endpoint configured by
the ``PERTURBER_LLM_*`` variables; temperature 0, three samples, majority vote. When the client
module or the endpoint is unavailable, :func:`load` returns ``None`` and a note, and the stage
reports the judge as not run.

    judge, note = load()
    judge.verdicts([("What is 2+2?", "what is 2 + 2 ?")])   # -> [True]
"""

from __future__ import annotations

import importlib

SAMPLES = 3
SYSTEM = (
    "You compare two prompts. Answer YES if a careful assistant would have to give the same "
    "answer to both (same task, same facts, same constraints), ignoring spelling, "
    "formatting and wording. Otherwise answer NO. Reply with YES or NO only."
)


def parse(reply: str | None) -> bool | None:
    """YES/NO at the start of the reply (case-insensitive); None when neither.

    >>> parse("Yes."), parse("no"), parse("maybe")
    (True, False, None)
    """
    word = (reply or "").strip().lstrip("*\"'").upper()
    if word.startswith("YES"):
        return True
    if word.startswith("NO"):
        return False
    return None


def majority(votes: list[bool | None]) -> bool | None:
    """The majority of the valid votes; None on no valid vote or a tie.

    >>> majority([True, False, True]), majority([None, None, False]), majority([True, False])
    (True, False, None)
    """
    yes = sum(1 for v in votes if v is True)
    no = sum(1 for v in votes if v is False)
    return None if yes == no else yes > no


class Judge:
    def __init__(self, endpoint, model: str):
        self.endpoint, self.model = endpoint, model

    def verdicts(self, pairs: list[tuple[str, str]], on_done=None) -> list[bool | None]:
        requests = []
        for original, perturbed in pairs:
            messages = [
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": f"Prompt A:\n{original}\n\nPrompt B:\n{perturbed}"},
            ]
            requests += [
                dict(messages=messages, model=self.model, temperature=0.0, seed=k, max_tokens=3)
                for k in range(SAMPLES)
            ]
        results = self.endpoint.chat_many(requests, on_done=on_done)
        votes = [None if isinstance(r, Exception) else parse(r.text) for r in results]
        return [majority(votes[i : i + SAMPLES]) for i in range(0, len(votes), SAMPLES)]


def load() -> tuple[Judge | None, str]:
    """``(judge, note)``; the judge is None when ``perturber.llm`` or an endpoint is missing."""
    try:
        llm = importlib.import_module("perturber.llm")
    except ImportError:
        return None, "LLM judge not run: the model-tier client perturber.llm is not available"
    try:
        settings = llm.LLMSettings.from_env()
        model = getattr(settings, "model", None) or settings.default_model
        if not settings.base_url or not model:
            return None, (
                "LLM judge not run: no endpoint configured "
                "(PERTURBER_LLM_BASE_URL and PERTURBER_LLM_DEFAULT_MODEL)"
            )
        endpoint = llm.Endpoint.from_settings(settings)
    except Exception as exc:  # configuration errors, missing openai, missing key
        return None, f"LLM judge not run: {type(exc).__name__}: {exc}"
    return (
        Judge(endpoint, model),
        f"LLM judge: {model} at the configured endpoint, temperature 0, {SAMPLES} samples, majority",
    )
