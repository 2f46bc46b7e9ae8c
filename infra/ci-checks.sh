#!/usr/bin/env bash
# Offline infrastructure checks (no Docker, no AWS credentials, no AWS network). Run by .ci/run
# after `make test`; runnable on its own: `bash infra/ci-checks.sh`.
#
#   1. tools: .venv-tools (aws-sam-cli, cfn-lint, cfn-lint-serverless; SAM pins old libraries, so
#      it gets its own virtualenv) and node_modules (`npm ci`: osls + serverless-python-requirements);
#      skipped when already installed at the pinned versions
#   2. the NLTK data tree and layer zip (infra/layers/nltk/build.sh), if missing
#   3. `sam validate --lint` and `cfn-lint` on infra/template.yaml (+ AWS serverless rules, advisory),
#      tests/test_iac.py again (its samtranslator part needs .venv-tools)
#   3b. functions/api/requirements.lock matches requirements.txt (infra/lock.sh --check, uv)
#   4. `sam build` into a temporary directory (needs python3.12: PATH or pyenv); the function zip
#      must stay <= 14 MB (FUNCTION_ZIP_LIMIT_MB) without the layer: our cold-start budget (Lambda's own
#      limit is 50 MB zipped); 12.95 MB with the openai client (left uncompiled) and python3.12 bytecode
#   4b. the release artefacts (python -m infra.native wheels: sdist, pure wheel, manylinux wheels
#      with perturber._native for x86_64 and aarch64, auditwheel-checked) and the aarch64 wheel
#      under qemu-user with Debian's arm64 CPython 3.11: the module loads, every golden file holds
#   5. `npx osls print` (configValidationMode: error) and `npx osls package` against a local
#      moto_server (osls asks CloudFormation about the layer; moto[server] lives in .venv-moto),
#      then cfn-lint on the generated CloudFormation
#
# Exit status non-zero on any failure. Environment: PYTHON (interpreter for the tool venvs,
# default python3), PYTHON312 (a python3.12 binary), FUNCTION_ZIP_LIMIT_MB (default 14),
# SKIP_OSLS_PACKAGE=1 (skip step 5's package), TOOLS_VENV / MOTO_VENV (virtualenv locations).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO=$PWD

PY=${PYTHON:-python3}
TOOLS=${TOOLS_VENV:-.venv-tools}
MOTO_VENV=${MOTO_VENV:-.venv-moto}
SAM_VERSION=1.170.0
CFN_LINT_SERVERLESS_VERSION=0.3.6
MOTO_VERSION=5.2.5
LIMIT_MB=${FUNCTION_ZIP_LIMIT_MB:-14}
LAYER_ZIP=build/nltk_data_layer.zip
export SAM_CLI_TELEMETRY=0 SAM_CLI_CONTACT_TRACKING=0 AWS_EC2_METADATA_DISABLED=true
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore

WORK=$(mktemp -d "${TMPDIR:-/tmp}/perturber-ci.XXXXXX")
MOTO_PID=
cleanup() {
  if [ -n "$MOTO_PID" ]; then kill "$MOTO_PID" 2>/dev/null || true; wait "$MOTO_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

SUMMARY=()
step() { printf '\n== %s\n' "$*"; }
ok() { SUMMARY+=("ok    $*"); }
skip() { SUMMARY+=("skip  $*"); }
fail() { SUMMARY+=("FAIL  $*"); printf '\n%s\n' "${SUMMARY[@]}" >&2; echo "infra checks: FAILED ($*)" >&2; exit 1; }

# -- 1. tools ---------------------------------------------------------------------------------
step "tools"
if [ -x "$TOOLS/bin/sam" ] && "$TOOLS/bin/sam" --version 2>/dev/null | grep -q "$SAM_VERSION" \
   && "$TOOLS/bin/python" -c "import cfn_lint, cfn_lint_serverless" 2>/dev/null; then
  echo "$TOOLS: aws-sam-cli $SAM_VERSION, cfn-lint, cfn-lint-serverless already installed"
else
  [ -x "$TOOLS/bin/python" ] || "$PY" -m venv "$TOOLS"
  "$TOOLS/bin/python" -m pip install -q --upgrade pip
  "$TOOLS/bin/python" -m pip install -q "aws-sam-cli==$SAM_VERSION" cfn-lint \
      "cfn-lint-serverless==$CFN_LINT_SERVERLESS_VERSION" || fail "install $TOOLS"
fi
echo "$("$TOOLS/bin/sam" --version), cfn-lint $("$TOOLS/bin/cfn-lint" --version | awk '{print $NF}')"

command -v npm >/dev/null || fail "npm not found (Node.js >= 20.19 is needed for osls)"
LOCK_SUM=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ -f node_modules/.ci-lock.sha256 ] && [ "$(cat node_modules/.ci-lock.sha256)" = "$LOCK_SUM" ] \
   && [ -x node_modules/.bin/osls ]; then
  echo "node_modules: up to date with package-lock.json"
