"""Images for the OCR backends: any input :mod:`transcreval.io` accepts, as H x W x 3 uint8 RGB
arrays (what the detectors take), and a content key for caching detection results."""

from __future__ import annotations

import hashlib
import os
from typing import Any

import numpy as np

from transcreval.errors import InputError

#: Images larger than this many pixels are refused (PIL's decompression-bomb limit).
MAX_PIXELS = 178_956_970


def check_input_range(input_range: Any) -> tuple[float, float] | None:
    """``input_range`` checked to be ``None`` or a finite ``(low, high)`` pair with ``low < high``."""
    if input_range is None:
        return None
    try:
        lo, hi = (float(v) for v in input_range)
    except (TypeError, ValueError):
        raise InputError(f"input_range must be a (low, high) pair of numbers, got {input_range!r}") from None
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise InputError(f"input_range must be finite with low < high, got {input_range!r}")
    return (lo, hi)


def as_rgb_uint8(images: Any, *, input_range: tuple[float, float] | None = None) -> list[np.ndarray]:
    """Images in any form :mod:`transcreval.io` accepts, as H x W x 3 uint8 RGB numpy arrays.

    8-bit PIL images and files are converted by PIL itself (``convert("RGB")``, alpha dropped);
    uint8 H x W x 3 numpy arrays are used as they are (unless ``input_range`` says something
    other than (0, 255)); everything else (16-bit and float PIL modes, other arrays, tensors)
    goes through :func:`transcreval.io.to_rgb_float` with ``input_range`` (the value range of
    float data: ``(0, 1)`` when not given, e.g. ``(-1, 1)`` or ``(0, 255)``) and is quantised
    as ``round(x * 255)``.
    """
    import torch

    from transcreval.io import open_image, split_batch, to_rgb_float

    input_range = check_input_range(input_range)
    raw_uint8 = input_range is None or input_range == (0.0, 255.0)
    out: list[np.ndarray] = []
    for i, item in enumerate(split_batch(images)):
        if isinstance(item, (str, bytes, bytearray, os.PathLike)):
            item = open_image(item, max_pixels=MAX_PIXELS)
        if _is_pil_like(item):
            w, h = item.size
            if w * h > MAX_PIXELS:
                raise InputError(f"image {i}: {w}x{h} pixels exceeds {MAX_PIXELS}; downscale it first")
            if item.mode not in _HIGH_DEPTH:
                rgb = item if item.mode == "RGB" else to_pil_rgb(item, i)
                out.append(np.asarray(rgb))
                continue
            # 16-bit and float modes: transcreval.io scales them to [0, 1], quantised below
        rgb_array = isinstance(item, np.ndarray) and item.dtype == np.uint8 and item.ndim == 3 and item.shape[-1] == 3
        if raw_uint8 and rgb_array:
            if item.shape[0] == 0 or item.shape[1] == 0:
                raise InputError(f"image {i}: zero-size image of shape {item.shape}")
            out.append(np.ascontiguousarray(item))
            continue
        t = to_rgb_float(item, input_range=input_range)[0]
        out.append(t.detach().to("cpu").permute(1, 2, 0).mul(255.0).round().to(torch.uint8).numpy())
    return out


_HIGH_DEPTH = ("I;16", "I;16L", "I;16B", "I;16N", "I", "F")


def _is_pil_like(x: Any) -> bool:
    return type(x).__module__.startswith("PIL.") and hasattr(x, "convert")


def to_pil_rgb(im: Any, index: int) -> Any:
    """An 8-bit PIL image of any mode as RGB (palette and alpha modes through RGBA, as io does)."""
    try:
        if im.mode in ("P", "PA", "LA", "La", "RGBa"):
            return im.convert("RGBA").convert("RGB")
        return im.convert("RGB")
    except (ValueError, OSError) as e:
        raise InputError(f"image {index}: cannot convert PIL mode {im.mode!r} to RGB ({e})") from e


def image_key(rgb: np.ndarray) -> bytes:
    """A content key of an H x W x 3 uint8 image (shape + BLAKE2b of the pixels)."""
    h = hashlib.blake2b(digest_size=20)
    h.update(np.asarray(rgb.shape, dtype=np.int64).tobytes())
    h.update(np.ascontiguousarray(rgb).data)
    return h.digest()
