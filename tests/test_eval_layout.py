"""eval/'s layout: packages imported as packages, never by path, and nothing taken from tests/.

Every tool runs as ``python eval/run_all.py run TOOL`` (``python -m MODULE`` with ``eval/`` on
``PYTHONPATH``), so no file of eval/ edits ``sys.path``, in its own code or in code it hands to a
subprocess, and none imports the test suite (``tests``, ``conftest``, ``llm_server``).
"""

import ast
import pathlib
import re

import pytest

from evalkit import tools

ROOT = pathlib.Path(__file__).resolve().parent.parent
EVAL = ROOT / "eval"
SOURCES = sorted(EVAL.rglob("*.py"))
#: Kept where they are until they move into eval/benchmarks/; bench.py times another tree's
#: library through PERTURBER_BENCH_TREE by editing sys.path.
NOT_YET_MOVED = {"eval/bench.py"}
PATH_EDIT = re.compile(r"sys\.path\s*(\.\s*(insert|append|extend)\b|\[[^]]*\]\s*=|\+?=)")
TEST_MODULES = {"tests", "conftest", "llm_server", "helpers", "model_tier_helpers", "harness"}


def _name(path: pathlib.Path) -> str:
    return str(path.relative_to(ROOT))


def imported_modules(path: pathlib.Path) -> set[str]:
    """The top-level names of every module ``path`` imports, lazy imports included."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_the_checks_see_what_they_look_for():
    assert PATH_EDIT.search('sys.path.insert(0, "eval")') and PATH_EDIT.search("sys.path[:0] = ['x']")
    assert PATH_EDIT.search("sys.path.append(x)") and PATH_EDIT.search("sys.path += [x]")
    assert not PATH_EDIT.search("print(sys.path)")
    assert len(SOURCES) > 20


@pytest.mark.parametrize("path", SOURCES, ids=_name)
def test_no_file_edits_sys_path(path):
    if _name(path) in NOT_YET_MOVED:
        pytest.skip("kept by path until it moves into eval/benchmarks/")
    edits = [line for line in path.read_text(encoding="utf-8").splitlines() if PATH_EDIT.search(line)]
    assert edits == [], "run through eval/run_all.py (PYTHONPATH), import as a package"


@pytest.mark.parametrize("path", SOURCES, ids=_name)
def test_no_file_imports_the_test_suite(path):
    assert imported_modules(path) & TEST_MODULES == set()


def test_every_package_of_eval_is_a_package():
    folders = {p.parent for p in SOURCES if p.parent != EVAL}
    assert {f.name for f in folders} == {"benchmarks", "costmodel", "evalkit", "fidelity"}
    assert all((f / "__init__.py").is_file() for f in folders)


def test_every_tool_names_a_module_or_script_that_exists():
    for name, tool in tools.TOOLS.items():
        if tool.target.endswith(".py"):
            assert (ROOT / tool.target).is_file(), name
        else:
            assert (EVAL / (tool.target.replace(".", "/") + ".py")).is_file(), name
