"""House rules on the source tree: no import cycle in ``src/transcreval``, no file over 400 lines.

The import graph is read from the source (``ast``): an edge ``a -> b`` for every import that runs
when ``a`` is imported (module-level statements, including those under ``if``/``try``, but not
``if TYPE_CHECKING:`` and not imports inside functions or classes' methods), plus ``a -> p`` for
each package ``p`` that such an import loads first (``import x.y.z`` runs ``x/__init__`` and
``x/y/__init__``) unless ``p`` contains ``a`` (a module's own packages are always loaded first).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
MAX_LINES = 400


def _modules(src: Path) -> dict[str, tuple[Path, bool]]:
    out = {}
    for path in sorted(src.rglob("*.py")):
        parts = path.relative_to(src).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_time_imports(body: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif isinstance(node, ast.If):
            found += _import_time_imports(node.orelse)
            if not _is_type_checking(node.test):
                found += _import_time_imports(node.body)
        elif isinstance(node, ast.Try):
            found += _import_time_imports(node.body + node.orelse + node.finalbody)
            for handler in node.handlers:
                found += _import_time_imports(handler.body)
        elif isinstance(node, ast.With):
            found += _import_time_imports(node.body)
    return found


def _targets(node: ast.Import | ast.ImportFrom, name: str, is_package: bool) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level:
        base = name.split(".") if is_package else name.split(".")[:-1]
        base = base[: len(base) - node.level + 1]
        module = ".".join([*base, node.module] if node.module else base)
    else:
        module = node.module or ""
    return [module, *(f"{module}.{a.name}" for a in node.names)]


def _every_import(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    return [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]


def import_graph(src: Path, *, every_import: bool = False) -> dict[str, set[str]]:
    """module -> the modules of the package tree under ``src`` that importing it runs; with
    ``every_import``, the modules it imports anywhere (inside functions, under ``TYPE_CHECKING``):
    a module that needs another only inside a function still depends on it."""
    modules = _modules(src)
    graph: dict[str, set[str]] = {}
    for name, (path, is_package) in modules.items():
        deps: set[str] = set()
        tree = ast.parse(path.read_text(), str(path))
        for node in _every_import(tree) if every_import else _import_time_imports(tree.body):
            for target in _targets(node, name, is_package):
                if target not in modules:
                    continue
                if every_import:  # the module named, not the packages loaded on the way
                    if target != name:
                        deps.add(target)
                    continue
                parts = target.split(".")
                for i in range(1, len(parts) + 1):
                    loaded = ".".join(parts[:i])
                    if loaded in modules and loaded != name and not name.startswith(loaded + "."):
                        deps.add(loaded)
        graph[name] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module, each as one cycle through it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan (the graph is a few hundred nodes: recursion is fine)
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(_one_cycle(graph, set(component)))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _one_cycle(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A shortest path from the component's first module back to itself (breadth first)."""
    start = min(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & component):
                if w == start:
                    return [*paths[v], start]
                if w not in paths:
                    paths[w] = [*paths[v], w]
                    nxt.append(w)
        frontier = nxt
    raise AssertionError("a strongly connected component without a cycle")


def test_no_import_cycle():
    found = cycles(import_graph(SRC))
    assert not found, "import cycles (move the shared piece to a lower module):\n" + "\n".join(
        " -> ".join(c) for c in found
    )


def test_no_import_cycle_through_deferred_imports():
    # an import inside a function or under TYPE_CHECKING only hides a circle from the import
    # machinery: the two modules still cannot be understood (or moved) one without the other
    found = cycles(import_graph(SRC, every_import=True))
    assert not found, "import cycles through deferred imports (move the shared piece to a lower module):\n" + (
        "\n".join(" -> ".join(c) for c in found)
    )


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_a_cycle_is_found_and_named(tmp_path):
    src = _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg.b import x\n",
            "pkg/b.py": "from . import c\nx = 1\n",
            "pkg/c.py": "import pkg.a\n",
            "pkg/d.py": "from pkg import a\n",
        },
    )
    assert cycles(import_graph(src)) == [["pkg.a", "pkg.b", "pkg.c", "pkg.a"]]


def test_deferred_and_type_checking_imports_do_not_count(tmp_path):
    src = _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "import typing\nfrom pkg import b\nif typing.TYPE_CHECKING:\n    from pkg.c import C\n",
            "pkg/b.py": "def f():\n    from pkg import a\n",
            "pkg/c.py": "from pkg.a import b\n",
        },
    )
    graph = import_graph(src)
    assert graph["pkg.a"] == {"pkg.b"} and graph["pkg.b"] == set() and graph["pkg.c"] == {"pkg.a"}
    assert cycles(graph) == []
    every = import_graph(src, every_import=True)
    assert every["pkg.a"] == {"pkg", "pkg.b", "pkg.c"} and every["pkg.b"] == {"pkg", "pkg.a"}
    assert cycles(every) == [["pkg.a", "pkg.b", "pkg.a"]]


def test_a_method_importing_its_subclass_module_is_a_deferred_cycle(tmp_path):
    # the shape of the circles this test was written for: a base class method that builds a
    # subclass defined in a module that imports the base
    src = _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/base.py": "class Base:\n    def other(self):\n        from pkg.sub import Sub\n        return Sub()\n",
            "pkg/sub.py": "from pkg.base import Base\nclass Sub(Base):\n    pass\n",
        },
    )
    assert cycles(import_graph(src)) == []
    assert cycles(import_graph(src, every_import=True)) == [["pkg.base", "pkg.sub", "pkg.base"]]


def test_a_package_init_that_imports_its_importer_is_a_cycle(tmp_path):
    # importing pkg.sub.m runs pkg/sub/__init__.py, which imports pkg.top, which imports pkg.sub.m
    src = _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/sub/__init__.py": "from pkg.top import T\n",
            "pkg/sub/m.py": "X = 1\n",
            "pkg/top.py": "from pkg.sub.m import X\nT = X\n",
        },
    )
    assert cycles(import_graph(src)) == [["pkg.sub", "pkg.top", "pkg.sub"]]


def _line_counts() -> dict[str, int]:
    return {str(p.relative_to(SRC)): len(p.read_text().splitlines()) for p in sorted(SRC.rglob("*.py"))}


@pytest.mark.parametrize("limit", [MAX_LINES])
def test_no_source_file_over_400_lines(limit):
    long = {p: n for p, n in _line_counts().items() if n > limit}
    assert not long, f"split these files (at most {limit} lines each): {long}"
