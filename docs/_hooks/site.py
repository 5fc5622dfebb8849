"""MkDocs hooks for transcreval's documentation site (named in mkdocs.yml under ``hooks:``).

The pages stay plain Markdown that reads well on a code host; these hooks adapt three things for
the site, and nothing else:

* the metrics section of the navigation lists every page in ``docs/metrics/`` (the index first),
  so a new metric's page appears without editing mkdocs.yml;
* a metric page's facts table links its class and function to their entries in the API reference
  instead of to the source files, which lie outside the site (any other link that leaves
  ``docs/`` stays broken and fails ``mkdocs build --strict``);
* the Sphinx roles our docstrings use (``:class:`~transcreval.X` ``) become links to the API
  reference where the name has an entry there, and plain code where it has none.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

METRICS_SECTION = "Metrics"
METRICS_INDEX = "metrics/README.md"

# `transcreval.TitleChrF` ([src/transcreval/text/chrf.py](../../src/transcreval/text/chrf.py))
FACTS_LINK = re.compile(r"`(transcreval(?:\.functional)?\.\w+)` \(\[([^\]]+)\]\((?:\.\./)+src/[^)\s]+\)\)")

# what Python-Markdown makes of :class:`~transcreval.errors.InputError` in a docstring
SPHINX_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj|const):<code>(~?)([\w.]+?)(\(\))?</code>")


def metrics_nav(docs_dir: Path) -> list[str]:
    """The metrics section: the index page, then every other page of ``docs/metrics/`` by name."""
    pages = sorted(p.name for p in (docs_dir / "metrics").glob("*.md") if p.name != "README.md")
    return [METRICS_INDEX, *(f"metrics/{name}" for name in pages)]


def expand_metrics_nav(nav: list[Any], docs_dir: Path) -> bool:
    """Replace the ``- Metrics: metrics/README.md`` entry of ``nav`` by the whole section, in place."""
    for i, entry in enumerate(nav):
        if isinstance(entry, dict) and entry.get(METRICS_SECTION) == METRICS_INDEX:
            nav[i] = {METRICS_SECTION: metrics_nav(docs_dir)}
            return True
        if isinstance(entry, dict):
            for value in entry.values():
                if isinstance(value, list) and expand_metrics_nav(value, docs_dir):
                    return True
    return False


def facts_to_api(markdown: str) -> str:
    """A facts table's source-file links replaced by API-reference links (the path kept as text)."""
    return FACTS_LINK.sub(lambda m: f"[`{m[1]}`][{m[1]}] (`{m[2]}`)", markdown)


def roles_to_refs(html: str) -> str:
    """Sphinx roles left in rendered docstrings as optional cross-references (plain code when the
    name has no entry in the API reference); ``~`` shows the last part of the name only."""

    def ref(m: re.Match[str]) -> str:
        tilde, name, call = m[1], m[2], m[3] or ""
        shown = (name.rsplit(".", 1)[-1] if tilde else name) + call
        return f'<autoref identifier="{name}" optional><code>{shown}</code></autoref>'

    return SPHINX_ROLE.sub(ref, html)


def on_config(config: Any) -> Any:
    if config.nav and not expand_metrics_nav(config.nav, Path(config.docs_dir)):
        raise ValueError(f"mkdocs.yml: the nav has no '{METRICS_SECTION}: {METRICS_INDEX}' entry")
    return config


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    return facts_to_api(markdown) if page.file.src_uri.startswith("metrics/") else markdown


def on_page_content(html: str, **_: Any) -> str:
    return roles_to_refs(html)
