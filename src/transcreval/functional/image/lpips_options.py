"""The options of the LPIPS family (LPIPS, MaskedLPIPS, BackgroundPreservation), checked once.

One frozen object per metric, taken by the class and built by its twins from the same keywords
(issue 16): :class:`LPIPSOptions` (network and run options), :class:`MaskedLPIPSOptions` (+ the
mask options), :class:`BackgroundOptions` (+ where the background masks come from). Every
option is checked when the object is made, before a weights file or an image is read; the
network (and for ``mask="ocr"`` the OCR detector) loads on first use of :attr:`network`
(:attr:`detector`) and is kept: a class loads it when it is built. The signature options name
the weights by digest (:meth:`~transcreval.features.lpips_network.LPIPSNetwork.signature_options`)
and the trunk's dtype.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from transcreval.core.common import check_bool, check_choice, check_range
from transcreval.core.options import option
from transcreval.features.lpips_network import NETS, LPIPSNetwork, load_lpips_network
from transcreval.features.options import FeatureMetricOptions
from transcreval.functional.image.lpips_memory import check_max_pixels

if TYPE_CHECKING:
    from transcreval.engines.ocr.base import TextDetector

__all__ = ["DEFAULT_MIN_COVERAGE", "MODES", "BackgroundOptions", "LPIPSOptions", "MaskMode", "MaskedLPIPSOptions"]

MaskMode = Literal["area", "upsample"]
MODES = ("area", "upsample")
DEFAULT_MIN_COVERAGE = 0.05


@dataclass(frozen=True)
class LPIPSOptions(FeatureMetricOptions):
    """Options of :class:`~transcreval.LPIPS` and :func:`~transcreval.functional.lpips` (see
    the class for each one). ``input_range``/``batch_size``/``feature_cache`` follow every
    feature metric's convention (:func:`transcreval.features.options.feature_options`; the
    cache is opened here)."""

    net: str = option("alex", signature=None)
    weights: Any = option(None, signature=None)
    device: Any = option(None, signature=None)
    dtype: Any = option(None, signature=None)
    cache_preds: bool = option(False, signature=None)
    max_pixels: int | str | None = option("auto", signature=None)
    version: str | None = option(None, signature=None)

    def check(self) -> None:
        check_max_pixels(self.max_pixels)
        check_choice("net", self.net, NETS)
        check_bool("cache_preds", self.cache_preds)
        super().check()

    @functools.cached_property
    def network(self) -> LPIPSNetwork:
        """The network (loaded on first use, shared by every user of the same weights)."""
        return load_lpips_network(self.net, self.weights, self.device, self.dtype, self.version)

    def run_options(self) -> dict[str, Any]:
        """What :func:`~transcreval.functional.image.lpips.iter_pair_layers` takes."""
        keys = ("input_range", "device", "batch_size", "feature_cache", "cache_preds", "max_pixels")
        return {k: getattr(self, k) for k in keys}

    def signature_options(self) -> dict[str, Any]:
        opts: dict[str, Any] = dict(self.network.signature_options())
        opts["dtype"] = str(self.network.extractor.dtype).replace("torch.", "")
        return opts


@dataclass(frozen=True)
class MaskedLPIPSOptions(LPIPSOptions):
    """:class:`LPIPSOptions` and the mask options of :class:`~transcreval.MaskedLPIPS`:
    ``mode`` ("area" or "upsample"), ``min_coverage`` (in [0, 1]; printed as ``min_cov``: it
    decides the low-coverage count) and ``resize_mask``."""

    mode: MaskMode = option("area", signature=None)
    min_coverage: float = option(DEFAULT_MIN_COVERAGE, signature=None)
    resize_mask: bool = option(False, signature=None)

    def check(self) -> None:
        check_bool("resize_mask", self.resize_mask)
        check_choice("mode", self.mode, MODES)
        self.set_checked("min_coverage", check_range("min_coverage", self.min_coverage, 0.0, 1.0))
        super().check()

    def signature_options(self) -> dict[str, Any]:
        return {**super().signature_options(), "mode": self.mode, "min_cov": self.min_coverage}


@dataclass(frozen=True)
class BackgroundOptions(MaskedLPIPSOptions):
    """:class:`MaskedLPIPSOptions` and where :class:`~transcreval.BackgroundPreservation`'s
    masks come from: ``mask`` ("given" or "ocr") and, for "ocr", the detector options
    (``ocr_backend``, ``ocr_dilate_px`` >= 0, ``ocr_options``)."""

    mask: str = option("given", signature=None)
    ocr_backend: Any = option("rapidocr", signature=None)
    ocr_dilate_px: float = option(0, signature=None)
    ocr_options: dict[str, Any] | None = option(None, signature=None)

    def check(self) -> None:
        from transcreval.engines.ocr.masks import check_dilate_px

        check_choice("mask", self.mask, ("given", "ocr"))
        self.set_checked("ocr_dilate_px", check_dilate_px(self.ocr_dilate_px, "ocr_dilate_px"))
        self.set_checked("ocr_options", dict(self.ocr_options or {}))
        super().check()

    @functools.cached_property
    def detector(self) -> TextDetector | None:
        """The OCR detector of ``mask="ocr"`` (None for given masks), shared within the process."""
        if self.mask != "ocr":
            return None
        from transcreval.engines.ocr.base import get_detector

        return get_detector(self.ocr_backend, **(self.ocr_options or {}))

    def signature_options(self) -> dict[str, Any]:
        opts = super().signature_options()
        if self.detector is not None:
            info = self.detector.info_for(False)
            opts.update(mask="ocr", ocr=info.backend, ocr_det=f"{info.det_model}@{info.det_sha256[:12]}")
            opts.update(ocr_detp=info.params_digest, ocr_dil=self.ocr_dilate_px)
        return opts

    def __getstate__(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        if isinstance(self.ocr_backend, str):
            d.pop("detector", None)  # rebuilt from the name (and shared) where it is unpickled
        return d
