"""DINOv2Distance (MPTc-Bench App. B.2)."""

from __future__ import annotations

import os
from typing import Any, ClassVar

from transcreval.aggregate_metric import MeanMetric
from transcreval.features.options import feature_options
from transcreval.functional.image.dinov2_distance import (
    dinov2_distance_values,
    dinov2_extractor,
    dinov2_signature_options,
)
from transcreval.functional.multimodal.embedding_similarity import EMPTY_HINT, similarity_stats


class DINOv2Distance(MeanMetric):
    """Mean ``1 - cos`` of the DINOv2 CLS features of each output and its paired image
    (MPTc-Bench App. B.2), in [0, 2], lower is more similar; ``per_item`` holds each pair.

    Args:
        model: ``"vits14"`` (default) or ``"vitb14"``.
        weights: None (the ``dinov2-<model>`` file through the weights resolver) or a checkpoint
            file in torch hub's DINOv2 layout (``dinov2_vits14_pretrain.pth``) or timm's.
        input_range, batch_size, feature_cache: as for every feature metric
            (:mod:`transcreval.features.options`; ``feature_cache`` a FeatureCache or its path).

    The weights are loaded once, when the metric is built, and kept (a checkpoint re-saved at
    the same path later is never mixed in: see :class:`~transcreval.FID`).
    """

    version_packages: tuple[str, ...] = ("timm", "torch")
    empty_hint: ClassVar[str] = EMPTY_HINT

    def __init__(
        self,
        model: str = "vits14",
        weights: str | os.PathLike[str] | None = None,
        *,
        input_range: tuple[float, float] | None = None,
        batch_size: int | None = None,
        feature_cache: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.options = feature_options(input_range, batch_size, feature_cache)
        self.model, self.weights = model, weights
        self._extractor = dinov2_extractor(model, weights)  # loaded now and kept (pinned weights)
        self._options = dinov2_signature_options(self._extractor, model)

    def _signature_options(self) -> dict[str, Any]:
        return dict(self._options)

    def _stats(self, preds: Any, target: Any) -> dict[str, Any]:
        """``preds``: images (e.g. the system outputs or the target-market posters); ``target``:
        the image each is compared with (e.g. the source posters)."""
        ext = self._extractor.on(self.device)
        return similarity_stats(dinov2_distance_values(preds, target, ext, **self.options.run_options()))
