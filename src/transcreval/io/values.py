"""What pixel values mean: the one value rule of every image metric.

Arrays and tensors, by dtype:

* ``bool``: 0/1; ``uint8``: 0..255; ``uint16``: 0..65535. These have a fixed meaning:
  ``input_range`` never changes them (a float output scored against an 8-bit reference with
  ``input_range=(-1, 1)`` reads the reference as 0..255).
* floating point: ``input_range=(low, high)`` (default ``(0, 1)``); values outside it are an
  error that suggests the likely range.
* other integer dtypes (``int8``..``int64``, ``uint32``, ``uint64``) have no fixed meaning:
  they need ``input_range`` (or a conversion to ``uint8`` / ``uint16``).
* NaN or infinite values and complex data are errors.

PIL images, by mode:

* 8-bit modes (``1``, ``L``, ``P``, ``LA``, ``PA``, ``RGB``, ``RGBA``, ``CMYK``, ``YCbCr``,
  ``HSV``, ...): converted to RGB by PIL itself (palette and alpha modes through RGBA); 0..255.
* ``I;16`` (16-bit PNG, TIFF, PGM/PPM files): 0..65535, as ``uint16``.
* ``I`` (32-bit integer): on L's scale, 0..255, as PIL's own conversions treat it
  (``L.convert("I")`` keeps the values); a value outside 0..255 is an error (16-bit data
  belongs in ``I;16``: ``im.convert("I;16")``).
* ``F`` (32-bit float, e.g. float TIFF): a float image, read with ``input_range``.

Consumers that need 8 bits (CLIP/SigLIP's PIL transform, judges, OCR, pHash) quantise the
[0, 1] values as ``round(x * 255)``; 8-bit inputs reach them unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from transcreval.errors import InputError

if TYPE_CHECKING:
    from PIL import Image as PILImage

__all__ = [
    "HIGH_DEPTH_MODES",
    "Range",
    "check_input_range",
    "pil_rgb8",
    "pil_unit_float",
    "quantize",
    "unit_float",
]

Range = tuple[float, float] | None
#: PIL modes whose values are not 8-bit (read by this module's rule, never by PIL's clipping)
HIGH_DEPTH_MODES = ("I;16", "I;16L", "I;16B", "I;16N", "I", "F")
_FIXED = {torch.uint8: 255.0, torch.uint16: 65535.0}
_VIA_RGBA = ("P", "PA", "LA", "La", "RGBa")


def check_input_range(input_range: Any) -> tuple[float, float] | None:
    """``input_range`` checked to be ``None`` or a finite ``(low, high)`` pair with ``low < high``."""
    if input_range is None:
        return None
    if isinstance(input_range, (str, bytes)):
        raise InputError(f"input_range must be a (low, high) pair of numbers, got {input_range!r}")
    try:
        lo, hi = (float(v) for v in input_range)
    except (TypeError, ValueError):
        raise InputError(f"input_range must be a (low, high) pair of numbers, got {input_range!r}") from None
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise InputError(f"input_range must be finite with low < high, got {input_range!r}")
    return (lo, hi)


def _as_tensor(arr: Any) -> torch.Tensor:
    if isinstance(arr, torch.Tensor):
        return arr
    a = np.ascontiguousarray(arr)
    if a.dtype.byteorder not in ("=", "|"):
        a = a.astype(a.dtype.newbyteorder("="))
    return torch.from_numpy(a if a.flags.writeable else a.copy())


def unit_float(arr: Any, input_range: Range, what: str) -> torch.Tensor:
    """Array/tensor of any supported dtype -> float32 tensor in [0, 1] (validated; see the module rule)."""
    t = _as_tensor(arr)
    if t.dtype == torch.bool:
        return t.to(torch.float32)
    if t.dtype in _FIXED:
        return t.to(torch.float32) / _FIXED[t.dtype]
    if t.is_complex():
        raise InputError(f"{what}: complex pixel values are not supported")
    if not t.is_floating_point() and input_range is None:
        raise InputError(
            f"{what}: dtype {t.dtype} has no fixed value range; convert to uint8 (0-255) or uint16 (0-65535), "
            "or pass input_range=(low, high) to say what the values mean"
        )
    x = t.to(torch.float64 if t.dtype == torch.float64 else torch.float32)
    if not bool(torch.isfinite(x).all()):
        raise InputError(f"{what}: the image contains NaN or infinite pixel values")
    if input_range is not None:
        lo, hi = float(input_range[0]), float(input_range[1])
        if not hi > lo:
            raise InputError(f"input_range must be (low, high) with high > low, got {input_range}")
        x = (x - lo) / (hi - lo)
    lo_v, hi_v = (float(v) for v in torch.aminmax(x.detach()))
    if lo_v < 0.0 or hi_v > 1.0:
        raw_lo, raw_hi = (float(v) for v in torch.aminmax(t.detach().to(torch.float64)))
        if input_range is not None:
            raise InputError(
                f"{what}: pixel values span [{raw_lo:g}, {raw_hi:g}], outside input_range={tuple(input_range)}; "
                "state the range of your data with input_range=(low, high)"
            )
        hint = " (looks like 0..255 data: pass input_range=(0, 255))" if hi_v > 1.0 and lo_v >= 0 else ""
        hint = hint or (" (looks like -1..1 data: pass input_range=(-1, 1))" if lo_v >= -1.0 and hi_v <= 1.0 else "")
        raise InputError(
            f"{what}: pixel values span [{lo_v:g}, {hi_v:g}], outside [0, 1]{hint}; "
            "state the range of your data with input_range=(low, high)"
        )
    return x.to(torch.float32)


def quantize(x: torch.Tensor) -> torch.Tensor:
    """[0, 1] floats -> uint8 as ``round(x * 255)`` (the one quantisation of every 8-bit consumer)."""
    return (x.detach() * 255.0).round_().clamp_(0, 255).to(torch.uint8)


def pil_rgb8(im: PILImage.Image, what: str) -> PILImage.Image:
    """An 8-bit-mode PIL image as RGB, converted by PIL (palette and alpha modes through RGBA)."""
    if im.width == 0 or im.height == 0:
        raise InputError(f"{what}: zero-size PIL image {im.size}")
    if im.mode == "RGB":
        return im
    try:
        return im.convert("RGBA").convert("RGB") if im.mode in _VIA_RGBA else im.convert("RGB")
    except (ValueError, OSError) as e:
        raise InputError(f"{what}: cannot convert PIL mode {im.mode!r} to RGB ({e})") from e


def pil_unit_float(im: PILImage.Image, input_range: Range, what: str) -> torch.Tensor:
    """A PIL image as float32 in [0, 1]: ``H x W`` for the single-band high-depth modes
    (``I;16``, ``I``, ``F``), else ``H x W x 3`` RGB."""
    if im.width == 0 or im.height == 0:
        raise InputError(f"{what}: zero-size PIL image {im.size}")
    mode = im.mode
    if mode in HIGH_DEPTH_MODES:
        a = np.asarray(im)
        if mode == "I":
            lo, hi = int(a.min()), int(a.max())
            if lo < 0 or hi > 255:
                raise InputError(
                    f"{what}: a PIL mode 'I' image is read on L's 0..255 scale, but its values span [{lo}, {hi}]; "
                    "for 16-bit data convert it with im.convert('I;16') (0..65535), or pass a float array "
                    "with input_range"
                )
            a = a.astype(np.uint8)
        elif mode != "F":
            a = a.astype(np.uint16)
        return unit_float(a, input_range if mode == "F" else None, what)
    return torch.from_numpy(np.array(pil_rgb8(im, what))).to(torch.float32) / 255.0
