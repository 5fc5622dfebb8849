"""Feature extractors: LPIPS trunks equal lpips' own, one instance per key, sharing, registration."""

from __future__ import annotations

import copy
import pickle
import warnings

import pytest
import torch

from tests._helpers import random_weights as rw
from transcreval.errors import InputError, MissingDependencyError, WeightsFormatError, WeightsNotFoundError
from transcreval.features import (
    ExtractorSpec,
    Preprocess,
    clear_extractors,
    feature_scope,
    get_extractor,
    get_extractor_spec,
    get_preprocess,
    register_extractor,
    register_preprocess,
    shared_input,
)


@pytest.fixture(scope="module")
def states():
    """Seeded random trunks (torchvision layout) and linear layers for alex and squeeze; vgg trunk only."""
    out = {net: (rw.trunk_state(net, seed=3), rw.lin_state(net, seed=4)) for net in ("alex", "squeeze")}
    return out


@pytest.fixture(scope="module")
def vgg_lpips_file(tmp_path_factory):
    """VGG in lpips' layout (the trunk without the 400 MB classifier), saved once."""
    feats = rw.features_only(rw.trunk_state("vgg", seed=5))
    lins = rw.lin_state("vgg", seed=6)
    path = tmp_path_factory.mktemp("vgg") / "lpips_vgg.pth"
    torch.save(rw.lpips_layout_state("vgg", feats, lins), path)
    return path, feats, lins


@pytest.fixture
def env(monkeypatch, tmp_path):
    monkeypatch.delenv("TRANSCREVAL_WEIGHTS_DIR", raising=False)
    monkeypatch.setenv("TRANSCREVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))
    monkeypatch.setenv("TRANSCREVAL_OFFLINE", "1")
    yield tmp_path
    clear_extractors()


def _images(n=3, size=48, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(n, 3, size, size, generator=g)


def _reference_features(ref, x):
    with torch.no_grad():
        return ref.net(ref.scaling_layer(2 * x - 1))


@pytest.mark.parametrize("net", ["alex", "squeeze"])
def test_trunk_from_torchvision_file_in_weights_dir_equals_lpips(env, monkeypatch, states, net):
    trunk, lins = states[net]
    with rw.install(env / "w", {rw.TV_ENTRY[net]: trunk}):
        monkeypatch.setenv("TRANSCREVAL_WEIGHTS_DIR", str(env / "w"))
        ex = get_extractor(f"lpips-{net}")
        assert ex.weights[0].source == "TRANSCREVAL_WEIGHTS_DIR" and ex.weights[0].verified
        ref = rw.reference_lpips(net, rw.features_only(trunk), lins)
        x = _images()
        ours = ex(x)
        assert list(ours) == list(rw.TRUNKS[net][3])
        for a, b in zip(ours.values(), _reference_features(ref, x)):
            assert a.shape == b.shape
            torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)  # channels-last convolutions: rounding


def test_vgg_trunk_from_an_lpips_layout_file_equals_lpips(env, vgg_lpips_file):
    path, feats, lins = vgg_lpips_file
    ex = get_extractor("lpips-vgg", {"torchvision-vgg16": path})
    assert ex.weights[0].source == "argument"
    ref = rw.reference_lpips("vgg", feats, lins)
    x = _images(2, 40)
    for a, b in zip(ex(x).values(), _reference_features(ref, x)):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)


def test_preprocessing_is_lpips_scaling_layer_bit_for_bit():
    import lpips

    x = _images(4, 17)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        layer = lpips.ScalingLayer()
    assert torch.equal(get_preprocess("lpips-v0.1").fn(x), layer(2 * x - 1))


def test_lpips_layout_is_checked_strictly(env, tmp_path, states):
    trunk, lins = states["alex"]
    feats = rw.features_only(trunk)
    good = rw.lpips_layout_state("alex", feats, lins)

    def build(state):
        p = tmp_path / f"s{len(list(tmp_path.iterdir()))}.pth"
        torch.save(state, p)
        clear_extractors()
        return get_extractor("lpips-alex", {"torchvision-alexnet": p})

    build(good)
    missing = {k: v for k, v in good.items() if k != "net.slice2.3.bias"}
    with pytest.raises(WeightsFormatError, match=r"missing 1 keys \(3\.bias\)"):
        build(missing)
    with pytest.raises(WeightsFormatError, match=r"unexpected key 'extra\.weight'"):
        build({**good, "extra.weight": torch.ones(1)})
    with pytest.raises(WeightsFormatError, match="outside lpips' slice 1"):
        build({**good, "net.slice1.4.weight": torch.ones(1)})
    with pytest.raises(WeightsFormatError, match=r"scaling_layer\.scale"):
        build({**good, "scaling_layer.scale": torch.ones(1, 3, 1, 1)})
    with pytest.raises(WeightsFormatError, match=r"shape \(1, 64, 11, 11\), expected \(64, 3, 11, 11\)"):
        build({**good, "net.slice1.0.weight": torch.ones(1, 64, 11, 11)})
    tv = dict(trunk)
    del tv["classifier.6.bias"]
    with pytest.raises(WeightsFormatError, match=r"torchvision layout.*missing 1 keys \(classifier\.6\.bias\)"):
        build(tv)


