"""PosterIQ's fixed label sets, shipped as package data (``posteriq_vocabulary.json``).

* :func:`font_attributes`: the 37 font attributes of PosterIQ's font-generation task (the
  vocabulary of :class:`~transcreval.FontRichness` and :class:`~transcreval.JudgedFontRichness`,
  Eq. 14-15).
* :func:`font_colors` and :func:`font_effects`: the 16 colours and 48 artistic effects the Font
  Effect 2 task offers (Table 2's colour and effect scores, k = 16 and 48).

The strings are PosterIQ's own, verbatim (hyphens and spaces included).
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

__all__ = ["font_attributes", "font_colors", "font_effects"]


@lru_cache(maxsize=1)
def _vocabulary() -> dict[str, Any]:
    text = resources.files("transcreval.data").joinpath("posteriq_vocabulary.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def font_attributes() -> tuple[str, ...]:
    """PosterIQ's 37 font attributes ("angular", "artistic", ..., "wide")."""
    return tuple(_vocabulary()["font_attributes"])


def font_colors() -> tuple[str, ...]:
    """The 16 text colours of PosterIQ's Font Effect 2 task."""
    return tuple(_vocabulary()["font_colors"])


def font_effects() -> tuple[str, ...]:
    """The 48 artistic font effects of PosterIQ's Font Effect 2 task."""
    return tuple(_vocabulary()["font_effects"])
