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
    edits = [line for line in path.read_text(encoding="utf-8").splitlines() if PATH_EDIT.search(line)]
    assert edits == [], "run through eval/run_all.py (PYTHONPATH), import as a package"


@pytest.mark.parametrize("path", SOURCES, ids=_name)
def test_no_file_imports_the_test_suite(path):
    assert imported_modules(path) & TEST_MODULES == set()


def test_every_package_of_eval_is_a_package():
    folders = {p.parent for p in SOURCES if p.parent != EVAL}
    assert {f.name for f in folders} == {"benchmarks", "costmodel", "evalkit", "fidelity"}
    assert all((f / "__init__.py").is_file() for f in folders)


def test_every_tool_names_a_module_that_exists():
    for name, tool in tools.TOOLS.items():
        assert (EVAL / (tool.module.replace(".", "/") + ".py")).is_file(), name


def test_the_only_script_of_eval_is_run_all():
    assert sorted(p.name for p in EVAL.glob("*.py")) == ["run_all.py"], "a tool is a module of a package"
