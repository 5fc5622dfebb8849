"""A tiny synthetic transcreation set for ``transcreval demo``.

Four "posters" (gradient background, shapes, a title band), each with a human target-market
version and two system outputs: ``text-edit`` only repaints the title band (a surface edit)
and ``redesign`` changes the layout and colours (a deep edit). Titles come in several scripts.
Images are drawn with Pillow at run time; characters are drawn as glyph-like blocks so no
font is needed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image

W, H = 240, 360


@dataclass
class DemoPoster:
    poster_id: str
    market: str
    source_title: str
    target_title: str
    source: Image.Image
    target: Image.Image
    outputs: dict[str, Image.Image] = field(default_factory=dict)
    output_titles: dict[str, str] = field(default_factory=dict)


_POSTERS = [
    # id, target market, source title, human target title, {system: title read from its output}
    (
        "spirited",
        "fr",
        "Spirited Away",
        "Le Voyage de Chihiro",
        {"text-edit": "Le Voyage de Chihiro", "redesign": "Le voyage de Chihiro"},
    ),
    (
        "parasite",
        "ja",
        "Parasite",
        "パラサイト 半地下の家族",
        {"text-edit": "パラサイト 半地下の家族", "redesign": "パラサイト"},
    ),
    ("amelie", "ar", "Amélie", "أميلي", {"text-edit": "اميلي", "redesign": "أميلي بولان"}),
    ("rrr", "hi", "RRR", "आरआरआर", {"text-edit": "आरआरआर", "redesign": "RRR"}),
]


def _seed(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256("|".join(parts).encode()).digest()[:4], "big")


def _palette(seed: int) -> list[tuple[int, int, int]]:
    return [
        ((seed >> (3 * i)) % 200 + 30, (seed >> (3 * i + 7)) % 200 + 30, (seed >> (3 * i + 13)) % 200 + 30)
        for i in range(4)
    ]


def _draw_title(img: Image.Image, title: str, box: tuple[int, int, int, int], colour: tuple[int, int, int]) -> None:
    from PIL import ImageDraw

    d = ImageDraw.Draw(img)
    x0, y0, x1, y1 = box
    d.rectangle(box, fill=(250, 250, 245))
    chars = [c for c in title if not c.isspace()] or ["?"]
    step = max(4, (x1 - x0 - 8) // len(chars))
    for i, ch in enumerate(chars):
        bits = _seed(ch)
        cx = x0 + 4 + i * step
        for k in range(6):  # a 2x3 block "glyph" per character
            if bits >> k & 1:
                gx, gy = cx + (k % 2) * step // 2, y0 + 4 + (k // 2) * (y1 - y0 - 8) // 3
                d.rectangle((gx, gy, gx + step // 2 - 1, gy + (y1 - y0 - 8) // 3 - 1), fill=colour)


def _poster(key: str, title: str, layout: int) -> Image.Image:
    from PIL import Image, ImageDraw

    seed = _seed(key, str(layout))
    pal = _palette(seed)
    img = Image.new("RGB", (W, H))
    d = ImageDraw.Draw(img)
    top, bottom = (pal[0], pal[1]) if layout == 0 else (pal[1], pal[0])
    for y in range(H):
        t = y / (H - 1)
        d.line([(0, y), (W, y)], fill=tuple(int(a + (b - a) * t) for a, b in zip(top, bottom)))
    for i in range(5):
        s = _seed(key, str(layout), str(i))
        x, y, r = s % W, (s >> 8) % (H - 100) + 20, (s >> 16) % 50 + 20
        shape = d.ellipse if (s + layout) % 2 else d.rectangle
        shape((x - r, y - r, x + r, y + r), fill=pal[2 + i % 2])
    band = (60, H - 52, W - 60, H - 36) if layout == 0 else (30, 24, W - 30, 44)
    _draw_title(img, title, band, pal[3] if layout else (20, 20, 20))
    return img


def build_demo_set() -> list[DemoPoster]:
    """The demo posters, drawn afresh (deterministic: same pixels on every call)."""
    out = []
    for pid, market, src_title, tgt_title, sys_titles in _POSTERS:
        p = DemoPoster(
            poster_id=pid,
            market=market,
            source_title=src_title,
            target_title=tgt_title,
            source=_poster(pid, src_title, 0),
            target=_poster(pid, tgt_title, 0),
        )
        p.outputs["text-edit"] = _poster(pid, sys_titles["text-edit"], 0)
        p.outputs["redesign"] = _poster(pid + "/redesign", sys_titles["redesign"], 1)
        p.output_titles = dict(sys_titles)
        out.append(p)
    return out
