"""LPIPS, MaskedLPIPS, BackgroundPreservation: agreement with the lpips package on the same
(random, seeded) weights, the harness (class == function == reference, 1/2/4 processes), masks."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from tests._helpers import random_weights as rw
from tests._helpers.tester import MetricCase, check_metric, join_lists, partial
from transcreval import LPIPS, BackgroundPreservation, MaskedLPIPS
from transcreval.functional import (
    background_preservation,
    background_preservation_per_pair,
    lpips,
    lpips_per_pair,
    masked_lpips,
    masked_lpips_per_pair,
)

NETS = ("alex", "squeeze")


@pytest.fixture(scope="module")
def weights(tmp_path_factory):
    """Per net: (lpips-layout file with trunk + linear layers, the reference lpips.LPIPS)."""
    out = {}
    d = tmp_path_factory.mktemp("lpips")
    for net, seed in (("alex", 1), ("squeeze", 2)):
        feats = rw.features_only(rw.trunk_state(net, seed=seed))
        lins = rw.lin_state(net, seed=seed + 10)
        path = d / f"lpips_{net}.pth"
        torch.save(rw.lpips_layout_state(net, feats, lins), path)
        out[net] = (str(path), rw.reference_lpips(net, feats, lins), feats, lins)
    return out


def _pairs(n, h=48, w=48, seed=0):
    g = torch.Generator().manual_seed(seed)
    a = torch.rand(n, 3, h, w, generator=g)
    b = (a + 0.25 * torch.randn(n, 3, h, w, generator=g)).clamp(0, 1)
    return a, b


def _masks(n, h=48, w=48, seed=0):
    g = torch.Generator().manual_seed(seed + 100)
    m = torch.rand(n, h, w, generator=g) > 0.35
    m[:, 0, 0] = True  # never empty
    return m


def _ref_lpips(ref, a, b):
    with torch.no_grad():
        return ref(a, b, normalize=True).flatten().double()


def _ref_layer_maps(ref, a, b):
    """Per-layer distance maps written out from lpips' own pieces (net, normalize_tensor, lins)."""
    import lpips as lp

    with torch.no_grad():
        fa, fb = ref.net(ref.scaling_layer(2 * a - 1)), ref.net(ref.scaling_layer(2 * b - 1))
        return [
            ref.lins[k]((lp.normalize_tensor(x) - lp.normalize_tensor(y)) ** 2) for k, (x, y) in enumerate(zip(fa, fb))
        ]


def _ref_masked_area(ref, a, b, mask):
    """IMTBench Eq. 3: the mask averaged over each layer's cells (adaptive average pooling), then
    sum(m s) / sum(m) per layer, summed over layers."""
    m = mask.float()[:, None]
    total = 0
    for s in _ref_layer_maps(ref, a, b):
        ml = F.adaptive_avg_pool2d(m, s.shape[-2:])
        total = total + (ml * s).sum((2, 3)) / ml.sum((2, 3))
    return total.flatten().double()


def _ref_masked_upsample(ref_spatial, a, b, mask):
    with torch.no_grad():
        sp = ref_spatial(a, b, normalize=True)
    m = mask.float()[:, None]
    return ((sp * m).sum((2, 3)) / m.sum((2, 3))).flatten().double()


# --------------------------------------------------------------------------- agreement
@pytest.mark.parametrize("net", NETS)
@pytest.mark.parametrize("size", [(48, 48), (64, 37), (31, 90)])
def test_lpips_agrees_with_the_lpips_package_per_pair(weights, net, size):
    path, ref, _, _ = weights[net]
    a, b = _pairs(5, *size, seed=sum(size))
    b[0] = a[0]  # an identical pair
    a[1], b[1] = 0.0, 1.0  # constant images
    ours = lpips_per_pair(a, b, net=net, weights=path).double()
    theirs = _ref_lpips(ref, a, b)
    assert torch.allclose(ours, theirs, rtol=0, atol=1e-5), (ours - theirs).abs().max()
    assert ours[0] == 0


