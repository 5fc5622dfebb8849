"""LPIPS (Zhang et al., CVPR 2018), the perceptual distance MPTc-Bench and IMTBench build on.

:class:`LPIPSFamily` is what LPIPS, MaskedLPIPS and BackgroundPreservation
(:mod:`transcreval.image.masked_lpips`) share: the network, the options and the mean states.
Each class's keywords are the fields of its options dataclass, which ``help()`` shows.
"""

from __future__ import annotations

from typing import Any, ClassVar

import torch

from transcreval.core.aggregate_metric import MeanMetric
from transcreval.core.options import option_property, options_signature
from transcreval.core.result import MetricResult
from transcreval.functional.image.lpips import (
    EMPTY_HINT,
    PACKAGES,
    LPIPSOptions,
    lpips_from_stats,
    lpips_stats,
    lpips_values,
)


class LPIPSFamily(MeanMetric):
    """What LPIPS, MaskedLPIPS and BackgroundPreservation share: the network, options and states.

    ``__init__(net="alex", weights=None, **options)``: the keywords are the fields of the class's
    ``options_type`` (its signature lists them), the rest are
    :class:`~transcreval.core.metric.Metric` options. The network is loaded when the metric is
    built (a missing file raises :class:`~transcreval.errors.WeightsNotFoundError` then, saying
    where it looked and what to run); it is shared by every metric and function that uses the
    same weights, and is not part of the metric's state.
    """

    higher_is_better: bool | None = False
    value_range: ClassVar[tuple[float, float]] = (0.0, float("inf"))
    version_packages: tuple[str, ...] = PACKAGES
    empty_hint: ClassVar[str] = EMPTY_HINT
    options_type: ClassVar[type[LPIPSOptions]] = LPIPSOptions
    options: LPIPSOptions

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__init__" in cls.__dict__:  # help() shows the options of this class's options_type
            sig = options_signature(cls.options_type, cls.__init__, positional=("net", "weights"))
            cls.__init__.__signature__ = sig  # type: ignore[attr-defined]

    def __init__(self, net: str = "alex", weights: Any = None, **kwargs: Any) -> None:
        own, rest = self.options_type.split(kwargs)
        super().__init__(**rest)
        self.options = self.options_type(net=net, weights=weights, **own)
        self.options.network  # noqa: B018 - loaded now: a missing or unfit weights file fails here

    network = option_property("network", "The loaded LPIPS network.")

    @property
    def net(self) -> str:
        return self.network.net

    feature_cache = option_property("feature_cache", "The feature cache, if any.")

    def spatial_map(self, preds: Any, target: Any) -> torch.Tensor | list[torch.Tensor]:
        """lpips' ``spatial=True`` distance map of each pair, for pictures (nothing is accumulated):
        N x 1 x H x W, or a list of 1 x H x W maps in pair order when sizes differ."""
        _, maps = lpips_values(preds, target, self.options, return_map=True)
        assert maps is not None
        return maps


LPIPSFamily.__init__.__signature__ = options_signature(LPIPSOptions, LPIPSFamily.__init__)  # type: ignore[attr-defined]


class LPIPS(LPIPSFamily):
    """Mean LPIPS distance between paired images, [0, inf) (about 0..1), lower means more similar.

    ``update(preds, target)`` takes paired images (paths, PIL, arrays, tensors; [0, 1] floats
    by default, ``input_range=(-1, 1)`` for lpips-style tensors). ``per_item`` holds every pair's
    distance. Equals ``lpips.LPIPS(net=net)`` on the same weights to 1e-5 per pair.

    Args:
        net: "alex" (default), "vgg" or "squeeze".
        weights: None (torchvision trunk + the lpips wheel's linear layers, via the resolver), a
            file in lpips' state-dict layout, a manifest name, or ``{manifest name: file}``.
        input_range: the value range of float inputs (default (0, 1)).
        device, dtype: where and how the trunk runs (default: the images' device, float32).
        batch_size: trunk batch size (default: the whole update).
        feature_cache: a :class:`~transcreval.features.FeatureCache` or its path: trunk features
            of reference images seen before are read instead of computed.
        cache_preds: cache the features of ``preds`` too (default False: a system's outputs are
            rarely scored twice, while every system shares the references).
        max_pixels: refuse images larger than this many pixels before running, with the
            estimated memory and how to downscale in the message ("auto", the default: the size
            needing about 8 GiB per pair, ~28 Mpx for alex, 7.5 for squeeze, 2.4 for vgg in
            float32; None: no limit). See :mod:`transcreval.functional.image.lpips_memory`.
        version: the lpips version, "0.1" or "0.0" (None: v0.1, or the version of lpips' own
            linear layers in ``weights``; other linear layers need it said).
        **kwargs: :class:`~transcreval.core.metric.Metric` options.
    """

    def _stats(self, preds: Any, target: Any) -> dict[str, Any]:
        """``preds``/``target``: paired images of equal size (system outputs, references)."""
        return lpips_stats(preds, target, self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return lpips_from_stats(stats, self.options)
