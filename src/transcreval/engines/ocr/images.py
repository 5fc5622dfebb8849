"""Images for the OCR backends: any input :mod:`transcreval.io` accepts, as H x W x 3 uint8 RGB
arrays (what the detectors take), and a content key for caching detection results."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from transcreval.errors import InputError
from transcreval.io import check_input_range

#: Images larger than this many pixels are refused (PIL's decompression-bomb limit).
MAX_PIXELS = 178_956_970


def as_rgb_uint8(images: Any, *, input_range: tuple[float, float] | None = None) -> list[np.ndarray]:
    """Images in any form :mod:`transcreval.io` accepts, as H x W x 3 uint8 RGB numpy arrays,
    by :func:`transcreval.io.to_rgb_uint8`'s rule: 8-bit PIL images and files converted by PIL
    (alpha dropped), uint8 arrays as they are, 16-bit and float images scaled (float data by
    ``input_range``, default ``(0, 1)``) and quantised as ``round(x * 255)``. In-memory images
    larger than :data:`MAX_PIXELS` are refused like files.
    """
    from transcreval.io import split_batch, to_rgb_uint8

    input_range = check_input_range(input_range)
    items = split_batch(images)
    for i, item in enumerate(items):
        size = getattr(item, "size", None)
        if isinstance(size, tuple) and len(size) == 2 and size[0] * size[1] > MAX_PIXELS:
            raise InputError(f"image {i}: {size[0]}x{size[1]} pixels exceeds {MAX_PIXELS}; downscale it first")
    return to_rgb_uint8(items, input_range=input_range, max_pixels=MAX_PIXELS)


def image_key(rgb: np.ndarray) -> bytes:
    """A content key of an H x W x 3 uint8 image (shape + BLAKE2b of the pixels)."""
    h = hashlib.blake2b(digest_size=20)
    h.update(np.asarray(rgb.shape, dtype=np.int64).tobytes())
    h.update(np.ascontiguousarray(rgb).data)
    return h.digest()
