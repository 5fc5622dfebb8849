"""The neutral blocks a report is made of: headings, paragraphs, tables, figures, galleries.

The builder (:mod:`transcreval.report.build`) makes them; :mod:`~transcreval.report.markdown`
and :mod:`~transcreval.report.html` only lay them out, so both formats always say the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Block", "Card", "FigureBlock", "GalleryBlock", "Heading", "Paragraph", "TableBlock", "TextCell"]


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
    """A table; ``folded`` ones (long coordinate tables) open on a click (``<details>``)."""

    caption: str
    header: tuple[str, ...]
    rows: tuple[tuple[TextCell, ...], ...]
    notes: tuple[str, ...] = ()
    folded: bool = False


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
