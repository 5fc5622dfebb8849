"""The documentation site: every page's examples run, the API reference covers the public API, the
nav lists every page, and the site hooks (docs/_hooks/site.py) rewrite what they promise.

`make docs` builds the site with ``mkdocs build --strict`` (broken links, anchors and references
fail there); these tests need no mkdocs and run with the suite. The metric pages' examples are
run by tests/base/test_registry.py, page by page, with their required sections.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import re
import types
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

# the packages whose names the docs pages document: each name of their __all__ has an entry
PUBLIC = (
    "transcreval",
    "transcreval.functional",
    "transcreval.judge",
    "transcreval.ocr",
    "transcreval.weights",
    "transcreval.runs",
    "transcreval.stats",
    "transcreval.report",
    "transcreval.io",
    "transcreval.protocols.records",
)


def _pages() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md") if "_hooks" not in p.parts)


def _hooks() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("docs_site_hooks", DOCS / "_hooks" / "site.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "page",
    [p.relative_to(DOCS).as_posix() for p in _pages() if p.parent.name != "metrics" and ">>> " in p.read_text()],
)
def test_guide_page_examples_run(page):
    res = doctest.testfile(str(DOCS / page), module_relative=False, optionflags=FLAGS, raise_on_error=False)
    assert res.attempted > 0 and res.failed == 0, f"docs/{page}: {res.failed} of {res.attempted} examples failed"


def _resolve(path: str) -> Any:
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(path)


def _documented() -> list[Any]:
    """What the API reference's ``::: path`` entries show: objects, and a module's public names."""
    shown: list[Any] = []
    for page in sorted((DOCS / "api").glob("*.md")):
        for path in re.findall(r"^::: ([\w.]+)$", page.read_text(encoding="utf-8"), re.M):
            obj = _resolve(path)
            shown.append(obj)
            if isinstance(obj, types.ModuleType):
                names = getattr(obj, "__all__", [n for n in vars(obj) if not n.startswith("_")])
                shown += [getattr(obj, n) for n in names]
    return shown


def test_api_reference_covers_the_public_api():
    shown = _documented()
    missing = []
    for package in PUBLIC:
        module = importlib.import_module(package)
        names = [n for n in module.__all__ if not n.startswith("__")]
        missing += [f"{package}.{n}" for n in names if not any(obj is getattr(module, n) for obj in shown)]
    assert not missing, f"add a '::: <path>' entry to a page of docs/api/ for: {missing}"


def test_nav_lists_every_page():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:\n", 1)[1]
    listed = set(re.findall(r"([\w./-]+\.md)\s*$", nav, re.M))
    listed |= set(_hooks().metrics_nav(DOCS))
    pages = {p.relative_to(DOCS).as_posix() for p in _pages()}
    assert pages - listed == set(), f"add these pages to mkdocs.yml's nav: {sorted(pages - listed)}"
    assert listed - pages == set(), f"mkdocs.yml's nav names pages that do not exist: {sorted(listed - pages)}"


def test_metrics_nav_expands_to_every_metric_page():
    hooks = _hooks()
    nav: list[Any] = [{"Home": "index.md"}, {"Metrics": "metrics/README.md"}]
    assert hooks.expand_metrics_nav(nav, DOCS)
    section = nav[1]["Metrics"]
    assert section[0] == "metrics/README.md"
    pages = [f"metrics/{p.name}" for p in (DOCS / "metrics").glob("*.md") if p.stem != "README"]
    assert sorted(section[1:]) == sorted(pages)
    assert not hooks.expand_metrics_nav([{"Home": "index.md"}], DOCS)


def test_facts_links_to_source_become_api_references():
    hooks = _hooks()
    row = "| class | `transcreval.TitleChrF` ([src/transcreval/text/chrf.py](../../src/transcreval/text/chrf.py)) |"
    api = "| class | [`transcreval.TitleChrF`][transcreval.TitleChrF] (`src/transcreval/text/chrf.py`) |"
    assert hooks.facts_to_api(row) == api
    fn = "`transcreval.functional.title_chrf` ([src/x.py](../../src/x.py))"
    fn_api = "[`transcreval.functional.title_chrf`][transcreval.functional.title_chrf] (`src/x.py`)"
    assert hooks.facts_to_api(fn) == fn_api
    other = "see [the README](../../README.md)"
    assert hooks.facts_to_api(other) == other  # any other link leaving docs/ stays, and fails the strict build


def test_every_facts_table_is_rewritten():
    hooks = _hooks()
    for page in sorted((DOCS / "metrics").glob("*.md")):
        if page.stem == "README":
            continue
        text = hooks.facts_to_api(page.read_text(encoding="utf-8"))
        assert "](../../src/" not in text, f"{page.name}: a source link the site hook does not rewrite"


def test_sphinx_roles_become_optional_references():
    hooks = _hooks()
    html = "a :class:<code>~transcreval.errors.InputError</code> or :func:<code>transcreval.io.open_image</code>"
    assert hooks.roles_to_refs(html) == (
        'a <autoref identifier="transcreval.errors.InputError" optional><code>InputError</code></autoref> or '
        '<autoref identifier="transcreval.io.open_image" optional><code>transcreval.io.open_image</code></autoref>'
    )
    assert hooks.roles_to_refs("<code>plain</code>") == "<code>plain</code>"
