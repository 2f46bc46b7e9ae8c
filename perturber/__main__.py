"""``python -m perturber``: the same command line as the ``perturber`` script.

python -m perturber list --family padding
python -m perturber typos --text "What is the capital of France?" --seed 7
"""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
