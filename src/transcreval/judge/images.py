"""Images for a judge: any supported input -> 8-bit RGB pixels -> :class:`ImagePart`.

Paths and encoded bytes are decoded safely (:func:`transcreval.io.open_image`); PIL images
are converted to RGB the way :mod:`transcreval.io` does (alpha dropped); arrays and tensors go
through :func:`transcreval.io.to_rgb_float` (same range checks) and are rounded to 8 bits,
which is what a PNG holds. ``max_side`` shrinks large images (LANCZOS, aspect kept) before
hashing, so the key describes exactly the pixels sent.
"""

from __future__ import annotations

import os
from typing import Any

from transcreval.errors import InputError
from transcreval.judge.types import ImagePart

__all__ = ["to_image_part", "to_image_parts"]


def _rgb(im: Any) -> Any:
    if im.mode == "RGB":
        return im
    if im.mode in ("P", "PA", "LA", "La", "RGBa"):
        return im.convert("RGBA").convert("RGB")
    return im.convert("RGB")


def to_image_part(image: Any, *, max_side: int | None = None, what: str = "image") -> ImagePart:
    """One image input as an :class:`ImagePart` (already-built parts pass through)."""
    if isinstance(image, ImagePart):
        return (
            image if max_side is None or max(image.size) <= max_side else to_image_part(image.image, max_side=max_side)
        )
    import torch
    from PIL import Image

    from transcreval.io import open_image, to_rgb_float

    if isinstance(image, (str, bytes, bytearray, os.PathLike)):
        pil = _rgb(open_image(image))
    elif isinstance(image, Image.Image):
        if image.width == 0 or image.height == 0:
            raise InputError(f"{what}: zero-size PIL image {image.size}")
        pil = _rgb(image)
    else:
        try:
            t = to_rgb_float(image)
        except InputError as e:
            raise InputError(f"{what}: {e}") from e
        t = t[0] if not isinstance(t, list) and t.ndim == 4 else t
        if isinstance(t, list) or t.ndim != 3:
            raise InputError(f"{what}: expected one image, got a batch")
        arr = (t.detach().to("cpu").clamp(0, 1) * 255.0).round().to(dtype=torch.uint8)
        pil = Image.fromarray(arr.permute(1, 2, 0).contiguous().numpy(), mode="RGB")
    if max_side is not None:
        if max_side < 1:
            raise InputError(f"max_side must be a positive number of pixels, got {max_side}")
        if max(pil.size) > max_side:
            scale = max_side / max(pil.size)
            size = (max(1, round(pil.width * scale)), max(1, round(pil.height * scale)))
            pil = pil.resize(size, Image.Resampling.LANCZOS)
    return ImagePart.from_pil(pil)


def to_image_parts(images: Any, *, max_side: int | None = None, what: str = "images") -> list[ImagePart]:
    """A batch of image inputs (list, 4-D array/tensor, or one image) as parts."""
    from transcreval.io import split_batch

    if isinstance(images, ImagePart):
        return [images]
    if isinstance(images, (list, tuple)) and any(isinstance(x, ImagePart) for x in images):
        return [to_image_part(x, max_side=max_side, what=f"{what}[{i}]") for i, x in enumerate(images)]
    return [to_image_part(x, max_side=max_side, what=f"{what}[{i}]") for i, x in enumerate(split_batch(images))]
