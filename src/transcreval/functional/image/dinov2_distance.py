"""DINOv2 distance (MPTc-Bench App. B.2): ``1 - cos`` of the DINOv2 CLS features of two images.

MPTc-Bench uses it beside LPIPS to check its pHash-based Surface/Deep split. The features are
timm's DINOv2 CLS token (:mod:`transcreval.features.dinov2`); the value is the mean over pairs,
in [0, 2], lower is more similar; ``per_item`` holds each pair's distance.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from transcreval.errors import InputError
from transcreval.functional.multimodal.embedding_similarity import embedding_result
from transcreval.result import MetricResult, Signature

if TYPE_CHECKING:
    import torch

    from transcreval.features import FeatureExtractor

__all__ = ["DINOV2_MODELS", "dinov2_distance", "dinov2_distance_values", "dinov2_extractor"]

DINOV2_MODELS = ("vits14", "vitb14")


def dinov2_extractor(model: str = "vits14", weights: Any = None, device: Any = None) -> FeatureExtractor:
    """The process-wide DINOv2 extractor; ``weights``: None (the resolver) or a file in torch
    hub's or timm's layout."""
    from transcreval.features import get_extractor
    from transcreval.features.dinov2 import ARCHS

    if model not in DINOV2_MODELS:
        raise InputError(f"model must be one of {DINOV2_MODELS}, got {model!r}")
    name = f"dinov2-{model}"
    explicit = None
    if weights is not None:
        if not isinstance(weights, (str, os.PathLike)) or not os.path.isfile(weights):
            raise InputError(f"weights must be an existing DINOv2 checkpoint file, got {weights!r}")
        explicit = {ARCHS[name][1]: os.fspath(weights)}
    return get_extractor(name, explicit, device=device)


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


def dinov2_signature_options(extractor: FeatureExtractor, model: str) -> dict[str, Any]:
    return {"model": model, "w": "+".join(w.sha256[:8] for w in extractor.weights), "pp": extractor.spec.preprocess}


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
    ``target`` (MPTc-Bench App. B.2), in [0, 2], lower is more similar. Options as
    :class:`~transcreval.DINOv2Distance` (``feature_cache``: a FeatureCache or its path)."""
    from transcreval.features.options import feature_options

    opts = feature_options(input_range, batch_size, feature_cache)
    ext = dinov2_extractor(model, weights, device)
    vals = dinov2_distance_values(preds, target, ext, **opts.run_options())
    sig = Signature.make("DINOv2Distance", dinov2_signature_options(ext, model), ("timm", "torch"))
    return embedding_result(vals, sig, "DINOv2Distance")
