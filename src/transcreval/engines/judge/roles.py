"""What an input of a judge metric means, and one rule for what a string means in each role.

Every judge metric declares the role of each ``update`` argument (``input_roles``) and reads it
with the function of that role, so a ``str`` means the same thing everywhere:

* ``"image"``: an image (a path as ``str`` or ``pathlib.Path``, encoded bytes, PIL, an array or
  a tensor). A ``str`` is always a file path; one that names no readable image is an error.
* ``"image_or_text"``: an image, or a text already read (a title given as text, a model's
  description of a poster). A ``str`` is an image when it is the path of an existing image file
  (:func:`transcreval.core.common.image_path_kind`: an image extension, or image bytes), an error
  when it ends in an image extension but no such file exists, and a text otherwise.
* ``"text"``: text for the prompt or the scoring (a market, a genre, a translation, an answer,
  key points): a ``str`` checked by :func:`transcreval.core.common.check_text` (bytes, numbers,
  lists, image paths and lone surrogates are errors naming the argument and the item),
  one for all items or one per item; None or NaN marks a missing value.
* ``"ids"``: item ids (any value, compared as its ``str``).
* ``"mask"``: a region mask (an array, tensor, PIL image or image file, 1 = inside), read by
  the mask rule of :mod:`transcreval.io` (IMTBenchScore's background masks).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from transcreval.core.common import check_text, image_path_kind
from transcreval.engines.judge.images import to_image_part, to_image_parts
from transcreval.engines.judge.types import ImagePart
from transcreval.errors import EmptyInputError, InputError

ROLES = ("image", "image_or_text", "text", "ids", "mask")
#: the type of a ``"text"`` argument: one string for all items, one per item, or None
Texts = str | Sequence[str] | None

__all__ = [
    "ROLES",
    "Texts",
    "image_or_text",
    "image_part",
    "image_parts",
    "is_missing_text",
    "item_list",
    "text_field",
    "text_list",
]


def image_part(x: Any, what: str, input_range: Any = None) -> ImagePart:
    """One ``"image"`` input as an :class:`ImagePart` (float data read with ``input_range``, see
    :mod:`transcreval.io`); an error names ``what`` (``preds[2]``)."""
    try:
        return to_image_part(x, input_range=input_range, what=what)
    except InputError as e:
        if str(e).startswith(what):
            raise
        raise type(e)(f"{what}: {e}") from e


def image_parts(images: Any, what: str, input_range: Any = None) -> list[ImagePart]:
    """An ``"image"`` argument (a list of images, or an array/tensor batch) as parts, one per item."""
    if isinstance(images, (list, tuple)):
        if not images:
            raise EmptyInputError(f"empty batch: {what} holds no images (pass at least one)")
        return [image_part(x, f"{what}[{i}]", input_range) for i, x in enumerate(images)]
    return to_image_parts(images, input_range=input_range, what=what)


def image_or_text(x: Any, what: str, input_range: Any = None) -> ImagePart | str:
    """One ``"image_or_text"`` input: an :class:`ImagePart`, or the text (see the module docstring)."""
    if isinstance(x, str):
        kind = image_path_kind(x)
        if kind == "name":
            raise InputError(
                f"{what}: {x!r} ends like an image file name but no such file exists (a string is read as text, "
                "except the path of an existing image file)"
            )
        if kind is None:
            return check_text(x, what)
    return image_part(x, what, input_range)


def is_missing_text(x: Any) -> bool:
    """None or a float NaN (a missing cell of a pandas column)."""
    return x is None or (isinstance(x, float) and x != x)


def text_field(value: Any, n: int, name: str, *, required: bool = False) -> list[str | None]:
    """A ``"text"`` argument as ``n`` per-item strings (None where missing): one string for every
    item, or a list with one per item."""
    if is_missing_text(value):
        if required:
            raise InputError(f"{name} is required: one string for all items, or a list with one per item")
        return [None] * n
    if isinstance(value, str):
        return [check_text(value, name)] * n
    if isinstance(value, (bytes, bytearray)) or not isinstance(value, Sequence):
        check_text(value, name)  # raises, naming the type
    items = list(value)
    if len(items) != n:
        raise InputError(f"{name} has {len(items)} values for {n} items (one string for all items, or one per item)")
    return [None if is_missing_text(x) else check_text(x, f"{name}[{i}]") for i, x in enumerate(items)]


def text_list(value: Any, what: str, *, allow_empty: bool = False) -> list[str]:
    """A list of strings (one item's key points, the options of a quiz): each checked as text."""
    if isinstance(value, (str, bytes, bytearray)) or not isinstance(value, Sequence):
        raise InputError(f"{what} must be a list of strings, got {type(value).__name__}")
    items = [check_text(x, f"{what}[{i}]") for i, x in enumerate(value)]
    if not items and not allow_empty:
        raise InputError(f"{what} must be a non-empty list of strings")
    return items


def item_list(x: Any, what: str, expected: str) -> list[Any]:
    """A batch argument as a list of items: a list (or a 4-D image tensor, one item per image);
    anything else is an InputError saying ``f"{what} must be {expected}"``; an empty one an
    EmptyInputError."""
    import torch

    if isinstance(x, torch.Tensor) and x.ndim == 4:
        items = list(x)
    elif isinstance(x, (str, bytes)) or not isinstance(x, Sequence):
        raise InputError(f"{what} must be {expected}")
    else:
        items = list(x)
    if not items:
        raise EmptyInputError(f"empty batch: {what} holds no items (pass at least one)")
    return items
