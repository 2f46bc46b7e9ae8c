# perturber: `make serve` runs the service + playground, `make test` runs the whole suite.
# Every target installs what it needs (virtualenv, packages from PyPI, NLTK data built offline).

PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8080
NLTK_BUILD ?= build
PYENV_ROOT ?= $(HOME)/.pyenv
# Real interpreters first: a pyenv shim on PATH may exist without that version being selected.
PY312 ?= $(firstword $(wildcard $(PYENV_ROOT)/versions/3.12*/bin/python3.12) $(shell command -v python3.12))
PY313 ?= $(firstword $(wildcard $(PYENV_ROOT)/versions/3.13*/bin/python3.13) $(shell command -v python3.13))
PYTEST_ARGS ?=

export NLTK_DATA := $(CURDIR)/$(NLTK_BUILD)/nltk_data

.PHONY: venv nltk-data serve test test-fast test-versions bench lambda-local eval eval-fast clean lint

$(BIN)/.installed: pyproject.toml setup.py perturber/_native.c
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@

venv: $(BIN)/.installed

nltk-data: venv
	PATH="$(CURDIR)/$(BIN):$$PATH" bash infra/layers/nltk/build.sh $(NLTK_BUILD) --with-tagger

serve: venv nltk-data
	$(BIN)/perturber serve --host $(HOST) --port $(PORT)

# The suite starts a few hundred Python processes (the CLI, the doc blocks, a plain clone): with
# PYTHONDONTWRITEBYTECODE set (some machines set it), each would compile every module it imports
# again, so the test targets clear it and the compiled modules are kept in __pycache__.
test: venv nltk-data lint
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n 2 $(PYTEST_ARGS)
	$(MAKE) --no-print-directory test-versions

test-fast: venv
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n 2 -m "not slow and not browser" $(PYTEST_ARGS)

# The golden files must hold unchanged on Python 3.11, 3.12 and 3.13 (docs/spec/catalog.md §1.4).
test-versions:
	@[ -n "$(PY312)" ] && [ -n "$(PY313)" ] || { echo "test-versions needs python3.12 and python3.13 (pyenv or PATH)"; exit 1; }
	@for py in $(PY312) $(PY313); do \
	  v=$$($$py -c 'import sys; print("%d.%d" % sys.version_info[:2])'); \
	  [ -x $(VENV)-$$v/bin/.installed ] || { $$py -m venv $(VENV)-$$v && \
	    $(VENV)-$$v/bin/python -m pip install -q --upgrade pip && \
	    $(VENV)-$$v/bin/python -m pip install -q -e '.[nltk]' pytest && touch $(VENV)-$$v/bin/.installed; } || exit 1; \
	  echo "golden files on Python $$v"; \
	  $(VENV)-$$v/bin/python -m pytest -p no:randomly tests/test_golden.py -q || exit 1; \
	done

# Side by side with the reference implementation when ../shared/bench and a reference interpreter
# exist (REF_PYTHON; make one outside the repo: python3.11 -m venv ../ref-venv &&
# ../ref-venv/bin/pip install ../shared/anchors/ibm_perturber), else our figures alone; then memory,
# and docs/performance.md from the figures (tool bench-side); then HTTP throughput (bench-service).
# Every tool of eval/ runs as `python eval/run_all.py run TOOL ...` (`run --help` lists them).
REF_PYTHON ?= $(CURDIR)/../ref-venv/bin/python
bench: venv nltk-data
	$(BIN)/python eval/run_all.py run bench-side --ref $(REF_PYTHON)
	$(BIN)/python eval/run_all.py run bench-service

lambda-local: venv nltk-data
	$(BIN)/python -m functions.api.local --host $(HOST) --port $(PORT)

eval: venv nltk-data
	$(BIN)/python -m pip install -q -e '.[eval]'
	[ -x $(VENV)-peers/bin/python ] || { $(PYTHON) -m venv $(VENV)-peers && \
	  $(VENV)-peers/bin/python -m pip install -q -e '.[peers,nltk]'; }
	$(BIN)/python eval/run_all.py

clean:
	rm -rf $(VENV) $(VENV)-3.* build .aws-sam .serverless eval/out perturber/_native*.so

# Lint, formatting and types (part of `make test`).
lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# Lambda INIT under awslambdaric against a local Runtime API (eval/benchmarks/lambda_runtime.py)
.PHONY: lambda-init
lambda-init: venv nltk-data
	$(BIN)/python eval/run_all.py run lambda-init --runs 9
.PHONY: bench-llm
# The model-backed tier under batches (local OpenAI-compatible server adding 200 ms per completion).
bench-llm: venv nltk-data
	$(BIN)/python eval/run_all.py run bench-llm --delay 0.2 --sizes 1,50,1000

# The perturbation reference, the distributions, the Lambda lock.
.PHONY: docs dist lock
docs: venv nltk-data
	$(BIN)/perturber docs --out docs/perturbations.md
	$(BIN)/python -m perturber.settings docs/configuration.md

# dist/: the sdist, the pure wheel and the manylinux x86_64 + aarch64 wheels (infra/native.py)
dist: venv
	rm -rf dist
	$(BIN)/python -m infra.native wheels --outdir dist
	$(BIN)/python -m twine check --strict dist/*

lock: venv
	UV=$(CURDIR)/$(BIN)/uv bash infra/lock.sh

# The CI subset of `make eval`: catalog, determinism, transport identity, reduced fidelity (no
# embedding model). STRICT_JSON=1 also fails on a JSON region broken by a non-exempt entry.
eval-fast: venv nltk-data
	$(BIN)/python eval/run_all.py --fast $(if $(STRICT_JSON),--strict-json)
