"""Masked LPIPS and background preservation (IMTBench §4, Eq. 3, S_bg): pieces and twins.

The distance of :mod:`transcreval.functional.image.lpips` averaged only where a mask is on
(1 = pixels that count, e.g. the background outside the text regions):

* ``mode="area"`` (default, IMTBench Eq. 3): per layer, the mask area-pooled to the layer's
  resolution weights the layer's distance map, ``sum(m_l s_l) / sum(m_l)``; layers are summed.
  An all-ones mask gives LPIPS exactly.
* ``mode="upsample"``: lpips' ``spatial=True`` map times the mask, averaged over the mask.

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

from typing import TYPE_CHECKING, Any

from transcreval.common import MeanStats, check_bool, check_range
from transcreval.errors import InputError
from transcreval.features.lpips_network import LPIPSNetwork, load_lpips_network
from transcreval.functional.image.lpips import (
    NONFINITE_HINT,
    MaskMode,
    check_lpips_options,
    iter_pair_layers,
    masked_from_layers,
    spatial_map,
)
from transcreval.functional.image.masks import fit_masks, pair_masks
from transcreval.functional.image.pairs import pair_maps, per_pair
from transcreval.threads import torch_threads

if TYPE_CHECKING:
    import torch

MODES = ("area", "upsample")
DEFAULT_MIN_COVERAGE = 0.05


def check_masked_options(mode: Any, min_coverage: Any, resize_mask: Any = False) -> None:
    check_bool("resize_mask", resize_mask)
    if mode not in MODES:
        raise InputError(f"mode must be 'area' or 'upsample', got {mode!r}")
    check_range("min_coverage", min_coverage, 0.0, 1.0)


def masked_values(
    preds: Any,
    target: Any,
    mask: Any,
    network: LPIPSNetwork,
    *,
    mode: MaskMode = "area",
    maps: list[tuple[list[int], torch.Tensor]] | None = None,
    resize_mask: bool = False,
    **options: Any,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Masked LPIPS per pair (N) and each pair's mask coverage (fraction of pixels that count).
    With a ``maps`` list, each size group's masked spatial map (lpips' ``spatial=True`` map, 0
    where the mask is off) is appended to it as (pair indices, N_g x 1 x H x W)."""
    values, coverage = [], []
    masks: list[torch.Tensor] | None = None
    n = 0
    with torch_threads():  # the thread budget (transcreval.threads), restored afterwards
        for idx, layers, size, total in iter_pair_layers(preds, target, network, **options):
            if masks is None:
                masks = pair_masks(mask, total)
            m = fit_masks(masks, idx, size, layers[0].device, resize_mask)
            values.append((idx, masked_from_layers(layers, m, mode)))
            coverage.append((idx, m.mean(dim=(1, 2, 3))))
            if maps is not None:
                maps.append((idx, spatial_map(layers, size) * m.to(layers[0].dtype)))
            n += len(idx)
        return per_pair(values, n), per_pair(coverage, n)


def masked_lpips_stats(
    preds: Any,
    target: Any,
    mask: Any,
    network: LPIPSNetwork,
    *,
    mode: MaskMode = "area",
    min_coverage: float = DEFAULT_MIN_COVERAGE,
    **options: Any,
) -> dict[str, Any]:
    """Sum, count, per-pair values, summed coverage and the low-coverage count of a batch."""
    import torch

    values, cov = masked_values(preds, target, mask, network, mode=mode, **options)
    stats = MeanStats.of_values(values, NONFINITE_HINT)
    cov64 = cov.detach().to(torch.float64)
    stats["coverage"] = cov64.sum()
    stats["low_coverage"] = int((cov64 < min_coverage).sum())
    return stats


