"""LPIPS (transcreval.image.lpips): agreement with the lpips package on the same (random, seeded)
weights, any input form, gradients, the harness (class == function == reference, 1/2/4
processes), batching, bad input. The masked metrics: tests/image/test_masked_lpips.py."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

from tests._helpers import random_weights as rw
from tests._helpers.lpips_refs import NETS, build_weights, masks, pairs, ref_lpips
from tests._helpers.tester import MetricCase, check_metric, join_lists, partial
from transcreval import LPIPS, MaskedLPIPS
from transcreval.functional import (
    lpips,
    lpips_per_pair,
)


@pytest.fixture(scope="module")
def weights(tmp_path_factory):
    """Per net: (lpips-layout file with trunk + linear layers, the reference lpips.LPIPS, trunk, linear layers)."""
    return build_weights(tmp_path_factory.mktemp("lpips"))


# --------------------------------------------------------------------------- agreement
@pytest.mark.parametrize("net", NETS)
@pytest.mark.parametrize("size", [(48, 48), (64, 37), (31, 90)])
def test_lpips_agrees_with_the_lpips_package_per_pair(weights, net, size):
    path, ref, _, _ = weights[net]
    a, b = pairs(5, *size, seed=sum(size))
    b[0] = a[0]  # an identical pair
    a[1], b[1] = 0.0, 1.0  # constant images
    ours = lpips_per_pair(a, b, net=net, weights=path).double()
    theirs = ref_lpips(ref, a, b)
    assert torch.allclose(ours, theirs, rtol=0, atol=1e-5), (ours - theirs).abs().max()
    assert ours[0] == 0


def test_vgg_agrees_with_the_lpips_package(tmp_path):
    feats = rw.features_only(rw.trunk_state("vgg", seed=7))
    lins = rw.lin_state("vgg", seed=8)
    path = tmp_path / "vgg.pth"
    torch.save(rw.lpips_layout_state("vgg", feats, lins), path)
    a, b = pairs(3, 40, 52, seed=5)
    ours = lpips_per_pair(a, b, net="vgg", weights=path).double()
    assert torch.allclose(ours, ref_lpips(rw.reference_lpips("vgg", feats, lins), a, b), rtol=0, atol=1e-5)


def test_inputs_in_any_form_give_the_same_value(weights):
    from PIL import Image

    path, ref, _, _ = weights["alex"]
    g = torch.Generator().manual_seed(9)
    a8 = torch.randint(0, 256, (2, 3, 40, 40), dtype=torch.uint8, generator=g)
    b8 = torch.randint(0, 256, (2, 3, 40, 40), dtype=torch.uint8, generator=g)
    want = ref_lpips(ref, a8.float() / 255, b8.float() / 255)
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
    a1, b1 = pairs(1, 40, 40, seed=1)
    a2, b2 = pairs(1, 56, 33, seed=2)
    got = lpips_per_pair([a1[0], a2[0]], [b1[0], b2[0]], weights=path).double()
    want = torch.cat([ref_lpips(ref, a1, b1), ref_lpips(ref, a2, b2)])
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
    a, b = pairs(2, 40, 40, seed=4)
    for other in (b, a.clone(), torch.zeros_like(a)):  # different, identical, constant
        x = a.clone().requires_grad_(True)
        d = lpips_per_pair(x, other, net="squeeze", weights=path)
        d.sum().backward()
        assert x.grad is not None and bool(torch.isfinite(x.grad).all())


# --------------------------------------------------------------------------- the harness
def _case(weights, net):
    path, ref, _, _ = weights[net]
    sizes = (3, 3, 2)
    batches = []
    for i, n in enumerate(sizes):
        a, b = pairs(n, 44, 40, seed=10 + i)
        batches.append((a, b))
    return MetricCase(
        factory=partial(LPIPS, net=net, weights=path, version="0.1"),  # version: the worker processes
        # have not declared these random layers (lin_state does that in this one)
        functional=partial(lpips, net=net, weights=path, version="0.1"),
        reference=lambda a, b: float(ref_lpips(ref, a, b).mean()),
        batches=batches,
        join=join_lists,
        atol=1e-6,
    )


@pytest.mark.ddp
@pytest.mark.parametrize("net", NETS)
def test_lpips_through_the_harness(weights, net, ddp_pool):
    check_metric(_case(weights, net), ddp_pool)


def test_values_do_not_depend_on_batching(weights):
    path = weights["alex"][0]
    a, b = pairs(6, 48, 48, seed=21)
    mask = masks(6, seed=21)
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


def test_bad_inputs_and_options(weights):
    from transcreval.errors import InputError

    path = weights["alex"][0]
    a, b = pairs(2, 48, 48)
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


def test_result_per_item_is_float64_and_mean_is_the_value(weights):
    m = LPIPS(weights=weights["alex"][0])
    a, b = pairs(3, 40, 40)
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
