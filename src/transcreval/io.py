"""Image input coercion shared by every image metric.

Accepted images: file paths (``str`` / ``os.PathLike``), encoded ``bytes``, PIL images of any
mode, numpy arrays and torch tensors. Arrays may be ``HW``, ``HWC`` or ``CHW`` with an optional
leading batch dimension; channels are 1 (L), 2 (L+alpha), 3 (RGB) or 4 (RGBA). A batch is a
4-D array/tensor or a list/tuple of images.

Value ranges: ``uint8`` means 0..255 and ``bool`` means 0/1. Float inputs must lie in [0, 1]
unless ``input_range=(lo, hi)`` says otherwise (for example ``(-1, 1)`` or ``(0, 255)``); other
integer dtypes always need ``input_range``. NaN or infinite pixels are an error.

Channel layout: numpy arrays default to channels-last, tensors to channels-first; when the
shape does not tell (or contradicts the default) pass ``channels="first"`` or ``"last"``.

Alpha is ignored (the colour channels are used as they are, as PIL's RGBA->RGB does).
EXIF orientation is **not** applied by default, so results match tools that read the stored
pixels (imagehash, PIL); pass ``exif_transpose=True`` to rotate images as viewers show them.

Decoding is defensive: missing files, unknown formats, truncated or corrupt data and images
larger than ``max_pixels`` raise :class:`~transcreval.errors.ImageDecodeError` naming the file.
"""

from __future__ import annotations

import io as _io
import os
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import torch

from transcreval.errors import EmptyInputError, ImageDecodeError, InputError

if TYPE_CHECKING:
    from PIL import Image as PILImage

DEFAULT_MAX_PIXELS = 178_956_970  # PIL's own default decompression-bomb limit
Channels = Literal["first", "last"] | None
Range = tuple[float, float] | None


def _is_pil(x: Any) -> bool:
    mod = type(x).__module__
    return mod.startswith("PIL.") and hasattr(x, "mode") and hasattr(x, "size")


