"""Images with rendered text whose true position is known, for the OCR tests.

Fonts come from PyPI packages in the ``dev`` extra (installed by ``make test`` on a fresh
machine, no system fonts needed): Pillow's built-in Aileron (Latin), Noto Sans CJK JP,
Noto Sans Arabic and Noto Sans Devanagari. Complex scripts are shaped by libraqm, which
Pillow's wheels bundle. A missing font is a failed test naming the fix, never a skip.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont, features

SAMPLES = {
    "latin": "SUMMER SALE 50%",
    "cjk": "千と千尋の神隠し",
    "arabic": "مرحبا بالعالم",
    "devanagari": "नमस्ते दुनिया",
}

_FONT_FILES = {
    "cjk": ("noto_cjk_sans_jp_regular", "NotoSansCJKjp-Regular.otf"),
    "arabic": ("fontpkg_noto_sans_arabic", "files/NotoSansArabic[wdth,wght].ttf"),
    "devanagari": ("fontpkg_noto_sans_devanagari", "files/NotoSansDevanagari[wdth,wght].ttf"),
}


def font(script: str, size: int) -> ImageFont.FreeTypeFont:
    """A font for ``script`` at ``size`` pixels, from the test environment's font packages."""
    if script == "latin":
        f = ImageFont.load_default(size)
        assert isinstance(f, ImageFont.FreeTypeFont), "Pillow was built without FreeType"
        return f
    pkg, rel = _FONT_FILES[script]
    spec = importlib.util.find_spec(pkg)
    if spec is None or not spec.submodule_search_locations:
        pytest.fail(f"font package {pkg!r} is missing: install the test extras (pip install -e '.[dev]')")
    path = Path(next(iter(spec.submodule_search_locations))) / rel
    if script in ("arabic", "devanagari") and not features.check("raqm"):
        pytest.fail("Pillow has no libraqm: Arabic and Devanagari cannot be shaped")
    return ImageFont.truetype(str(path), size)


@dataclass
class Rendered:
    image: Image.Image
    ink: np.ndarray  # bool H x W: pixels covered by glyphs
    box: tuple[int, int, int, int]  # the text's layout box before rotation (x0, y0, x1, y1)
    quad: np.ndarray  # (4, 2) corners of ``box`` after rotation, clockwise from top-left


def render(
    text: str,
    script: str,
    *,
    size: tuple[int, int] = (640, 320),
    font_px: int = 48,
    origin: tuple[int, int] | None = None,
    angle: float = 0.0,
    bg: tuple[int, int, int] = (236, 230, 218),
    fg: tuple[int, int, int] = (24, 24, 32),
) -> Rendered:
    """Draw ``text`` on a plain background; rotate by ``angle`` degrees (counter-clockwise) about the centre."""
    w, h = size
    f = font(script, font_px)
    layer = Image.new("L", size, 0)
    d = ImageDraw.Draw(layer)
    if origin is None:
        x0, y0, x1, y1 = d.textbbox((0, 0), text, font=f)
        origin = ((w - (x1 - x0)) // 2 - x0, (h - (y1 - y0)) // 2 - y0)
    box = d.textbbox(origin, text, font=f)
    d.text(origin, text, font=f, fill=255)
    corners = np.array([[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]], dtype=np.float64)
    if angle:
        layer = layer.rotate(angle, resample=Image.Resampling.BILINEAR, center=(w / 2, h / 2))
        t = np.deg2rad(angle)
        c, s = np.cos(t), np.sin(t)
        dx, dy = corners[:, 0] - w / 2, corners[:, 1] - h / 2
        corners = np.stack([w / 2 + dx * c + dy * s, h / 2 - dx * s + dy * c], axis=1)
    image = Image.composite(Image.new("RGB", size, fg), Image.new("RGB", size, bg), layer)
    return Rendered(image, np.asarray(layer) > 127, box, corners)


def recall(ink: np.ndarray, mask: np.ndarray) -> float:
    """Fraction of glyph pixels inside the detected text mask."""
    return float((ink & mask).sum()) / float(ink.sum())


def outside_fraction(mask: np.ndarray, quad: np.ndarray, margin: float) -> float:
    """Fraction of detected pixels farther than ``margin`` px from the true (rotated) text box."""
    from transcreval.engines.ocr.masks import dilate_mask, polygons_to_mask

    near = dilate_mask(polygons_to_mask([quad], mask.shape), margin)
    return float((mask & ~near).sum()) / max(1.0, float(mask.sum()))


def poster(
    seed: int, size: tuple[int, int] = (512, 768), title: str | None = None, credits: tuple[str, ...] = ()
) -> Image.Image:
    """A poster-like picture (gradient, shapes), optionally with a title and credit lines; deterministic."""
    rng = np.random.default_rng(seed)
    w, h = size
    top, bottom = rng.integers(40, 216, 3), rng.integers(40, 216, 3)
    t = np.linspace(0, 1, h)[:, None, None]
    base = (top * (1 - t) + bottom * t) * np.ones((1, w, 1))
    im = Image.fromarray(np.clip(base, 0, 255).astype(np.uint8))
    d = ImageDraw.Draw(im)
    for _ in range(4):
        x, y, r = rng.integers(0, w), rng.integers(0, h), rng.integers(20, 90)
        d.ellipse((x - r, y - r, x + r, y + r), fill=tuple(int(v) for v in rng.integers(0, 256, 3)))
    if title:
        f = font("latin", max(16, w // 12))
        d.rectangle((w // 10, h - h // 5, w - w // 10, h - h // 10), fill=(248, 246, 238))
        bx = d.textbbox((0, 0), title, font=f)
        d.text(((w - (bx[2] - bx[0])) // 2, h - h // 5 + (h // 10 - (bx[3] - bx[1])) // 2 - bx[1]), title, font=f,
               fill=(20, 20, 20))  # fmt: skip
    small = font("latin", max(12, w // 30))
    for i, line in enumerate(credits):
        d.text((w // 10, h // 12 + i * (w // 20)), line, font=small, fill=(250, 250, 250))
    return im
