"""MaskedLPIPS, BackgroundPreservation (transcreval.image.masked_lpips): IMTBench Eq. 3 (area mode)
and the spatial-map mean (upsample mode) against the lpips package's pieces on the same (random,
seeded) weights, an all-ones mask is LPIPS, the harness (class == function == reference, 1/2/4
processes), mask forms, resizing, empty masks, low coverage, the signature."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from tests._helpers import random_weights as rw
from tests._helpers.lpips_refs import NETS, build_weights, masks, pairs, ref_lpips, ref_masked_area, ref_masked_upsample
from tests._helpers.tester import MetricCase, check_metric, join_lists, partial
from transcreval import BackgroundPreservation, MaskedLPIPS
from transcreval.functional import (
    background_preservation,
    background_preservation_per_pair,
    lpips_per_pair,
    masked_lpips,
    masked_lpips_per_pair,
)


@pytest.fixture(scope="module")
def weights(tmp_path_factory):
    """Per net: (lpips-layout file with trunk + linear layers, the reference lpips.LPIPS, trunk, linear layers)."""
    return build_weights(tmp_path_factory.mktemp("lpips"))


@pytest.mark.parametrize("net", NETS)
def test_all_ones_mask_is_lpips_and_upsample_mode_is_lpips_spatial_map(weights, net):
    path, ref, feats, lins = weights[net]
    a, b = pairs(4, 50, 44, seed=3)
    ones = torch.ones(4, 50, 44, dtype=torch.bool)
    plain = lpips_per_pair(a, b, net=net, weights=path)
    assert torch.allclose(masked_lpips_per_pair(a, b, ones, net=net, weights=path), plain, rtol=0, atol=1e-6)
    assert torch.allclose(plain.double(), ref_lpips(ref, a, b), rtol=0, atol=1e-6)
    mask = masks(4, 50, 44, seed=3)
    ours_area = masked_lpips_per_pair(a, b, mask, net=net, weights=path).double()
    assert torch.allclose(ours_area, ref_masked_area(ref, a, b, mask), rtol=0, atol=1e-6)
    spatial = rw.reference_lpips(net, feats, lins, spatial=True)
    ours_up = masked_lpips_per_pair(a, b, mask, net=net, weights=path, mode="upsample").double()
    assert torch.allclose(ours_up, ref_masked_upsample(spatial, a, b, mask), rtol=0, atol=1e-6)
    _, spatial_map = lpips_per_pair(a, b, net=net, weights=path, return_map=True)
    with torch.no_grad():
        assert torch.allclose(spatial_map, spatial(a, b, normalize=True), rtol=0, atol=1e-6)
    sbg = background_preservation_per_pair(a, b, mask, net=net, weights=path).double()
    assert torch.allclose(sbg, 1 - ref_masked_area(ref, a, b, mask), rtol=0, atol=1e-6)
    assert not torch.allclose(ours_area, plain.double(), atol=1e-4)  # the mask matters


# --------------------------------------------------------------------------- the harness
def _case(weights, net, kind, mode="area"):
    path, ref, feats, lins = weights[net]
    sizes = (3, 3, 2)
    batches = []
    for i, n in enumerate(sizes):
        a, b = pairs(n, 44, 40, seed=10 + i)
        batches.append((a, b, masks(n, 44, 40, seed=10 + i)))
    spatial = rw.reference_lpips(net, feats, lins, spatial=True)
    if mode == "area":
        ref_masked = lambda a, b, m: ref_masked_area(ref, a, b, m)  # noqa: E731
    else:
        ref_masked = lambda a, b, m: ref_masked_upsample(spatial, a, b, m)  # noqa: E731
    if kind == "masked":
        cls, fn, sign = MaskedLPIPS, masked_lpips, 1.0
    else:
        cls, fn, sign = BackgroundPreservation, background_preservation, -1.0
    offset = 0.0 if kind == "masked" else 1.0
    return MetricCase(
        factory=partial(cls, net=net, weights=path, mode=mode, version="0.1"),
        functional=partial(fn, net=net, weights=path, mode=mode, version="0.1"),
        reference=lambda a, b, m: float((offset + sign * ref_masked(a, b, m)).mean()),
        batches=batches,
        join=join_lists,
        atol=1e-6,
        extras_keys=("mean_coverage", "low_coverage", "min_coverage"),
    )


@pytest.mark.ddp
@pytest.mark.parametrize("mode", ["area", "upsample"])
def test_masked_lpips_through_the_harness(weights, mode, ddp_pool):
    check_metric(_case(weights, "alex", "masked", mode), ddp_pool)


@pytest.mark.ddp
def test_background_preservation_through_the_harness(weights, ddp_pool):
    check_metric(_case(weights, "squeeze", "sbg"), ddp_pool)


# --------------------------------------------------------------------------- masks
def test_mask_forms_and_resizing(weights):
    path = weights["alex"][0]
    a, b = pairs(3, 48, 48, seed=30)
    mask = masks(3, seed=30)
    want = masked_lpips_per_pair(a, b, mask, weights=path)
    for form in (mask[:, None], mask.int(), mask.float(), mask.numpy(), list(mask), [m.numpy() for m in mask]):
        assert torch.equal(masked_lpips_per_pair(a, b, form, weights=path), want)
    one = mask[0]
    assert torch.equal(
        masked_lpips_per_pair(a, b, one, weights=path), masked_lpips_per_pair(a, b, one.expand(3, 48, 48), weights=path)
    )
    small = mask[:, ::2, ::2]  # 24x24: resized by area majority, and said so
    with pytest.warns(UserWarning, match="area majority"):
        got = masked_lpips_per_pair(a, b, small, weights=path)
    # enlarging by a whole factor, area majority is nearest-neighbour sampling
    nearest = F.interpolate(small[:, None].float(), size=(48, 48), mode="nearest")[:, 0] > 0
    assert torch.equal(got, masked_lpips_per_pair(a, b, nearest, weights=path))


@pytest.mark.parametrize(
    ("mask", "match"),
    [
        (torch.full((2, 48, 48), 0.5), r"0 or 1 .*found \[0\.5"),
        (torch.ones(3, 48, 48), r"shape \(3, 48, 48\) holds 3 masks, for 2 image pairs"),
        (torch.ones(2, 2, 48, 48), "HxW, NxHxW or Nx1xHxW"),
        ("background", "bool or"),
        (torch.ones(2, 48, 48, dtype=torch.complex64), "not bool, integer or float"),
    ],
)
def test_bad_masks_are_input_errors(weights, mask, match):
    from transcreval.errors import InputError

    a, b = pairs(2, 48, 48)
    with pytest.raises(InputError, match=match):
        masked_lpips_per_pair(a, b, mask, weights=weights["alex"][0])


def test_an_empty_mask_is_an_input_error_naming_the_pair(weights):
    from transcreval.errors import InputError

    a, b = pairs(3, 48, 48)
    mask = masks(3)
    mask[1] = False
    m = MaskedLPIPS(weights=weights["alex"][0])
    with pytest.raises(InputError, match="mask of pair 1 is all zero"):
        m.update(a, b, mask)
    assert m.update_count == 0  # nothing accumulated


def test_low_coverage_is_reported(weights):
    a, b = pairs(3, 48, 48)
    mask = torch.zeros(3, 48, 48, dtype=torch.bool)
    mask[0] = True
    mask[1, :10, :10] = True  # 100 / 2304 = 4.3% < 5%
    mask[2, :20, :20] = True  # 17%
    m = BackgroundPreservation(weights=weights["alex"][0])
    res = m.forward(a, b, mask)
    assert res.extras["low_coverage"] == 1 and res.extras["min_coverage"] == 0.05
    assert res.extras["mean_coverage"] == pytest.approx((1 + 100 / 2304 + 400 / 2304) / 3)
    assert res.per_item.tolist() == pytest.approx(
        (1 - masked_lpips_per_pair(a, b, mask, weights=weights["alex"][0])).tolist()
    )


def test_signature_names_the_weights(weights):
    m = MaskedLPIPS(net="squeeze", weights=weights["squeeze"][0], mode="upsample")
    a, b = pairs(2, 40, 40)
    s = str(m.forward(a, b, torch.ones(40, 40)))
    assert s.startswith("MaskedLPIPS|net:squeeze|trunk:") and "|lin:" in s and "|mode:upsample|" in s
