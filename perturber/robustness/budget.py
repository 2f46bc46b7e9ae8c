"""Know the cost first: token counts, prices, the plan of a run and the limits that stop it.

Tokens are counted with ``tiktoken`` when it is installed and its encoding loads (the model's own,
else ``o200k_base``), else estimated as one token per :data:`CHARS_PER_TOKEN` characters; the plan
says which. A chat request costs its messages' tokens plus :data:`MESSAGE_OVERHEAD` per message.
Prices are USD per million tokens, from ``--price-in/--price-out`` or :data:`PRICES`.

>>> counter = TokenCounter("characters/4 estimate", None)
>>> counter.count("What is 2+2?")            # 12 characters
3
>>> price_for("gpt-4o-mini").cost(1_000_000, 100_000)
0.21
>>> price_for("my-model") is None, price_for("my-model", 1.0, 2.0).cost(500_000, 0)
(True, 0.5)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import InvalidParams

CHARS_PER_TOKEN = 4.0
MESSAGE_OVERHEAD = 4  # tokens per chat message: role and separators
DEFAULT_OUTPUT_TOKENS = 256  # expected reply length when nothing better is known

# USD per million (input, output) tokens: the providers' published list prices, for a first
# estimate only; pass --price-in/--price-out for your contract's prices.
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
}


@dataclass(frozen=True)
class TokenCounter:
    """Counts tokens with ``encoding`` (a tiktoken encoding), else by characters; ``name`` says
    which."""

    name: str
    encoding: object | None

    def count(self, text: str) -> int:
        if self.encoding is not None:
            return len(self.encoding.encode(text, disallowed_special=()))  # type: ignore[attr-defined]
        return math.ceil(len(text) / CHARS_PER_TOKEN)

    def request(self, system: str | None, text: str) -> int:
        """Input tokens of one chat request (system prompt, if any, and the user message)."""
        messages = [text] if system is None else [system, text]
        return sum(self.count(m) + MESSAGE_OVERHEAD for m in messages)


def token_counter(model: str | None) -> TokenCounter:
    """tiktoken's encoding for ``model`` when tiktoken is installed and the encoding loads, else
    the characters-per-token estimate (the name says why)."""
    try:
        import tiktoken
    except ImportError:
        return TokenCounter(f"characters/{CHARS_PER_TOKEN:g} estimate (tiktoken not installed)", None)
    try:
        try:
            encoding = tiktoken.encoding_for_model(model or "")
        except KeyError:
            encoding = tiktoken.get_encoding("o200k_base")
    except Exception as err:  # tiktoken fetches its encodings on first use: offline, that fails
        reason = f"tiktoken could not load its encoding: {type(err).__name__}"
        return TokenCounter(f"characters/{CHARS_PER_TOKEN:g} estimate ({reason})", None)
    return TokenCounter(f"tiktoken {encoding.name}", encoding)


@dataclass(frozen=True)
class Price:
    """USD per million input and output tokens, and where the numbers come from."""

    input: float
    output: float
    source: str

    def cost(self, input_tokens: float, output_tokens: float) -> float:
        return round((input_tokens * self.input + output_tokens * self.output) / 1e6, 6)


def price_for(
    model: str | None, price_in: float | None = None, price_out: float | None = None
) -> Price | None:
    """The price of ``model``: the flags when both are given, else the table, else None."""
    if (price_in is None) != (price_out is None):
        raise InvalidParams("give both --price-in and --price-out (USD per million tokens)", field="price")
    if price_in is not None and price_out is not None:
        if price_in < 0 or price_out < 0:
            raise InvalidParams("prices must be >= 0", field="price")
        return Price(price_in, price_out, "--price-in/--price-out")
    if model in PRICES:
        return Price(*PRICES[model], "the price table (list prices)")
    return None


@dataclass
class Usage:
    """Tokens summed over replies (``prompt_tokens``, ``completion_tokens`` as the endpoint reports
    them), and how many replies reported any.

    >>> u = Usage(); u.add({"prompt_tokens": 10, "completion_tokens": 3}); u.add({})
    >>> (u.prompt_tokens, u.completion_tokens, u.replies, u.reported)
    (10, 3, 2, 1)
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    replies: int = 0
    reported: int = 0

    def add(self, usage: dict | None) -> None:
        self.replies += 1
        if usage and ("prompt_tokens" in usage or "completion_tokens" in usage):
            self.reported += 1
            self.prompt_tokens += int(usage.get("prompt_tokens") or 0)
            self.completion_tokens += int(usage.get("completion_tokens") or 0)

    def to_dict(self) -> dict:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "replies": self.replies,
            "reported": self.reported,
        }


@dataclass
class Plan:
    """What a run will ask, before it asks: result keys missing, model requests they need
    (keys x samples), the distinct ones after de-duplication, how many the cache answers, and the
    estimated tokens and cost of the requests left to send."""

    keys: int = 0
    requests: int = 0
    distinct: int = 0
    cached: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    output_ceiling: int = 0
    tokenizer: str = ""
    output_basis: str = ""
    price: Price | None = None
    cost: float | None = None

    @property
    def to_send(self) -> int:
        return self.distinct - self.cached

    @property
    def duplicates(self) -> int:
        return self.requests - self.distinct

    def describe(self) -> str:
        cost = (
            f"estimated cost ${self.cost:,.4f} ({self.price.source})"
            if self.cost is not None and self.price is not None
            else "estimated cost unknown (give --price-in/--price-out)"
        )
        return (
            f"plan: {self.keys} results to get, {self.requests} model requests, {self.distinct} "
            f"distinct ({self.duplicates} duplicates sent once), {self.cached} answered by the cache, "
            f"{self.to_send} to send; estimated tokens: {self.input_tokens:,} in ({self.tokenizer}), "
            f"{self.output_tokens:,} out ({self.output_basis}; at most {self.output_ceiling:,}); {cost}"
        )

    def to_dict(self) -> dict:
        return {
            "keys": self.keys,
            "requests": self.requests,
            "distinct": self.distinct,
            "duplicates": self.duplicates,
            "cached": self.cached,
            "to_send": self.to_send,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "output_ceiling": self.output_ceiling,
            "tokenizer": self.tokenizer,
            "output_basis": self.output_basis,
            "cost": self.cost,
            "price": None if self.price is None else [self.price.input, self.price.output, self.price.source],
        }


@dataclass(frozen=True)
class Limits:
    """``--max-calls`` and ``--max-cost``: the run stops cleanly before a call would pass either.
    The cost of a call is its reported usage at ``price``, else its estimate."""

    max_calls: int | None = None
    max_cost: float | None = None
    price: Price | None = None

    def __post_init__(self) -> None:
        if self.max_calls is not None and self.max_calls < 0:
            raise InvalidParams("--max-calls must be >= 0", field="max_calls")
        if self.max_cost is not None and (self.max_cost < 0 or self.price is None):
            raise InvalidParams(
                "--max-cost needs a price (--price-in/--price-out, or a model of the price table) "
                "and must be >= 0",
                field="max_cost",
            )

    def reached(self, calls: int, spent: float) -> str | None:
        """Why the next call may not start (None: it may)."""
        if self.max_calls is not None and calls >= self.max_calls:
            return f"--max-calls {self.max_calls}"
        if self.max_cost is not None and spent >= self.max_cost:
            return f"--max-cost {self.max_cost:g}"
        return None