else
  npm ci --no-audit --no-fund --loglevel=error || fail "npm ci"
  echo "$LOCK_SUM" > node_modules/.ci-lock.sha256
fi
echo "osls $(npx --no-install osls --version 2>/dev/null | grep -Eo '[0-9]+\.[0-9]+\.[0-9]+' | head -1)"
ok "tools ($TOOLS, node_modules)"

# A working python3.12 (pyenv's shim on PATH may not be; try the real interpreters too).
PY312=
for cand in ${PYTHON312:-} "$(command -v python3.12 || true)" \
            "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3.12; do
  [ -n "$cand" ] && [ -x "$cand" ] || continue
  if exe=$("$cand" -c 'import sys; assert sys.version_info[:2] == (3, 12); print(sys.executable)' 2>/dev/null); then
    PY312=$exe
    break
  fi
done
[ -n "$PY312" ] || fail "no working python3.12 (PYTHON312, PATH or pyenv) for sam build / osls package"
PY312_BIN=$(dirname "$PY312")
echo "python3.12 for builds: $PY312"

# -- 2. layer ---------------------------------------------------------------------------------
step "NLTK data layer"
if [ ! -f "$LAYER_ZIP" ] || [ ! -d build/nltk_data/corpora/wordnet ]; then
  bash infra/layers/nltk/build.sh build --with-tagger || fail "layer build"
fi
LAYER_BYTES=$(stat -c %s "$LAYER_ZIP")
echo "$LAYER_ZIP: $LAYER_BYTES bytes"
ok "layer zip $(awk -v b="$LAYER_BYTES" 'BEGIN{printf "%.1f MB", b/1e6}')"

# -- 3. template lint -------------------------------------------------------------------------
step "sam validate --lint"
"$TOOLS/bin/sam" validate --lint -t infra/template.yaml || fail "sam validate --lint"
ok "sam validate --lint"

step "cfn-lint"
"$TOOLS/bin/cfn-lint" infra/template.yaml || fail "cfn-lint infra/template.yaml"
ok "cfn-lint infra/template.yaml"
# AWS serverless rules (tracing, access logs, ...): advice, not a gate.
advice=$("$TOOLS/bin/cfn-lint" --append-rules cfn_lint_serverless.rules -- infra/template.yaml 2>&1 \
         | grep -Eo '^[EWI]S?[0-9]+' | sort | uniq | tr '\n' ' ' || true)
echo "serverless-rules advice (not enforced): ${advice:-none}"

# samtranslator lives in .venv-tools only (it pins an older pydantic than the project's), so the
# translated-template assertions of tests/test_iac.py are skipped during `make test` on a fresh
# machine; run that file again now that the tools are there.
if [ -x .venv/bin/python ]; then
  step "tests/test_iac.py with samtranslator"
  .venv/bin/python -m pytest -q tests/test_iac.py || fail "tests/test_iac.py"
  ok "tests/test_iac.py (SAM and serverless.yml agree; translated template checked)"
fi

# -- 3b. Lambda lock (issue 15): functions/api/requirements.lock matches requirements.txt ----------
step "Lambda dependency lock"
UV_BIN=${UV:-}
[ -n "$UV_BIN" ] || { [ -x .venv/bin/uv ] && UV_BIN=.venv/bin/uv; } || true
if [ -z "$UV_BIN" ]; then
  "$TOOLS/bin/python" -m pip install -q "uv==0.13.8" || fail "install uv"
  UV_BIN=$TOOLS/bin/uv
