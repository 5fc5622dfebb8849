"""The report as a list of neutral blocks, rendered to Markdown or to HTML.

The builder (:mod:`transcreval.report.build`) turns protocol results and comparisons into
:class:`Heading`, :class:`Paragraph`, :class:`TableBlock`, :class:`FigureBlock` and
:class:`GalleryBlock` objects; :mod:`~transcreval.report.markdown` and
:mod:`~transcreval.report.html` only lay them out, so both formats always say the same thing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from transcreval.report.blocks import Block, Card, FigureBlock, GalleryBlock, Heading, Paragraph, TableBlock, TextCell
from transcreval.report.html import render as render_html_page
from transcreval.report.markdown import render as render_markdown_text

__all__ = [
    "Block",
    "Card",
    "FigureBlock",
    "GalleryBlock",
    "Heading",
    "Paragraph",
    "Report",
    "TableBlock",
    "TextCell",
    "arrow",
    "fmt",
    "fmt_ci",
    "fmt_p",
]


@dataclass(frozen=True)
class Report:
    """A built report: a title and its blocks, in order."""

    title: str
    blocks: tuple[Block, ...] = field(default_factory=tuple)

    @property
    def figures(self) -> list[FigureBlock]:
        return [b for b in self.blocks if isinstance(b, FigureBlock)]

    def to_markdown(self, figure_dir: str | None = None) -> str:
        """Markdown; figures become links to ``<figure_dir>/<key>.png`` (left out when None)."""
        return render_markdown_text(self.blocks, figure_dir)

    def to_html(self) -> str:
        """One self-contained HTML page (figures and thumbnails embedded as data URIs)."""
        return render_html_page(self.title, self.blocks)


def fmt(value: float, decimals: int) -> str:
    """A number rounded to ``decimals`` digits; ``-`` when missing."""
    if value is None or not math.isfinite(value):
        return "-"
    return f"{value:.{decimals}f}"


def fmt_ci(value: float, ci: tuple[float, float] | None, decimals: int) -> str:
    """``value ± half-width`` of the interval (``value`` alone without one)."""
    if ci is None or not math.isfinite(value):
        return fmt(value, decimals)
    return f"{fmt(value, decimals)} ± {(ci[1] - ci[0]) / 2:.{decimals}f}"


def fmt_p(p: float) -> str:
    if p is None or not math.isfinite(p):
        return "-"
    return f"{p:.3f}" if p >= 0.001 else "<0.001"


def arrow(delta: float, significant: bool, higher_is_better: bool | None) -> tuple[str, str]:
    """The arrow for a delta (``↑``/``↓`` when significant, else ``·``) and its tone.

    The tone is ``"better"`` / ``"worse"`` when the metric's direction is known, else empty.
    """
    if not significant or not math.isfinite(delta) or delta == 0:
        return "·", ""
    up = delta > 0
    tone = "" if higher_is_better is None else ("better" if up == higher_is_better else "worse")
    return ("↑" if up else "↓"), tone