def test_vgg_agrees_with_the_lpips_package(tmp_path):
    feats = rw.features_only(rw.trunk_state("vgg", seed=7))
    lins = rw.lin_state("vgg", seed=8)
    path = tmp_path / "vgg.pth"
    torch.save(rw.lpips_layout_state("vgg", feats, lins), path)
    a, b = _pairs(3, 40, 52, seed=5)
    ours = lpips_per_pair(a, b, net="vgg", weights=path).double()
    assert torch.allclose(ours, _ref_lpips(rw.reference_lpips("vgg", feats, lins), a, b), rtol=0, atol=1e-5)


@pytest.mark.parametrize("net", NETS)
def test_all_ones_mask_is_lpips_and_upsample_mode_is_lpips_spatial_map(weights, net):
    path, ref, feats, lins = weights[net]
    a, b = _pairs(4, 50, 44, seed=3)
    ones = torch.ones(4, 50, 44, dtype=torch.bool)
    plain = lpips_per_pair(a, b, net=net, weights=path)
    assert torch.allclose(masked_lpips_per_pair(a, b, ones, net=net, weights=path), plain, rtol=0, atol=1e-6)
    assert torch.allclose(plain.double(), _ref_lpips(ref, a, b), rtol=0, atol=1e-6)
    mask = _masks(4, 50, 44, seed=3)
    ours_area = masked_lpips_per_pair(a, b, mask, net=net, weights=path).double()
    assert torch.allclose(ours_area, _ref_masked_area(ref, a, b, mask), rtol=0, atol=1e-6)
    spatial = rw.reference_lpips(net, feats, lins, spatial=True)
    ours_up = masked_lpips_per_pair(a, b, mask, net=net, weights=path, mode="upsample").double()
    assert torch.allclose(ours_up, _ref_masked_upsample(spatial, a, b, mask), rtol=0, atol=1e-6)
    _, spatial_map = lpips_per_pair(a, b, net=net, weights=path, return_map=True)
    with torch.no_grad():
        assert torch.allclose(spatial_map, spatial(a, b, normalize=True), rtol=0, atol=1e-6)
    sbg = background_preservation_per_pair(a, b, mask, net=net, weights=path).double()
    assert torch.allclose(sbg, 1 - _ref_masked_area(ref, a, b, mask), rtol=0, atol=1e-6)
    assert not torch.allclose(ours_area, plain.double(), atol=1e-4)  # the mask matters


def test_inputs_in_any_form_give_the_same_value(weights):
    from PIL import Image

    path, ref, _, _ = weights["alex"]
    g = torch.Generator().manual_seed(9)
    a8 = torch.randint(0, 256, (2, 3, 40, 40), dtype=torch.uint8, generator=g)
    b8 = torch.randint(0, 256, (2, 3, 40, 40), dtype=torch.uint8, generator=g)
    want = _ref_lpips(ref, a8.float() / 255, b8.float() / 255)
    pil = (
        [Image.fromarray(x.permute(1, 2, 0).numpy()) for x in a8],
        [Image.fromarray(x.permute(1, 2, 0).numpy()) for x in b8],
    )
    for got in (
        lpips_per_pair(a8, b8, weights=path),
        lpips_per_pair(*pil, weights=path),
        lpips_per_pair(a8.numpy().transpose(0, 2, 3, 1), b8.numpy().transpose(0, 2, 3, 1), weights=path),
        lpips_per_pair(a8.float() / 127.5 - 1, b8.float() / 127.5 - 1, weights=path, input_range=(-1, 1)),
    ):
        assert torch.allclose(got.double(), want, rtol=0, atol=1e-5)


def test_pairs_of_different_sizes_in_one_batch(weights):
    path, ref, _, _ = weights["alex"]
    a1, b1 = _pairs(1, 40, 40, seed=1)
    a2, b2 = _pairs(1, 56, 33, seed=2)
    got = lpips_per_pair([a1[0], a2[0]], [b1[0], b2[0]], weights=path).double()
    want = torch.cat([_ref_lpips(ref, a1, b1), _ref_lpips(ref, a2, b2)])
    assert torch.allclose(got, want, rtol=0, atol=1e-5)


