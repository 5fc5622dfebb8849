"""COMETScore: IMTBench's translation score S_text (§4, Eq. 2)."""

from __future__ import annotations

import os
from typing import Any

from transcreval.core.aggregate_metric import MeanMetric
from transcreval.core.options import option_property
from transcreval.core.result import MetricResult
from transcreval.functional.text.comet import (
    DEFAULT_MODEL,
    PACKAGES,
    COMETOptions,
    Normalize,
    bind_scorer,
    comet_bounds,
    comet_score_from_stats,
    comet_score_stats,
)


class COMETScore(MeanMetric):
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
        **kwargs: :class:`~transcreval.core.metric.Metric` options (process_group, ...).

    The options are kept checked in ``metric.options`` (:class:`COMETOptions`, bound to the
    loaded checkpoint). The signature records the model name, the checkpoint's sha256, the
    mapping and the unbabel-comet and transformers versions.
    """

    version_packages: tuple[str, ...] = PACKAGES
    side_counters = ("outside",)

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        checkpoint: str | os.PathLike[str] | None = None,
        *,
        batch_size: int = 16,
        device: Any = None,
        normalize: Normalize = "auto",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        opts = COMETOptions(model, checkpoint, batch_size, device, normalize)
        self.scorer = opts.scorer()  # loaded now: a bad checkpoint fails when the metric is built
        self.options: COMETOptions = bind_scorer(opts, self.scorer)

    # the options by their old attribute names (read-only: the options object is frozen)
    model_name = option_property("model", "The COMET model's name.")
    normalize = option_property("normalize", '"auto", "identity" or (lo, hi).')

    @property
    def bounds(self) -> tuple[float, float] | None:
        """The mapping's ``(lo, hi)`` for the loaded model (None: the identity)."""
        return comet_bounds(self.options, self.scorer)

    def _stats(self, preds: Any, target: Any, sources: Any) -> dict[str, Any]:
        """``preds``: system translations; ``target``: reference translations; ``sources``: source texts."""
        return comet_score_stats(preds, target, sources, scorer=self.scorer, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return comet_score_from_stats(stats, self.options)
