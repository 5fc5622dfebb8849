"""Every protocol package is laid out alike, and its public paths keep working.

A package's ``__init__`` only exports (a docstring, imports, ``__all__``): the logic lives in
modules named by idea, with the inner layout every protocol shares (inputs, scoring, tables,
runner, and the Python entry in pipeline). Read from the source (``ast``), so a function or a
constant written into an ``__init__`` fails here.
"""

from __future__ import annotations

import ast
import importlib
import pathlib

import pytest

PROTOCOL_DIR = pathlib.Path(__file__).resolve().parents[2] / "src" / "transcreval" / "protocols"
PACKAGES = sorted(p.parent.name for p in PROTOCOL_DIR.glob("*/__init__.py"))
#: every protocol package has the shared inner layout
LAID_OUT = ("imtbench", "khanuja", "mptc", "posteriq")
#: each piece is a module or, where an idea needs several files, a package (mptc's runner/, scoring/)
INNER_LAYOUT = ("inputs", "scoring", "tables", "runner", "pipeline")
#: a second protocol of a paper lives in its package, laid out alike (PosterIQ's generation, Table 6)
SUB_PROTOCOLS = ("posteriq/generation",)


def _not_an_export(node: ast.stmt, first: bool) -> bool:
    if first and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return not isinstance(node.value.value, str)  # the docstring
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return False
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [t.id for t in targets if isinstance(t, ast.Name)] != ["__all__"]
    return True


def test_the_packages_are_found():
    assert set(LAID_OUT) == set(PACKAGES)  # a new protocol joins the shared layout


@pytest.mark.parametrize("name", [*PACKAGES, *SUB_PROTOCOLS])
def test_a_protocol_packages_init_only_exports(name):
    path = PROTOCOL_DIR / name / "__init__.py"
    body = ast.parse(path.read_text(encoding="utf-8")).body
    extra = [f"line {n.lineno}: {type(n).__name__}" for i, n in enumerate(body) if _not_an_export(n, i == 0)]
    assert not extra, f"protocols/{name}/__init__.py holds more than exports ({'; '.join(extra)}): move it to a module"
    module = importlib.import_module(f"transcreval.protocols.{name.replace('/', '.')}")
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert not missing, f"protocols/{name}: __all__ names {missing}, which it does not import"


@pytest.mark.parametrize("name", [*LAID_OUT, *SUB_PROTOCOLS])
def test_the_shared_inner_layout(name):
    here = PROTOCOL_DIR / name
    missing = [f for f in INNER_LAYOUT if not (here / f"{f}.py").is_file() and not (here / f / "__init__.py").is_file()]
    assert not missing, f"protocols/{name} lacks {missing}"


def test_the_public_paths_of_khanuja_and_posteriq():
    from transcreval.protocols import khanuja, posteriq
    from transcreval.protocols.khanuja import pipeline as khanuja_pipeline
    from transcreval.protocols.khanuja.runner import ADAPTER as KHANUJA
    from transcreval.protocols.posteriq import pipeline as posteriq_pipeline
    from transcreval.protocols.posteriq.runner import ADAPTER as POSTERIQ

    assert khanuja.evaluate is khanuja.khanuja_table3 is khanuja_pipeline.evaluate  # one entry, two names
    assert posteriq.evaluate is posteriq_pipeline.evaluate
    for name in ("meta_evaluate", "read_human_ratings", "KhanujaItem", "RatingSheet", "COLUMNS", "check_options"):
        assert name in khanuja.__all__, name
    for name in ("posteriq_summary", "wr_gap", "font_size_std", "load_records", "TASKS", "TABLE_COLUMNS"):
        assert name in posteriq.__all__, name
    assert (KHANUJA.name, POSTERIQ.name) == ("khanuja", "posteriq")