def test_one_instance_per_extractor_weights_device_dtype(env, tmp_path, states):
    trunk, _ = states["squeeze"]
    a, b = tmp_path / "a.pth", tmp_path / "b.pth"
    torch.save(trunk, a)
    torch.save(rw.trunk_state("squeeze", seed=99), b)
    e1 = get_extractor("lpips-squeeze", {"torchvision-squeezenet1_1": a})
    assert get_extractor("lpips-squeeze", {"torchvision-squeezenet1_1": a}) is e1
    assert get_extractor("lpips-squeeze", {"torchvision-squeezenet1_1": a}, "cpu", "float32") is e1
    e64 = get_extractor("lpips-squeeze", {"torchvision-squeezenet1_1": a}, dtype=torch.float64)
    eb = get_extractor("lpips-squeeze", {"torchvision-squeezenet1_1": b})
    assert len({id(e1), id(e64), id(eb)}) == 3
    x = _images(2, 33)
    f32, f64 = e1(x), e64(x)
    assert all(v.dtype == torch.float64 for v in f64.values())
    torch.testing.assert_close(f64["relu7"].float(), f32["relu7"], rtol=1e-4, atol=1e-5)
    assert not torch.allclose(eb(x)["relu7"], f32["relu7"])
    # copies and pickles are the shared instance, rebuilt from the same explicit file
    assert copy.deepcopy(e1) is e1
    assert pickle.loads(pickle.dumps(e1)) is e1
    assert pickle.loads(pickle.dumps(e64)) is e64
    assert e1.signature.startswith("lpips-squeeze|w:") and "pp:lpips-v0.1|float32" in e1.signature
    with pytest.raises(InputError, match="cannot override"):
        get_extractor("lpips-squeeze", {"torchvision-alexnet": a})
    with pytest.raises(InputError, match="floating-point"):
        get_extractor("lpips-squeeze", {"torchvision-squeezenet1_1": a}, dtype="int64")


def test_missing_weights_fail_before_anything_is_built(env):
    with pytest.raises(WeightsNotFoundError, match="transcreval weights fetch torchvision-alexnet --to DIR"):
        get_extractor("lpips-alex")


def test_inference_mode_batches_and_gradients(env, tmp_path, states):
    trunk, _ = states["alex"]
    torch.save(trunk, tmp_path / "a.pth")
    ex = get_extractor("lpips-alex", {"torchvision-alexnet": tmp_path / "a.pth"})
    x = _images(5, 64)
    whole = ex(x)
    assert all(v.is_inference() for v in whole.values())
    ex.stats.reset()
    parts = ex(x, batch_size=2)
    assert ex.stats.forward_passes == 3 and ex.stats.images_computed == 5
    for k in whole:
        torch.testing.assert_close(parts[k], whole[k], rtol=1e-5, atol=1e-6)
    xg = x.clone().requires_grad_(True)
    out = ex(xg)
    assert all(v.requires_grad and not v.is_inference() for v in out.values())
    sum(v.sum() for v in out.values()).backward()
    assert xg.grad is not None and torch.isfinite(xg.grad).all() and xg.grad.abs().sum() > 0
    assert not any(p.requires_grad for p in ex.module.parameters())


def test_bad_inputs_are_input_errors(env, tmp_path, states):
    torch.save(states["squeeze"][0], tmp_path / "s.pth")
    ex = get_extractor("lpips-squeeze", {"torchvision-squeezenet1_1": tmp_path / "s.pth"})
    for bad, match in (
        (torch.rand(3, 32, 32), "N x 3 x H x W"),
        (torch.rand(2, 1, 32, 32), "N x 3 x H x W"),
        (torch.zeros(2, 3, 32, 32, dtype=torch.uint8), "float images"),
        (torch.rand(0, 3, 32, 32), "empty batch"),
        ([torch.rand(3, 8, 8)], "N x 3 x H x W"),
    ):
        with pytest.raises(InputError, match=match):
            ex(bad)