def open_image(
    source: str | os.PathLike[str] | bytes | bytearray,
    *,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    exif_transpose: bool = False,
) -> PILImage.Image:
    """Decode a file path or encoded bytes into a fully loaded PIL image, safely."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    if isinstance(source, (bytes, bytearray)):
        name = f"<{len(source)} bytes>"
        if len(source) == 0:
            raise ImageDecodeError(f"{name}: empty byte string, not an image")
        fp: Any = _io.BytesIO(bytes(source))
    else:
        name = os.fspath(source)
        if not os.path.exists(name):
            raise ImageDecodeError(f"{name}: no such file")
        if os.path.isdir(name):
            raise ImageDecodeError(f"{name}: is a directory, not an image file")
        fp = name
    im: PILImage.Image | None = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            im = Image.open(fp)
            w, h = im.size
            if w * h > max_pixels:
                raise ImageDecodeError(
                    f"{name}: {w}x{h} = {w * h} pixels exceeds max_pixels={max_pixels} "
                    "(a decompression bomb, or a huge image: pass a larger max_pixels if you trust it)"
                )
            if w == 0 or h == 0:
                raise ImageDecodeError(f"{name}: zero-size image ({w}x{h})")
            im.load()
    except BaseException as e:
        if im is not None:
            im.close()  # a failed decode must not leak the file handle
        if isinstance(e, ImageDecodeError):
            raise
        if isinstance(e, Image.DecompressionBombError):
            raise ImageDecodeError(f"{name}: refused as a decompression bomb ({e})") from e
        if isinstance(e, UnidentifiedImageError):
            raise ImageDecodeError(f"{name}: not an image, or a format PIL cannot read") from e
        if isinstance(e, (OSError, SyntaxError, ValueError, EOFError, IndexError, TypeError)):
            raise ImageDecodeError(f"{name}: truncated or corrupt image data ({e})") from e
        raise
    if exif_transpose:
        im = ImageOps.exif_transpose(im)
    return im


def split_batch(images: Any) -> list[Any]:
    """Split a batch into items: a list/tuple, a 4-D array/tensor, or a single image."""
    if isinstance(images, (str, bytes, bytearray, os.PathLike)) or _is_pil(images):
        return [images]
    if isinstance(images, (np.ndarray, torch.Tensor)):
        if images.ndim == 4:
            if images.shape[0] == 0:
                raise EmptyInputError(f"empty batch of shape {tuple(images.shape)}: pass at least one image")
            return list(images)
        if images.ndim in (2, 3):
            return [images]
        raise InputError(
            f"an image array must have 2 (HW), 3 (HWC/CHW) or 4 (NHWC/NCHW) dimensions, got shape {tuple(images.shape)}"
        )
    if isinstance(images, Sequence):
        items = list(images)
        if not items:
            raise EmptyInputError("empty batch: pass at least one image")
        for i, it in enumerate(items):
            if isinstance(it, (np.ndarray, torch.Tensor)) and it.ndim not in (2, 3):
                raise InputError(
                    f"image {i}: expected a 2-D or 3-D array in a list of images, got shape {tuple(it.shape)}"
                )
            if not (isinstance(it, (str, bytes, bytearray, os.PathLike, np.ndarray, torch.Tensor)) or _is_pil(it)):
                raise InputError(
                    f"image {i}: unsupported type {type(it).__name__}; pass a path, bytes, PIL image, array or tensor"
                )
        return items
    raise InputError(
        f"unsupported image input of type {type(images).__name__}; pass paths, bytes, PIL images, arrays or tensors"
    )


def _to_hwc(arr: Any, channels: Channels, is_torch: bool) -> Any:
    """Return the array as H x W x C (a view where possible)."""
    if arr.ndim == 2:
        arr = arr[:, :, None]
    elif arr.ndim == 3:
        first, last = arr.shape[0] in (1, 2, 3, 4), arr.shape[-1] in (1, 2, 3, 4)
        if channels == "first" or (channels is None and first and (is_torch or not last)):
            if not first:
                raise InputError(
                    f"channels='first' but the first dimension of shape {tuple(arr.shape)} is not 1-4 channels"
                )
            arr = arr.permute(1, 2, 0) if is_torch else np.transpose(arr, (1, 2, 0))
        elif channels == "last" or (channels is None and last):
            if not last:
                raise InputError(
                    f"channels='last' but the last dimension of shape {tuple(arr.shape)} is not 1-4 channels"
                )
        else:
            raise InputError(
                f"cannot tell the channel dimension of an image of shape {tuple(arr.shape)}: "
                "images need 1, 2, 3 or 4 channels first (CHW) or last (HWC)"
            )
    else:
        raise InputError(f"an image must have 2 or 3 dimensions, got shape {tuple(arr.shape)}")
    h, w = arr.shape[0], arr.shape[1]
    if h == 0 or w == 0:
        raise InputError(f"zero-size image of shape {tuple(arr.shape)}")
    return arr


def _unit_float(arr: Any, input_range: Range, what: str) -> torch.Tensor:
    """Array/tensor of any supported dtype -> float tensor in [0, 1] (validated)."""
    if isinstance(arr, torch.Tensor):
        t = arr
    else:
        a = np.ascontiguousarray(arr)
        t = torch.from_numpy(a if a.flags.writeable else a.copy())
    if t.dtype == torch.uint8 and input_range is None:
        return t.to(torch.float32) / 255.0
    if t.dtype == torch.bool:
        return t.to(torch.float32)
    if t.is_complex():
        raise InputError(f"{what}: complex pixel values are not supported")
    if not t.is_floating_point() and input_range is None:
        raise InputError(
            f"{what}: dtype {t.dtype} has no implied value range; convert to uint8, or pass input_range=(0, 255) "
            "or (0, 65535) to say what the values mean"
        )
    x = t.to(torch.float64 if t.dtype == torch.float64 else torch.float32)
    if not bool(torch.isfinite(x).all()):
        raise InputError(f"{what}: the image contains NaN or infinite pixel values")
    if input_range is not None:
        lo, hi = float(input_range[0]), float(input_range[1])
        if not hi > lo:
            raise InputError(f"input_range must be (low, high) with high > low, got {input_range}")
        x = (x - lo) / (hi - lo)
    lo_v, hi_v = float(x.detach().min()), float(x.detach().max())
    if lo_v < 0.0 or hi_v > 1.0:
        hint = " (looks like 0..255 data: pass input_range=(0, 255))" if hi_v > 1.0 and lo_v >= 0 else ""
        hint = hint or (" (looks like -1..1 data: pass input_range=(-1, 1))" if lo_v >= -1.0 and hi_v <= 1.0 else "")
        raise InputError(
            f"{what}: pixel values span [{lo_v:g}, {hi_v:g}], outside [0, 1]{hint}; "
            "state the range of your data with input_range=(low, high)"
        )
    return x.to(torch.float32)


def _pil_to_rgb_float(im: PILImage.Image, input_range: Range, what: str) -> torch.Tensor:
    mode = im.mode
    if mode in ("I;16", "I;16L", "I;16B", "I;16N"):
        a = np.asarray(im).astype(np.float32) / 65535.0
        t = torch.from_numpy(a)[None].expand(3, -1, -1)
        return t.contiguous()
    if mode in ("I", "F"):
        a = np.asarray(im)
        t = _unit_float(
            a if mode == "F" else a.astype(np.float64), input_range if mode == "F" else (input_range or (0, 255)), what
        )
        return t[None].expand(3, -1, -1).contiguous()
    if mode != "RGB":
        try:
            im = im.convert("RGBA").convert("RGB") if mode in ("P", "PA", "LA", "La", "RGBa") else im.convert("RGB")
        except (ValueError, OSError) as e:
            raise InputError(f"{what}: cannot convert PIL mode {mode!r} to RGB ({e})") from e
    a = np.asarray(im)
    return torch.from_numpy(a.copy()).permute(2, 0, 1).to(torch.float32) / 255.0


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
    ``3 x H x W`` tensors. Tensors keep their device.
    """
    out: list[torch.Tensor] = []
    for i, item in enumerate(split_batch(images)):
        what = f"image {i}"
        if isinstance(item, (str, bytes, bytearray, os.PathLike)):
            item = open_image(item, max_pixels=max_pixels, exif_transpose=exif_transpose)
        if _is_pil(item):
            if item.width == 0 or item.height == 0:
                raise InputError(f"{what}: zero-size PIL image {item.size}")
            out.append(_pil_to_rgb_float(item, input_range, what))
            continue
        is_torch = isinstance(item, torch.Tensor)
        hwc = _to_hwc(item, channels, is_torch)
        x = _unit_float(hwc, input_range, what)
        c = x.shape[-1]
        rgb = x[..., :1].expand(-1, -1, 3) if c in (1, 2) else x[..., :3]
        out.append(rgb.permute(2, 0, 1).contiguous())
    if all(t.shape == out[0].shape for t in out):
        return torch.stack(out)
    return out