def _twin(
    preds: Any,
    target: Any,
    mask: Any,
    *,
    net: str,
    weights: Any,
    mode: MaskMode,
    input_range: Any,
    device: Any,
    dtype: Any,
    batch_size: int | None,
    feature_cache: Any,
    cache_preds: bool = False,
    return_map: bool = False,
    resize_mask: bool = False,
    max_pixels: int | str | None = "auto",
    version: str | None = None,
) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor | list[torch.Tensor]]:
    check_masked_options(mode, 0.0, resize_mask)
    cache = check_lpips_options(net, input_range, batch_size, feature_cache, cache_preds, max_pixels)
    network = load_lpips_network(net, weights, device, dtype, version)
    maps: list[tuple[list[int], torch.Tensor]] | None = [] if return_map else None
    values, _ = masked_values(
        preds,
        target,
        mask,
        network,
        mode=mode,
        maps=maps,
        resize_mask=resize_mask,
        input_range=input_range,
        device=device,
        batch_size=batch_size,
        feature_cache=cache,
        cache_preds=cache_preds,
        max_pixels=max_pixels,
    )
    return (values, pair_maps(maps, len(values))) if maps is not None else values


def masked_lpips(
    preds: Any,
    target: Any,
    mask: Any,
    *,
    net: str = "alex",
    weights: Any = None,
    mode: MaskMode = "area",
    input_range: Any = None,
    device: Any = None,
    dtype: Any = None,
    batch_size: int | None = None,
    feature_cache: Any = None,
    cache_preds: bool = False,
    return_map: bool = False,
    resize_mask: bool = False,
    max_pixels: int | str | None = "auto",
    version: str | None = None,
) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor | list[torch.Tensor]]:
    """Masked LPIPS per pair, float ``(N,)``, lower means more similar (IMTBench Eq. 3 without
    the ``1 -``). ``mask``: 1 = pixels that count (see the module docstring for the rules);
    the other arguments are :func:`~transcreval.functional.image.lpips.lpips`'s. With an
    all-ones mask and ``mode="area"`` this equals LPIPS. Differentiable like ``lpips``.
    ``return_map=True`` also returns lpips' spatial map times the mask (0 where the mask is
    off): N x 1 x H x W, or a list of 1 x H x W maps in pair order when sizes differ.
    ``resize_mask=True`` resizes masks of another aspect ratio too (see the module docstring)."""
    return _twin(
        preds,
        target,
        mask,
        net=net,
        weights=weights,
        mode=mode,
        input_range=input_range,
        device=device,
        dtype=dtype,
        batch_size=batch_size,
        feature_cache=feature_cache,
        cache_preds=cache_preds,
        return_map=return_map,
        resize_mask=resize_mask,
        max_pixels=max_pixels,
        version=version,
    )


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


def background_preservation(
    preds: Any,
    target: Any,
    mask: Any,
    *,
    net: str = "alex",
    weights: Any = None,
    mode: MaskMode = "area",
    input_range: Any = None,
    device: Any = None,
    dtype: Any = None,
    batch_size: int | None = None,
    feature_cache: Any = None,
    cache_preds: bool = False,
    ocr_backend: Any = "rapidocr",
    ocr_dilate_px: float = 0,
    ocr_options: dict[str, Any] | None = None,
    resize_mask: bool = False,
    max_pixels: int | str | None = "auto",
    version: str | None = None,
) -> torch.Tensor:
    """IMTBench's background score per pair, ``S_bg = 1 - masked LPIPS``, float ``(N,)``, higher
    is better (IMTBench §4, Eq. 3). ``mask`` is the background (1 = background pixels), or
    ``"ocr"``: the complement of the text an OCR detector (``ocr_backend``, ``ocr_options``,
    text grown by ``ocr_dilate_px``) finds in each ``target`` image."""
    if isinstance(mask, str):
        if mask != "ocr":
            raise InputError(f"mask must be an array/tensor of background masks or 'ocr', got {mask!r}")
        mask = ocr_background(
            target, backend=ocr_backend, dilate_px=ocr_dilate_px, input_range=input_range, **(ocr_options or {})
        )
    values = _twin(
        preds,
        target,
        mask,
        net=net,
        weights=weights,
        mode=mode,
        input_range=input_range,
        device=device,
        dtype=dtype,
        batch_size=batch_size,
        feature_cache=feature_cache,
        cache_preds=cache_preds,
        resize_mask=resize_mask,
        max_pixels=max_pixels,
        version=version,
    )
    assert not isinstance(values, tuple)
    return 1 - values
