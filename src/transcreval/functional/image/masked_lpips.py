"""Masked LPIPS and background preservation (IMTBench §4, Eq. 3, S_bg): pieces and twins.

The distance of :mod:`transcreval.functional.image.lpips` averaged only where a mask is on
(1 = pixels that count, e.g. the background outside the text regions):

* ``mode="area"`` (default, IMTBench Eq. 3): per layer, the mask area-pooled to the layer's
  resolution weights the layer's distance map, ``sum(m_l s_l) / sum(m_l)``; layers are summed.
  An all-ones mask gives LPIPS exactly.
* ``mode="upsample"``: lpips' ``spatial=True`` map (each layer map bilinearly upsampled to the
  image size and summed) times the mask, averaged over the mask: the recipe the lpips
  maintainer suggests (PerceptualSimilarity issue 111). Its all-ones value is close to, not
  equal to, LPIPS.

Receptive fields extend past the mask edge, so text pixels still influence background features
near it; shrink the mask (erode it) to reduce that leakage.

``S_bg = 1 - masked LPIPS`` (higher is better; IMTBench reports it in %). It is not clipped:
a pair more different than LPIPS' usual range gives a negative value.

Mask rules: bool or {0,1}, ``HxW`` (one mask for every pair), ``NxHxW`` or ``Nx1xHxW`` tensors
or arrays, or a list with one ``HxW`` mask per pair; a trailing channel of 1 (``HxWx1``,
``NxHxWx1``, as image libraries write single-channel masks) is dropped; a colour mask (3 or 4
channels) is an InputError that says how to make one channel. A mask of another size than its
images is resized by area majority (:mod:`transcreval.io.masks`: a resized pixel counts when
more than half of its area counts) with one warning per call, when its aspect ratio is the
images'; another aspect ratio (a transposed mask) is an InputError unless ``resize_mask=True``
(which resizes any mask, without a warning). Masks are never broadcast silently. Any other
value, a wrong number of masks, or an all-zero mask for a pair is an InputError. Pairs whose
mask covers less than ``min_coverage`` of the image are counted in ``extras["low_coverage"]``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from transcreval.core.common import MeanStats, check_bool, check_choice, check_range
from transcreval.core.options import option, takes_options
from transcreval.core.result import MetricResult
from transcreval.errors import InputError
from transcreval.functional.image.lpips import (
    NONFINITE_HINT,
    LPIPSOptions,
    iter_pair_layers,
    lpips_from_stats,
    spatial_map,
)
from transcreval.functional.image.masks import fit_masks, pair_masks
from transcreval.functional.image.pairs import pair_maps, per_pair
from transcreval.utils.threads import torch_threads

if TYPE_CHECKING:
    import torch

    from transcreval.engines.ocr.base import TextDetector


__all__ = [
    "DEFAULT_MIN_COVERAGE",
    "MODES",
    "BackgroundOptions",
    "MaskMode",
    "MaskedLPIPSOptions",
    "background_preservation",
    "background_preservation_from_stats",
    "background_preservation_per_pair",
    "background_preservation_stats",
    "masked_lpips",
    "masked_lpips_from_stats",
    "masked_lpips_per_pair",
    "masked_lpips_stats",
    "masked_values",
    "ocr_background",
]

MaskMode = Literal["area", "upsample"]
MODES = ("area", "upsample")
DEFAULT_MIN_COVERAGE = 0.05


@dataclass(frozen=True)
class MaskedLPIPSOptions(LPIPSOptions):
    """:class:`~transcreval.functional.image.lpips.LPIPSOptions` and the mask options of
    :class:`~transcreval.MaskedLPIPS`: ``mode`` ("area" or "upsample"), ``min_coverage`` (in
    [0, 1]; printed as ``min_cov``: it decides the low-coverage count) and ``resize_mask``."""

    mode: MaskMode = option("area")
    min_coverage: float = option(DEFAULT_MIN_COVERAGE, signature="min_cov")
    resize_mask: bool = option(False, signature=None)

    def check(self) -> None:
        check_bool("resize_mask", self.resize_mask)
        check_choice("mode", self.mode, MODES)
        self.set_checked("min_coverage", check_range("min_coverage", self.min_coverage, 0.0, 1.0))
        super().check()


@dataclass(frozen=True)
class BackgroundOptions(MaskedLPIPSOptions):
    """:class:`MaskedLPIPSOptions` and where :class:`~transcreval.BackgroundPreservation`'s
    masks come from: ``mask`` ("given" or "ocr") and, for "ocr", the detector options
    (``ocr_backend``, ``ocr_dilate_px`` >= 0, ``ocr_options``)."""

    mask: str = option("given", signature=lambda o: o.ocr_signature())
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

    def ocr_signature(self) -> dict[str, Any]:
        """What the signature says of OCR masks: the detector's backend, model digest and
        parameters, and the dilation (nothing for given masks). The detector's model file is
        named by the detector's own record, so OCR masks build it here (given masks build none)."""
        if self.detector is None:
            return {}
        info = self.detector.info_for(False)
        det = f"{info.det_model}@{info.det_sha256[:12]}"
        return {"mask": "ocr", "ocr": info.backend, "ocr_det": det, "ocr_detp": info.params_digest} | {
            "ocr_dil": self.ocr_dilate_px
        }

    def __getstate__(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        if isinstance(self.ocr_backend, str):
            d.pop("detector", None)  # rebuilt from the name (and shared) where it is unpickled
        return d


def masked_from_layers(layers: Sequence[torch.Tensor], mask: torch.Tensor, mode: MaskMode = "area") -> torch.Tensor:
    """Masked LPIPS per pair (N) from the layer maps and a float {0,1} mask N x 1 x H x W."""
    import torch.nn.functional as F

    m = mask.to(layers[0].dtype)
    if mode == "area":
        total = None
        for s in layers:
            ml = F.interpolate(m, size=s.shape[-2:], mode="area")
            term = (ml * s).sum(dim=(2, 3)) / ml.sum(dim=(2, 3))
            total = term if total is None else total + term
        assert total is not None
        return total.flatten()
    if mode == "upsample":
        full = spatial_map(layers, (int(m.shape[-2]), int(m.shape[-1])))
        return ((full * m).sum(dim=(2, 3)) / m.sum(dim=(2, 3))).flatten()
    raise InputError(f"mode must be 'area' or 'upsample', got {mode!r}")


def masked_values(
    preds: Any, target: Any, mask: Any, options: MaskedLPIPSOptions, *, return_map: bool = False
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | list[torch.Tensor] | None]:
    """Masked LPIPS per pair (N), each pair's mask coverage (fraction of pixels that count), and
    with ``return_map`` the masked spatial maps (lpips' ``spatial=True`` map, 0 where the mask
    is off; see :func:`~transcreval.functional.image.pairs.pair_maps`; None without)."""
    values, coverage, maps = [], [], []
    masks: list[torch.Tensor] | None = None
    n = 0
    with torch_threads():  # the thread budget (transcreval.utils.threads), restored afterwards
        for idx, layers, size, total in iter_pair_layers(preds, target, options):
            if masks is None:
                masks = pair_masks(mask, total)
            m = fit_masks(masks, idx, size, layers[0].device, options.resize_mask)
            values.append((idx, masked_from_layers(layers, m, options.mode)))
            coverage.append((idx, m.mean(dim=(1, 2, 3))))
            if return_map:
                maps.append((idx, spatial_map(layers, size) * m.to(layers[0].dtype)))
            n += len(idx)
        return per_pair(values, n), per_pair(coverage, n), (pair_maps(maps, n) if return_map else None)


def masked_lpips_stats(preds: Any, target: Any, mask: Any, options: MaskedLPIPSOptions) -> dict[str, Any]:
    """Sum, count, per-pair values, summed coverage and the low-coverage count of a batch."""
    import torch

    values, cov, _ = masked_values(preds, target, mask, options)
    stats = MeanStats.of_values(values, NONFINITE_HINT)
    cov64 = cov.detach().to(torch.float64)
    stats["coverage"] = cov64.sum()
    stats["low_coverage"] = int((cov64 < options.min_coverage).sum())
    return stats


def masked_extras(stats: dict[str, Any], options: MaskedLPIPSOptions) -> dict[str, Any]:
    """``mean_coverage``, ``low_coverage`` and ``min_coverage`` of accumulated statistics."""
    n = max(int(stats["count"]), 1)
    return {
        "mean_coverage": float(stats["coverage"]) / n,
        "low_coverage": int(stats["low_coverage"]),
        "min_coverage": options.min_coverage,
    }


def masked_lpips_from_stats(stats: dict[str, Any], options: MaskedLPIPSOptions) -> MetricResult:
    """The mean masked LPIPS of accumulated statistics, with the coverage extras."""
    return lpips_from_stats(stats, options, name="MaskedLPIPS", extras=masked_extras(stats, options))


@takes_options(MaskedLPIPSOptions)
def masked_lpips_per_pair(
    preds: Any, target: Any, mask: Any, *, return_map: bool = False, **options: Any
) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor | list[torch.Tensor]]:
    """Masked LPIPS per pair, float ``(N,)``, lower means more similar (IMTBench Eq. 3 without
    the ``1 -``). ``options``: those of :func:`masked_lpips`. With an all-ones mask and
    ``mode="area"`` this equals LPIPS. Differentiable like ``lpips``. ``return_map=True`` also
    returns lpips' spatial map times the mask (0 where the mask is off): N x 1 x H x W, or a
    list of 1 x H x W maps in pair order when sizes differ."""
    opts = MaskedLPIPSOptions.take(options, "masked_lpips_per_pair")
    values, _, maps = masked_values(preds, target, mask, opts, return_map=return_map)
    return (values, maps) if maps is not None else values


