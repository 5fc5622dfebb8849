"""LPIPS (Zhang et al., CVPR 2018), the perceptual distance MPTc-Bench and IMTBench build on."""

from __future__ import annotations

from typing import Any, ClassVar

import torch

from transcreval.aggregate_metric import MeanMetric
from transcreval.features.lpips_network import load_lpips_network
from transcreval.features.options import check_input_range
from transcreval.functional.image.lpips import EMPTY_HINT, check_lpips_options, lpips_stats, lpips_values
from transcreval.io import Range


class LPIPSFamily(MeanMetric):
    """What LPIPS, MaskedLPIPS and BackgroundPreservation share: the network, options and states.

    The network is loaded when the metric is built (a missing file raises
    :class:`~transcreval.errors.WeightsNotFoundError` then, saying where it looked and what to
    run); it is shared by every metric and function that uses the same weights, and is not part
    of the metric's state.
    """

    higher_is_better: bool | None = False
    value_range: ClassVar[tuple[float, float]] = (0.0, float("inf"))
    version_packages: tuple[str, ...] = ("torch",)
    empty_hint: ClassVar[str] = EMPTY_HINT

    def __init__(
        self,
        net: str = "alex",
        weights: Any = None,
        *,
        input_range: Range = None,
        device: Any = None,
        dtype: Any = None,
        batch_size: int | None = None,
        feature_cache: Any = None,
        cache_preds: bool = False,
        max_pixels: int | str | None = "auto",
        version: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.feature_cache = check_lpips_options(net, input_range, batch_size, feature_cache, cache_preds, max_pixels)
        self.max_pixels = max_pixels
        self.network = load_lpips_network(net, weights, device, dtype, version)
        self.input_range = check_input_range(input_range)
        self.trunk_device = device
        self.batch_size = batch_size
        self.cache_preds = cache_preds

    @property
    def net(self) -> str:
        return self.network.net

    def _options(self) -> dict[str, Any]:
        return {
            "input_range": self.input_range,
            "device": self.trunk_device,
            "batch_size": self.batch_size,
            "feature_cache": self.feature_cache,
            "cache_preds": self.cache_preds,
            "max_pixels": self.max_pixels,
        }

    def spatial_map(self, preds: Any, target: Any) -> torch.Tensor | list[torch.Tensor]:
        """lpips' ``spatial=True`` distance map of each pair, for pictures (nothing is accumulated):
        N x 1 x H x W, or a list of 1 x H x W maps in pair order when sizes differ."""
        _, maps = lpips_values(preds, target, self.network, return_map=True, **self._options())
        return maps

    def _signature_options(self) -> dict[str, Any]:
        opts: dict[str, Any] = dict(self.network.signature_options())
        opts["dtype"] = str(self.network.extractor.dtype).replace("torch.", "")
        return opts


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
        **kwargs: :class:`~transcreval.metric.Metric` options.
    """

    def _stats(self, preds: Any, target: Any) -> dict[str, Any]:
        """``preds``/``target``: paired images of equal size (system outputs, references)."""
        return lpips_stats(preds, target, self.network, **self._options())
