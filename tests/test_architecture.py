"""The layering of docs/spec/design.md, read from the imports (module-level and lazy ones alike):
no import cycles, library code never imports the command line or the service, and the registry
imports nothing of the package but its errors."""

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "perturber"


def _modules() -> dict[str, pathlib.Path]:
    """Every module of the package by name; a compiled module by its stub (``_native.pyi``)."""
    out = {}
    for path in [*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.pyi")]:
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _target(module: str, node: ast.ImportFrom) -> str:
    base = module.split(".")
    if MODULES[module].name != "__init__.py":
        base.pop()  # a module's relative imports start from its package
    if node.level:
        base = base[: len(base) - (node.level - 1)]
        return ".".join(base + ([node.module] if node.module else []))
    return node.module or ""


def _known(name: str) -> str | None:
    """The package module ``name`` lives in (``perturber.core.apply`` -> ``perturber.core``)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str) -> set[str]:
    """The package modules ``module`` imports anywhere in its body."""
    found = set()
    for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _target(module, node)
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        found |= {m for m in map(_known, names) if m and m != module and m.startswith("perturber")}
    return found


GRAPH = {m: imports_of(m) for m in MODULES}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_graph_is_read():
    assert "perturber.errors" in GRAPH["perturber.core"] and "perturber.robustness.suite" in MODULES
    assert cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]


def test_no_import_cycles():
    assert cycles(GRAPH) == []


def test_library_code_never_imports_the_command_line_or_the_service():
    above = ("perturber.cli", "perturber.service", "perturber.__main__")
    offenders = {
        m: sorted(t for t in targets if t.startswith(above))
        for m, targets in GRAPH.items()
        if not m.startswith(above)
    }
    assert {m: t for m, t in offenders.items() if t} == {}


def test_the_registry_imports_only_the_errors():
    assert GRAPH["perturber.registry"] == {"perturber.errors"}


# Strings that are an entry's name by coincidence: the run a comparison starts from, a detail key
# of a model error, a data table.
HOMONYMS = {"baseline", "deadline_passed", "abbreviations"}


def _code_strings(path: pathlib.Path) -> list[tuple[int, str]]:
    """The string constants of ``path`` that are not docstrings (examples there are allowed)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_no_entry_is_named_outside_its_declaration():
    from perturber import registry

    names = {spec.name for spec in registry.entries()} - HOMONYMS
    found = [
        f"{path.relative_to(ROOT)}:{line}: {value}"
        for module, path in MODULES.items()
        if not module.startswith(("perturber.perturbations", "perturber.brittlebench"))
        for line, value in _code_strings(path)
        if value in names
    ]
    assert found == [], "declare the fact on the entry (perturber.registry.perturbation) and read it there"
