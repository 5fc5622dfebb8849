"""Lazy package exports come from one place per package (:mod:`transcreval.utils.lazy`).

Every package that loads names on first use writes each public name once, as an explicit
re-export (``from m import X as X``) under ``if TYPE_CHECKING:``; :func:`transcreval.utils.lazy.lazy_exports`
reads that block and builds ``__all__``, ``__getattr__`` and ``__dir__`` from it.
"""

from __future__ import annotations

import ast
import importlib
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from transcreval.core.registry import list_metrics
from transcreval.utils.lazy import type_checking_exports

SRC = Path(__file__).resolve().parents[2] / "src"
PKG = SRC / "transcreval"


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _lazy_packages() -> list[str]:
    built = re.compile(r"^__all__, __getattr__, __dir__ = lazy_exports\(globals\(\)", re.MULTILINE)
    return sorted(_module_name(p) for p in PKG.rglob("*.py") if built.search(p.read_text()))


LAZY = _lazy_packages()


def _exports(package: str) -> dict[str, str]:
    """name -> module, as the package declares them (its TYPE_CHECKING block)."""
    path = Path(importlib.import_module(package).__file__)
    return type_checking_exports(path.read_text(), where=str(path))


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
def test_every_exported_name_resolves_from_its_module(package):
    mod = importlib.import_module(package)
    assert mod.__all__ == sorted(mod.__all__)
    assert set(mod.__all__) - {"__version__"} == set(_exports(package))
    for name, module in _exports(package).items():
        assert getattr(mod, name) is getattr(importlib.import_module(module), name), name
    with pytest.raises(AttributeError, match=f"module '{package}' has no attribute 'no_such_name'"):
        mod.no_such_name
    assert set(mod.__all__) <= set(dir(mod))


@pytest.mark.parametrize("path", sorted(PKG.rglob("__init__.py")), ids=lambda p: str(p.relative_to(SRC)))
def test_no_package_writes_its_own_lazy_getattr(path):
    defs = [n.name for n in ast.parse(path.read_text()).body if isinstance(n, ast.FunctionDef)]
    assert not {"__getattr__", "__dir__"} & set(defs), f"{path}: use transcreval.utils.lazy.lazy_exports"


def test_top_level_exports_follow_the_registry():
    import transcreval

    top, functional = _exports("transcreval"), _exports("transcreval.functional")
    for m in list_metrics():
        assert top[m.name] == m.module
        assert functional[m.functional] == m.functional_module
    assert "__version__" in transcreval.__all__
    assert {"significance", "report", "integrations", "stats", "utils", "core"} <= set(dir(transcreval))


DEMO = """
from typing import TYPE_CHECKING

from transcreval.utils.lazy import lazy_exports

VERSION = "1"

if TYPE_CHECKING:
    from collections import OrderedDict as OrderedDict
    from json import dumps as dumps

__all__, __getattr__, __dir__ = lazy_exports(globals(), submodules=["sub"], also=["VERSION"])
"""


@pytest.fixture
def demo_pkg(tmp_path, monkeypatch):
    (tmp_path / "demo_pkg").mkdir()
    (tmp_path / "demo_pkg" / "__init__.py").write_text(DEMO)
    (tmp_path / "demo_pkg" / "sub.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [m for m in sys.modules if m == "demo_pkg" or m.startswith("demo_pkg.")]:
        del sys.modules[name]


def test_a_name_loads_once_and_is_kept(demo_pkg):
    import json

    import demo_pkg as pkg

    assert pkg.__all__ == ["OrderedDict", "VERSION", "dumps"]
    assert "dumps" not in vars(pkg)  # the TYPE_CHECKING block does not run
    assert pkg.dumps is json.dumps
    assert vars(pkg)["dumps"] is json.dumps  # stored: the module's __getattr__ is not asked again
    assert dir(pkg) == ["OrderedDict", "VERSION", "dumps", "sub"]
    assert pkg.sub.X == 1
    with pytest.raises(AttributeError, match="module 'demo_pkg' has no attribute 'loads'"):
        pkg.loads


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("from json import dumps", "write the export as `dumps as dumps`"),
        ("from json import dumps as to_text", "write the export as `dumps as dumps`"),
        ("import json", "found 'import json'"),
        ("from .sub import X as X", "found 'from .sub import X as X'"),
        ("from json import dumps as dumps\n    from pickle import dumps as dumps", "dumps is exported twice"),
    ],
)
def test_a_block_that_is_not_a_list_of_re_exports_is_refused(line, message):
    source = f"if TYPE_CHECKING:\n    {line}\n"
    with pytest.raises(ImportError, match=f"pkg/__init__.py, line [23]: .*{re.escape(message)}"):
        type_checking_exports(source, where="pkg/__init__.py")


def test_type_checking_exports_reads_only_the_block():
    source = textwrap.dedent(
        """
        from os import path as path
        if TYPE_CHECKING:
            from m.one import (
                A as A,
                a as a,
            )
            from m.two import b as b
        """
    )
    assert type_checking_exports(source) == {"A": "m.one", "a": "m.one", "b": "m.two"}


@pytest.mark.slow
def test_a_type_checker_sees_each_lazy_export_with_its_type(demo_pkg):
    """mypy --strict reads the block: the names are exported (no "does not explicitly export") and typed (not Any)."""
    (demo_pkg / "consumer.py").write_text(
        "import demo_pkg\n"
        "from demo_pkg import OrderedDict, dumps\n"
        "text: str = dumps({})\n"
        "table: OrderedDict[str, int] = OrderedDict()\n"
        "wrong: int = demo_pkg.dumps({})\n"
    )
    cache = str(demo_pkg / ".mypy_cache")
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--cache-dir", cache, "consumer.py"],
        cwd=demo_pkg,
        env={**os.environ, "MYPYPATH": f"{demo_pkg}{os.pathsep}{SRC}"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    errors = [line for line in out.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1, out.stdout + out.stderr
    assert 'consumer.py:5: error: Incompatible types in assignment (expression has type "str"' in errors[0]


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
    for name, module in _exports(package).items():
        assert getattr(mod, name) is getattr(importlib.import_module(module), name), (
            f"{package}.{name} is shadowed by the submodule {package}.{name}: rename the module"
        )
