"""DINOv2 distance (MPTc-Bench App. B.2): ``1 - cos`` of the DINOv2 CLS features of two images.

MPTc-Bench uses it beside LPIPS to check its pHash-based Surface/Deep split. The features are
timm's DINOv2 CLS token (:mod:`transcreval.features.dinov2`); the value is the mean over pairs,
in [0, 2], lower is more similar; ``per_item`` holds each pair's distance.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from transcreval.core.common import MeanStats, check_choice, mean_result
from transcreval.core.options import option
from transcreval.core.result import MetricResult
from transcreval.errors import InputError
from transcreval.features.options import FeatureMetricOptions

if TYPE_CHECKING:
    import torch

    from transcreval.features import FeatureExtractor

__all__ = [
    "DINOV2_MODELS",
    "PACKAGES",
    "DINOv2Options",
    "dinov2_distance",
    "dinov2_distance_from_stats",
    "dinov2_distance_stats",
    "dinov2_distance_values",
    "dinov2_extractor",
]

DINOV2_MODELS = ("vits14", "vitb14")
#: distributions whose versions change the numbers
PACKAGES = ("timm", "torch")
#: what the error of a mean over no pair suggests
EMPTY_HINT = "pass at least one image"


def dinov2_extractor(model: str = "vits14", weights: Any = None, device: Any = None) -> FeatureExtractor:
    """The process-wide DINOv2 extractor; ``weights``: None (the resolver) or a file in torch
    hub's or timm's layout."""
    from transcreval.features import get_extractor

    return get_extractor(*dinov2_files(model, weights), device=device)


def dinov2_files(model: str, weights: Any) -> tuple[str, dict[str, str] | None]:
    """The extractor's name and the explicit file of ``weights`` (None: the resolver's)."""
    from transcreval.features.dinov2 import ARCHS

    if model not in DINOV2_MODELS:
        raise InputError(f"model must be one of {DINOV2_MODELS}, got {model!r}")
    name = f"dinov2-{model}"
    if weights is None:
        return name, None
    if not isinstance(weights, (str, os.PathLike)) or not os.path.isfile(weights):
        raise InputError(f"weights must be an existing DINOv2 checkpoint file, got {weights!r}")
    return name, {ARCHS[name][1]: os.fspath(weights)}


def dinov2_distance_values(preds: Any, target: Any, extractor: FeatureExtractor, **kw: Any) -> torch.Tensor:
    """Per-pair ``1 - cos(CLS(preds_i), CLS(target_i))`` (float64), clamped to [0, 2]."""
    import torch

    from transcreval.features.images import extract

    a = extract(extractor, preds, "cls", what="preds", **kw)
    b = extract(extractor, target, "cls", what="target", **kw)
    if a.shape[0] != b.shape[0]:
        raise InputError(f"{a.shape[0]} preds but {b.shape[0]} target images: pass one target per image")
    cos = torch.nn.functional.cosine_similarity(a.double(), b.double(), dim=1, eps=1e-12)
    return (1.0 - cos).clamp(0.0, 2.0)  # rounding can put identical images a hair below 0


@dataclass(frozen=True)
class DINOv2Options(FeatureMetricOptions):
    """Options of :class:`~transcreval.DINOv2Distance` and :func:`dinov2_distance`: ``model``,
    ``weights`` (None or a checkpoint file), ``device`` (the twin's; the class runs on its own
    device) and the feature options. The extractor loads on first use of :attr:`extractor`
    (the class: when it is built) and is kept, so its weights are pinned."""

    model: str = "vits14"
    weights: Any = option(None, signature=lambda o: o.weights_signature())
    device: Any = option(None, signature=None)

    def check(self) -> None:
        check_choice("model", self.model, DINOV2_MODELS)
        super().check()

    @functools.cached_property
    def extractor(self) -> FeatureExtractor:
        return dinov2_extractor(self.model, self.weights, self.device)

    def weights_signature(self) -> dict[str, Any]:
        """The weights' digests (those of the extractor once built, else those it would load,
        found without building it) and the preprocessing, as signatures print them."""
        from transcreval.features.extractor import weights_digests
        from transcreval.features.registry import get_extractor_spec

        if "extractor" in self.__dict__:
            shas, pp = tuple(w.sha256 for w in self.extractor.weights), self.extractor.spec.preprocess
        else:
            name, explicit = dinov2_files(self.model, self.weights)
            shas, pp = weights_digests(name, explicit), get_extractor_spec(name).preprocess
        return {"w": "+".join(d[:8] for d in shas), "pp": pp}


def dinov2_distance_stats(preds: Any, target: Any, options: DINOv2Options, device: Any = None) -> dict[str, Any]:
    """A batch's statistics (sum, count, per-pair distances); ``device``: where the network
    runs (default: the options' extractor as built)."""
    ext = options.extractor if device is None else options.extractor.on(device)
    return MeanStats.of_values(dinov2_distance_values(preds, target, ext, **options.run_options()))


def dinov2_distance_from_stats(stats: Mapping[str, Any], options: DINOv2Options) -> MetricResult:
    """The mean distance of accumulated statistics."""
    return mean_result(stats, options.signature("DINOv2Distance", PACKAGES), "DINOv2Distance", None, EMPTY_HINT)


def dinov2_distance(
    preds: Any,
    target: Any,
    *,
    model: str = "vits14",
    weights: Any = None,
    device: Any = None,
    input_range: Any = None,
    batch_size: int | None = None,
    feature_cache: Any = None,
) -> MetricResult:
    """Mean DINOv2 cosine distance ``1 - cos`` between each image of ``preds`` and its pair in
    ``target`` (MPTc-Bench App. B.2), in [0, 2], lower is more similar: what
    :class:`~transcreval.DINOv2Distance` computes (``per_item``: each pair's distance).
    Options as the class's (``feature_cache``: a FeatureCache or its path)."""
    opts = DINOv2Options(**{k: v for k, v in locals().items() if k not in ("preds", "target")})
    return dinov2_distance_from_stats(dinov2_distance_stats(preds, target, opts), opts)
