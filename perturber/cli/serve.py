"""``perturber serve``: the HTTP service and its playground."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .. import __version__
from .parser import Parser


def cmd_serve(argv: Sequence[str]) -> int:
    parser = Parser(
        prog="perturber serve",
        description="Run the HTTP service and its playground (needs the 'service' extra). "
        "Limits come from PERTURBER_* environment variables (see README).",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args(argv)
    try:
        import uvicorn

        from ..service import Settings, create_app
    except ImportError as err:
        from ..errors import ResourceUnavailable

        raise ResourceUnavailable(
            f"the service needs the 'service' extra (pip install 'perturber[service]'): {err}",
            code="tier_unavailable",
        ) from None
    app = create_app(Settings.from_env())
    sys.stderr.write(
        f"perturber {__version__}: playground at http://{args.host}:{args.port}/ (API docs at /docs)\n"
    )
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
