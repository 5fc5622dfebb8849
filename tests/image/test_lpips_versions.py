"""lpips' two releases: v0.0's linear layers have v0.1's shapes, and were
accepted as v0.1 (a wrong number: 0.0726 where lpips v0.0 gives 0.0781 and v0.1 0.0820). The
layers are now recognised by digest, each version runs with its own input scaling, and layers of
unknown origin need ``version=``. Checked against lpips itself, with lpips' shipped files."""

from __future__ import annotations

import os

import pytest
import torch

from tests._helpers import random_weights as rw
from transcreval import LPIPS
from transcreval.errors import InputError, WeightsFormatError
from transcreval.functional import lpips_per_pair
from transcreval.weights import get_entry, load_state_dict, shipped_path

NET = "squeeze"


@pytest.fixture(scope="module")
def trunk():
    return rw.trunk_state(NET, seed=41)


@pytest.fixture
def env(monkeypatch, tmp_path, trunk):
    for var in ("TRANSCREVAL_WEIGHTS_DIR", "http_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("TRANSCREVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))
    monkeypatch.setenv("TRANSCREVAL_OFFLINE", "1")
    with rw.install(tmp_path / "w", {rw.TV_ENTRY[NET]: trunk}):
        monkeypatch.setenv("TRANSCREVAL_WEIGHTS_DIR", str(tmp_path / "w"))
        yield tmp_path


def _shipped(version: str) -> str:
    path = shipped_path(get_entry(f"lpips-{NET}-lin-v{version}"))
    assert path is not None and path.is_file()
    return str(path)


def _pairs(seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    a = torch.rand(3, 3, 48, 40, generator=g)
    return a, (a + 0.25 * torch.rand(3, 3, 48, 40, generator=g)).clamp(0, 1)


def _lpips_lib(trunk, lin_file: str, version: str, a, b) -> torch.Tensor:
    """lpips.LPIPS(net, version=version) with our random trunk and the given linear layers."""
    lins = load_state_dict(lin_file)
    ref = rw.reference_lpips(NET, rw.features_only(trunk), lins, version=version)
    with torch.no_grad():
        return ref(a, b, normalize=True).flatten().double()


@pytest.mark.parametrize("version", ["0.1", "0.0"])
def test_each_version_equals_lpips_with_its_shipped_layers(env, trunk, version):
    a, b = _pairs()
    want = _lpips_lib(trunk, _shipped(version), version, a, b)
    by_default = lpips_per_pair(a, b, net=NET, version=version)  # the shipped layers through the resolver
    by_file = lpips_per_pair(a, b, net=NET, weights={f"lpips-{NET}-lin-v{version}": _shipped(version)})
    for got in (by_default, by_file):
        assert torch.allclose(got.double(), want, atol=1e-5)
    res = LPIPS(NET, version=version).forward(a, b)
    assert res.value == pytest.approx(float(want.mean()), abs=1e-5)
    assert ("v:0.0" in str(res.signature)) == (version == "0.0")


def test_a_v00_file_is_never_taken_for_v01(env, trunk):
    """lpips' weights/v0.0/<net>.pth passed as the linear layers: recognised by its digest and
    run as v0.0 (lpips v0.0's number), or refused when v0.1 is asked for."""
    a, b = _pairs(1)
    v00, v01 = (_lpips_lib(trunk, _shipped(v), v, a, b) for v in ("0.0", "0.1"))
    assert not torch.allclose(v00, v01, atol=1e-3), "the two versions must give different numbers here"
    as_given = lpips_per_pair(a, b, net=NET, weights={f"lpips-{NET}-lin-v0.1": _shipped("0.0")})
    assert torch.allclose(as_given.double(), v00, atol=1e-5)
    with pytest.raises(WeightsFormatError, match=r"v0\.0's linear layers.*version='0\.1'"):
        LPIPS(NET, weights={f"lpips-{NET}-lin-v0.1": _shipped("0.0")}, version="0.1")
    with pytest.raises(WeightsFormatError, match=r"v0\.1's linear layers"):
        LPIPS(NET, version="0.0", weights={f"lpips-{NET}-lin-v0.0": _shipped("0.1")})


def test_shipped_layers_inside_a_whole_lpips_state_dict_are_recognised(env, trunk, tmp_path):
    """The digest of the layers as tensors: a torch.save(lpips.LPIPS(version='0.0').state_dict())
    file is told apart although it is not the shipped file."""
    a, b = _pairs(2)
    lins = load_state_dict(_shipped("0.0"))
    path = tmp_path / "whole-v00.pth"
    torch.save(rw.lpips_layout_state(NET, rw.features_only(trunk), lins), path)
    got = lpips_per_pair(a, b, net=NET, weights=path)
    assert torch.allclose(got.double(), _lpips_lib(trunk, _shipped("0.0"), "0.0", a, b), atol=1e-5)


def test_unknown_layers_need_the_version_said(env, trunk, tmp_path):
    a, b = _pairs(3)
    lins = rw.lin_state(NET, seed=77, version=None)  # undeclared: nobody said which version
    path = tmp_path / "mine.pth"
    torch.save(lins, path)
    with pytest.raises(WeightsFormatError, match=r"version='0\.1'.*version='0\.0'"):
        LPIPS(NET, weights={f"lpips-{NET}-lin-v0.1": path})
    for version in ("0.1", "0.0"):
        ours = lpips_per_pair(a, b, net=NET, weights={f"lpips-{NET}-lin-v{version}": path}, version=version)
        assert torch.allclose(ours.double(), _lpips_lib(trunk, str(path), version, a, b), atol=1e-5)
    from transcreval.features.lpips_network import register_lpips_layers

    register_lpips_layers(path, NET, "0.0")  # said once: later loads know it
    again = lpips_per_pair(a, b, net=NET, weights={f"lpips-{NET}-lin-v0.1": path})
    assert torch.allclose(again.double(), _lpips_lib(trunk, str(path), "0.0", a, b), atol=1e-5)
    with pytest.raises(InputError, match="already known"):
        register_lpips_layers(path, NET, "0.1")
    with pytest.raises(InputError, match="version must be"):
        LPIPS(NET, version="0.2")
    assert os.path.exists(path)
