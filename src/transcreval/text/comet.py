"""COMETScore: IMTBench's translation score S_text (§4, Eq. 2)."""

from __future__ import annotations

import os
from typing import Any

import torch

from transcreval.functional.text.comet import (
    Normalize,
    check_normalize,
    comet_score_from_stats,
    comet_score_stats,
    normalize_label,
    resolve_normalize,
)
from transcreval.metric import Metric
from transcreval.result import MetricResult
from transcreval.states import Cat, Sum


class COMETScore(Metric):
    """Mean COMET segment score of system translations (IMTBench S_text, §4 Eq. 2), higher is better.

    ``update(preds, target, sources)``: the system's translations, the reference translations
    and the source texts, one string each per segment. ``per_item`` holds the segment scores in
    input order; the value is their mean. Scores come from comet's own ``model.predict`` on the
    same checkpoint (segments sorted by length, batches of ``batch_size``), with the model loaded
    once per process; they agree with it to 1e-6 per segment and system whatever the batching.

    Args:
        model: the COMET model's name (default ``"Unbabel/wmt22-comet-da"``, the COMET-22 DA
            estimator). Known names resolve through the weights resolver
            (``transcreval weights fetch comet-wmt22-da ...``; offline with the files nowhere on
            disk is a WeightsNotFoundError naming that command); other names through comet's
            own download cache. With ``checkpoint=`` it names the model that checkpoint is.
        checkpoint: a local checkpoint: ``<dir>/checkpoints/model.ckpt`` (or ``<dir>``) with
            ``<dir>/hparams.yaml``; an ``<dir>/encoder/`` folder with the encoder's
            ``config.json`` and tokenizer files makes it load without the Hugging Face hub.
        batch_size: segments per forward pass (16).
        device: "cpu" (default) or a CUDA device ("cuda", "cuda:1").
        normalize: the linear map to the unit interval (never a clip): "auto" (default: the
            identity for models whose scores lie in [0, 1], an error otherwise), "identity", or
            ``(lo, hi)`` for ``(s - lo) / (hi - lo)``. ``extras["n_outside_unit"]`` counts
            segments outside [0, 1].
        **kwargs: :class:`~transcreval.metric.Metric` options (process_group, ...).

    The signature records the model name, the checkpoint's sha256, the mapping and the
    unbabel-comet and transformers versions.
    """

    version_packages: tuple[str, ...] = ("unbabel-comet", "transformers")

    def __init__(
        self,
        model: str = "Unbabel/wmt22-comet-da",
        checkpoint: str | os.PathLike[str] | None = None,
        *,
        batch_size: int = 16,
        device: Any = None,
        normalize: Normalize = "auto",
        **kwargs: Any,
    ) -> None:
        from transcreval.engines.comet.engine import CometScorer

        super().__init__(**kwargs)
        self.normalize = check_normalize(normalize)
        self.scorer = CometScorer(model, checkpoint, batch_size=batch_size, device=device)
        self.model_name = model
        self.bounds = resolve_normalize(self.normalize, self.scorer.unit_range, model)
        self.add_state("total", Sum(torch.float64))
        self.add_state("count", Sum(torch.int64))
        self.add_state("outside", Sum(torch.int64))
        self.add_state("scores", Cat(torch.float64))

    def _stats(self, preds: Any, target: Any, sources: Any) -> dict[str, Any]:
        """``preds``: system translations; ``target``: reference translations; ``sources``: source texts."""
        return comet_score_stats(preds, target, sources, scorer=self.scorer, bounds=self.bounds)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return comet_score_from_stats(stats, self.signature)

    def _signature_options(self) -> dict[str, Any]:
        return {
            "model": self.model_name,
            "ckpt": self.scorer.files.sha256[:12],
            "norm": normalize_label(self.bounds),
        }
