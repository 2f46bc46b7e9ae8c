"""The README's Python examples run as doctests, so the documentation stays true."""

import doctest
import pathlib
import re

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_examples():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    examples = "\n".join(b for b in blocks if ">>>" in b)
    assert examples, "the README has no runnable examples"
    test = doctest.DocTestParser().get_doctest(examples, {}, "README", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 5
