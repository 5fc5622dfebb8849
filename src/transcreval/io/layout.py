"""Batches and array layouts: what is one image, what is a batch, where the channels are.

* A list/tuple is a batch (each item one image: a path, bytes, PIL image, or a 2-D/3-D array);
  a 4-D array/tensor is a batch (``N x C x H x W`` or ``N x H x W x C``); a 2-D array is one
  grayscale image.
* A 3-D array/tensor given as the whole batch is one image when its layout says so: channels
  last (``H x W x C``, numpy's default) or a single leading plane (``1 x H x W``). When it
  would be read channels-first with 2, 3 or 4 leading planes (``C x H x W``, the torch
  default) it could as well be ``N`` grayscale images (``N x H x W``), so it is refused as
  ambiguous unless ``channels=`` says which; with 5 or more leading planes it cannot be one
  image and the error says how to pass grayscale images (``x[:, None]`` or a list).
  Inside a list a 3-D item is always one image.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import torch

from transcreval.errors import EmptyInputError, InputError
from transcreval.io.decode import is_encoded, is_pil

__all__ = ["Channels", "split_batch", "to_hwc"]

Channels = Literal["first", "last"] | None
_C = (1, 2, 3, 4)


def _reads_first(shape: tuple[int, ...], is_torch: bool) -> bool:
    """Whether a 3-D array with no ``channels=`` is read channels-first (the rule of :func:`to_hwc`)."""
    first, last = shape[0] in _C, shape[-1] in _C
    return first and (is_torch or not last)


def _check_3d_batch(images: Any, channels: Channels) -> None:
    shape = tuple(images.shape)
    if channels is not None:
        return
    is_torch = isinstance(images, torch.Tensor)
    kind = type(images).__name__
    if _reads_first(shape, is_torch) and shape[0] in (2, 3, 4):
        c = shape[0]
        raise InputError(
            f"a single 3-D {kind} of shape {shape} is ambiguous: one image with {c} channels (C x H x W), "
            f"or {c} grayscale images (N x H x W)? Pass a 4-D batch: x[None] (1 x {c} x H x W) for one image, "
            f"x[:, None] (N x 1 x H x W) for grayscale images; or a list of images (or channels='first')"
        )
    if shape[0] not in _C and shape[-1] not in _C:
        raise InputError(
            f"cannot tell the channel dimension of a 3-D {kind} of shape {shape}: one image has 1-4 channels, "
            f"first or last; for {shape[0]} grayscale images of {shape[1]}x{shape[2]} pass x[:, None] "
            "(N x 1 x H x W) or a list of images"
        )


def split_batch(images: Any, *, channels: Channels = None) -> list[Any]:
    """Split a batch into items: a list/tuple, a 4-D array/tensor, or a single image (see the
    module docstring for the 3-D rule)."""
    if is_encoded(images) or is_pil(images):
        return [images]
    if isinstance(images, (np.ndarray, torch.Tensor)):
        if images.ndim == 4:
            if images.shape[0] == 0:
                raise EmptyInputError(f"empty batch of shape {tuple(images.shape)}: pass at least one image")
            return list(images)
        if images.ndim == 3:
            _check_3d_batch(images, channels)
            return [images]
        if images.ndim == 2:
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
            if not (isinstance(it, (np.ndarray, torch.Tensor)) or is_encoded(it) or is_pil(it)):
                raise InputError(
                    f"image {i}: unsupported type {type(it).__name__}; pass a path, bytes, PIL image, array or tensor"
                )
        return items
    raise InputError(
        f"unsupported image input of type {type(images).__name__}; pass paths, bytes, PIL images, arrays or tensors"
    )


def to_hwc(arr: Any, channels: Channels, is_torch: bool) -> Any:
    """One image array as H x W x C (a view where possible)."""
    if arr.ndim == 2:
        arr = arr[:, :, None]
    elif arr.ndim == 3:
        first, last = arr.shape[0] in _C, arr.shape[-1] in _C
        if channels == "first" or (channels is None and _reads_first(tuple(arr.shape), is_torch)):
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
