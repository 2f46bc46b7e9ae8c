"""Invoke the Lambda handler in-process with an API Gateway event file (no Docker, no AWS).

    python -m functions.api.invoke infra/events/http-api-typed.json [--body-only]

Prints the Lambda proxy response as JSON (with ``--body-only``: just the decoded body).
"""

from __future__ import annotations

import argparse
import json
import sys

from .events import LocalContext, response_body


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m functions.api.invoke",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("event", nargs="+", help="API Gateway event JSON file(s)")
    parser.add_argument("--body-only", action="store_true", help="print only the decoded body")
    args = parser.parse_args(argv)
    from .handler import handler

    for path in args.event:
        try:
            with open(path, encoding="utf-8") as fh:
                event = json.load(fh)
        except (OSError, ValueError) as err:
            print(f"invoke: cannot read event {path}: {err}", file=sys.stderr)
            return 2
        response = handler(event, LocalContext())
        if args.body_only:
            sys.stdout.buffer.write(response_body(response) + b"\n")
        else:
            print(json.dumps(response, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
