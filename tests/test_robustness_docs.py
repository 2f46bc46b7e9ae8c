"""docs/robustness.md: every code block runs. Python blocks run as doctests; the shell blocks run
in order, in a directory holding a copy of examples/, with the `perturber` of this interpreter."""

import doctest
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("text_to_num")

ROOT = pathlib.Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "robustness.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)


def test_the_python_blocks_run_as_doctests(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    examples = "\n".join(b for b in blocks("python") if ">>>" in b)
    test = doctest.DocTestParser().get_doctest(examples, {}, "robustness.md", str(GUIDE), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 8


@pytest.mark.slow
def test_the_shell_blocks_run_in_order(tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    bin_dir = pathlib.Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "user-cache")  # the reply cache goes there
    shell = [b for b in blocks("bash") if "eval/bench_robustness.py" not in b]  # the benchmarks take minutes
    assert len(shell) >= 4
    for block in shell:
        done = subprocess.run(
            ["bash", "-e", "-c", block], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, f"{block}\n{done.stderr[-2000:]}"
    assert "the gate failed (exit 1)" in done.stdout  # the planted regression of the last block
    assert (tmp_path / "report" / "report.md").exists() and (tmp_path / "compare" / "compare.md").exists()
