"""DINOv2Distance (MPTc-Bench App. B.2)."""

from __future__ import annotations

import os
from typing import Any, ClassVar

import torch

from transcreval.errors import InputError
from transcreval.functional.image.dinov2_distance import (
    dinov2_distance_values,
    dinov2_extractor,
    dinov2_signature_options,
)
from transcreval.functional.multimodal.embedding_similarity import embedding_mean_from_stats, similarity_stats
from transcreval.metric import Metric
from transcreval.result import MetricResult
from transcreval.states import Cat, Sum


class DINOv2Distance(Metric):
    """Mean ``1 - cos`` of the DINOv2 CLS features of each output and its paired image
    (MPTc-Bench App. B.2), in [0, 2], lower is more similar; ``per_item`` holds each pair.

    Args:
        model: ``"vits14"`` (default) or ``"vitb14"``.
        weights: None (the ``dinov2-<model>`` file through the weights resolver) or a checkpoint
            file in torch hub's DINOv2 layout (``dinov2_vits14_pretrain.pth``) or timm's.
        input_range, batch_size, feature_cache: as for the other image metrics.
    """

    higher_is_better: ClassVar[bool | None] = False
    value_range: ClassVar[tuple[float, float]] = (0.0, 2.0)
    version_packages: ClassVar[tuple[str, ...]] = ("timm", "torch")

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
        if batch_size is not None and (
            isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1
        ):
            raise InputError(f"batch_size must be a positive integer or None, got {batch_size!r}")
        self.model, self.weights = model, weights
        self._run = {"input_range": input_range, "batch_size": batch_size, "cache": feature_cache}
        self._options = dinov2_signature_options(dinov2_extractor(model, weights), model)
        self.add_state("total", Sum(torch.float64))
        self.add_state("count", Sum(torch.int64))
        self.add_state("values", Cat(torch.float64))

    def _signature_options(self) -> dict[str, Any]:
        return dict(self._options)

    def _stats(self, preds: Any, target: Any) -> dict[str, Any]:
        """``preds``: images (e.g. the system outputs or the target-market posters); ``target``:
        the image each is compared with (e.g. the source posters)."""
        ext = dinov2_extractor(self.model, self.weights, self.device)
        return similarity_stats(dinov2_distance_values(preds, target, ext, **self._run))

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return embedding_mean_from_stats(stats, self.signature, self.name)
