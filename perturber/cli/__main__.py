"""``python -m perturber.cli``: the ``perturber`` command line."""

import sys

from . import main

if __name__ == "__main__":
    sys.exit(main())
