"""The demo posters with their titles set in real type, for the OCR part of ``transcreval demo``.

The embedded demo set (:mod:`transcreval.data.demo_set`) draws titles as glyph-like blocks so
it needs no font; OCR cannot read those. This module draws the same posters (same ids,
markets, titles and systems) with the titles typeset in subsets of Noto fonts shipped in
``transcreval/data/fonts`` (SIL OFL 1.1), so the OCR metrics run offline on a fresh machine:

* ``source``: the source-market poster, its title in a band near the bottom and a tagline;
* ``target``: the human target-market poster: the same artwork and tagline, the target
  title re-set larger and higher, without the band (a human re-layout);
* ``outputs["text-edit"]``: a surface edit, the source layout with the title replaced;
* ``outputs["redesign"]``: a deep edit, new colours and the title moved to the top band.
"""

from __future__ import annotations

import hashlib
import unicodedata
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from transcreval.data.demo_set import DemoPoster, build_demo_set

if TYPE_CHECKING:
    from PIL import Image, ImageFont

W, H = 320, 480
FONT_FILES = {
    "latin": "NotoSans-demo.ttf",
    "cjk": "NotoSansCJKjp-demo.otf",
    "arabic": "NotoSansArabic-demo.ttf",
    "devanagari": "NotoSansDevanagari-demo.ttf",
}


def script_of(text: str) -> str:
    """The script a title is set in: cjk, arabic, devanagari or latin (by its letters)."""
    for ch in text:
        name = unicodedata.name(ch, "")
        if name.startswith(("CJK", "HIRAGANA", "KATAKANA")):
            return "cjk"
        if name.startswith("ARABIC"):
            return "arabic"
        if name.startswith("DEVANAGARI"):
            return "devanagari"
    return "latin"


@cache
def font_path(script: str) -> str:
    """The bundled font file for ``script``."""
    return str(resources.files("transcreval.data") / "fonts" / FONT_FILES[script])


@cache
def _font(script: str, size: int) -> ImageFont.FreeTypeFont:
    from PIL import ImageFont

    return ImageFont.truetype(font_path(script), size)


def _seed(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256("|".join(parts).encode()).digest()[:4], "big")


def _artwork(key: str, dark: bool) -> Image.Image:
    """A smooth gradient with soft, low-contrast shapes (nothing a detector takes for text)."""
    from PIL import Image, ImageDraw, ImageFilter

    s = _seed(key)
    top = ((s >> 3) % 120 + 60, (s >> 9) % 120 + 60, (s >> 15) % 120 + 60)
    bottom = ((s >> 5) % 80 + 20, (s >> 11) % 80 + 20, (s >> 17) % 80 + 20)
    if dark:
        top, bottom = bottom, top
    img = Image.new("RGB", (W, H))
    d = ImageDraw.Draw(img)
    for y in range(H):
        t = y / (H - 1)
        d.line([(0, y), (W, y)], fill=tuple(int(a + (b - a) * t) for a, b in zip(top, bottom)))
    for i in range(3):
        si = _seed(key, str(i))
        x, y, r = si % W, (si >> 8) % H, (si >> 16) % 60 + 40
        shade = tuple(min(255, c + 18) for c in top)
        d.ellipse((x - r, y - r, x + r, y + r), fill=shade)
    return img.filter(ImageFilter.GaussianBlur(6))


def _set_line(img: Image.Image, text: str, centre_y: int, size: int, colour: tuple[int, int, int]) -> None:
    """Draw one line of ``text`` centred at ``centre_y``, shrinking the type until it fits."""
    from PIL import ImageDraw

    d = ImageDraw.Draw(img)
    script = script_of(text)
    while True:
        f = _font(script, size)
        x0, y0, x1, y1 = d.textbbox((0, 0), text, font=f)
        if x1 - x0 <= W - 40 or size <= 10:
            break
        size -= 2
    d.text(((W - (x1 - x0)) // 2 - x0, centre_y - (y1 - y0) // 2 - y0), text, font=f, fill=colour)


def _poster(key: str, title: str, layout: str) -> Image.Image:
    from PIL import ImageDraw

    img = _artwork(key, dark=layout == "redesign")
    d = ImageDraw.Draw(img)
    if layout == "source":  # title band near the bottom, tagline at the top
        d.rectangle((20, H - 110, W - 20, H - 50), fill=(246, 242, 232))
        _set_line(img, title, H - 80, 34, (24, 24, 28))
        _set_line(img, "IN CINEMAS", 40, 18, (250, 250, 250))
    elif layout == "target":  # the human version: the title re-set larger, higher, without the band
        _set_line(img, title, H - 120, 44, (252, 250, 240))
        _set_line(img, "IN CINEMAS", 40, 18, (250, 250, 250))
    else:  # the redesign: a top band, no tagline
        d.rectangle((10, 20, W - 10, 76), fill=(30, 30, 36))
        _set_line(img, title, 48, 30, (240, 210, 90))
    return img


def build_ocr_demo_set() -> list[DemoPoster]:
    """The demo posters with typeset titles (deterministic: the same pixels on every call)."""
    out = []
    for p in build_demo_set():
        q = DemoPoster(
            poster_id=p.poster_id,
            market=p.market,
            source_title=p.source_title,
            target_title=p.target_title,
            source=_poster(p.poster_id, p.source_title, "source"),
            target=_poster(p.poster_id, p.target_title, "target"),
        )
        titles = dict(p.output_titles)
        q.outputs["text-edit"] = _poster(p.poster_id, titles["text-edit"], "source")
        q.outputs["redesign"] = _poster(p.poster_id, titles["redesign"], "redesign")
        q.output_titles = titles
        out.append(q)
    return out


def missing_glyphs(texts: list[str]) -> dict[str, list[str]]:
    """Characters of ``texts`` that the bundled font for their script lacks (drawn as .notdef)."""
    import numpy as np
    from PIL import Image, ImageDraw

    def draw(ch: str, script: str) -> Any:
        im = Image.new("L", (64, 64), 0)
        ImageDraw.Draw(im).text((16, 8), ch, font=_font(script, 24), fill=255)
        return np.asarray(im)

    out: dict[str, list[str]] = {}
    for t in texts:
        script = script_of(t)
        notdef = draw("\uffff", script)
        lacking = [c for c in dict.fromkeys(t) if not c.isspace() and np.array_equal(draw(c, script), notdef)]
        if lacking:
            out[t] = lacking
    return out
