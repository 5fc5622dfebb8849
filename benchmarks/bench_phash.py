"""pHash throughput: transcreval.functional.phash vs imagehash.phash on the same decoded images.

Target (issue 2): >= 3x imagehash on decoded 512x768 posters on a 2-core CPU, bit-identical.
"""

from __future__ import annotations

import imagehash
import numpy as np
import pytest
import torch
from PIL import Image, ImageDraw

from transcreval import PHashDistance
from transcreval.functional import phash, phash_hex

N = 64


def _posters(n: int, w: int = 512, h: int = 768, seed: int = 0) -> list[Image.Image]:
    """Poster-like images: a gradient, shapes, a title band and mild noise."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        top, bottom = rng.integers(0, 256, 3), rng.integers(0, 256, 3)
        t = np.linspace(0, 1, h)[:, None, None]
        base = (top * (1 - t) + bottom * t) * np.ones((1, w, 1))
        base += rng.normal(0, 6, (h, w, 3))
        im = Image.fromarray(np.clip(base, 0, 255).astype(np.uint8))
        d = ImageDraw.Draw(im)
        for _ in range(6):
            x, y, r = rng.integers(0, w), rng.integers(0, h), rng.integers(20, 120)
            d.ellipse((x - r, y - r, x + r, y + r), fill=tuple(int(v) for v in rng.integers(0, 256, 3)))
        d.rectangle((40, h - 140, w - 40, h - 80), fill=(250, 250, 240))
        out.append(im)
    return out


@pytest.fixture(scope="module")
def posters() -> list[Image.Image]:
    imgs = _posters(N)
    for im in imgs:
        im.load()
    assert phash_hex(imgs) == [str(imagehash.phash(im)) for im in imgs]  # bit-identical first
    return imgs


@pytest.fixture(scope="module")
def poster_tensor(posters: list[Image.Image]) -> torch.Tensor:
    return torch.from_numpy(np.stack([np.asarray(im) for im in posters])).permute(0, 3, 1, 2).contiguous()


GROUP = f"phash: {N} decoded 512x768 PIL images"


def test_imagehash_pil(timed, posters):
    timed(GROUP, "reference", lambda imgs: [imagehash.phash(im) for im in imgs], posters)


def test_ours_pil(timed, posters):
    timed(GROUP, "ours", phash, posters)


GROUP_T = f"phash: {N} 512x768 uint8 tensors (NCHW)"


def test_imagehash_for_tensor_group(timed, posters):
    timed(GROUP_T, "reference", lambda imgs: [imagehash.phash(im) for im in imgs], posters)


def test_ours_tensor(timed, poster_tensor):
    timed(GROUP_T, "ours", phash, poster_tensor)


def test_paired_ratio_pil(paired, posters):
    """Reference and ours alternate; the suite reports the median per-pair throughput ratio."""
    paired(GROUP, lambda imgs: [imagehash.phash(im) for im in imgs], phash, posters)


def test_paired_ratio_pil_one_thread(paired, posters):
    """``num_threads=1`` (issue 20 item 1): one worker and torch on one thread, never slower."""
    paired(f"{GROUP}, num_threads=1", lambda imgs: [imagehash.phash(im) for im in imgs], partial_one_thread, posters)


def partial_one_thread(imgs: list[Image.Image]) -> torch.Tensor:
    return phash(imgs, num_threads=1)


def test_paired_ratio_update_per_pair(paired, posters):
    """``PHashDistance.update`` once per pair, as evaluation loops call it (issue 20 item 2),
    vs imagehash's per-pair ``phash(a) - phash(b)``; equal distances checked first."""
    pairs_ = list(zip(posters, posters[1:] + posters[:1]))

    def reference(ps: list[tuple[Image.Image, Image.Image]]) -> list[int]:
        return [imagehash.phash(a) - imagehash.phash(b) for a, b in ps]

    def ours(ps: list[tuple[Image.Image, Image.Image]]) -> list[float]:
        m = PHashDistance()
        for a, b in ps:
            m.update([a], [b])
        return m.compute().per_item.tolist()

    assert ours(pairs_) == [float(d) for d in reference(pairs_)]
    paired(f"PHashDistance.update per pair, {len(pairs_)} pairs of 512x768", reference, ours, pairs_)
