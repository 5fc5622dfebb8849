"""Lazy package exports come from one table per package (:mod:`transcreval.lazy`).

Every package that loads names on first use builds ``__all__``, ``__getattr__`` and ``__dir__``
with :func:`transcreval.lazy.lazy_exports` from its ``_EXPORTS`` table; its ``if TYPE_CHECKING:``
imports (for type checkers) name exactly the table's names and modules.
"""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from transcreval.lazy import lazy_exports, type_checking_block
from transcreval.registry import list_metrics

SRC = Path(__file__).resolve().parents[2] / "src"
PKG = SRC / "transcreval"


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _lazy_packages() -> list[str]:
    built = re.compile(r"^__all__, __getattr__, __dir__ = lazy_exports\(globals\(\)", re.MULTILINE)
    return sorted(_module_name(p) for p in PKG.rglob("*.py") if built.search(p.read_text()))


LAZY = _lazy_packages()


def _type_checking_imports(source: str) -> dict[str, str]:
    """name -> module of the ``if TYPE_CHECKING:`` imports; every one in the ``X as X`` form."""
    found: dict[str, str] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module, ast.unparse(imp)
                for alias in imp.names:
                    assert alias.asname == alias.name, f"not an explicit re-export: {ast.unparse(imp)}"
                    assert alias.name not in found, f"{alias.name} imported twice"
                    found[alias.name] = imp.module
    return found


def test_the_lazy_packages_are_found():
    assert {
        "transcreval",
        "transcreval.functional",
        "transcreval.judge",
        "transcreval.ocr",
        "transcreval.report",
        "transcreval.runs",
        "transcreval.stats",
    } <= set(LAZY)


@pytest.mark.parametrize("package", LAZY)
def test_type_checking_block_equals_the_table(package):
    mod = importlib.import_module(package)
    path = Path(mod.__file__)
    declared = _type_checking_imports(path.read_text())
    assert declared == mod._EXPORTS, (
        f"{path}: the TYPE_CHECKING imports differ from _EXPORTS; paste this block (then `ruff check --fix`):\n"
        + type_checking_block(mod._EXPORTS)
    )


@pytest.mark.parametrize("package", LAZY)
def test_every_exported_name_resolves_from_its_module(package):
    mod = importlib.import_module(package)
    assert mod.__all__ == sorted(mod.__all__)
    assert set(mod._EXPORTS) <= set(mod.__all__)
    for name, module in mod._EXPORTS.items():
        assert getattr(mod, name) is getattr(importlib.import_module(module), name), name
    with pytest.raises(AttributeError, match=f"module '{package}' has no attribute 'no_such_name'"):
        mod.no_such_name
    assert set(mod.__all__) <= set(dir(mod))


@pytest.mark.parametrize("path", sorted(PKG.rglob("__init__.py")), ids=lambda p: str(p.relative_to(SRC)))
def test_no_package_writes_its_own_lazy_getattr(path):
    defs = [n.name for n in ast.parse(path.read_text()).body if isinstance(n, ast.FunctionDef)]
    assert not {"__getattr__", "__dir__"} & set(defs), f"{path}: use transcreval.lazy.lazy_exports"


def test_top_level_exports_follow_the_registry():
    import transcreval
    import transcreval.functional as F

    for m in list_metrics():
        assert transcreval._EXPORTS[m.name] == m.module
        assert F._EXPORTS[m.functional] == m.functional_module
    assert "__version__" in transcreval.__all__
    assert {"significance", "report", "integrations", "stats", "lazy"} <= set(dir(transcreval))


def test_a_name_loads_once_and_is_kept():
    namespace = {"__name__": "demo_pkg"}
    public, getattr_, dir_ = lazy_exports(
        namespace, {"dumps": "json", "OrderedDict": "collections"}, submodules=["sub"], also=["VERSION"]
    )
    assert public == ["OrderedDict", "VERSION", "dumps"]
    import json

    assert getattr_("dumps") is json.dumps
    assert namespace["dumps"] is json.dumps  # stored: the module's __getattr__ is not asked again
    assert dir_() == ["OrderedDict", "VERSION", "dumps", "sub"]
    with pytest.raises(AttributeError, match="module 'demo_pkg' has no attribute 'loads'"):
        getattr_("loads")


def test_type_checking_block_round_trips():
    table = {"b": "m.two", "A": "m.one", "a": "m.one"}
    block = type_checking_block(table)
    assert _type_checking_imports("from typing import TYPE_CHECKING\n" + block) == table


def test_importing_a_lazy_package_loads_none_of_its_names():
    code = (
        "import sys, transcreval, transcreval.functional, transcreval.judge, transcreval.ocr, transcreval.report, "
        "transcreval.runs, transcreval.stats\n"
        "print(sorted(m for m in sys.modules if m.startswith(('transcreval.judge.', 'transcreval.ocr.', "
        "'transcreval.report.', 'transcreval.runs.', 'transcreval.significance', 'transcreval.functional.'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300)
    assert out.stdout.strip() == "[]", out.stdout


@pytest.mark.parametrize("package", LAZY)
def test_no_submodule_shadows_an_exported_name(package):
    """Importing ``package.x`` binds ``package.x`` to the submodule: an exported function of the
    same name would then depend on import order (``transcreval.runs.validate`` was the module
    after ``import transcreval.runs.validate``, the function before)."""
    import pkgutil

    mod = importlib.import_module(package)
    for sub in pkgutil.iter_modules(mod.__path__):
        if not sub.name.startswith("__"):  # __main__ runs the CLI
            importlib.import_module(f"{package}.{sub.name}")
    for name, module in mod._EXPORTS.items():
        assert getattr(mod, name) is getattr(importlib.import_module(module), name), (
            f"{package}.{name} is shadowed by the submodule {package}.{name}: rename the module"
        )
