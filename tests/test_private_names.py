"""A private name (``_x``) stays in its module: no module of the package imports one from another
(``from .lines import _fences``) or reaches one through a module it imported
(``tm.tokens._WORD_RE``). A helper two modules share has a public name in the module that owns it."""

import ast
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "perturber"


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _module_aliases(tree: ast.Module) -> set[str]:
    """The names a module binds to modules of the package (``from .. import text as tm``,
    ``import perturber.rng as rng``); a ``from . import x`` of a non-module binds nothing
    here unless a package directory or file of that name exists next to it."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.asname or a.name.split(".")[0] for a in node.names if a.name.startswith("perturber")}
        elif isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("perturber")):
            out |= {a.asname or a.name for a in node.names if a.name in _MODULE_NAMES}
    return out


_MODULE_NAMES = {p.stem for p in PACKAGE.rglob("*.py")} | {p.name for p in PACKAGE.rglob("*") if p.is_dir()}


def private_crossings(source: str) -> list[str]:
    """Each private name that ``source`` takes from another module of the package.

    >>> private_crossings("from .lines import _fences, line_bounds")
    ['import _fences']
    >>> private_crossings("from .. import text as tm\\nx = tm.tokens._WORD_RE")
    ['tm.tokens._WORD_RE']
    """
    tree = ast.parse(source)
    found = []
    aliases = _module_aliases(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("perturber")):
            found += [f"import {a.name}" for a in node.names if _private(a.name)]
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            chain = [node.attr]
            value = node.value
            while isinstance(value, ast.Attribute):
                chain.append(value.attr)
                value = value.value
            if isinstance(value, ast.Name) and value.id in aliases:
                found.append(".".join([value.id, *reversed(chain)]))
    return found


def test_the_check_finds_both_kinds():
    assert private_crossings("from ..text.lines import _fences") == ["import _fences"]
    assert private_crossings("import perturber.rng as r\nr._words(1, 2)") == ["r._words"]
    assert private_crossings("from .lines import fenced_blocks\nobj._x = 1") == []


def test_no_module_takes_a_private_name_from_another():
    crossings = {
        str(path.relative_to(PACKAGE.parent)): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if (found := private_crossings(path.read_text(encoding="utf-8")))
    }
    # the compiled module (perturber/_native.c) has one loader, which the rest of the package uses
    assert crossings.pop("perturber/native.py", None) == ["import _native"]
    assert crossings == {}
