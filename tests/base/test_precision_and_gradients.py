"""torchmetrics' two checks our harness lacked, over the registry (``tests._helpers.tester``).

* **Half precision**: every image metric (the ``image`` domain and the image-pair embedding
  metrics) given float16 image tensors returns the float32 result on the same numbers within
  :data:`HALF_ATOL` (on CPU), or refuses them with an InputError naming the dtype.
* **Differentiability**: the registry fact ``differentiable`` (``MetricInfo.differentiable``)
  holds: the metric's functional per-item values (``<twin>_per_pair`` where it exists, else the
  twin) on float images that require grad carry a finite, non-zero gradient back to ``preds``.
  For the other metrics nothing is claimed.

The metrics are built by :mod:`tests._helpers.every_metric` (random-init weights, no download).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import pytest
import torch

from tests._helpers.every_metric import build, squeeze_trunk
from tests._helpers.tester import check_gradient, check_half_precision, graph_values
from transcreval.core.registry import MetricInfo, get_metric, list_metrics

#: float16 vs float32 on the same numbers: the inputs are decoded to float32 before any network
#: runs, so the two agree to float32 rounding (FID's Frechet distance of two tiny random sets
#: amplifies rounding: its tolerance is relative)
HALF_ATOL = 1e-5
HALF_RTOL = {"FID": 1e-4}


def _images(n: int, seed: int, size: int = 48) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.rand(n, 3, size, size, generator=g)


def _mask(n: int, size: int = 48) -> torch.Tensor:
    m = torch.zeros(n, size, size, dtype=torch.bool)
    m[:, size // 4 : 3 * size // 4, size // 5 : 4 * size // 5] = True
    return m


def _pair(n: int = 3) -> tuple[Any, ...]:
    return _images(n, 1), _images(n, 2)


def _masked(n: int = 3) -> tuple[Any, ...]:
    return _images(n, 1), _images(n, 2), _mask(n)


#: the inputs of each image metric, float images in [0, 1] (a new image metric adds its line)
IMAGE_INPUTS: dict[str, Callable[[], tuple[Any, ...]]] = {
    "PHashDistance": _pair,
    "LPIPS": _pair,
    "MaskedLPIPS": _masked,
    "BackgroundPreservation": _masked,
    "FID": lambda: (_images(6, 1), _images(6, 2)),
    "DINOv2Distance": _pair,
    "CLIPSimilarity": _pair,
    "VisualSimilarity": _pair,
}

#: the functional twin's options matching the every_metric build (a differentiable metric adds its line)
TWIN_OPTIONS: dict[str, Callable[[], dict[str, Any]]] = {
    "LPIPS": lambda: {"net": "squeeze", "weights": squeeze_trunk()},
    "MaskedLPIPS": lambda: {"net": "squeeze", "weights": squeeze_trunk()},
    "BackgroundPreservation": lambda: {"net": "squeeze", "weights": squeeze_trunk()},
}


def test_every_image_metric_has_inputs_here():
    image = {m.name for m in list_metrics(domain="image")}
    assert image <= set(IMAGE_INPUTS), f"add the inputs of {sorted(image - set(IMAGE_INPUTS))} to IMAGE_INPUTS"


@pytest.mark.parametrize("name", sorted(IMAGE_INPUTS))
def test_float16_image_inputs_give_the_float32_result(name):
    got = check_half_precision(lambda: build(name), IMAGE_INPUTS[name](), atol=HALF_ATOL, rtol=HALF_RTOL.get(name, 0))
    assert got is not None, f"{name} refuses float16 images"  # none does today: a refusal is a change to review


def _per_item_function(info: MetricInfo) -> Callable[..., Any]:
    module = importlib.import_module(info.functional_module)
    return getattr(module, f"{info.functional}_per_pair", None) or info.load_functional()


def test_the_differentiable_fact_is_set_where_it_holds():
    flagged = {m.name for m in list_metrics() if m.differentiable}
    assert flagged == {"LPIPS", "MaskedLPIPS", "BackgroundPreservation"}
    assert flagged <= set(TWIN_OPTIONS), "a differentiable metric adds its twin's options to TWIN_OPTIONS"
    assert not get_metric("PHashDistance").differentiable and not get_metric("FID").differentiable


@pytest.mark.parametrize("name", sorted(m.name for m in list_metrics() if m.differentiable))
def test_a_differentiable_metric_passes_gradients_to_its_inputs(name):
    fn = _per_item_function(get_metric(name))
    options = TWIN_OPTIONS[name]()
    inputs = IMAGE_INPUTS[name]()
    grad = check_gradient(lambda *a: fn(*a, **options), inputs)
    assert grad.shape == inputs[0].shape
    # the gradient is that of the per-item values: a finite difference along it agrees
    x = inputs[0].detach()
    direction = grad / grad.norm()
    eps = 1e-3

    def total(z: torch.Tensor) -> float:
        out = fn(z, *inputs[1:], **options)
        values = out if isinstance(out, torch.Tensor) else getattr(out, "per_item", out)
        return float(values.double().sum())

    slope = (total(x + eps * direction) - total(x - eps * direction)) / (2 * eps)
    assert slope == pytest.approx(float(grad.norm()), rel=0.05)


def test_the_gradient_check_fails_on_detached_values():
    fn = _per_item_function(get_metric("LPIPS"))
    options = TWIN_OPTIONS["LPIPS"]()
    with pytest.raises(AssertionError, match="no autograd graph"):
        check_gradient(lambda *a: fn(*a, **options).detach(), _pair())
    assert graph_values(1.5) is None


def test_the_half_precision_check_fails_when_half_inputs_change_the_value():
    from transcreval import PHashDistance

    class HalfSensitive(PHashDistance):  # a float16 batch scores one bit more
        def _stats(self, preds: Any, target: Any) -> dict[str, Any]:
            stats = super()._stats(preds, target)
            if isinstance(preds, torch.Tensor) and preds.dtype == torch.float16:
                stats = {k: v + 1 if k == "distance_sum" else v for k, v in stats.items()}
            return stats

    with pytest.raises(AssertionError, match="float16"):
        check_half_precision(HalfSensitive, _pair(), atol=HALF_ATOL)


@pytest.mark.parametrize("name", sorted(IMAGE_INPUTS))
def test_inputs_that_require_grad_give_the_same_result(name):
    """Images straight out of a generator's graph (``requires_grad=True``) are scored as the same
    numbers without it, by every image metric (FID raised torch's raw "Can't call numpy() on
    Tensor that requires grad")."""
    inputs = IMAGE_INPUTS[name]()
    plain = build(name)
    plain.update(*inputs)
    tracked = build(name)
    tracked.update(*(x.clone().requires_grad_() if x.is_floating_point() else x for x in inputs))
    a, b = plain.compute(), tracked.compute()
    assert a.value == pytest.approx(b.value, rel=1e-6, abs=1e-9) and a.n == b.n


def test_states_never_keep_an_autograd_graph():
    """A differentiable metric's per-item values enter its states detached (a graph kept in a
    state would grow with every update of a training loop)."""
    x, y = _pair()
    metric = build("LPIPS")
    metric.update(x.clone().requires_grad_(), y)
    for name, value in metric.state_dict().items():
        tensors = value if isinstance(value, list) else [value]
        assert not any(isinstance(t, torch.Tensor) and t.requires_grad for t in tensors), name
