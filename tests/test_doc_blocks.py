"""Every code block of the README and of docs/ runs, so the documentation stays true.

* ``python`` blocks with ``>>>`` run as doctests; other ``python`` blocks run as scripts.
* ``bash`` blocks run under ``bash -euo pipefail`` in a scratch folder that links the repository's
  ``examples``, ``infra``, ``eval`` and ``functions``, with a live ``perturber serve`` standing in
  for ``localhost:8080`` and a local OpenAI-compatible server for the model tier. Commands that
  install, build, deploy or benchmark are checked instead of run: a ``make`` target must exist in
  the Makefile, a ``pip install`` extra in pyproject.toml, a script in the repository, and every
  ``--flag`` of an ``eval/`` command in the ``--help`` of its sub-commands (``python eval/run_all.py
  run TOOL ...``: the tool's own; ``examples/`` scripts run); ``sam``, ``npx``, ``aws`` and
  ``git`` (deployment and checkout tools) must be given a known sub-command.
* ``text`` blocks (signatures, trees, sample output) are not code.
* A README block that a page of docs/ repeats verbatim runs with that page.

The generated reference (docs/perturbations.md) and the specification (docs/spec/) are checked by
their own tests.
"""

import doctest
import json
import os
import pathlib
import re
import socket
import subprocess
import sys
import time

import pytest

from evalkit.chat_server import Reply

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md"] + sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "perturbations.md")
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
LANGUAGES = {"python", "bash", "text"}
BIN = pathlib.Path(sys.executable).parent

# Shell functions that check the commands a user runs to install, build, deploy or benchmark.
CHECKS = r"""
fail() { echo "doc-block check failed: $*" >&2; exit 97; }
make() { for t in "$@"; do case "$t" in *=*) ;; *) grep -qE "^$t:" "$REPO/Makefile" || fail "no make target $t";; esac; done; }
pip() {
  [ "$1" = install ] || fail "pip $1"; shift
  for spec in "$@"; do case "$spec" in -*) ;; *)
    extras=$(printf '%s' "$spec" | sed -n 's/.*\[\(.*\)\].*/\1/p' | tr ',' ' ')
    for e in $extras; do grep -qE "^$e = \[" "$REPO/pyproject.toml" || fail "no extra $e"; done;;
  esac; done
}
sam() { case "$1" in build|deploy|validate|local|package) ;; *) fail "sam $1";; esac; }
npx() { case "$*" in "osls "*|"serverless "*) ;; *) fail "npx $*";; esac; }
npm() { case "$1" in ci|install) ;; *) fail "npm $1";; esac; }
aws() { :; }
git() { case "$1" in clone|worktree) ;; *) fail "git $1";; esac; }
bash() { [ -f "$REPO/$1" ] || fail "no script $1"; }
python() {
  case "$1" in
    eval/*)
      [ -f "$REPO/$1" ] || fail "no script $1"
      local script=$1; shift
      local sub=(); while [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; do sub+=("$1"); shift; done  # run TOOL ...
      help=$(command python "$REPO/$script" "${sub[@]}" --help 2>&1) || fail "$script ${sub[*]} --help"
      for a in "$@"; do
        [ "$a" = "--" ] && break  # what follows is the command the script runs
        case "$a" in --*) f=${a%%=*}; [[ "$help" == *"$f"* ]] || fail "$script ${sub[*]} has no $f; its --help: ${help:0:400}";; esac
      done;;
    examples/scripted_endpoint.py)  # any free port: a parallel test may hold the one shown
      local args=(); while [ $# -gt 0 ] && [ "$1" != "--" ]; do
        if [ "$1" = --port ]; then args+=(--port 0); shift; else args+=("$1"); fi; shift
      done
      command python "${args[@]}" "$@";;
    *) command python "$@";;
  esac
}
curl() { local args=(); for a in "$@"; do args+=("${a//localhost:8080/127.0.0.1:$PORT}"); done; command curl -sS --max-time 30 "${args[@]}"; }
"""