fi
UV="$UV_BIN" bash infra/lock.sh --check || fail "functions/api/requirements.lock is stale (bash infra/lock.sh)"
ok "Lambda lock matches functions/api/requirements.txt (hashes, arm64 + x86_64)"

# -- 4. sam build -----------------------------------------------------------------------------
step "sam build"
PATH="$PY312_BIN:$PATH" "$TOOLS/bin/sam" build -t infra/template.yaml \
    --build-dir "$WORK/sam-build" --cache-dir "$WORK/sam-cache" || fail "sam build"
FN_DIR="$WORK/sam-build/ApiFunction"
# functions/aws.py: the handler's secrets module imports it (it is not in the perturber wheel)
[ -f "$FN_DIR/functions/api/handler.py" ] && [ -f "$FN_DIR/functions/aws.py" ] && [ -d "$FN_DIR/perturber" ] \
  || fail "sam build output lacks functions/ or perturber/"
if find "$FN_DIR" -name '*.so' | grep -q x86_64; then
  fail "x86_64 extension modules in the arm64 function: $(find "$FN_DIR" -name '*x86_64*.so' | head -3)"
fi
# perturber._native, cross-compiled for aarch64 (infra/native.py): an ELF with e_machine 183
is_arm64_module() {  # FILE or ZIP!MEMBER
  "$TOOLS/bin/python" - "$1" <<'PY'
import sys, zipfile
path, _, member = sys.argv[1].partition("!")
head = (zipfile.ZipFile(path).read(member) if member else open(path, "rb").read())[:20]
sys.exit(0 if head[:4] == b"\x7fELF" and int.from_bytes(head[18:20], "little") == 183 else 1)
PY
}
is_arm64_module "$FN_DIR/perturber/_native.abi3.so" \
  || fail "sam build: perturber/_native.abi3.so is missing or not an aarch64 build"
PYC_COUNT=$(find "$FN_DIR" -name '*.cpython-312.pyc' | wc -l)
[ "$PYC_COUNT" -gt 100 ] || fail "sam build shipped no python3.12 bytecode ($PYC_COUNT .pyc; infra/Makefile)"
LAYER_DIR="$WORK/sam-build/NltkDataLayer/nltk_data"
[ -f "$LAYER_DIR/corpora/wordnet/data.noun" ] || fail "sam build: the layer lacks nltk_data/corpora/wordnet"
for unwanted in tests eval infra build docs; do
  [ ! -e "$FN_DIR/$unwanted" ] || fail "sam build output contains $unwanted/"
done
FN_DU=$(du -sh "$FN_DIR" | cut -f1)
FN_ZIP_BYTES=$("$TOOLS/bin/python" - "$FN_DIR" "$WORK/function.zip" <<'PY'
import os, sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            zf.write(path, os.path.relpath(path, src))
print(os.path.getsize(dst))
PY
)
FN_ZIP_MB=$(awk -v b="$FN_ZIP_BYTES" 'BEGIN{printf "%.2f", b/1e6}')
echo "function: $FN_DU unzipped, $FN_ZIP_BYTES bytes zipped ($FN_ZIP_MB MB; limit $LIMIT_MB MB)"
awk -v b="$FN_ZIP_BYTES" -v l="$LIMIT_MB" 'BEGIN{exit !(b <= l*1e6)}' \
  || fail "function zip $FN_ZIP_MB MB exceeds $LIMIT_MB MB"
ok "sam build (function $FN_DU unzipped, $FN_ZIP_MB MB zipped <= $LIMIT_MB MB; layer $(du -sh "$LAYER_DIR" | cut -f1) unzipped)"

