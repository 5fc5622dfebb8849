"""Polygons to pixels: the one rasterisation rule of the OCR masks (no detector needed).

Pixel ``(row, col)`` has its centre at ``(x, y) = (col, row)`` (the coordinates detectors
report) and belongs to a polygon when that centre lies inside it or on its outline, tested
exactly (a scanline fill, not Pillow's or OpenCV's approximate drawing). All polygons of an
image are filled into one boolean H x W mask (their union); overlapping regions count once.
:mod:`~transcreval.engines.ocr.masks` (text and background masks) and
:mod:`~transcreval.engines.ocr.flat` (regions with no texture) both use it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from transcreval.errors import InputError

__all__ = ["polygons_to_mask"]

_EPS = 1e-9


def _fill_polygon(mask: np.ndarray, poly: np.ndarray) -> None:
    """Set every pixel of ``mask`` whose centre lies in the closed polygon ``poly`` (K x 2, float64).

    Scanline fill with the even-odd rule: for each pixel row ``y`` the crossings of the edges
    with ``min(y0, y1) <= y < max(y0, y1)`` are sorted and paired into closed spans; vertices
    and horizontal edges lying on a row add their own spans, so the outline is included.
    """
    h, w = mask.shape
    x0, y0 = poly[:, 0], poly[:, 1]
    x1, y1 = np.roll(x0, -1), np.roll(y0, -1)
    top, bottom = max(0, int(np.ceil(y0.min() - _EPS))), min(h - 1, int(np.floor(y0.max() + _EPS)))
    if top > bottom or x0.max() < -_EPS or x0.min() > w - 1 + _EPS:
        return
    rows = np.arange(top, bottom + 1, dtype=np.float64)
    lo, hi = np.minimum(y0, y1), np.maximum(y0, y1)
    slanted = hi > lo
    spans: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    if slanted.any():
        ex0, ey0, ex1, ey1 = x0[slanted], y0[slanted], x1[slanted], y1[slanted]
        elo, ehi = lo[slanted], hi[slanted]
        hit = (elo[:, None] <= rows[None, :]) & (rows[None, :] < ehi[:, None])
        xs = ex0[:, None] + (rows[None, :] - ey0[:, None]) * ((ex1 - ex0) / (ey1 - ey0))[:, None]
        e_idx, r_idx = np.nonzero(hit)
        if e_idx.size:
            cx = xs[e_idx, r_idx]
            order = np.lexsort((cx, r_idx))
            r_sorted, x_sorted = r_idx[order], cx[order]
            # every row has an even number of crossings (a closed polygon), so pairs share a row
            spans.append((r_sorted[0::2], x_sorted[0::2], x_sorted[1::2]))
    # vertices and horizontal edges on a pixel row (the outline where no crossing is counted)
    on_row = np.abs(y0 - np.round(y0)) <= _EPS
    flat = on_row & (np.abs(y1 - y0) <= _EPS)
    pts_r = np.round(y0[on_row]).astype(np.int64) - top
    spans.append((pts_r, x0[on_row], x0[on_row]))
    spans.append((np.round(y0[flat]).astype(np.int64) - top, np.minimum(x0, x1)[flat], np.maximum(x0, x1)[flat]))
    for r, xa, xb in spans:
        keep = (r >= 0) & (r <= bottom - top)
        start = np.clip(np.ceil(xa[keep] - _EPS), 0, w).astype(np.int64)
        stop = np.clip(np.floor(xb[keep] + _EPS) + 1, 0, w).astype(np.int64)
        for ri, a, b in zip(r[keep] + top, start, stop):
            if b > a:
                mask[ri, a:b] = True


def polygons_to_mask(polygons: Sequence[Any], size: tuple[int, int]) -> np.ndarray:
    """Fill every polygon into one boolean mask of ``size = (height, width)`` (their union).

    Pixel ``(row, col)`` has its centre at ``(x, y) = (col, row)``, the coordinates detectors
    report; it is text when its centre lies inside the polygon or on its outline (even-odd rule
    for self-intersecting polygons). So the box from (x0, y0) to (x1, y1) covers
    ``(x1 - x0 + 1) * (y1 - y0 + 1)`` pixels when its corners are whole numbers.

    Args:
        polygons: ``(K, 2)`` arrays (K >= 3) of ``(x, y)`` pixel coordinates; an ``(N, K, 2)``
            array also works. Polygons partly or wholly outside the image are clipped.
        size: ``(height, width)`` of the mask.
    """
    h, w = int(size[0]), int(size[1])
    if h <= 0 or w <= 0:
        raise InputError(f"mask size must be positive (height, width), got {size}")
    mask = np.zeros((h, w), dtype=bool)
    for i, p in enumerate(polygons):
        a = np.asarray(p, dtype=np.float64)
        if a.ndim != 2 or a.shape[1] != 2 or a.shape[0] < 3:
            raise InputError(f"polygon {i}: expected a (K, 2) array of points with K >= 3, got shape {a.shape}")
        if not np.isfinite(a).all():
            raise InputError(f"polygon {i}: non-finite coordinates")
        _fill_polygon(mask, a)
    return mask