# ---------------------------------------------------------------- PIL-exact grayscale (pHash)
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


def _arrow_view(im: PILImage.Image) -> np.ndarray | None:
    """Zero-copy uint8 view of a single-band 8-bit PIL image via the Arrow C data interface.

    ``np.asarray(im)`` copies through ``tobytes`` (a quarter of pHash's time on 512x768
    images); Pillow >= 11.2 exports its buffer instead. The view keeps the export capsule alive.
    Returns None where the export is unavailable (older Pillow, images split across blocks).
    """
    import ctypes

    try:
        _schema, array_capsule = im.__arrow_c_array__()
    except (AttributeError, ValueError, TypeError, NotImplementedError):
        return None

    class _ArrowArray(ctypes.Structure):
        _fields_ = [
            ("length", ctypes.c_int64),
            ("null_count", ctypes.c_int64),
            ("offset", ctypes.c_int64),
            ("n_buffers", ctypes.c_int64),
            ("n_children", ctypes.c_int64),
            ("buffers", ctypes.POINTER(ctypes.c_void_p)),
        ]

    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    try:
        arr = _ArrowArray.from_address(get(array_capsule, b"arrow_array"))
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
) -> list[Any]:
    """Each image as a 2-D uint8 grayscale array, exactly as ``PIL.Image.convert('L')`` gives.

    PIL images (and decoded files) are converted by PIL itself; uint8 arrays use PIL's integer
    formula; float arrays are first quantised as ``round(x * 255)``. Returns numpy arrays, or
    torch tensors on the input's device for tensor inputs.
    """
    out: list[Any] = []
    for i, item in enumerate(split_batch(images)):
        what = f"image {i}"
        if isinstance(item, (str, bytes, bytearray, os.PathLike)):
            item = open_image(item, max_pixels=max_pixels, exif_transpose=exif_transpose)
        if _is_pil(item):
            if item.width == 0 or item.height == 0:
                raise InputError(f"{what}: zero-size PIL image {item.size}")
            out.append(pil_gray(item))
            continue
        is_torch = isinstance(item, torch.Tensor)
        hwc = _to_hwc(item, channels, is_torch)
        if hwc.dtype not in (np.uint8, torch.uint8) or input_range is not None:
            q = (_unit_float(hwc, input_range, what) * 255.0).round().to(torch.uint8)
            hwc = q if is_torch else q.numpy()
        out.append(_gray_from_uint8_hwc(hwc))
    return out
