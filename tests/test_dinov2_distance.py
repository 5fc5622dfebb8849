"""DINOv2Distance against timm's own forward on the same random-init checkpoint (torch hub and timm layouts)."""

from __future__ import annotations

import functools

import pytest
import torch

from tests._helpers.model_weights import dinov2_file, poster_like, reference_dinov2
from tests._helpers.tester import MetricCase, check_metric, join_lists, partial
from transcreval.errors import EmptyInputError, InputError, WeightsFormatError
from transcreval.features.dinov2 import preprocess_dinov2
from transcreval.functional.image.dinov2_distance import dinov2_distance, dinov2_extractor
from transcreval.image.dinov2_distance import DINOv2Distance


@functools.cache
def _ref_model(layout: str):
    return reference_dinov2(dinov2_file(layout))


def ref_cls(images, layout="hub") -> torch.Tensor:
    x = torch.cat([preprocess_dinov2(torch.as_tensor(i)[None].float() / 255) for i in images])
    with torch.no_grad():
        return _ref_model(layout)(x).double()


def ref_distance(p, t) -> float:
    a, b = ref_cls(p), ref_cls(t)
    return float((1 - (a * b).sum(1) / (a.norm(dim=1) * b.norm(dim=1))).mean())


@pytest.mark.parametrize("layout", ["hub", "timm"])
def test_features_equal_timm_forward(layout):
    imgs = poster_like(3, 90, 130, seed=1)
    ours = dinov2_extractor("vits14", dinov2_file(layout))(imgs.float() / 255)["cls"].double()
    assert torch.allclose(ours, ref_cls(imgs, layout), atol=1e-5)


BATCHES = [
    (list(poster_like(3, 80, 60, seed=1)), list(poster_like(3, 80, 60, seed=2, shift=0.1))),
    (list(poster_like(2, 50, 90, seed=3)), list(poster_like(2, 50, 90, seed=4))),
    (list(poster_like(1, 64, 64, seed=5)), list(poster_like(1, 64, 64, seed=6))),
]


@pytest.mark.slow
@pytest.mark.ddp
def test_harness_against_timm(ddp_pool):
    w = dinov2_file("hub")
    check_metric(
        MetricCase(
            factory=partial(DINOv2Distance, weights=w),
            functional=lambda p, t: dinov2_distance(p, t, weights=w).value,
            reference=ref_distance,
            batches=BATCHES,
            join=join_lists,
            atol=1e-6,
        ),
        ddp_pool,
    )


def test_class_equals_function_and_timm_over_batches():
    """The default-suite check (the full harness with 1/2/4 processes is marked slow)."""
    w = dinov2_file("hub")
    m = DINOv2Distance(weights=w)
    for p, t in BATCHES:
        m.update(p, t)
    every_p = [x for b in BATCHES for x in b[0]]
    every_t = [x for b in BATCHES for x in b[1]]
    res = m.compute()
    assert res.value == pytest.approx(dinov2_distance(every_p, every_t, weights=w).value, abs=1e-12)
    assert res.value == pytest.approx(ref_distance(every_p, every_t), abs=1e-6)
    assert res.per_item.shape == (len(every_p),)


def test_edge_cases_and_bad_input(tmp_path):
    w = dinov2_file("hub")
    m = DINOv2Distance(weights=w)
    with pytest.raises(EmptyInputError):
        m.compute()
    a, b = BATCHES[0]
    assert m.forward(a, [x.clone() for x in a]).value == pytest.approx(0.0, abs=1e-6)
    with pytest.raises(InputError, match="one target per image"):
        m.update(a, b[:1])
    with pytest.raises(InputError, match="model must be"):
        DINOv2Distance("vitg14", weights=w)
    bad = tmp_path / "bad.pth"
    torch.save({"foo": torch.zeros(3)}, bad)
    with pytest.raises(WeightsFormatError):
        DINOv2Distance(weights=bad)
