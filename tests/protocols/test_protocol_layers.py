"""Protocols sit below the run layer: no module under ``transcreval/protocols`` imports
``transcreval.runs`` (import statements at any depth, imports inside functions, and
``import_module("transcreval.runs...")`` literals), and the runner finds every protocol through
the catalog the protocols register in."""

from __future__ import annotations

import ast
from pathlib import Path

import transcreval
import transcreval.protocols

PROTOCOLS_DIR = Path(transcreval.protocols.__file__).parent
SRC = Path(transcreval.__file__).parent.parent


def _module_name(path: Path, src: Path) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_names(path: Path, src: Path) -> list[tuple[int, str]]:
    """``(line, module)`` of every import in the file, wherever it is, relative ones resolved,
    plus the string literals given to ``import_module``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _module_name(path, src).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module or "").split(".")]).strip(".")
            found += [(node.lineno, f"{module}.{a.name}" if module else a.name) for a in node.names]
        elif isinstance(node, ast.Call):
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
            if name == "import_module" and node.args and isinstance(node.args[0], ast.Constant):
                found.append((node.lineno, str(node.args[0].value)))
    return found


def upward_imports(root: Path, forbidden: str, src: Path = SRC) -> list[str]:
    """``file:line -> module`` for every import under ``root`` (a package inside ``src``) of
    ``forbidden`` or below it."""
    bad = []
    for path in sorted(root.rglob("*.py")):
        for line, module in imported_names(path, src):
            if module == forbidden or module.startswith(forbidden + "."):
                bad.append(f"{path.relative_to(src)}:{line} -> {module}")
    return bad


def test_no_protocol_module_imports_the_run_layer():
    assert upward_imports(PROTOCOLS_DIR, "transcreval.runs") == []


def test_every_kind_of_import_is_seen(tmp_path):
    pkg = tmp_path / "transcreval" / "protocols" / "toy"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text(
        "import transcreval.runs.store\n"
        "from transcreval.runs import evaluate\n"
        "from ...runs.spec import Unit\n"
        "from .. import runs\n"
        "def f():\n"
        "    from transcreval.runs.features import pack\n"
        "    import importlib\n"
        "    return importlib.import_module('transcreval.runs.engine')\n"
        "from transcreval.protocols.adapter import Unit\n"
    )
    found = upward_imports(tmp_path / "transcreval" / "protocols", "transcreval.runs", tmp_path)
    assert [f.split(" -> ")[1] for f in found] == [
        "transcreval.runs.store",
        "transcreval.runs.evaluate",
        "transcreval.runs.spec.Unit",
        "transcreval.runs.features.pack",
        "transcreval.runs.engine",
    ]


def test_the_runner_finds_each_protocol_through_the_catalog():
    from transcreval.protocols.adapter import ProtocolAdapter
    from transcreval.protocols.catalog import PROTOCOLS
    from transcreval.runs.adapters import adapter_ref, load_adapter

    for info in PROTOCOLS:
        adapter = load_adapter(info.name)
        assert isinstance(adapter, ProtocolAdapter)
        assert adapter.name == info.name
        assert adapter_ref(adapter) == info.name


def test_the_old_contract_paths_are_the_same_objects():
    import transcreval.protocols.adapter as new
    import transcreval.protocols.stored_features as new_features
    import transcreval.runs.features as old_features
    import transcreval.runs.manifest as manifest
    import transcreval.runs.spec as old
    import transcreval.utils.digest as digest

    assert old.__all__ == new.__all__
    for name in old.__all__:
        assert getattr(old, name) is getattr(new, name)
    for name in old_features.__all__:
        assert getattr(old_features, name) is getattr(new_features, name)
    assert manifest.content_digest is digest.content_digest
    assert manifest.sha256_file is digest.sha256_file


def test_one_file_digest_for_every_layer():
    import transcreval.runs.manifest as manifest
    import transcreval.utils.digest as digest
    import transcreval.weights as weights

    assert weights.sha256_file is manifest.sha256_file is digest.sha256_file
