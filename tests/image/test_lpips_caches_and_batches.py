"""LPIPS family and feature cache, hardened (review 8): oversized and unusable caches, empty and
ambiguous batches, packages before weights, weights from a directory, warnings and messages,
masked spatial maps."""

from __future__ import annotations

import importlib.util
import sqlite3
import warnings

import numpy as np
import pytest
import torch

from tests._helpers import random_weights as rw
from transcreval import LPIPS, MaskedLPIPS
from transcreval.errors import (
    EmptyInputError,
    FeatureCacheError,
    InputError,
    MissingDependencyError,
    TranscrevalError,
    WeightsFormatError,
    WeightsNotFoundError,
)
from transcreval.features import FeatureCache, clear_extractors
from transcreval.functional import lpips_per_pair, masked_lpips_per_pair


@pytest.fixture
def env(monkeypatch, tmp_path):
    monkeypatch.delenv("TRANSCREVAL_WEIGHTS_DIR", raising=False)
    monkeypatch.setenv("TRANSCREVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))
    monkeypatch.setenv("TRANSCREVAL_OFFLINE", "1")
    yield tmp_path
    clear_extractors()


@pytest.fixture(scope="module")
def alex(tmp_path_factory):
    """(lpips-layout file, trunk features, linear layers) of a seeded random LPIPS-alex."""
    feats = rw.features_only(rw.trunk_state("alex", seed=41))
    lins = rw.lin_state("alex", seed=42)
    path = tmp_path_factory.mktemp("w") / "alex.pth"
    torch.save(rw.lpips_layout_state("alex", feats, lins), path)
    return path, feats, lins


def _pairs(n, h=40, w=40, seed=0):
    g = torch.Generator().manual_seed(seed)
    a = torch.rand(n, 3, h, w, generator=g)
    return a, (a + 0.2 * torch.randn(n, 3, h, w, generator=g)).clamp(0, 1)


def _ref(alex, a, b, **kw):
    _, feats, lins = alex
    with torch.no_grad():
        return rw.reference_lpips("alex", feats, lins, **kw)(a, b, normalize=True)


# --------------------------------------------------------------------------- item 1: oversized items
def test_items_over_sqlites_row_limit_are_computed_not_stored(env, alex):
    path = env / "f.sqlite"
    cache = FeatureCache(path)
    conn = cache.check()._conn()
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 300_000)  # SQLite's real limit, lowered (default ~1 GB)
    assert cache.max_row_bytes() < 300_000
    small, big = {"f": torch.zeros(1000)}, {"f": torch.zeros(100_000)}  # 4 KB, 400 KB
    with pytest.warns(UserWarning, match=r"features of 1 image\(s\) were not stored.*Downscale") as rec:
        cache.put_many({"s": small, "b": big})  # no sqlite3.DataError: the small one is kept
    assert all(w.filename == __file__ for w in rec)  # points at the caller
    assert list(cache.get_many(["s", "b"])) == ["s"] and cache.stats["skipped"] == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cache.put_many({"b2": {"f": torch.ones(100_000)}})  # one warning per cache object
    assert cache.stats["skipped"] == 2 and len(cache) == 1


def test_lpips_with_max_item_bytes_gives_the_same_values_and_stores_nothing(env, alex):
    a, b = _pairs(2, seed=1)
    want = lpips_per_pair(a, b, weights=alex[0])
    cache = FeatureCache(env / "f.sqlite", max_item_bytes=1000)  # far below one alex item (~62 KB)
    with pytest.warns(UserWarning, match="not stored"):
        got = lpips_per_pair(a, b, weights=alex[0], feature_cache=cache)
    assert torch.equal(got, want) and len(cache) == 0 and cache.stats["skipped"] == 2
    with pytest.raises(ValueError, match="max_item_bytes"):
        FeatureCache(env / "g.sqlite", max_item_bytes=0)


# --------------------------------------------------------------------------- item 2: unusable cache file
def test_a_cache_that_cannot_be_opened_is_an_error_naming_the_file(env, alex):
    blocker = env / "not-a-dir"
    blocker.write_text("a file where a directory should be")
    where = blocker / "features.sqlite"
    for make in (
        lambda: LPIPS(weights=alex[0], feature_cache=where),
        lambda: lpips_per_pair(*_pairs(1), weights=alex[0], feature_cache=str(where)),
    ):
        with pytest.raises(FeatureCacheError) as info:
            make()
        assert str(where) in str(info.value) and "TRANSCREVAL_CACHE" in str(info.value)
        assert isinstance(info.value, TranscrevalError) and isinstance(info.value, OSError)


