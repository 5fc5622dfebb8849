"""Layers that only point down: a module imports only from its own layer or the layers below it.

The order, top to bottom (``LAYERS``; a module belongs to the longest entry that names it or a
package above it), and why each layer sits where it does:

* ``cli`` (every ``transcreval`` command) and the lazy public facade ``transcreval/__init__``
  (its names point at every layer, loaded on first use): nothing imports them.
* ``demo``: ``transcreval demo`` *runs* ``transcreval evaluate`` on the embedded set, so it sits
  on top of the run layer.
* ``runs``: evaluate / compare / report over run directories. It composes everything below:
  protocols (through their runner adapters), the report, the significance tests, the tables
  of ``integrations``.
* ``protocols``: one package per paper: its inputs, scoring, tables and runner adapter. An
  adapter may name its figures with the report's plots, so the report sits below it.
* ``report`` and ``integrations``: read what protocols return (``protocols.records``) and draw,
  write or convert it; the report shows the significance tests' comparisons.
* ``significance``: paired tests over per-item records.
* ``protocols.records``: the three types every protocol returns (standard library only), which
  the run layer, the report and the significance tests build on.
* metric classes, one package per domain.
* ``functional``: the pure pieces and the functional twins of the classes.
* ``engines``, ``features``, ``weights``: judge clients, OCR backends, COMET; feature
  extractors; model files. They never import a metric class, a protocol or anything above.
* ``io``: the one image decoding rule.
* the ground: ``core`` (the Metric base, states, results, options, registry), ``utils``,
  ``errors``, the embedded ``data`` and the version.

"Imports" are read from the source by :mod:`tests._helpers.import_graph`: ``import``
statements anywhere (at module level, inside functions, under ``TYPE_CHECKING``) and
``import_module("transcreval...")`` string literals. A deferred import is still a dependency.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._helpers.import_graph import Edge, edges, modules, write_tree

SRC = Path(__file__).resolve().parents[2] / "src"
ROOT = "transcreval"

DOMAINS = ("image", "text", "multimodal", "layout", "choice", "judge", "ocr", "stats")
#: top to bottom; each layer a set of packages or modules (a package covers its submodules,
#: except the root ``transcreval``, which names only its ``__init__``)
LAYERS: list[set[str]] = [
    {ROOT, "transcreval.__main__", "transcreval.cli"},
    {"transcreval.demo"},
    {"transcreval.runs"},
    {"transcreval.protocols"},
    {"transcreval.report", "transcreval.integrations"},
    {"transcreval.significance"},
    {"transcreval.protocols.records"},
    {f"transcreval.{d}" for d in DOMAINS},
    {"transcreval.functional"},
    {"transcreval.engines", "transcreval.features", "transcreval.weights"},
    {"transcreval.io"},
    {"transcreval.core", "transcreval.utils", "transcreval.errors", "transcreval.data", "transcreval._version"},
]
#: upward imports kept on purpose: (importing package or module, imported one) -> why
ALLOWED_UP: dict[tuple[str, str], str] = {
    ("transcreval.stats", "transcreval.significance"): (
        "stats/__init__ re-exports the significance tests under their old public path, loaded "
        "lazily on first use (nothing is imported with the stats package)"
    ),
}


def layer_of(module: str, layers: list[set[str]] = LAYERS, root: str = ROOT) -> tuple[int, str] | None:
    """(index of the layer, the entry that places it) of ``module``: the longest entry that is
    the module or a package above it; None when no entry places it."""
    best: tuple[int, str] | None = None
    for i, layer in enumerate(layers):
        for entry in layer:
            covers = module == entry or (entry != root and module.startswith(entry + "."))
            if covers and (best is None or len(entry) > len(best[1])):
                best = (i, entry)
    return best


def upward(found: list[Edge], layers: list[set[str]], allowed: dict[tuple[str, str], str], root: str) -> list[str]:
    """Every edge from a layer to a higher one (a lower index) that ``allowed`` does not name."""
    out = []
    for a, b, line in sorted(set(found)):
        la, lb = layer_of(a, layers, root), layer_of(b, layers, root)
        if la is None or lb is None or lb[0] >= la[0] or (la[1], lb[1]) in allowed:
            continue
        out.append(f"{a} (line {line}) imports {b}: {la[1]} sits below {lb[1]}")
    return out


def test_every_module_has_a_layer():
    unplaced = [m for m in modules(SRC) if layer_of(m) is None]
    assert not unplaced, f"place these modules in a layer of LAYERS (tests/package/test_layers.py): {unplaced}"


def test_every_layer_entry_names_a_module():
    known = set(modules(SRC))
    stale = sorted(e for layer in LAYERS for e in layer if e not in known)
    assert not stale, f"LAYERS names modules that do not exist: {stale}"
    assert all(layer_of(a) is not None and layer_of(b) is not None for a, b in ALLOWED_UP)


def test_imports_only_point_down():
    found = upward(edges(SRC, every_import=True), LAYERS, ALLOWED_UP, ROOT)
    assert not found, (
        "imports from a lower layer up (move the shared piece down, or let the upper layer pass it in):\n"
        + "\n".join(found)
    )


# ----------------------------------------------------------------------------- the checker itself

_TOY_LAYERS = [{"pkg", "pkg.top"}, {"pkg.mid"}, {"pkg.low", "pkg.low.sub.base"}]


def _toy_upward(tmp_path: Path, files: dict[str, str]) -> list[str]:
    src = write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/mid/__init__.py": "", "pkg/low/__init__.py": "", **files})
    return upward(edges(src, every_import=True), _TOY_LAYERS, {}, "pkg")


def test_a_downward_import_passes(tmp_path):
    assert _toy_upward(tmp_path, {"pkg/top.py": "from pkg.mid import m\n", "pkg/mid/m.py": "import pkg.low\n"}) == []


@pytest.mark.parametrize(
    "text",
    [
        "from pkg.top import x\n",
        "import pkg.top\n",
        "def f():\n    from pkg.top import x\n",
        "import typing\nif typing.TYPE_CHECKING:\n    from pkg import top\n",
        "import importlib\ndef f():\n    return importlib.import_module('pkg.top')\n",
        "from importlib import import_module\nM = import_module('pkg.top')\n",
        "import importlib\ndef f(name):\n    return importlib.import_module(f'pkg.top.{name}')\n",
    ],
    ids=["from", "import", "in-function", "type-checking", "import_module", "module-level-call", "f-string"],
)
def test_an_upward_import_is_found_in_every_form(tmp_path, text):
    found = _toy_upward(tmp_path, {"pkg/top.py": "x = 1\n", "pkg/mid/m.py": text})
    expected = "imports pkg.top: pkg.mid sits below pkg"
    assert found and all(f.startswith("pkg.mid.m (line ") and expected in f for f in found)


def test_the_longest_entry_places_a_module(tmp_path):
    # pkg.low.sub.base is its own entry of the low layer; pkg.low.sub.other falls under pkg.low;
    # the root names only its own __init__, so an unlisted package is not placed by it
    assert layer_of("pkg.low.sub.base", _TOY_LAYERS, "pkg") == (2, "pkg.low.sub.base")
    assert layer_of("pkg.low.sub.other", _TOY_LAYERS, "pkg") == (2, "pkg.low")
    assert layer_of("pkg", _TOY_LAYERS, "pkg") == (0, "pkg")
    assert layer_of("pkg.elsewhere", _TOY_LAYERS, "pkg") is None


def test_an_allowed_pair_is_not_reported(tmp_path):
    files = {"pkg/__init__.py": "", "pkg/top.py": "", "pkg/mid/__init__.py": "from pkg import top\n"}
    src = write_tree(tmp_path, files)
    found = edges(src, every_import=True)
    assert upward(found, _TOY_LAYERS, {}, "pkg")
    assert upward(found, _TOY_LAYERS, {("pkg.mid", "pkg.top"): "kept"}, "pkg") == []


#: the loose modules beside the packages (the issue's ceiling is 8): the facade, ``python -m``,
#: the version and the public exceptions; everything else lives in a package that says what it is
MAX_LOOSE = 8


def test_the_top_level_shows_the_architecture():
    loose = sorted(p.name for p in (SRC / "transcreval").glob("*.py"))
    assert len(loose) <= MAX_LOOSE, (
        f"{len(loose)} loose modules beside the packages: {loose}; put each in core/, utils/ or cli/"
    )