def test_gradients_are_finite_where_lpips_normalisation_is_not():
    import lpips as lp

    from transcreval.functional.image.lpips import normalize_channels

    x = torch.zeros(1, 4, 2, 2)
    x[..., 0, 0] = torch.tensor([0.5, 0.0, 1.0, 2.0])
    for fn, finite in ((normalize_channels, True), (lp.normalize_tensor, False)):
        t = x.clone().requires_grad_(True)
        (fn(t) * torch.arange(4.0).view(1, 4, 1, 1)).sum().backward()
        assert bool(torch.isfinite(t.grad).all()) is finite, fn


def test_lpips_is_differentiable_with_finite_gradients(weights):
    path = weights["squeeze"][0]
    a, b = _pairs(2, 40, 40, seed=4)
    for other in (b, a.clone(), torch.zeros_like(a)):  # different, identical, constant
        x = a.clone().requires_grad_(True)
        d = lpips_per_pair(x, other, net="squeeze", weights=path)
        d.sum().backward()
        assert x.grad is not None and bool(torch.isfinite(x.grad).all())


# --------------------------------------------------------------------------- the harness
def _case(weights, net, kind, mode="area"):
    path, ref, feats, lins = weights[net]
    sizes = (3, 3, 2)
    batches = []
    for i, n in enumerate(sizes):
        a, b = _pairs(n, 44, 40, seed=10 + i)
        batches.append((a, b) if kind == "lpips" else (a, b, _masks(n, 44, 40, seed=10 + i)))
    if kind == "lpips":
        return MetricCase(
            factory=partial(LPIPS, net=net, weights=path, version="0.1"),  # version: the worker processes
            # have not declared these random layers (lin_state does that in this one)
            functional=partial(lpips, net=net, weights=path, version="0.1"),
            reference=lambda a, b: float(_ref_lpips(ref, a, b).mean()),
            batches=batches,
            join=join_lists,
            atol=1e-6,
        )
    spatial = rw.reference_lpips(net, feats, lins, spatial=True)
    if mode == "area":
        ref_masked = lambda a, b, m: _ref_masked_area(ref, a, b, m)  # noqa: E731
    else:
        ref_masked = lambda a, b, m: _ref_masked_upsample(spatial, a, b, m)  # noqa: E731
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
@pytest.mark.parametrize("net", NETS)
def test_lpips_through_the_harness(weights, net, ddp_pool):
    check_metric(_case(weights, net, "lpips"), ddp_pool)


@pytest.mark.ddp
@pytest.mark.parametrize("mode", ["area", "upsample"])
def test_masked_lpips_through_the_harness(weights, mode, ddp_pool):
    check_metric(_case(weights, "alex", "masked", mode), ddp_pool)


@pytest.mark.ddp
def test_background_preservation_through_the_harness(weights, ddp_pool):
    check_metric(_case(weights, "squeeze", "sbg"), ddp_pool)


def test_values_do_not_depend_on_batching(weights):
    path = weights["alex"][0]
    a, b = _pairs(6, 48, 48, seed=21)
    mask = _masks(6, seed=21)
    whole = MaskedLPIPS(weights=path)
    whole.update(a, b, mask)
    ones = MaskedLPIPS(weights=path)
    for i in range(6):
        ones.update(a[i : i + 1], b[i : i + 1], mask[i : i + 1])
    assert torch.equal(whole.compute().per_item, ones.compute().per_item)
    chunked = LPIPS(weights=path, batch_size=4)
    chunked.update(a, b)
    plain = LPIPS(weights=path)
    plain.update(a, b)
    assert torch.equal(chunked.compute().per_item, plain.compute().per_item)


