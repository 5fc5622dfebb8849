"""The metric registry, the mirrored layout, the per-metric docs pages and the house rules."""

from __future__ import annotations

import ast
import doctest
import inspect
import re
from pathlib import Path

import pytest

import transcreval
import transcreval.functional as F
from transcreval.core.metric import Metric
from transcreval.core.metric_docs import sync_pages
from transcreval.core.registry import DOMAINS, list_metrics

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "transcreval"
METRICS = list_metrics()


def test_every_public_metric_is_registered_and_every_entry_imports():
    public = {
        n
        for n in transcreval.__all__
        if isinstance(getattr(transcreval, n), type) and issubclass(getattr(transcreval, n), Metric)
    }
    public.discard("Metric")
    assert public == {m.name for m in METRICS}, "public metric classes and registry entries differ"
    for m in METRICS:
        cls = m.load()
        assert issubclass(cls, Metric) and cls.__name__ == m.name
        assert cls.higher_is_better == m.higher_is_better, f"{m.name}: higher_is_better differs from the registry"
        assert tuple(cls.value_range) == m.value_range, f"{m.name}: value_range differs from the registry"
        fn = m.load_functional()
        assert callable(fn) and getattr(F, m.functional) is fn
        assert m.functional in F.__all__ and m.name in transcreval.__all__


def test_class_and_function_live_at_mirrored_paths():
    for m in METRICS:
        rel = m.module.removeprefix("transcreval.")
        assert m.functional_module == f"transcreval.functional.{rel}"
        assert (SRC / (rel.replace(".", "/") + ".py")).exists()
        assert (SRC / "functional" / (rel.replace(".", "/") + ".py")).exists()
        assert m.domain in DOMAINS and rel.startswith(m.domain + ".")


def test_every_update_names_its_inputs_preds_first():
    for m in METRICS:
        params = list(inspect.signature(m.load().update).parameters)
        assert params[:2] == ["self", "preds"], f"{m.name}.update{params}: the system output comes first, as preds"
        fparams = list(inspect.signature(m.load_functional()).parameters)
        assert fparams[0] == "preds", f"{m.functional}{fparams}: the system output comes first, as preds"
        if "target" in params:
            assert params.index("target") == 2 and fparams.index("target") == 1


def test_list_metrics_filters():
    assert {m.name for m in list_metrics(domain="text")} >= {"TitleChrF", "WordRecall"}
    assert {m.name for m in list_metrics(paper="posteriq")} >= {"PointScore", "WordRecall"}
    assert all(m.paper == "Khanuja et al." for m in list_metrics(paper="khanuja"))
    assert [m.name for m in list_metrics(name="*ChrF")] == ["TitleChrF", "PlanChrF"]
    assert all(not m.needs for m in list_metrics(needs="nothing"))
    with pytest.raises(ValueError, match="domain"):
        list_metrics(domain="audio")
    with pytest.raises(KeyError, match="known"):
        transcreval.get_metric("NoSuchMetric")


def test_every_metric_has_a_current_docs_page_and_the_index_lists_it():
    problems = sync_pages(ROOT, check=True)
    assert not problems, "run `python -m transcreval.core.metric_docs`:\n" + "\n".join(problems)
    index = (ROOT / "docs" / "metrics" / "README.md").read_text(encoding="utf-8")
    for m in METRICS:
        assert f"[{m.name}]({m.name}.md)" in index


@pytest.mark.parametrize("name", [m.name for m in METRICS])
def test_docs_page_examples_run(name):
    page = ROOT / "docs" / "metrics" / f"{name}.md"
    text = page.read_text(encoding="utf-8")
    for heading in ("## What it measures", "## Formula", "## Example", "## Agreement", "## Options"):
        assert heading in text, f"{page.name}: missing section {heading!r}"
    assert ">>> " in text, f"{page.name}: the example has no >>> lines to check"
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    res = doctest.testfile(str(page), module_relative=False, optionflags=flags, raise_on_error=False, verbose=False)
    assert res.attempted > 0 and res.failed == 0, f"{page.name}: {res.failed} of {res.attempted} examples failed"


def _source_files() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def test_no_module_imports_another_modules_private_names():
    offenders = []
    for f in _source_files():
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("transcreval"):
                offenders += [
                    f"{f.relative_to(SRC)}: {node.module}.{a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                ]
    assert not offenders, offenders


@pytest.mark.parametrize("module", sorted({m.module for m in METRICS}))
def test_each_metric_module_registers_exactly_the_metric_classes_it_defines(module):
    """Every public Metric class a metric module defines is registered from that module, except
    the intermediate bases its registered metrics derive from (LPIPSFamily, EmbeddingMetric)."""
    import importlib

    registered = {m.name for m in METRICS if m.module == module}
    classes = [
        c
        for n, c in vars(importlib.import_module(module)).items()
        if isinstance(c, type) and issubclass(c, Metric) and c.__module__ == module and not n.startswith("_")
    ]
    names = {m.name for m in METRICS}
    bases = {c.__name__ for c in classes if c.__name__ not in names and any(issubclass(m.load(), c) for m in METRICS)}
    assert registered, f"no metric is registered from {module}"
    assert {c.__name__ for c in classes} - bases == registered, f"{module}: defined and registered classes differ"


def test_every_metric_module_has_its_mirrored_test_file_naming_its_classes():
    """transcreval/<domain>/<module>.py -> tests/<domain>/test_<module>.py, naming each class."""
    problems = []
    for info in list_metrics():
        _, domain, module = info.module.split(".")
        path = ROOT / "tests" / domain / f"test_{module}.py"
        if not path.is_file():
            problems.append(f"{info.name}: no {path.relative_to(ROOT)} (tests mirror {info.module})")
        elif not re.search(rf"\b{info.name}\b", path.read_text(encoding="utf-8")):
            problems.append(f"{info.name}: {path.relative_to(ROOT)} never names {info.name}")
    assert not problems, "\n".join(problems)