def test_feature_scope_runs_each_extractor_once_per_input(env, tmp_path, states):
    torch.save(states["squeeze"][0], tmp_path / "s.pth")
    ex = get_extractor("lpips-squeeze", {"torchvision-squeezenet1_1": tmp_path / "s.pth"})
    raw = [_images(1, 24, seed=i)[0] for i in range(3)]  # a list, as a user would pass
    conversions = []

    def convert(items):
        conversions.append(1)
        return torch.stack(items)

    ex.stats.reset()
    with feature_scope():
        a = ex(shared_input(raw, ("stack",), convert))
        b = ex(shared_input(raw, ("stack",), convert))  # a second metric on the same batch
        with feature_scope():  # nested scopes join the outer one
            c = ex(shared_input(raw, ("stack",), convert))
        other = ex(shared_input(raw, ("stack", "other options"), convert))
    assert len(conversions) == 2 and ex.stats.forward_passes == 2 and ex.stats.scope_hits == 2
    assert all(torch.equal(a[k], b[k]) and torch.equal(a[k], c[k]) and torch.equal(a[k], other[k]) for k in a)
    # outside a scope nothing is shared
    ex(shared_input(raw, ("stack",), convert))
    ex(shared_input(raw, ("stack",), convert))
    assert len(conversions) == 4 and ex.stats.forward_passes == 4


def test_user_registered_extractor(env):
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 3)

        def forward(self, x):
            y = self.conv(x)
            return {"map": y, "pooled": y.mean((2, 3))}

    built = []

    def build(spec, weights, device, dtype):
        built.append(spec.name)
        torch.manual_seed(0)
        return Net()

    register_preprocess(Preprocess("test-halve", lambda x: x / 2, "halves"), overwrite=True)
    spec = ExtractorSpec(
        name="test-net", backend="builtin", weights=(), preprocess="test-halve", outputs=("pooled", "map"), build=build
    )
    register_extractor(spec, overwrite=True)
    try:
        ex = get_extractor("test-net")
        x = _images(2, 10)
        out = ex(x)
        torch.manual_seed(0)
        ref = Net()(x / 2)
        assert list(out) == ["pooled", "map"] and torch.allclose(out["pooled"], ref["pooled"])
        assert get_extractor("test-net") is ex and built == ["test-net"]
        with pytest.raises(ValueError, match="already registered"):
            register_extractor(ExtractorSpec("test-net", "builtin", (), "identity", ("x",), build))
        register_extractor(ExtractorSpec("test-net", "builtin", (), "identity", ("a", "b", "c"), build), overwrite=True)
        assert get_extractor("test-net") is not ex  # replacing a spec drops its built instances
        register_extractor(
            ExtractorSpec("test-tuple", "builtin", (), "identity", ("a", "b", "c"), lambda *a: torch.nn.Identity())
        )
        with pytest.raises(RuntimeError, match="returned 1 outputs"):
            get_extractor("test-tuple")(x)
        register_extractor(
            ExtractorSpec(
                "test-needs", "builtin", (), "identity", ("a",), build, requires=(("no_such_module_xyz", "xyz"),)
            )
        )
        with pytest.raises(MissingDependencyError, match=r"transcreval\[xyz\]"):
            get_extractor("test-needs")
    finally:
        from transcreval.features import registry

        for name in ("test-net", "test-tuple", "test-needs"):
            registry.unregister_extractor(name)
    with pytest.raises(KeyError, match="lpips-alex"):
        get_extractor_spec("test-net")


@pytest.mark.parametrize("net", ["alex", "squeeze"])
def test_a_single_image_gets_exactly_its_features_in_a_batch(env, tmp_path, states, net):
    """Features (and so metric values) do not depend on how the data is batched."""
    torch.save(states[net][0], tmp_path / "t.pth")
    ex = get_extractor(f"lpips-{net}", {rw.TV_ENTRY[net]: tmp_path / "t.pth"})
    for size in (64, 97):
        x = _images(5, size, seed=size)
        whole = ex(x)
        for i in range(5):
            alone = ex(x[i : i + 1])
            assert all(torch.equal(alone[k][0], whole[k][i]) for k in whole), (net, size, i)
        pairs = ex(x, batch_size=2)
        assert all(torch.equal(pairs[k], whole[k]) for k in whole)
