"""Safe decoding of image files and encoded bytes into PIL images."""

from __future__ import annotations

import io as _io
import os
import warnings
from typing import TYPE_CHECKING, Any

from transcreval.errors import ImageDecodeError

if TYPE_CHECKING:
    from PIL import Image as PILImage

__all__ = ["DEFAULT_MAX_PIXELS", "is_encoded", "is_pil", "open_image"]

DEFAULT_MAX_PIXELS = 178_956_970  # PIL's own default decompression-bomb limit


def is_pil(x: Any) -> bool:
    """True for a PIL image (checked without importing PIL)."""
    mod = type(x).__module__
    return mod.startswith("PIL.") and hasattr(x, "mode") and hasattr(x, "size")


def is_encoded(x: Any) -> bool:
    """True for what :func:`open_image` decodes: a path (``str`` / ``os.PathLike``) or encoded bytes."""
    return isinstance(x, (str, bytes, bytearray, os.PathLike))


def open_image(
    source: str | os.PathLike[str] | bytes | bytearray,
    *,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    exif_transpose: bool = False,
    draft: tuple[str, tuple[int, int]] | None = None,
) -> PILImage.Image:
    """Decode a file path or encoded bytes into a fully loaded PIL image, safely.

    16-bit PGM/PPM files (which PIL opens as mode ``I``, scaled to 0..65535) are returned as
    ``I;16``, like 16-bit PNG and TIFF files, so the value rule reads them as 16-bit.

    ``draft=(mode, (w, h))`` lets a JPEG decoder produce ``mode`` at a size reduced by 2, 4 or 8
    but at least ``w x h`` (PIL's ``Image.draft``): faster, and *not* the pixels of a full
    decode. Other formats ignore it. ``max_pixels`` applies to the stored size.
    """
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
            if draft is not None and im.format in ("JPEG", "MPO"):
                im.draft(*draft)
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
    if im.mode == "I" and im.format == "PPM":
        im = im.convert("I;16")  # 16-bit PGM/PPM: PIL decodes them as mode I, scaled to 0..65535
    if exif_transpose:
        im = ImageOps.exif_transpose(im)
    return im
