"""Text clean-up shared by PosterIQ's text scores (word recall, OCR accuracy, choice answers).

* :func:`strip_invisible` is the paper's rule (Supp. B): delete the characters one cannot see
  (whitespace, line breaks, zero-width and other format characters) and literal escape
  sequences such as a backslash followed by ``n``; every script is kept, case is kept.
* :func:`posteriq_clean` is PosterIQ's code's ``clean_string``: keep ASCII letters and digits
  only (spaces, punctuation and every non-ASCII letter go); lists are cleaned item by item and
  joined with no separator.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

__all__ = ["posteriq_clean", "strip_invisible"]

_ESCAPES = re.compile(r"\\[nrtvfb0]|\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}")


def strip_invisible(text: str) -> str:
    """``text`` without whitespace, format characters (zero-width space, BOM, ...) and literal
    escape sequences (``\\n``, ``\\t``, ``\\u200b`` written out)."""
    kept = _ESCAPES.sub("", text)
    return "".join(c for c in kept if not c.isspace() and unicodedata.category(c) not in ("Cc", "Cf"))


def posteriq_clean(text: Any) -> str:
    """PosterIQ code's ``clean_string``: ASCII letters and digits only; lists are cleaned item by
    item and concatenated."""
    if isinstance(text, (list, tuple)):
        return "".join(posteriq_clean(t) for t in text)
    return re.sub(r"[^A-Za-z0-9]", "", str(text))
