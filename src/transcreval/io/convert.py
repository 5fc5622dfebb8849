"""Any supported image input -> float RGB in [0, 1], or 8-bit RGB (arrays or PIL images).

Every path from a file, PIL image, array or tensor to pixels goes through these functions and
:mod:`transcreval.io.values`' rule, so the same picture gives the same pixels whichever form it
came in (8-bit or 16-bit PNG, float TIFF, uint8/uint16/float arrays and tensors).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from transcreval.io.decode import DEFAULT_MAX_PIXELS, is_encoded, is_pil, open_image
from transcreval.io.layout import Channels, split_batch, to_hwc
from transcreval.io.values import HIGH_DEPTH_MODES, Range, pil_rgb8, pil_unit_float, quantize, unit_float
from transcreval.utils.threads import torch_threads

if TYPE_CHECKING:
    from PIL import Image as PILImage

__all__ = ["to_rgb_float", "to_rgb_pil", "to_rgb_uint8"]


def _rgb_planes(x: torch.Tensor) -> torch.Tensor:
    """H x W x C (C = 1..4) -> H x W x 3: gray (and gray + alpha) repeated, alpha dropped."""
    c = x.shape[-1]
    return x[..., :1].expand(-1, -1, 3) if c in (1, 2) else x[..., :3]


def _items(images: Any, channels: Channels, max_pixels: int, exif_transpose: bool) -> Iterator[Any]:
    """The batch's items (the whole batch checked first), each file decoded when it is reached."""
    for item in split_batch(images, channels=channels):
        yield open_image(item, max_pixels=max_pixels, exif_transpose=exif_transpose) if is_encoded(item) else item


def _float_hwc(item: Any, input_range: Range, channels: Channels, what: str) -> torch.Tensor:
    """One decoded item as float32 H x W x 3 in [0, 1] (tensors keep their device)."""
    if is_pil(item):
        x = pil_unit_float(item, input_range, what)
        return x[..., None].expand(-1, -1, 3) if x.ndim == 2 else x
    hwc = to_hwc(item, channels, isinstance(item, torch.Tensor))
    return _rgb_planes(unit_float(hwc, input_range, what))


def to_rgb_float(
    images: Any,
    *,
    input_range: Range = None,
    channels: Channels = None,
    exif_transpose: bool = False,
    max_pixels: int = DEFAULT_MAX_PIXELS,
) -> torch.Tensor | list[torch.Tensor]:
    """Coerce any supported image input to float32 RGB in [0, 1].

    Returns one ``N x 3 x H x W`` tensor when every image has the same size, else a list of
    ``3 x H x W`` tensors. Tensors keep their device. ``input_range`` is the value range of
    float data (see :mod:`transcreval.io` for the whole rule).
    """
    out: list[torch.Tensor] = []
    with torch_threads(1):  # a per-image loop: one intra-op thread (transcreval.utils.threads)
        for i, item in enumerate(_items(images, channels, max_pixels, exif_transpose)):
            out.append(_float_hwc(item, input_range, channels, f"image {i}").permute(2, 0, 1))
        if all(t.shape == out[0].shape for t in out):
            return torch.stack(out)  # one contiguous copy
        return [t.contiguous() for t in out]


def _uint8_hwc(item: Any, input_range: Range, channels: Channels, what: str) -> np.ndarray | PILImage.Image:
    """One decoded item as 8-bit RGB: a PIL image for 8-bit PIL inputs (converted by PIL),
    else a C-contiguous H x W x 3 uint8 numpy array."""
    if is_pil(item) and item.mode not in HIGH_DEPTH_MODES:
        return pil_rgb8(item, what)
    if not is_pil(item):
        hwc = to_hwc(item, channels, isinstance(item, torch.Tensor))
        if isinstance(hwc, torch.Tensor) and hwc.dtype == torch.uint8:
            return np.ascontiguousarray(_rgb_planes(hwc).detach().cpu().numpy())
        if isinstance(hwc, np.ndarray) and hwc.dtype == np.uint8:
            c = hwc.shape[-1]
            return np.ascontiguousarray(np.repeat(hwc[..., :1], 3, axis=-1) if c in (1, 2) else hwc[..., :3])
    x = _float_hwc(item, input_range, channels, what)
    return np.ascontiguousarray(quantize(x).cpu().numpy())


def to_rgb_uint8(
    images: Any,
    *,
    input_range: Range = None,
    channels: Channels = None,
    exif_transpose: bool = False,
    max_pixels: int = DEFAULT_MAX_PIXELS,
) -> list[np.ndarray]:
    """Each image as an ``H x W x 3`` uint8 RGB numpy array.

    8-bit PIL images and files are converted by PIL (palette and alpha modes through RGBA),
    uint8 arrays are used as they are (gray repeated, alpha dropped); everything else (16-bit
    and float images, other dtypes) is read by the value rule and quantised as ``round(x * 255)``.
    """
    out = []
    with torch_threads(1):  # a per-image loop: one intra-op thread (transcreval.utils.threads)
        for i, item in enumerate(_items(images, channels, max_pixels, exif_transpose)):
            rgb = _uint8_hwc(item, input_range, channels, f"image {i}")
            out.append(rgb if isinstance(rgb, np.ndarray) else np.asarray(rgb))
    return out


def to_rgb_pil(
    images: Any,
    *,
    input_range: Range = None,
    channels: Channels = None,
    exif_transpose: bool = False,
    max_pixels: int = DEFAULT_MAX_PIXELS,
) -> list[PILImage.Image]:
    """Each image as an 8-bit RGB PIL image: the pixels of :func:`to_rgb_uint8` (8-bit PIL
    images are converted by PIL, without a copy when already RGB)."""
    from PIL import Image

    out = []
    with torch_threads(1):  # a per-image loop: one intra-op thread (transcreval.utils.threads)
        for i, item in enumerate(_items(images, channels, max_pixels, exif_transpose)):
            rgb = _uint8_hwc(item, input_range, channels, f"image {i}")
            out.append(Image.fromarray(rgb, "RGB") if isinstance(rgb, np.ndarray) else rgb)
    return out
