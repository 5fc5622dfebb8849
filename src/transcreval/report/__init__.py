"""Reports of protocol results: Markdown, a self-contained static HTML page, plot helpers.

* :func:`write_report` (``report.md``, ``report.html``, ``figures/``), :func:`render_markdown`,
  :func:`render_html`, :func:`build_report` (the blocks both formats render);
* plot helpers ``plot_*(result, ..., ax=None) -> (fig, ax)``: :func:`plot_forest`,
  :func:`plot_distributions`, :func:`plot_heatmap`, :func:`plot_win_rate_matrix`,
  :func:`plot_kendall_by_country`, and the paper figures from ``result.figures``:
  :func:`plot_count_histogram`, :func:`plot_count_matrix`, :func:`plot_rate_bars`,
  :func:`plot_box_summary`, :func:`plot_by_source` (matplotlib: the ``report`` extra);
* :class:`ItemImages`: where the galleries find each item's pictures and OCR masks.

Names load on first use: ``import transcreval.report`` imports neither matplotlib nor PIL.
See ``docs/report.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from transcreval.utils.lazy import lazy_exports

if TYPE_CHECKING:
    from transcreval.report.build import build_report as build_report
    from transcreval.report.document import Report as Report
    from transcreval.report.gallery import select_items as select_items
    from transcreval.report.plots import plot_box_summary as plot_box_summary
    from transcreval.report.plots import plot_by_source as plot_by_source
    from transcreval.report.plots import plot_count_histogram as plot_count_histogram
    from transcreval.report.plots import plot_count_matrix as plot_count_matrix
    from transcreval.report.plots import plot_distributions as plot_distributions
    from transcreval.report.plots import plot_forest as plot_forest
    from transcreval.report.plots import plot_heatmap as plot_heatmap
    from transcreval.report.plots import plot_kendall_by_country as plot_kendall_by_country
    from transcreval.report.plots import plot_rate_bars as plot_rate_bars
    from transcreval.report.plots import plot_win_rate_matrix as plot_win_rate_matrix
    from transcreval.report.thumbs import ItemImages as ItemImages
    from transcreval.report.write import render_html as render_html
    from transcreval.report.write import render_markdown as render_markdown
    from transcreval.report.write import write_report as write_report

__all__, __getattr__, __dir__ = lazy_exports(globals())
