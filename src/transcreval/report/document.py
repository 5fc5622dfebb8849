"""The report as a list of neutral blocks, rendered to Markdown or to HTML.

The builder (:mod:`transcreval.report.build`) turns protocol results and comparisons into
:class:`Heading`, :class:`Paragraph`, :class:`TableBlock`, :class:`FigureBlock` and
:class:`GalleryBlock` objects; :mod:`~transcreval.report.markdown` and
:mod:`~transcreval.report.html` only lay them out, so both formats always say the same thing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = [
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
class TextCell:
    """A table cell's text, with an optional tone (``"better"``, ``"worse"``) and a tooltip."""

    text: str
    tone: str = ""
    title: str = ""


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class TableBlock:
    caption: str
    header: tuple[str, ...]
    rows: tuple[tuple[TextCell, ...], ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class FigureBlock:
    """A rendered figure: ``key`` names its file (``figures/<key>.png``), ``png`` its bytes."""

    key: str
    title: str
    png: bytes
    alt: str = ""


@dataclass(frozen=True)
class Card:
    """One gallery item: its id, lines of text, and labelled thumbnails (PNG bytes or None + why)."""

    item_id: str
    lines: tuple[str, ...]
    thumbs: tuple[tuple[str, bytes | None, str], ...] = ()


@dataclass(frozen=True)
class GalleryBlock:
    key: str
    title: str
    cards: tuple[Card, ...]


Block = Heading | Paragraph | TableBlock | FigureBlock | GalleryBlock


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
        from transcreval.report.markdown import render

        return render(self, figure_dir)

    def to_html(self) -> str:
        """One self-contained HTML page (figures and thumbnails embedded as data URIs)."""
        from transcreval.report.html import render

        return render(self)


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