def test_a_cache_failing_during_a_run_warns_and_keeps_the_features(env, alex, monkeypatch):
    a, b = _pairs(2, seed=2)
    want = lpips_per_pair(a, b, weights=alex[0])
    m = LPIPS(weights=alex[0], feature_cache=env / "f.sqlite")

    def broken(self):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(FeatureCache, "_conn", broken)  # the file goes bad after the metric was built
    with pytest.warns(UserWarning, match=r"f\.sqlite.*disk I/O error.*without the cache"):
        got = m.forward(a, b)
    assert torch.equal(got.per_item, want.double())


# --------------------------------------------------------------------------- items 3, 8: batch forms
def test_empty_batches_are_empty_input_errors(env, alex):
    a, b = _pairs(1)
    calls = {
        "lpips tensor": lambda: lpips_per_pair(a[:0], b[:0], weights=alex[0]),
        "lpips array": lambda: lpips_per_pair(a[:0].numpy(), b[:0].numpy(), weights=alex[0]),
        "LPIPS.update": lambda: LPIPS(weights=alex[0]).update(a[:0], b[:0]),
        "masked_lpips": lambda: masked_lpips_per_pair(
            a[:0], b[:0], torch.ones(40, 40, dtype=torch.bool), weights=alex[0]
        ),
    }
    for call in calls.values():
        with pytest.raises(EmptyInputError, match=r"empty batch of shape \(0, 3, 40, 40\)"):
            call()


@pytest.mark.parametrize("n", [2, 3, 4])
def test_a_single_3d_array_with_2_to_4_leading_planes_is_refused_as_ambiguous(env, alex, n):
    a, b = _pairs(n, seed=3)
    gray_a, gray_b = a[:, 0], b[:, 0]  # N x H x W: N grayscale images, or one image with N channels?
    for x, y in ((gray_a, gray_b), (gray_a.numpy(), gray_b.numpy())):
        with pytest.raises(InputError, match=r"ambiguous.*x\[:, None\]"):
            lpips_per_pair(x, y, weights=alex[0])
    # the unambiguous spellings work and agree with lpips on the grayscale images
    want = _ref(alex, a[:, :1].expand(-1, 3, -1, -1), b[:, :1].expand(-1, 3, -1, -1)).flatten()
    got = lpips_per_pair(gray_a[:, None], gray_b[:, None], weights=alex[0])
    assert torch.allclose(got, want, rtol=0, atol=1e-5)
    assert torch.allclose(lpips_per_pair(list(gray_a), list(gray_b), weights=alex[0]), want, rtol=0, atol=1e-5)


def test_unambiguous_single_images_still_work(env, alex):
    a, b = _pairs(1, seed=4)
    want = _ref(alex, a, b).flatten()
    hwc_a, hwc_b = a[0].permute(1, 2, 0).numpy(), b[0].permute(1, 2, 0).numpy()  # numpy H x W x 3
    assert torch.allclose(lpips_per_pair(hwc_a, hwc_b, weights=alex[0]), want, rtol=0, atol=1e-5)
    gray = _ref(alex, a[:, :1].expand(-1, 3, -1, -1), b[:, :1].expand(-1, 3, -1, -1)).flatten()
    assert torch.allclose(lpips_per_pair(a[0, :1], b[0, :1], weights=alex[0]), gray, rtol=0, atol=1e-5)  # 1 x H x W


