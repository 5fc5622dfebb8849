"""Plain-text tables that line up East Asian wide characters (the CLI, the demo, printed results)."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

__all__ = ["format_table", "text_width"]


def text_width(text: str) -> int:
    """Terminal columns of a string (East Asian wide characters take two, marks none)."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def format_table(rows: Sequence[Sequence[object]], header: Sequence[str]) -> str:
    """Columns separated by two spaces, a dashed rule under the header."""
    cells = [[str(c) for c in r] for r in rows]
    widths = [max(text_width(r[i]) for r in [list(header), *cells]) for i in range(len(header))]

    def fmt(r: Sequence[str]) -> str:
        return "  ".join(c + " " * (w - text_width(c)) for c, w in zip(r, widths)).rstrip()

    return "\n".join([fmt(list(header)), "  ".join("-" * w for w in widths), *(fmt(r) for r in cells)])
