"""Degenerate feature extractors are warned about.

The random-weight recipes the docs used built networks whose features carry no information:
PyTorch's default initialisation of the FID Inception shrinks the pool features to ~1e-6 (FID
of noise against posters: 9e-13), timm's DINOv2 starts its LayerScale at 1e-5 (distance 0.0000
on every pair). The extractor now says so, once; the docs build working random networks.
"""

from __future__ import annotations

import warnings

import pytest
import torch

from tests._helpers.model_weights import dinov2_file, inception_file, poster_like
from transcreval.features.sanity import constant_features


def _degenerate(rec) -> list[str]:
    return [str(w.message) for w in rec if "degenerate features" in str(w.message)]


def _noise_and_posters():
    g = torch.Generator().manual_seed(1)
    noise = torch.randint(0, 256, (4, 3, 64, 48), dtype=torch.uint8, generator=g)
    return noise, poster_like(4, 64, 48, seed=2)


@pytest.fixture(scope="module")
def default_init_inception(tmp_path_factory):
    """The recipe the FID page used: torch.save(network_class()().state_dict())."""
    from transcreval.features.inception import network_class

    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("w") / "inception-default-init.pth"
    torch.save(network_class()().state_dict(), path)
    return str(path)


@pytest.fixture(scope="module")
def default_init_dinov2(tmp_path_factory):
    """The recipe the DINOv2 page used: timm's model as initialised."""
    import timm

    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("w") / "dinov2-default-init.pth"
    torch.save(timm.create_model("vit_small_patch14_dinov2", img_size=224, num_classes=0).state_dict(), path)
    return str(path)


def test_fid_on_default_initialised_inception_warns_once(default_init_inception):
    from transcreval import FID

    noise, posters = _noise_and_posters()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        m = FID(weights=default_init_inception)
        m.update(noise, posters)
        m.update(noise, posters)
        value = m.compute().value
    found = _degenerate(rec)
    assert len(found) == 1 and "vanishing" in found[0], found
    assert value < 1e-6  # the meaningless number the warning is about
    assert rec[0].filename == __file__  # it points at the caller's line


def test_dinov2_on_default_initialised_timm_warns(default_init_dinov2):
    from transcreval import DINOv2Distance

    noise, posters = _noise_and_posters()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        DINOv2Distance(weights=default_init_dinov2).update(list(noise), list(posters))
    found = _degenerate(rec)
    assert len(found) == 1 and "the same for every image" in found[0], found


@pytest.mark.parametrize("which", ["fid", "dinov2"])
def test_working_random_weights_do_not_warn(which):
    from transcreval import FID, DINOv2Distance

    noise, posters = _noise_and_posters()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        if which == "fid":
            FID(weights=inception_file(0)).update(noise, posters)
        else:
            DINOv2Distance(weights=dinov2_file("hub")).update(list(noise), list(posters))
    assert _degenerate(rec) == []


def test_the_check_needs_different_images():
    same = torch.rand(1, 3, 8, 8).expand(3, 3, 8, 8)
    assert constant_features(same, {"f": torch.zeros(3, 4)}) is None  # alike images: nothing to tell
    assert constant_features(torch.rand(1, 3, 8, 8), {"f": torch.zeros(1, 4)}) is None  # one image
    g = torch.Generator().manual_seed(0)
    x = torch.rand(3, 3, 8, 8, generator=g)
    assert "vanishing" in constant_features(x, {"f": torch.full((3, 4), 1e-7)})
    assert "same for every image" in constant_features(x, {"f": torch.ones(3, 4) + 1e-6 * torch.rand(3, 4)})
    assert constant_features(x, {"f": torch.rand(3, 4, generator=g)}) is None
    assert constant_features(x, {"f": torch.tensor([[float("nan")] * 4] * 3)}) is None


def test_verdict_settles_and_lists_every_problem_in_output_order():
    """The deepest output is looked at first and a varying one ends the check; when all are
    degenerate every problem is named, in the outputs' order."""
    from transcreval.features.sanity import feature_verdict

    g = torch.Generator().manual_seed(0)
    x = torch.rand(3, 3, 8, 8, generator=g)
    varying, flat, tiny = torch.rand(3, 4, generator=g), torch.ones(3, 4), torch.full((3, 4), 1e-7)
    assert feature_verdict(x, {"a": flat, "b": varying}) == (True, None)
    assert feature_verdict(x, {"a": varying, "b": flat}) == (True, None)  # any varying output clears it
    settled, problem = feature_verdict(x, {"a": flat, "b": tiny})
    assert settled and problem.index("'a'") < problem.index("'b'") and "vanishing" in problem
    assert feature_verdict(x[:1], {"a": flat[:1]}) == (False, None)  # one image: cannot tell
    assert feature_verdict(x, {"a": torch.full((3, 4), float("inf"))}) == (False, None)


def test_an_extractor_stops_checking_once_settled(monkeypatch):
    """The weights are pinned, so once a batch shows varying features the check never runs again
    (on LPIPS it cost ~20% of a forward); a batch that cannot tell keeps it on."""
    from transcreval import FID
    from transcreval.features import clear_extractors, sanity

    clear_extractors()  # a fresh extractor (built ones are shared, and may have settled already)
    calls = []
    real = sanity.feature_verdict

    def spy(images, outputs):
        calls.append(real(images, outputs))
        return calls[-1]

    monkeypatch.setattr(sanity, "feature_verdict", spy)
    noise, posters = _noise_and_posters()
    m = FID(weights=inception_file(0))
    m.update(noise[:1].expand(2, -1, -1, -1), posters[:1].expand(2, -1, -1, -1))  # alike: undecided
    assert [settled for settled, _ in calls] == [False, False]
    m.update(noise, posters)
    m.update(noise, posters)
    assert [settled for settled, _ in calls] == [False, False, True]
