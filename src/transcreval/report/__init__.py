"""Reports of protocol results: Markdown, a self-contained static HTML page, plot helpers.

* :func:`write_report` (``report.md``, ``report.html``, ``figures/``), :func:`render_markdown`,
  :func:`render_html`, :func:`build_report` (the blocks both formats render);
* plot helpers ``plot_*(result, ..., ax=None) -> (fig, ax)``: :func:`plot_forest`,
  :func:`plot_distributions`, :func:`plot_heatmap`, :func:`plot_win_rate_matrix`,
  :func:`plot_kendall_by_country` (matplotlib: the ``report`` extra);
* :class:`ItemImages`: where the galleries find each item's pictures and OCR masks.

Names load on first use: ``import transcreval.report`` imports neither matplotlib nor PIL.
See ``docs/report.md``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_WHERE = {
    "build_report": "transcreval.report.build",
    "Report": "transcreval.report.document",
    "ItemImages": "transcreval.report.thumbs",
    "select_items": "transcreval.report.gallery",
    "render_html": "transcreval.report.write",
    "render_markdown": "transcreval.report.write",
    "write_report": "transcreval.report.write",
    "plot_distributions": "transcreval.report.plots",
    "plot_forest": "transcreval.report.plots",
    "plot_heatmap": "transcreval.report.plots",
    "plot_kendall_by_country": "transcreval.report.plots",
    "plot_win_rate_matrix": "transcreval.report.plots",
}

__all__ = [
    "ItemImages",
    "Report",
    "build_report",
    "plot_distributions",
    "plot_forest",
    "plot_heatmap",
    "plot_kendall_by_country",
    "plot_win_rate_matrix",
    "render_html",
    "render_markdown",
    "select_items",
    "write_report",
]

if TYPE_CHECKING:
    from transcreval.report.build import build_report
    from transcreval.report.document import Report
    from transcreval.report.gallery import select_items
    from transcreval.report.plots import (
        plot_distributions,
        plot_forest,
        plot_heatmap,
        plot_kendall_by_country,
        plot_win_rate_matrix,
    )
    from transcreval.report.thumbs import ItemImages
    from transcreval.report.write import render_html, render_markdown, write_report


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'transcreval.report' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