@takes_options(MaskedLPIPSOptions)
def masked_lpips(preds: Any, target: Any, mask: Any, **options: Any) -> MetricResult:
    """Mean LPIPS over the pixels a mask keeps, lower means more similar (IMTBench Eq. 3
    without the ``1 -``): what :class:`~transcreval.MaskedLPIPS` computes on the same pairs
    (``per_item``: each pair's value, as :func:`masked_lpips_per_pair`; ``extras``: mean and
    low coverage). ``mask``: 1 = pixels that count (see the module docstring for the rules);
    the options are the class's (:class:`MaskedLPIPSOptions`: those of
    :func:`~transcreval.functional.image.lpips.lpips`, ``mode``, ``min_coverage`` and
    ``resize_mask``)."""
    opts = MaskedLPIPSOptions.take(options, "masked_lpips")
    return masked_lpips_from_stats(masked_lpips_stats(preds, target, mask, opts), opts)


def ocr_background(
    target: Any, *, backend: Any = "rapidocr", dilate_px: float = 0, input_range: Any = None, **options: Any
) -> Any:
    """Background masks from OCR: True outside the text a detector finds in each ``target`` image.

    :func:`transcreval.ocr.background_mask` (detection only; results cached by image content,
    so a reference shared by several outputs is detected once). ``backend``/``options``: the
    OCR backend and its options; ``dilate_px`` grows the text regions first; ``input_range``:
    the value range of float images (the metric's own ``input_range``).
    """
    from transcreval.engines.ocr.masks import background_mask

    return background_mask(target, backend=backend, dilate_px=dilate_px, input_range=input_range, **options)


