"""The command line's building blocks: a parser that raises instead of exiting, typed parameter
flags generated from the registry, and output helpers.

>>> Parser(prog="perturber x").parse_args(["--nope"])
Traceback (most recent call last):
...
perturber.errors.InvalidParams: perturber x: unrecognized arguments: --nope (see --help)
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .. import core, registry
from ..errors import InvalidParams
from ..settings import parse_bool


class Parser(argparse.ArgumentParser):
    """argparse that raises ``InvalidParams`` instead of printing usage and exiting."""

    def error(self, message: str):
        raise InvalidParams(f"{self.prog}: {message} (see --help)")


def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def convert(param: registry.Param, raw: str) -> Any:
    """CLI strings to typed values before validation (docs/spec/catalog.md §1.3)."""
    try:
        if param.type is int:
            return int(raw)
        if param.type is float:
            return float(raw)
        if param.type is bool:
            return parse_bool(raw, param.name)
    except (ValueError, KeyError):
        raise InvalidParams(
            f"parameter '{param.name}' = {raw!r} is invalid; allowed: {param.describe_range()}",
            field=param.name,
            allowed=param.describe_range(),
        ) from None
    return raw


def add_params(parser: argparse.ArgumentParser, spec: registry.Perturbation) -> None:
    for p in spec.params:
        flags = dict.fromkeys([flag(p.name), f"--{p.name}"])
        parser.add_argument(
            *flags,
            dest=f"param_{p.name}",
            metavar="VALUE",
            help=f"{p.description}; {p.describe_range()} (default {p.default!r})",
        )


def collect_params(args: argparse.Namespace, spec: registry.Perturbation) -> dict:
    params = {}
    for p in spec.params:
        raw = getattr(args, f"param_{p.name}")
        if raw is not None:
            params[p.name] = convert(p, raw)
    return params


def write(text: str) -> None:
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.flush()


def read_stdin() -> str:
    if sys.stdin is None or sys.stdin.isatty():
        raise InvalidParams("no input: give --text or pipe the text on stdin", field="text")
    data = sys.stdin.buffer.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InvalidParams(f"stdin is not valid UTF-8 (byte {err.start})", field="text") from None
    if text.endswith("\r\n"):
        return text[:-2]
    return text[:-1] if text.endswith("\n") else text


def json_line(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False) + "\n"


def parse_seed(raw: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise InvalidParams(
            f"seed must be an int in [0, {core.MAX_SEED}], got {raw!r}", field="seed"
        ) from None