# --------------------------------------------------------------------------- item 7: packages first
def test_a_missing_package_is_reported_before_missing_weights(env, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torchvision" else real(name, *a))
    with pytest.raises(MissingDependencyError, match=r"torchvision.*transcreval\[image\]"):
        LPIPS()  # no weights anywhere either: the package is what to fix first


# --------------------------------------------------------------------------- item 9: a directory
def test_weights_may_be_a_directory_of_manifest_files(env, alex):
    trunk = rw.trunk_state("alex", seed=43)
    lins = rw.lin_state("alex", seed=44)
    with rw.install(env / "w", {"torchvision-alexnet": trunk, "lpips-alex-lin-v0.1": lins}):
        via_dir = LPIPS(weights=str(env / "w"))
        via_map = LPIPS(weights={"torchvision-alexnet": env / "w", "lpips-alex-lin-v0.1": env / "w"})
        sig = via_dir.network.signature_options()
        assert sig == via_map.network.signature_options()
        assert [w.path for w in via_dir.network.extractor.weights] == [env / "w" / "alexnet-owt-7be5be79.pth"]
        a, b = _pairs(2, seed=5)
        want = _ref((None, rw.features_only(trunk), lins), a, b).flatten().double()
        assert torch.allclose(via_dir.forward(a, b).per_item, want, rtol=0, atol=1e-5)
    (env / "empty").mkdir()
    with pytest.raises(WeightsNotFoundError, match=r"holds none of its files.*--to"):
        LPIPS(weights=env / "empty")


# --------------------------------------------------------------------------- item 10: one warning per call
def test_the_mask_resize_warning_is_one_per_call_and_points_at_the_caller(env, alex):
    a, b = _pairs(5, 32, 32, seed=6)
    m = MaskedLPIPS(weights=alex[0])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        for _ in range(2):
            m.update(a, b, mask=torch.ones(16, 16, dtype=torch.bool))
    assert len(rec) == 2 and rec[0].message.args == rec[1].message.args  # same text: Python shows it once
    assert "5 of 5 masks differ in size" in str(rec[0].message)
    assert {w.filename for w in rec} == {__file__}


# --------------------------------------------------------------------------- item 11: messages
def test_nan_weights_are_a_weights_error(env, alex):
    _, feats, lins = alex
    bad = dict(lins)
    bad["lin1.model.1.weight"] = torch.full_like(bad["lin1.model.1.weight"], float("nan"))
    f = env / "nan-lin.pth"
    torch.save(rw.lpips_layout_state("alex", feats, bad), f)
    with pytest.raises(WeightsFormatError, match=r"NaN or infinite values \(lin1\)"):
        LPIPS(weights=f)
    feats_bad = {k: (v * float("inf") if i == 0 else v) for i, (k, v) in enumerate(feats.items())}
    torch.save(rw.lpips_layout_state("alex", feats_bad, lins), f)
    with pytest.raises(WeightsFormatError, match="NaN or infinite"):
        LPIPS(weights=f)


def test_channels_last_single_channel_masks_are_accepted(env, alex):
    a, b = _pairs(3, seed=7)
    g = torch.Generator().manual_seed(8)
    hw = (torch.rand(40, 40, generator=g) > 0.4).numpy()
    want = masked_lpips_per_pair(a, b, hw, weights=alex[0])
    assert torch.equal(masked_lpips_per_pair(a, b, hw[..., None], weights=alex[0]), want)  # H x W x 1 (image libraries)
    per = np.stack([hw] * 3)[..., None]  # N x H x W x 1
    assert torch.equal(masked_lpips_per_pair(a, b, per, weights=alex[0]), want)


def test_a_size_mismatch_in_a_list_names_the_pair(env, alex):
    a, b = _pairs(3, seed=9)
    bs = list(b)
    bs[2] = bs[2][:, :32]
    with pytest.raises(InputError, match=r"pair 2: preds and target must have the same shape"):
        lpips_per_pair(list(a), bs, weights=alex[0])


# --------------------------------------------------------------------------- item 13: masked maps
def test_masked_spatial_maps_agree_with_lpips_spatial_map_times_the_mask(env, alex):
    a, b = _pairs(3, 40, 48, seed=10)
    g = torch.Generator().manual_seed(11)
    mask = torch.rand(3, 40, 48, generator=g) > 0.5
    ref_map = _ref(alex, a, b, spatial=True)  # lpips.LPIPS(spatial=True): N x 1 x H x W
    values, maps = masked_lpips_per_pair(a, b, mask, weights=alex[0], return_map=True)
    assert torch.equal(values, masked_lpips_per_pair(a, b, mask, weights=alex[0]))
    assert torch.allclose(maps, ref_map * mask[:, None], rtol=0, atol=1e-6)
    m = MaskedLPIPS(weights=alex[0])
    assert torch.allclose(m.spatial_map(a, b, mask=mask), maps, rtol=0, atol=0)
    with pytest.raises(EmptyInputError):
        m.compute()  # pictures only: nothing was accumulated
    assert torch.allclose(LPIPS(weights=alex[0]).spatial_map(a, b), ref_map, rtol=0, atol=1e-6)


def test_maps_of_mixed_sizes_come_back_per_pair_in_order(env, alex):
    a1, b1 = _pairs(2, 40, 40, seed=12)
    a2, b2 = _pairs(1, 44, 52, seed=13)
    preds, target = [a1[0], a2[0], a1[1]], [b1[0], b2[0], b1[1]]  # sizes A, B, A
    _, maps = lpips_per_pair(preds, target, weights=alex[0], return_map=True)
    assert isinstance(maps, list) and [tuple(m.shape) for m in maps] == [(1, 40, 40), (1, 44, 52), (1, 40, 40)]
    for x, y, got in zip(preds, target, maps):
        assert torch.allclose(got, _ref(alex, x[None], y[None], spatial=True)[0], rtol=0, atol=1e-6)
    masks = [
        torch.ones(40, 40, dtype=torch.bool),
        torch.ones(44, 52, dtype=torch.bool),
        torch.ones(40, 40, dtype=torch.bool),
    ]
    _, mmaps = masked_lpips_per_pair(preds, target, masks, weights=alex[0], return_map=True)
    assert all(torch.allclose(p, q, rtol=0, atol=1e-6) for p, q in zip(mmaps, maps))
