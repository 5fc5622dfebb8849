"""Images for a judge: any supported input -> 8-bit RGB pixels -> :class:`ImagePart`.

Every input is read by :func:`transcreval.io.to_rgb_pil`, the rule every image metric follows:
files are decoded safely, 8-bit PIL images are converted by PIL (alpha dropped), 16-bit and
float images (16-bit PNG, float TIFF, uint16/float arrays and tensors) are scaled to [0, 1]
(float data by ``input_range``, default ``(0, 1)``) and rounded to 8 bits, which is what a PNG
holds. ``max_side`` shrinks large images (LANCZOS, aspect kept) before hashing, so the key
describes exactly the pixels sent.
"""

from __future__ import annotations

from typing import Any

from transcreval.engines.judge.types import ImagePart
from transcreval.errors import InputError

__all__ = ["to_image_part", "to_image_parts"]


def _one_image(image: Any, what: str) -> Any:
    """``image`` as one image: a 4-D array/tensor must hold exactly one."""
    if isinstance(image, (list, tuple)):
        raise InputError(f"{what}: expected one image, got a {type(image).__name__} of {len(image)}")
    shape = getattr(image, "shape", None)
    if shape is not None and len(shape) == 4:
        if shape[0] != 1:
            raise InputError(
                f"{what}: expected one image, got a batch of {shape[0]} (shape {tuple(shape)}); "
                "pass one image per item (a list of images for several)"
            )
        return image[0]
    return image


def to_image_part(
    image: Any, *, max_side: int | None = None, input_range: Any = None, what: str = "image"
) -> ImagePart:
    """One image input as an :class:`ImagePart` (already-built parts pass through).

    ``input_range``: the value range of float images (default (0, 1)); integer images have a
    fixed meaning (see :mod:`transcreval.io`). A 3-D array is one image; a 4-D one must hold
    exactly one image.
    """
    if isinstance(image, ImagePart):
        return (
            image if max_side is None or max(image.size) <= max_side else to_image_part(image.image, max_side=max_side)
        )
    from PIL import Image

    from transcreval.io import check_input_range, to_rgb_pil

    one = _one_image(image, what)
    try:
        (pil,) = to_rgb_pil([one], input_range=check_input_range(input_range))
    except InputError as e:  # same class, the argument named instead of io's "image 0"
        raise type(e)(f"{what}: {str(e).removeprefix('image 0: ')}") from None
    if max_side is not None:
        if max_side < 1:
            raise InputError(f"max_side must be a positive number of pixels, got {max_side}")
        if max(pil.size) > max_side:
            scale = max_side / max(pil.size)
            size = (max(1, round(pil.width * scale)), max(1, round(pil.height * scale)))
            pil = pil.resize(size, Image.Resampling.LANCZOS)
    return ImagePart.from_pil(pil)


def to_image_parts(
    images: Any, *, max_side: int | None = None, input_range: Any = None, what: str = "images"
) -> list[ImagePart]:
    """A batch of image inputs (list, 4-D array/tensor, or one image) as parts; a single 3-D
    array is read by :func:`transcreval.io.split_batch`'s rule."""
    from transcreval.io import split_batch

    if isinstance(images, ImagePart):
        return [images]
    if isinstance(images, (list, tuple)) and any(isinstance(x, ImagePart) for x in images):
        items = list(images)
    else:
        try:
            items = split_batch(images)
        except InputError as e:
            raise type(e)(f"{what}: {e}") from None
    return [
        to_image_part(x, max_side=max_side, input_range=input_range, what=f"{what}[{i}]") for i, x in enumerate(items)
    ]
