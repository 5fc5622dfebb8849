"""LPIPS metrics: where their weights come from, the miss message, collection sharing, feature cache."""

from __future__ import annotations

import os

import pytest
import torch

from tests._helpers import random_weights as rw
from transcreval import LPIPS, BackgroundPreservation, MaskedLPIPS, MetricCollection
from transcreval.errors import WeightsFormatError, WeightsNotFoundError
from transcreval.features import FeatureCache, clear_extractors, get_extractor
from transcreval.functional import lpips_per_pair


@pytest.fixture
def env(monkeypatch, tmp_path):
    monkeypatch.delenv("TRANSCREVAL_WEIGHTS_DIR", raising=False)
    monkeypatch.setenv("TRANSCREVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))
    monkeypatch.setenv("TRANSCREVAL_OFFLINE", "1")
    yield tmp_path
    clear_extractors()


@pytest.fixture(scope="module")
def alex():
    feats = rw.features_only(rw.trunk_state("alex", seed=31))
    return rw.trunk_state("alex", seed=31), feats, rw.lin_state("alex", seed=32)


def _pairs(n, size=40, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(n, 3, size, size, generator=g), torch.rand(n, 3, size, size, generator=g)


@pytest.mark.parametrize("cls", [LPIPS, MaskedLPIPS, BackgroundPreservation])
def test_building_without_weights_says_where_it_looked_and_what_to_run(env, cls):
    with pytest.raises(WeightsNotFoundError) as info:
        cls()
    msg = str(info.value)
    assert "transcreval weights fetch torchvision-alexnet --to DIR" in msg
    assert str(env / "cache" / "weights" / "alexnet-owt-7be5be79.pth") in msg and "offline mode" in msg
    with pytest.raises(WeightsNotFoundError, match="torchvision-squeezenet1_1"):
        cls(net="squeeze")


def test_default_weights_come_through_the_resolver(env, monkeypatch, alex):
    """torchvision's trunk from TRANSCREVAL_WEIGHTS_DIR, the linear layers from the lpips wheel."""
    import lpips as lp

    trunk, feats, _ = alex
    with rw.install(env / "w", {"torchvision-alexnet": trunk}):
        monkeypatch.setenv("TRANSCREVAL_WEIGHTS_DIR", str(env / "w"))
        m = LPIPS()
        assert m.network.extractor.weights[0].source == "TRANSCREVAL_WEIGHTS_DIR"
        shipped = torch.load(
            os.path.join(os.path.dirname(lp.__file__), "weights", "v0.1", "alex.pth"), map_location="cpu"
        )
        ref = rw.reference_lpips("alex", feats, shipped)  # lpips' own trained linear layers
        a, b = _pairs(3)
        with torch.no_grad():
            want = ref(a, b, normalize=True).flatten().double()
        got = m.forward(a, b).per_item
        assert torch.allclose(got, want, rtol=0, atol=1e-5)


def test_weights_as_a_file_a_lin_only_file_a_mapping_or_a_name(env, monkeypatch, alex):
    trunk, feats, lins = alex
    full = env / "full.pth"
    torch.save(rw.lpips_layout_state("alex", feats, lins), full)
    a, b = _pairs(2, seed=3)
    want = lpips_per_pair(a, b, weights=full)
    ref = rw.reference_lpips("alex", feats, lins)
    with torch.no_grad():
        assert torch.allclose(want.double(), ref(a, b, normalize=True).flatten().double(), atol=1e-5)
    lin_only = env / "lin.pth"
    torch.save(lins, lin_only)
    tv = env / "tv.pth"
    torch.save(trunk, tv)
    with rw.install(env / "w", {"torchvision-alexnet": trunk}):
        monkeypatch.setenv("TRANSCREVAL_WEIGHTS_DIR", str(env / "w"))
        assert torch.allclose(lpips_per_pair(a, b, weights=lin_only), want, atol=1e-6)  # trunk from the resolver
    assert torch.allclose(
        lpips_per_pair(a, b, weights={"torchvision-alexnet": tv, "lpips-alex-lin-v0.1": lin_only}), want, atol=1e-6
    )
    # a manifest name whose file is in lpips' layout
    from transcreval.weights import WeightsEntry, register_weights, sha256_file, unregister_weights

    register_weights(
        WeightsEntry(
            name="my-lpips",
            filename="full.pth",
            sha256=sha256_file(full),
            size=full.stat().st_size,
            urls=(),
            licence="test",
        )
    )
    try:
        monkeypatch.setenv("TRANSCREVAL_WEIGHTS_DIR", str(env))
        assert torch.allclose(lpips_per_pair(a, b, weights="my-lpips"), want, atol=1e-6)
    finally:
        unregister_weights("my-lpips")
    with pytest.raises(WeightsNotFoundError, match="neither an existing file or directory nor a manifest name"):
        LPIPS(weights="no-such-file.pth")
    # torchvision's layout is not lpips': say so, and how to pass the file as the trunk
    with pytest.raises(WeightsFormatError, match=r"torchvision-layout trunk") as info:
        LPIPS(weights=tv)
    assert f"weights={{'torchvision-alexnet': {str(tv)!r}}}" in str(info.value)
    with pytest.raises(WeightsFormatError, match=r"the alex trunk alone.*weights=\{'torchvision-alexnet': path\}"):
        LPIPS(weights="torchvision-alexnet")  # the trunk's manifest name: not an lpips-layout file either
    torch.save({k: v for k, v in lins.items() if not k.startswith("lin4")}, env / "short.pth")
    with pytest.raises(WeightsFormatError, match=r"lin0\.\.lin4, found \[0, 1, 2, 3\]"):
        LPIPS(weights={"torchvision-alexnet": tv, "lpips-alex-lin-v0.1": env / "short.pth"})
    with pytest.raises(Exception, match="cannot override"):
        LPIPS(weights={"torchvision-vgg16": tv})


def test_a_collection_runs_the_trunk_once_per_input(env, alex):
    _, feats, lins = alex
    path = env / "full.pth"
    torch.save(rw.lpips_layout_state("alex", feats, lins), path)
    members = {
        "lpips": LPIPS(weights=path),
        "masked": MaskedLPIPS(weights=path),
        "sbg": BackgroundPreservation(weights=path),
    }
    alone = {k: type(m)(weights=path) for k, m in members.items()}
    col = MetricCollection(members)
    ex = members["lpips"].network.extractor
    a, b = _pairs(4, seed=5)
    mask = torch.rand(40, 40, generator=torch.Generator().manual_seed(5)) > 0.3
    ex.stats.reset()
    col.update(a, b, mask=mask)
    assert ex.stats.forward_passes == 2 and ex.stats.images_computed == 8  # preds once, target once
    assert ex.stats.scope_hits == 4
    as_list = [x for x in a], [x for x in b]  # lists of images are converted once too
    col.update(*as_list, mask=mask)
    assert ex.stats.forward_passes == 4
    out = col.compute()
    alone["lpips"].update(a, b)
    alone["lpips"].update(*as_list)
    for k in ("masked", "sbg"):
        alone[k].update(a, b, mask)
        alone[k].update(*as_list, mask)
    for k, m in alone.items():
        assert torch.equal(out[k].per_item, m.compute().per_item), k


def test_feature_cache_skips_references_seen_before(env, alex):
    _, feats, lins = alex
    path = env / "full.pth"
    torch.save(rw.lpips_layout_state("alex", feats, lins), path)
    cache_file = env / "features.sqlite"
    refs = _pairs(4, seed=6)[0]
    systems = [_pairs(4, seed=7 + i)[1] for i in range(3)]
    plain = [lpips_per_pair(s, refs, weights=path) for s in systems]
    ex = get_extractor("lpips-alex", {"torchvision-alexnet": path})
    ex.stats.reset()
    for s, want in zip(systems, plain):
        m = LPIPS(weights=path, feature_cache=cache_file)
        assert torch.equal(m.forward(s, refs).per_item, want.double())
    assert ex.stats.images_computed == 4 + 3 * 4  # the references once, each system once
    assert len(FeatureCache(cache_file)) == 4  # by default only the references are stored
    ex.stats.reset()
    for s in systems:  # a rerun: only the system outputs go through the trunk again
        LPIPS(weights=path, feature_cache=FeatureCache(cache_file)).update(s, refs)
    assert ex.stats.images_computed == 3 * 4 and ex.stats.cache_hits == 12
    ex.stats.reset()
    for s, want in zip(systems, plain):  # cache_preds=True stores the outputs too ...
        m = LPIPS(weights=path, feature_cache=cache_file, cache_preds=True)
        assert torch.equal(m.forward(s, refs).per_item, want.double())
    assert ex.stats.images_computed == 3 * 4 and len(FeatureCache(cache_file)) == 4 + 3 * 4
    ex.stats.reset()
    for s in systems:  # ... so that a rerun sends nothing through the trunk
        LPIPS(weights=path, feature_cache=FeatureCache(cache_file), cache_preds=True).update(s, refs)
    assert ex.stats.images_computed == 0 and ex.stats.cache_hits == 24


def test_device_option_pickling_and_cloning_with_a_cache(env, alex):
    import pickle

    _, feats, lins = alex
    path = env / "full.pth"
    torch.save(rw.lpips_layout_state("alex", feats, lins), path)
    a, b = _pairs(2, seed=8)
    m = LPIPS(weights=path, device="cpu", feature_cache=env / "f.sqlite")
    assert m.network.extractor.device == torch.device("cpu")
    first = m.forward(a, b)
    assert torch.equal(first.per_item, lpips_per_pair(a, b, weights=path, device="cpu").double())
    again = pickle.loads(pickle.dumps(m))
    assert again.network.extractor is m.network.extractor  # the shared trunk, not a copy
    assert again.feature_cache.path == m.feature_cache.path
    again.update(a, b)
    twin = m.clone()
    twin.update(a, b)
    assert again.compute().value == twin.compute().value == first.value
    assert m.network.on("cpu") is m.network
