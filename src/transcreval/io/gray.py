"""8-bit grayscale exactly as ``PIL.Image.convert('L')`` gives it (pHash's input).

8-bit PIL images (and decoded files) are converted by PIL itself, so pHash stays bit-identical
with ``imagehash.phash`` on them. uint8 arrays use PIL's integer formula; every other input
(16-bit and float PIL modes, uint16/float/bool arrays) is read by :mod:`transcreval.io.values`'
rule and quantised as ``round(x * 255)`` first, so a 16-bit PNG hashes like its 8-bit copy
(imagehash's own ``convert('L')`` clips 16-bit values at 255 instead).
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from transcreval.errors import InputError
from transcreval.io.decode import DEFAULT_MAX_PIXELS, is_encoded, is_pil, open_image
from transcreval.io.layout import Channels, split_batch, to_hwc
from transcreval.io.values import HIGH_DEPTH_MODES, Range, pil_unit_float, quantize, unit_float
from transcreval.utils.threads import torch_threads

if TYPE_CHECKING:
    from PIL import Image as PILImage

__all__ = ["pil_gray", "to_gray_uint8"]


def _gray_from_uint8_hwc(x: Any) -> Any:
    """PIL's 'L' conversion of uint8 HWC pixels: ``(R*19595 + G*38470 + B*7471 + 2**15) >> 16``.

    Tensors (any device) are computed plane by plane in int32 (fast for channel-first data);
    C-contiguous numpy colour images are handed to PIL, which runs the same formula in C
    without the GIL. Alpha is ignored and 2-channel images keep their first (L) channel.
    """
    c = x.shape[-1]
    if c in (1, 2):
        return x[..., 0]
    if isinstance(x, np.ndarray) and x.flags.c_contiguous:
        from PIL import Image

        return pil_gray(Image.fromarray(x, "RGB" if c == 3 else "RGBA"))
    t = x if isinstance(x, torch.Tensor) else torch.from_numpy(x)
    acc = t[..., 0].to(torch.int32).mul_(19595)  # in place: one int32 buffer besides a scratch plane
    for k, weight in ((1, 38470), (2, 7471)):
        acc += t[..., k].to(torch.int32).mul_(weight)
    gray = acc.add_(32768).bitwise_right_shift_(16).to(torch.uint8)
    return gray if isinstance(x, torch.Tensor) else gray.numpy()


class _ArrowArray(ctypes.Structure):
    """The head of an Arrow C data interface ``ArrowArray`` (enough to find its buffers)."""

    _fields_ = [
        ("length", ctypes.c_int64),
        ("null_count", ctypes.c_int64),
        ("offset", ctypes.c_int64),
        ("n_buffers", ctypes.c_int64),
        ("n_children", ctypes.c_int64),
        ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _arrow_view(im: PILImage.Image) -> np.ndarray | None:
    """Zero-copy uint8 view of a single-band 8-bit PIL image via the Arrow C data interface.

    ``np.asarray(im)`` copies through ``tobytes`` (a quarter of pHash's time on 512x768
    images); Pillow >= 11.2 exports its buffer instead. The view keeps the export capsule alive.
    Returns None where the export is unavailable (older Pillow, images split across blocks).
    """
    try:
        _schema, array_capsule = im.__arrow_c_array__()
    except (AttributeError, ValueError, TypeError, NotImplementedError):
        return None
    try:
        arr = _ArrowArray.from_address(_capsule_pointer(array_capsule, b"arrow_array"))
    except (ValueError, TypeError):
        return None
    w, h = im.size
    if arr.length != w * h or arr.n_buffers != 2 or arr.n_children != 0 or arr.offset != 0 or not arr.buffers[1]:
        return None
    buf = (ctypes.c_uint8 * (w * h)).from_address(arr.buffers[1])
    buf._capsule = array_capsule  # type: ignore[attr-defined]  # keeps the exported memory alive
    return np.frombuffer(buf, dtype=np.uint8).reshape(h, w)  # type: ignore[call-overload]


def pil_gray(im: PILImage.Image) -> np.ndarray:
    """``im.convert('L')`` as a 2-D uint8 array (zero-copy where Pillow allows)."""
    if im.width == 0 or im.height == 0:
        raise InputError(f"zero-size PIL image {im.size}")
    try:
        g = im.convert("L")
    except (ValueError, OSError) as e:
        raise InputError(
            f"cannot convert a PIL image of mode {im.mode!r} to grayscale ({e}); convert it to RGB first"
        ) from e
    view = _arrow_view(g)
    return view if view is not None else np.asarray(g)


def to_gray_uint8(
    images: Any,
    *,
    input_range: Range = None,
    channels: Channels = None,
    exif_transpose: bool = False,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    draft: int | None = None,
) -> list[Any]:
    """Each image as a 2-D uint8 grayscale array, exactly as ``PIL.Image.convert('L')`` gives
    for 8-bit images (see the module docstring for the others).

    Returns numpy arrays, or torch tensors on the input's device for tensor inputs.
    ``draft``: decode JPEG files in grayscale, reduced in the decoder to at least
    ``draft x draft`` pixels (faster; not the pixels of a full decode, see
    :func:`~transcreval.io.open_image`).
    """
    with torch_threads(1):  # a per-image loop: one intra-op thread (transcreval.utils.threads)
        return _gray_items(
            split_batch(images, channels=channels), input_range, channels, exif_transpose, max_pixels, draft
        )


def _gray_items(
    items: list[Any], input_range: Range, channels: Channels, exif_transpose: bool, max_pixels: int, draft: int | None
) -> list[Any]:
    out: list[Any] = []
    hint = None if draft is None else ("L", (draft, draft))
    for i, item in enumerate(items):
        what = f"image {i}"
        if is_encoded(item):
            item = open_image(item, max_pixels=max_pixels, exif_transpose=exif_transpose, draft=hint)
        if is_pil(item):
            if item.width == 0 or item.height == 0:
                raise InputError(f"{what}: zero-size PIL image {item.size}")
            if item.mode in HIGH_DEPTH_MODES:  # single band: the gray value is the band, quantised
                out.append(quantize(pil_unit_float(item, input_range, what)).numpy())
            else:
                out.append(pil_gray(item))
            continue
        is_torch = isinstance(item, torch.Tensor)
        hwc = to_hwc(item, channels, is_torch)
        if hwc.dtype not in (np.uint8, torch.uint8):
            q = quantize(unit_float(hwc, input_range, what))
            hwc = q if is_torch else q.numpy()
        out.append(_gray_from_uint8_hwc(hwc))
    return out