# -- 4b. wheels ------------------------------------------------------------------------------
step "wheels (sdist, pure, manylinux x86_64 + aarch64) and the aarch64 one under qemu"
.venv/bin/python -m infra.native wheels --outdir "$WORK/dist" || fail "python -m infra.native wheels"
.venv/bin/python -m twine check --strict "$WORK"/dist/* >/dev/null || fail "twine check of the wheels"
.venv/bin/python -m infra.native check-arm64 "$WORK/dist" || fail "the aarch64 wheel under qemu"
ok "wheels: $(cd "$WORK/dist" && ls | tr '\n' ' ')(aarch64: module loads, golden files hold)"

# -- 5. serverless.yml ------------------------------------------------------------------------
step "osls print (strict configuration validation)"
OSLS_ENV=(env -u AWS_PROFILE AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing
          AWS_REGION=us-east-1 SLS_TELEMETRY_DISABLED=1 SLS_NOTIFICATIONS_MODE=off)
"${OSLS_ENV[@]}" npx --no-install osls print > "$WORK/osls-print.yml" || fail "osls print"
grep -q 'architecture: arm64' "$WORK/osls-print.yml" || fail "osls print: no arm64"
ok "osls print"

if [ "${SKIP_OSLS_PACKAGE:-0}" = "1" ]; then
  skip "osls package (SKIP_OSLS_PACKAGE=1)"
else
  step "osls package (against a local moto_server)"
  moto_ready=1
  if [ ! -x "$MOTO_VENV/bin/moto_server" ]; then
    { "$PY" -m venv "$MOTO_VENV" && "$MOTO_VENV/bin/python" -m pip install -q "moto[server]==$MOTO_VERSION"; } \
      || moto_ready=0
  fi
  if [ "$moto_ready" = 0 ] || [ ! -x "$MOTO_VENV/bin/moto_server" ]; then
    echo "moto[server] could not be installed into $MOTO_VENV: skipping osls package"
    skip "osls package (moto[server] not installable)"
  else
    PORT=$("$TOOLS/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "$MOTO_VENV/bin/moto_server" -H 127.0.0.1 -p "$PORT" > "$WORK/moto.log" 2>&1 &
    MOTO_PID=$!
    for _ in $(seq 1 60); do
      "$TOOLS/bin/python" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$PORT/moto-api/', timeout=1)" \
        2>/dev/null && break
      kill -0 "$MOTO_PID" 2>/dev/null || fail "moto_server did not start: $(tail -3 "$WORK/moto.log")"
      sleep 0.5
    done
    PATH="$PY312_BIN:$PATH" "${OSLS_ENV[@]}" AWS_ENDPOINT_URL="http://127.0.0.1:$PORT" \
      npx --no-install osls package --package "$WORK/sls" || fail "osls package"
    kill "$MOTO_PID" 2>/dev/null || true; wait "$MOTO_PID" 2>/dev/null || true; MOTO_PID=
    SLS_ZIP="$WORK/sls/perturber.zip"
    [ -f "$SLS_ZIP" ] || fail "osls package produced no perturber.zip"
    if "$TOOLS/bin/python" -c "import sys, zipfile; sys.exit(any('x86_64' in n and n.endswith('.so') for n in zipfile.ZipFile(sys.argv[1]).namelist()))" "$SLS_ZIP"; then :; else
      fail "osls package put x86_64 extension modules into the arm64 function"
    fi
    is_arm64_module "$SLS_ZIP!perturber/_native.abi3.so" \
      || fail "osls package: perturber/_native.abi3.so is missing or not an aarch64 build"
    "$TOOLS/bin/python" -c "import sys, zipfile; sys.exit(sum(n.endswith('.cpython-312.pyc') for n in zipfile.ZipFile(sys.argv[1]).namelist()) < 100)" "$SLS_ZIP" \
      || fail "osls package shipped no python3.12 bytecode (infra/sls/bytecode.js)"
    SLS_MB=$(awk -v b="$(stat -c %s "$SLS_ZIP")" 'BEGIN{printf "%.2f", b/1e6}')
    awk -v m="$SLS_MB" -v l="$LIMIT_MB" 'BEGIN{exit !(m <= l)}' || fail "osls function zip $SLS_MB MB exceeds $LIMIT_MB MB"
    # cfn-lint exit status is a bit mask: 2 = errors (gate), 4 = warnings, 8 = informational.
    set +e
    "$TOOLS/bin/cfn-lint" "$WORK/sls/cloudformation-template-update-stack.json"
    rc=$?
    set -e
    [ $((rc & 2)) -eq 0 ] || fail "cfn-lint on the osls CloudFormation template"
    ok "osls package (function $SLS_MB MB zipped, arm64 wheels; generated CloudFormation lints clean of errors)"
  fi
fi

printf '\n== summary\n'
printf '%s\n' "${SUMMARY[@]}"
echo "infra checks: OK"