# --------------------------------------------------------------------------- masks
def test_mask_forms_and_resizing(weights):
    path = weights["alex"][0]
    a, b = _pairs(3, 48, 48, seed=30)
    mask = _masks(3, seed=30)
    want = masked_lpips_per_pair(a, b, mask, weights=path)
    for form in (mask[:, None], mask.int(), mask.float(), mask.numpy(), list(mask), [m.numpy() for m in mask]):
        assert torch.equal(masked_lpips_per_pair(a, b, form, weights=path), want)
    one = mask[0]
    assert torch.equal(
        masked_lpips_per_pair(a, b, one, weights=path), masked_lpips_per_pair(a, b, one.expand(3, 48, 48), weights=path)
    )
    small = mask[:, ::2, ::2]  # 24x24: resized by area majority (issue 15 item 15), and said so
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

    a, b = _pairs(2, 48, 48)
    with pytest.raises(InputError, match=match):
        masked_lpips_per_pair(a, b, mask, weights=weights["alex"][0])


def test_an_empty_mask_is_an_input_error_naming_the_pair(weights):
    from transcreval.errors import InputError

    a, b = _pairs(3, 48, 48)
    mask = _masks(3)
    mask[1] = False
    m = MaskedLPIPS(weights=weights["alex"][0])
    with pytest.raises(InputError, match="mask of pair 1 is all zero"):
        m.update(a, b, mask)
    assert m.update_count == 0  # nothing accumulated


def test_low_coverage_is_reported(weights):
    a, b = _pairs(3, 48, 48)
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


def test_bad_inputs_and_options(weights):
    from transcreval.errors import InputError

    path = weights["alex"][0]
    a, b = _pairs(2, 48, 48)
    for call, match in (
        (lambda: lpips_per_pair(a, b[:, :, :40], weights=path), "same shape"),
        (lambda: lpips_per_pair(a[:1], b, weights=path), "1 preds for 2 targets"),
        (lambda: lpips_per_pair(a[..., :30, :30], b[..., :30, :30], weights=path), "at least 31x31"),
        (lambda: lpips_per_pair(a * 2, b, weights=path), "input_range"),
        (lambda: lpips_per_pair(a, b, weights=path, net="resnet"), "net must be one of"),
        (lambda: lpips_per_pair(a, b, weights=path, batch_size=0), "batch_size"),
        (lambda: MaskedLPIPS(weights=path, mode="bilinear"), "mode must be"),
        (lambda: MaskedLPIPS(weights=path, min_coverage=2), "min_coverage"),
        (lambda: LPIPS(weights=path, input_range=(1, 0)), "low < high"),
        (lambda: LPIPS(weights=path, feature_cache=3), "feature_cache"),
    ):
        with pytest.raises(InputError, match=match):
            call()


def test_signature_names_the_weights(weights):
    m = MaskedLPIPS(net="squeeze", weights=weights["squeeze"][0], mode="upsample")
    a, b = _pairs(2, 40, 40)
    s = str(m.forward(a, b, torch.ones(40, 40)))
    assert s.startswith("MaskedLPIPS|net:squeeze|trunk:") and "|lin:" in s and "|mode:upsample|" in s


def test_result_per_item_is_float64_and_mean_is_the_value(weights):
    m = LPIPS(weights=weights["alex"][0])
    a, b = _pairs(3, 40, 40)
    r = m.forward(a, b)
    assert r.per_item.dtype == torch.float64 and r.value == pytest.approx(float(r.per_item.mean()), abs=1e-15)
    assert np.isfinite(r.value) and r.n == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.forward(a, b)  # no warnings on the ordinary path


def test_the_batched_conversion_equals_io():
    from transcreval.functional.image.pairs import as_image_batch
    from transcreval.io import to_rgb_float

    g = torch.Generator().manual_seed(3)
    x = torch.rand(3, 3, 40, 41, generator=g)
    for raw, rng in (
        (x, None),
        (x.double(), None),
        (x.half(), None),
        (x * 2 - 1, (-1, 1)),
        ((x * 255).double(), (0, 255)),
        (x.permute(0, 1, 3, 2), None),  # a non-contiguous view
    ):
        got, want = as_image_batch(raw, rng, "preds"), to_rgb_float(raw, input_range=rng)
        assert got.dtype == torch.float32 and torch.equal(got, want)
    from transcreval.errors import InputError

    for bad, match in ((x * 2, "input_range"), (x.masked_fill(x > 0.9, float("nan")), "NaN")):
        with pytest.raises(InputError, match=match):
            as_image_batch(bad, None, "preds")
