"""Where the evaluation reads and writes (read as ``paths.OUT`` at call time, so a test can point
``OUT`` or ``CORPUS_DIR`` elsewhere).

>>> (OUT.relative_to(ROOT), CORPUS_DIR.relative_to(ROOT))
(PosixPath('eval/out'), PosixPath('eval/corpus'))
"""

from __future__ import annotations

import pathlib

#: the repository's root
ROOT = pathlib.Path(__file__).resolve().parents[2]
#: every figure, table and log the evaluation writes (git-ignored)
OUT = ROOT / "eval" / "out"
#: the evaluation corpus: one file per kind of text, texts separated by a ``%%`` line
CORPUS_DIR = ROOT / "eval" / "corpus"
