"""The models a run asks: an OpenAI-compatible endpoint (:class:`EndpointModel`, through
``perturber.llm``) or any Python callable ``model(text) -> str`` (sync or async), both seen by the
run as an :class:`Asker`: ``await asker.reply(text, sample)`` gives a :class:`Reply` (text and
token usage), and ``asker.request`` is what decides a reply besides the text and the sample index
(the content address of the reply cache).

>>> import asyncio
>>> asker = Asker.of(lambda text: text.upper(), name="shout")
>>> asyncio.run(asker.reply("hi", 0)), asker.request
(Reply(text='HI', usage={}), {'callable': 'shout'})
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import inspect
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidParams, ModelBackendError, PerturberError
from . import checking


@dataclass(frozen=True)
class Reply:
    """A model's answer to one request and the tokens the endpoint says it used."""

    text: str
    usage: dict = field(default_factory=dict)


class EndpointModel:
    """A model behind an OpenAI-compatible endpoint (``perturber.llm.Endpoint``). Timeout and
    retries come from ``PERTURBER_LLM_TIMEOUT`` / ``PERTURBER_LLM_MAX_RETRIES`` unless given; the
    API key from ``PERTURBER_LLM_API_KEY``, never written anywhere. A reply that is not a usable
    completion (not JSON, no choices, empty or missing content) is retried by the client and then
    raises ``ModelBadResponse`` (``model_bad_response`` / ``model_empty``): an error, never a score.
    Sample ``k`` of a case is asked with ``seed=k`` when more than one sample is asked."""

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
        if not 0 <= temperature <= 2:
            raise InvalidParams("--temperature must be in [0, 2]", field="temperature")
        self.name = model
        self.system_prompt = system_prompt
        self.temperature, self.max_tokens = temperature, max_tokens
        self.endpoint = llm.Endpoint.from_settings(settings, api_key, **overrides)
        self.seeded = False  # set by the run when it asks several samples

    @property
    def request(self) -> dict:
        """What decides a reply besides the text and the sample index."""
        return {
            "endpoint": self.endpoint.base_url,
            "model": self.name,
            "system": self.system_prompt,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }

    def settings(self) -> dict:
        """The run header's description of this model (no key, the system prompt as a hash)."""
        system = self.system_prompt
        return {
            "kind": "endpoint",
            "name": self.name,
            "endpoint": self.endpoint.base_url,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "system_prompt_sha256": None if system is None else hashlib.sha256(system.encode()).hexdigest(),
        }

    def messages(self, text: str) -> list[dict]:
        system = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        return [*system, {"role": "user", "content": text}]

    async def reply(self, text: str, sample: int) -> Reply:
        completion = await self.endpoint.achat(
            self.messages(text),
            model=self.name,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            seed=sample if self.seeded else None,
        )
        return Reply(_text(completion), dict(completion.usage))

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


def _checked(output: Any) -> str:
    """A model's output, or an error: a callable must return a non-empty string."""
    if not isinstance(output, str):
        raise PerturberError(f"the model returned {type(output).__name__}, not a string", code="bad_output")
    if not output.strip():
        raise PerturberError("the model returned an empty answer", code="empty_output")
    return output


def _is_async(model: Any) -> bool:
    return inspect.iscoroutinefunction(model) or (
        callable(model) and inspect.iscoroutinefunction(model.__call__)
    )


class Asker:
    """A model as the run sees it; build one with :meth:`of`."""

    def __init__(self, model: Any, name: str, pool: ThreadPoolExecutor | None = None) -> None:
        self.model, self.name, self.pool = model, name, pool
        self.endpoint = model if isinstance(model, EndpointModel) else None

    @classmethod
    def of(cls, model: Any, name: str | None = None, concurrency: int = 8) -> Asker:
        if isinstance(model, EndpointModel):
            return cls(model, name or model.name)
        if not callable(model):
            raise InvalidParams("model must be a callable model(text) -> str, sync or async", field="model")
        pool = None if _is_async(model) else ThreadPoolExecutor(max_workers=concurrency)
        return cls(model, name or _model_name(model), pool)

    @property
    def request(self) -> dict:
        return self.endpoint.request if self.endpoint else {"callable": self.name}

    def settings(self) -> dict:
        if self.endpoint:
            return self.endpoint.settings()
        return {"kind": "callable", "name": self.name, "temperature": None}

    async def reply(self, text: str, sample: int) -> Reply:
        if self.endpoint is not None:
            found = await self.endpoint.reply(text, sample)
            return Reply(_checked(found.text), found.usage)
        if self.pool is None:
            return Reply(_checked(await self.model(text)))
        output = await asyncio.get_running_loop().run_in_executor(self.pool, self.model, text)
        return Reply(_checked(output))

    async def aclose(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
        if hasattr(self.model, "aclose"):
            await self.model.aclose()


def _model_name(model: Any) -> str:
    return getattr(model, "name", None) or getattr(model, "__name__", None) or type(model).__name__


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
