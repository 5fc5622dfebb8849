"""DINOv2Distance (MPTc-Bench App. B.2)."""

from __future__ import annotations

import os
from typing import Any, ClassVar

from transcreval.core.aggregate_metric import MeanMetric
from transcreval.core.options import option_property
from transcreval.core.result import MetricResult
from transcreval.functional.image.dinov2_distance import (
    EMPTY_HINT,
    PACKAGES,
    DINOv2Options,
    dinov2_distance_from_stats,
    dinov2_distance_stats,
)


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

    version_packages: tuple[str, ...] = PACKAGES
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
        self.options = DINOv2Options(
            model=model, weights=weights, input_range=input_range, batch_size=batch_size, feature_cache=feature_cache
        )
        self.options.extractor  # noqa: B018 - the weights are loaded now and kept (pinned)

    model = option_property("model", "The DINOv2 model name.")

    def _stats(self, preds: Any, target: Any) -> dict[str, Any]:
        """``preds``: images (e.g. the system outputs or the target-market posters); ``target``:
        the image each is compared with (e.g. the source posters)."""
        return dinov2_distance_stats(preds, target, self.options, self.device)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return dinov2_distance_from_stats(stats, self.options)
