"""House rule on the source tree: no import cycle in ``src/transcreval``.

The graph is read from the source by :mod:`tests._helpers.import_graph`, in two readings: what
importing a module runs (module-level imports and the packages they load first), and every
dependency (imports inside functions and under ``TYPE_CHECKING`` too, and
``import_module("transcreval...")`` string literals). There is no cap on a file's length: a file
holds one idea, and length is a smell to look at, not a number to hit.
"""

from __future__ import annotations

from pathlib import Path

from tests._helpers.import_graph import cycles, import_graph, write_tree

SRC = Path(__file__).resolve().parents[2] / "src"


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


def test_a_cycle_is_found_and_named(tmp_path):
    src = write_tree(
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
    src = write_tree(
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
    assert every["pkg.a"] == {"pkg.b", "pkg.c"} and every["pkg.b"] == {"pkg.a"}
    assert cycles(every) == [["pkg.a", "pkg.b", "pkg.a"]]


def test_a_method_importing_its_subclass_module_is_a_deferred_cycle(tmp_path):
    # the shape of the circles this test was written for: a base class method that builds a
    # subclass defined in a module that imports the base
    src = write_tree(
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
    src = write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/sub/__init__.py": "from pkg.top import T\n",
            "pkg/sub/m.py": "X = 1\n",
            "pkg/top.py": "from pkg.sub.m import X\nT = X\n",
        },
    )
    assert cycles(import_graph(src)) == [["pkg.sub", "pkg.top", "pkg.sub"]]


def test_an_import_module_literal_is_a_deferred_cycle(tmp_path):
    # the shape of the circle through the weights manifest: a lookup that imports, by name, the
    # packages that register into it, which import the manifest
    src = write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/manifest.py": "import importlib\ndef get():\n    importlib.import_module('pkg.models')\n",
            "pkg/models.py": "from pkg.manifest import get\n",
        },
    )
    assert cycles(import_graph(src)) == []
    assert cycles(import_graph(src, every_import=True)) == [["pkg.manifest", "pkg.models", "pkg.manifest"]]


def test_importing_a_sibling_module_through_its_package_is_not_a_cycle(tmp_path):
    # `from pkg import b` names the module pkg.b: pkg/__init__ is only loaded on the way
    src = write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg.a import main\n",
            "pkg/a.py": "def main():\n    from pkg import b\n",
            "pkg/b.py": "X = 1\n",
        },
    )
    assert cycles(import_graph(src, every_import=True)) == []