def background_masks(target: Any, mask: Any, options: BackgroundOptions) -> Any:
    """The background masks of a batch: ``mask`` as given, or (``mask="ocr"``) made by OCR on
    ``target`` with the options' detector; a mismatch is an InputError saying what to pass."""
    if options.mask == "ocr":
        if mask is not None and not (isinstance(mask, str) and mask == "ocr"):
            raise InputError("this BackgroundPreservation makes its masks by OCR (mask='ocr'): do not pass mask=")
        return ocr_background(
            target, backend=options.detector, dilate_px=options.ocr_dilate_px, input_range=options.input_range
        )
    if mask is None:
        raise InputError("pass the background masks (mask=..., 1 = background), or build the metric with mask='ocr'")
    if isinstance(mask, str):
        raise InputError(f"mask must be an array/tensor of background masks or 'ocr', got {mask!r}")
    return mask


def background_preservation_stats(preds: Any, target: Any, mask: Any, options: BackgroundOptions) -> dict[str, Any]:
    """:func:`masked_lpips_stats` over the background masks (:func:`background_masks`)."""
    return masked_lpips_stats(preds, target, background_masks(target, mask, options), options)


def background_preservation_from_stats(stats: dict[str, Any], options: BackgroundOptions) -> MetricResult:
    """The mean of ``1 - masked LPIPS`` over accumulated statistics, with the coverage extras."""
    n = int(stats["count"])
    flipped = {"total": n - stats["total"], "count": stats["count"], "values": 1 - stats["values"]}
    extras = masked_extras(stats, options)
    return lpips_from_stats(flipped, options, name="BackgroundPreservation", extras=extras)


def _background_options(mask: Any, options: dict[str, Any], what: str) -> BackgroundOptions:
    """The options of a twin call: ``mask="ocr"`` selects OCR masks (as the class's ``mask="ocr"``)."""
    source = "ocr" if isinstance(mask, str) and mask == "ocr" else "given"
    return BackgroundOptions.take({**options, "mask": source}, what)


@takes_options(BackgroundOptions)
def background_preservation_per_pair(preds: Any, target: Any, mask: Any, **options: Any) -> torch.Tensor:
    """IMTBench's background score per pair, ``S_bg = 1 - masked LPIPS``, float ``(N,)``, higher
    is better. ``mask`` and ``options``: as :func:`background_preservation`."""
    opts = _background_options(mask, options, "background_preservation_per_pair")
    values, _, _ = masked_values(preds, target, background_masks(target, mask, opts), opts)
    return 1 - values


@takes_options(BackgroundOptions)
def background_preservation(preds: Any, target: Any, mask: Any, **options: Any) -> MetricResult:
    """IMTBench's background score ``S_bg = 1 - masked LPIPS`` (§4, Eq. 3), higher is better:
    what :class:`~transcreval.BackgroundPreservation` computes on the same pairs (``per_item``:
    each pair's score, as :func:`background_preservation_per_pair`). ``mask`` is the
    background (1 = background pixels), or ``"ocr"``: the complement of the text an OCR
    detector (``ocr_backend``, ``ocr_options``, text grown by ``ocr_dilate_px``) finds in each
    ``target`` image (the class built with ``mask="ocr"``). Options are checked before any
    weights file or image is read."""
    opts = _background_options(mask, options, "background_preservation")
    return background_preservation_from_stats(background_preservation_stats(preds, target, mask, opts), opts)
