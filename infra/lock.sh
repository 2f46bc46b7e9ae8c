#!/usr/bin/env bash
# The Lambda function's hash-pinned lock, functions/api/requirements.lock, from the direct
# dependencies in functions/api/requirements.txt (CPython 3.12, manylinux2014; every wheel and
# sdist hash of each pinned version, so one file serves arm64 and x86_64). infra/Makefile
# (sam build) and serverless.yml (osls package) install it with --require-hashes.
#
#   bash infra/lock.sh            regenerate after editing requirements.txt (keeps existing pins
#                                 unless the declared dependencies need a change)
#   bash infra/lock.sh --check    exit 1 if the lock does not match requirements.txt (CI)
#
# Needs uv (the dev extra installs it; UV=/path/to/uv overrides) and access to PyPI.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
REQS=functions/api/requirements.txt
LOCK=functions/api/requirements.lock
UV=${UV:-$(command -v uv || echo .venv/bin/uv)}
[ -x "$UV" ] || { echo "lock.sh: uv not found (pip install 'perturber[dev]' or set UV)" >&2; exit 2; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/perturber-lock.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

compile() {  # compile PLATFORM OUTPUT: resolve for CPython 3.12 on PLATFORM, preferring OUTPUT's pins
  "$UV" pip compile "$REQS" --quiet --python-version 3.12 --python-platform "$1" \
      --generate-hashes --no-annotate --custom-compile-command "bash infra/lock.sh" -o "$2"
}

[ -f "$LOCK" ] && cp "$LOCK" "$TMP/arm64.lock" && cp "$LOCK" "$TMP/x86_64.lock"
compile aarch64-manylinux2014 "$TMP/arm64.lock"
compile x86_64-manylinux2014 "$TMP/x86_64.lock"
if ! diff -q "$TMP/arm64.lock" "$TMP/x86_64.lock" >/dev/null; then
  echo "lock.sh: arm64 and x86_64 resolve differently; one lock cannot serve both:" >&2
  diff "$TMP/arm64.lock" "$TMP/x86_64.lock" >&2 || true
  exit 1
fi
if [ "${1:-}" = "--check" ]; then
  if ! diff -u "$LOCK" "$TMP/arm64.lock"; then
    echo "lock.sh: $LOCK does not match $REQS: run bash infra/lock.sh and commit the result" >&2
    exit 1
  fi
  echo "lock.sh: $LOCK matches $REQS ($(grep -c '==' "$LOCK") pinned packages, arm64 and x86_64)"
else
  cp "$TMP/arm64.lock" "$LOCK"
  echo "lock.sh: wrote $LOCK ($(grep -c '==' "$LOCK") pinned packages)"
fi
