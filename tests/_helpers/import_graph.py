"""The import graph of a package tree, read from the source (``ast``), for the layout tests.

Two readings of "``a`` depends on ``b``":

* **import time** (``every_import=False``): an edge ``a -> b`` for every import that runs when
  ``a`` is imported (module-level statements, including those under ``if``/``try``/``with``,
  but not ``if TYPE_CHECKING:`` and not imports inside functions), plus ``a -> p`` for each
  package ``p`` that such an import loads first (``import x.y.z`` runs ``x/__init__`` and
  ``x/y/__init__``) unless ``p`` contains ``a`` (a module's own packages are always loaded first);
* **every import** (``every_import=True``): the modules ``a`` names in any import (inside
  functions and methods, under ``TYPE_CHECKING``; ``from pkg import sub`` names the module
  ``pkg.sub``, not the package it is loaded through) and in any ``import_module("pkg.mod")`` call
  whose first argument is a string literal, or an f-string whose text starts with a module
  path (``f"pkg.demo.{name}"`` names ``pkg.demo``): a module that needs another only inside a
  function still depends on it, and a string does not hide the dependency either.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

__all__ = ["Edge", "cycles", "edges", "import_graph", "modules", "write_tree"]

#: (importer, imported, line of the import in the importer)
Edge = tuple[str, str, int]


def modules(src: Path) -> dict[str, tuple[Path, bool]]:
    """module name -> (file, is a package) for every ``.py`` file under ``src``."""
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


def _named(node: ast.Import | ast.ImportFrom, name: str, is_package: bool, known: dict[str, Any]) -> list[str]:
    """The modules an import names: ``from pkg import sub`` names ``pkg.sub`` when that is a
    module (the package is only loaded on the way), ``pkg`` when it imports a name of ``pkg``."""
    targets = _targets(node, name, is_package)
    if isinstance(node, ast.Import):
        return targets
    module, *members = targets
    named = [m for m in members if m in known]
    return named if len(named) == len(members) else [module, *named]


def _literal_module(arg: ast.expr) -> str | None:
    """The module a string argument names: a literal, or an f-string's leading text up to its
    last dot (the package its formatted tail lies in)."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.JoinedStr) and arg.values:
        head = arg.values[0]
        if isinstance(head, ast.Constant) and isinstance(head.value, str) and "." in head.value:
            return head.value.rpartition(".")[0]
    return None


def _import_module_literals(tree: ast.Module) -> list[tuple[str, int]]:
    """(module, line) of every ``import_module(<string>)`` / ``importlib.import_module(<string>)`` call."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if called == "import_module":
            module = _literal_module(node.args[0])
            if module:
                found.append((module, node.lineno))
    return found


def edges(src: Path, *, every_import: bool = False) -> list[Edge]:
    """Every dependency edge between modules of the tree, with the line that makes it (see the
    module docstring for the two readings)."""
    known = modules(src)
    out: list[Edge] = []
    for name, (path, is_package) in known.items():
        tree = ast.parse(path.read_text(), str(path))
        if every_import:
            imports = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
        else:
            imports = _import_time_imports(tree.body)
        for node in imports:
            if every_import:  # the modules named, not the packages loaded on the way
                named = _named(node, name, is_package, known)
                out += [(name, t, node.lineno) for t in named if t in known and t != name]
                continue
            for target in _targets(node, name, is_package):
                if target not in known:
                    continue
                parts = target.split(".")
                for i in range(1, len(parts) + 1):
                    loaded = ".".join(parts[:i])
                    if loaded in known and loaded != name and not name.startswith(loaded + "."):
                        out.append((name, loaded, node.lineno))
        if every_import:
            for target, line in _import_module_literals(tree):
                if target in known and target != name:
                    out.append((name, target, line))
    return out


def import_graph(src: Path, *, every_import: bool = False) -> dict[str, set[str]]:
    """module -> the modules of the package tree under ``src`` it depends on (see :func:`edges`)."""
    graph: dict[str, set[str]] = {name: set() for name in modules(src)}
    for a, b, _ in edges(src, every_import=every_import):
        graph[a].add(b)
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


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Write a toy package tree under ``root`` (relative path -> text); returns ``root``."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root
