"""Polygon rasterisation, dilation and mask IoU counts (pure pieces, no detector)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import ndimage

from transcreval.engines.ocr.masks import dilate_mask, mask_iou_counts, polygons_to_mask, scale_polygons
from transcreval.errors import InputError


def _shapely_mask(poly: np.ndarray, h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Reference: pixel centres (col, row) in the closed polygon by shapely's exact predicates,
    and the centres within 1e-7 px of the outline (where float rounding may go either way)."""
    import shapely

    pg = shapely.Polygon(poly)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    inside = shapely.intersects_xy(pg, xx.ravel(), yy.ravel()).reshape(h, w)
    dist = shapely.distance(pg.exterior, shapely.points(xx.ravel(), yy.ravel())).reshape(h, w)
    return inside, dist < 1e-7


def test_axis_aligned_box_covers_its_outline_inclusive():
    m = polygons_to_mask([np.array([[2, 3], [9, 3], [9, 7], [2, 7]])], (12, 14))
    assert m.dtype == bool and m.shape == (12, 14)
    assert m.sum() == (9 - 2 + 1) * (7 - 3 + 1)
    assert m[3:8, 2:10].all()


@given(
    cx=st.floats(-10, 70),
    cy=st.floats(-10, 60),
    half_w=st.floats(0.3, 30),
    half_h=st.floats(0.3, 15),
    angle=st.floats(-90, 90),
    snap=st.booleans(),
)
def test_rotated_boxes_agree_with_shapely(cx, cy, half_w, half_h, angle, snap):
    t = np.deg2rad(angle)
    c, s = np.cos(t), np.sin(t)
    corners = np.array([[-half_w, -half_h], [half_w, -half_h], [half_w, half_h], [-half_w, half_h]])
    poly = np.stack([cx + corners[:, 0] * c - corners[:, 1] * s, cy + corners[:, 0] * s + corners[:, 1] * c], 1)
    if snap:  # integer corners put pixel centres exactly on the outline
        poly = np.round(poly)
    m = polygons_to_mask([poly], (50, 60))
    want, edge = _shapely_mask(poly, 50, 60)
    assert np.array_equal(m & ~edge, want & ~edge)
    if snap and angle in (0.0, 90.0, -90.0):
        # on the lattice, axis-aligned outlines are exact: shapely and we agree everywhere
        assert np.array_equal(m, want)


@given(st.lists(st.tuples(st.integers(-5, 45), st.integers(-5, 35)), min_size=3, max_size=8))
def test_any_integer_polygon_agrees_with_shapely_even_odd(points):
    import shapely

    poly = np.array(points, dtype=np.float64)
    pg = shapely.Polygon(poly)
    if not pg.is_valid or pg.area == 0:
        return  # self-intersecting rings: shapely has no even-odd answer to compare with
    m = polygons_to_mask([poly], (30, 40))
    want, _ = _shapely_mask(poly, 30, 40)
    assert np.array_equal(m, want)


def test_union_counts_overlap_once_and_clips_to_the_image():
    a = np.array([[0, 0], [9, 0], [9, 9], [0, 9]])
    b = a + 5
    m = polygons_to_mask([a, b], (20, 20))
    assert m.sum() == 100 + 100 - 25
    partly_out = polygons_to_mask([np.array([[-5, -5], [4, -5], [4, 4], [-5, 4]])], (10, 10))
    assert partly_out.sum() == 25
    assert not polygons_to_mask([np.array([[30, 30], [40, 30], [40, 40]])], (10, 10)).any()
    assert not polygons_to_mask([], (4, 5)).any()
    stacked = polygons_to_mask(np.stack([a, b]), (20, 20))
    assert np.array_equal(stacked, m)


def test_bad_polygons_and_sizes_raise():
    with pytest.raises(InputError, match="K >= 3"):
        polygons_to_mask([np.array([[0, 0], [3, 3]])], (5, 5))
    with pytest.raises(InputError, match="non-finite"):
        polygons_to_mask([np.array([[0, 0], [3, np.nan], [3, 3]])], (5, 5))
    with pytest.raises(InputError, match="positive"):
        polygons_to_mask([], (0, 5))


def test_scale_polygons_maps_pixel_centres():
    box = np.array([[10, 20], [29, 20], [29, 39], [10, 39]], dtype=np.float32)
    (up,) = scale_polygons([box], (100, 100), (200, 300))
    np.testing.assert_allclose(up[0], [(10 + 0.5) * 3 - 0.5, (20 + 0.5) * 2 - 0.5])
    (back,) = scale_polygons([up], (200, 300), (100, 100))
    np.testing.assert_allclose(back, box, atol=1e-4)


def _disk(r: float) -> np.ndarray:
    k = int(np.ceil(r))
    yy, xx = np.mgrid[-k : k + 1, -k : k + 1]
    return xx**2 + yy**2 <= r * r


@pytest.mark.parametrize("radius", [0.5, 1, 2.5, 4, 9])
def test_dilation_equals_binary_dilation_with_a_disk(radius):
    rng = np.random.default_rng(int(radius * 10))
    m = np.zeros((60, 80), bool)
    m[rng.integers(0, 60, 12), rng.integers(0, 80, 12)] = True
    m[20:30, 30:50] = True
    want = ndimage.binary_dilation(m, structure=_disk(radius))
    assert np.array_equal(dilate_mask(m, radius), want)


def test_dilation_edge_cases():
    m = np.zeros((10, 10), bool)
    assert not dilate_mask(m, 3).any()
    m[0, 0] = True
    assert np.array_equal(dilate_mask(m, 0), m) and dilate_mask(m, 0) is not m
    assert dilate_mask(m, 2).sum() == int(_disk(2)[2:, 2:].sum())  # clipped at the corner
    with pytest.raises(InputError, match="dilate_px"):
        dilate_mask(m, -1)


def test_mask_iou_counts():
    a = np.zeros((4, 4), bool)
    b = np.zeros((4, 4), bool)
    a[:2] = True
    b[1:3] = True
    assert mask_iou_counts(a, b) == (4, 12)
    assert mask_iou_counts(a, a) == (8, 8)
    assert mask_iou_counts(np.zeros((3, 3), bool), np.zeros((3, 3), bool)) == (0, 0)
    with pytest.raises(InputError, match="shape"):
        mask_iou_counts(a, np.zeros((4, 5), bool))