def blocks(page: pathlib.Path) -> list[tuple[int, str, str]]:
    """``(line, language, body)`` of every fenced block of ``page``, in order."""
    text = page.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2)) for m in BLOCK.finditer(text)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    """A live ``perturber serve`` (the port stands in for the docs' 8080)."""
    port = _free_port()
    proc = subprocess.Popen(
        [str(BIN / "perturber"), "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    yield port
    proc.terminate()
    proc.wait(10)


@pytest.fixture
def scratch(tmp_path, llm_server, service):
    """A folder to run a block in, and the environment it runs with."""
    for name in ("examples", "infra", "eval", "functions"):
        (tmp_path / name).symlink_to(ROOT / name)
    # a plausible rewrite: the text upper-cased (it keeps its words, numbers and question)
    llm_server.script(default=lambda body: Reply(content=body["messages"][-1]["content"].upper()))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERTURBER_")}
    env |= {
        "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        "PYTHONPATH": str(ROOT),
        "REPO": str(ROOT),
        "PORT": str(service),
        "XDG_CACHE_HOME": str(tmp_path / "user-cache"),  # the harness's reply cache goes there
        "PERTURBER_LLM_BASE_URL": llm_server.base_url,
        "PERTURBER_LLM_DEFAULT_MODEL": "doc-model",
        "PERTURBER_LLM_API_KEY": "sk-doc-test",
        "API_URL": f"http://127.0.0.1:{service}",
        "TOKEN": "doc-token",
        "MY_KEY": "sk-doc-caller",
        "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE",
        "AWS_SECRET_ACCESS_KEY": "doc-secret",
        "AWS_SESSION_TOKEN": "doc-session",
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    return tmp_path, env


def test_every_block_has_a_known_language():
    found = [
        (f"{page.relative_to(ROOT)}:{line}", lang)
        for page in PAGES
        for line, lang, _ in blocks(page)
        if lang not in LANGUAGES
    ]
    assert found == [], "label each block python, bash or text"


def test_the_checks_catch_a_wrong_command(scratch):
    where, env = scratch
    for wrong in (
        "make no-such-target",
        "pip install 'perturber[nope]'",
        "python eval/run_all.py run bench --no-such-flag",
        "python eval/run_all.py run cost --local --no-such-flag",
        "python eval/run_all.py run no-such-tool",
    ):
        done = subprocess.run(
            ["bash", "-c", CHECKS + wrong], cwd=where, env=env, capture_output=True, text=True
        )
        assert done.returncode == 97, (wrong, done.stderr)


def run_block(page: pathlib.Path, language: str, body: str, where: pathlib.Path, env: dict) -> str | None:
    """Run one block in ``where``; None when it passes, else what went wrong."""
    if language == "text":
        return None
    if language == "python" and ">>>" in body:
        cwd = os.getcwd()
        os.chdir(where)
        try:
            test = doctest.DocTestParser().get_doctest(body, {}, page.name, str(page), 0)
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
            runner.run(test)
        finally:
            os.chdir(cwd)
        return None if runner.failures == 0 and runner.tries > 0 else "doctest failed (output above)"
    if language == "python":
        cmd = [sys.executable, "-c", body]
    else:
        cmd = ["bash", "-c", "set -euo pipefail\n" + CHECKS + body]
    done = subprocess.run(cmd, cwd=where, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode == 0:
        return None
    return f"exit {done.returncode}\n{done.stdout[-1500:]}\n{done.stderr[-2500:]}"


# Pages that show the harness without a model endpoint (the walkthrough's suite reports the
# model-backed entries as unavailable): their blocks run without the PERTURBER_LLM_* settings.
WITHOUT_MODEL = {"robustness.md"}
# What such a page says its walkthrough's suite printed.
SUITE_LINE = re.compile(r"`(\d+) examples -> (\d+) cases \((\d+) rejected\) in (\S+)`")


def repeated_from_docs() -> set[tuple[str, str]]:
    """The README's blocks that a page of docs/ repeats verbatim: they run with that page (the
    README is the front door to those pages)."""
    in_docs = {(language, body) for page in PAGES[1:] for _, language, body in blocks(page)}
    return {(language, body) for _, language, body in blocks(PAGES[0])} & in_docs


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_block_of_the_page_runs(page, scratch):
    """The blocks of one page run in order in one folder (a later block uses an earlier's files)."""
    where, env = scratch
    if page.name in WITHOUT_MODEL:
        env = {k: v for k, v in env.items() if not k.startswith("PERTURBER_LLM_")}
    failures = []
    elsewhere = repeated_from_docs() if page == PAGES[0] else set()
    for line, language, body in blocks(page):
        if (language, body) in elsewhere:
            continue
        problem = run_block(page, language, body, where, env)
        if problem:
            failures.append(f"{page.relative_to(ROOT)}:{line}: {problem}")
    assert failures == [], "\n\n".join(failures)
    for examples, passed, rejected, path in SUITE_LINE.findall(page.read_text(encoding="utf-8")):
        summary = json.loads((where / path).with_suffix(".summary.json").read_text(encoding="utf-8"))
        assert (summary["examples"], summary["passed"], summary["cases"] - summary["passed"]) == (
            int(examples),
            int(passed),
            int(rejected),
        ), f"{page.name} states {examples} examples -> {passed} cases ({rejected} rejected)"


def test_every_relative_link_resolves():
    """Links between the README, docs/ and the repository's files point at files that exist
    (``eval/out/`` is generated by ``python eval/run_all.py``; the spec's examples are not links)."""
    broken = []
    for page in PAGES:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            path = target.split("#")[0]
            if not path or path.startswith(("http://", "https://", "mailto:")) or "eval/out/" in path:
                continue
            if not (page.parent / path).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []
