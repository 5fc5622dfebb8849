"""Masks of another size than their images: when they may be resized, and how.

A mask is resized only when its aspect ratio is the images' (up to one pixel of rounding); a
mask whose aspect ratio differs (a transposed ``W x H`` mask, another crop) is an error unless
the caller passes ``resize_mask=True``.

Resizing is by **area majority**: each pixel of the resized mask covers an exact rectangle of
the original mask, and it is 1 when *more than half* of that rectangle's area is 1 (exact
area overlap, any scale factor, up or down). An exact tie gives 0, so a pixel counts only where
the mask mostly says it counts. Text strokes (the 0s of a background mask) at least one resized
pixel wide always survive, at any offset; torch's legacy ``nearest`` (the top-left sample of
each block) drops every stroke that misses the sampled rows or columns.
"""

from __future__ import annotations

from typing import Any

import torch

from transcreval.errors import InputError

__all__ = ["check_mask_size", "read_mask", "resize_mask", "same_aspect"]

#: PIL modes whose pixel values are read as they are (one channel, any bit depth)
_ONE_CHANNEL = ("1", "L", "I", "I;16", "I;16B", "I;16L", "F")


def read_mask(source: Any) -> Any:
    """A mask file (path or encoded bytes, decoded by :func:`~transcreval.io.open_image`) or a
    PIL image as a boolean ``H x W`` numpy array: True where the pixel is not zero.

    The pixel values are read at their own bit depth (1-bit, 8-bit, 16-bit, 32-bit integer
    and float files alike), so a 16-bit mask of 0/1 or a float mask of 0/0.3 keeps its ones;
    colour and palette files are read as their gray value (PIL's ``L``).
    """
    import numpy as np

    from transcreval.io.decode import is_pil, open_image

    im = source if is_pil(source) else open_image(source)
    arr = np.asarray(im if im.mode in _ONE_CHANNEL else im.convert("L"))
    return arr != 0


def same_aspect(mask_hw: tuple[int, int], image_hw: tuple[int, int]) -> bool:
    """Whether a ``mask_hw`` mask scales to ``image_hw`` keeping its aspect ratio, up to one
    pixel of rounding on the coarser side."""
    (mh, mw), (h, w) = mask_hw, image_hw
    # the mask's width at the image's height, and the image's width at the mask's height
    return abs(mw * h - w * mh) <= max(h, mh)


def check_mask_size(mask_hw: tuple[int, int], image_hw: tuple[int, int], resize_mask: bool, what: str) -> bool:
    """True when the mask must be resized to the images' size; an InputError when its aspect
    ratio differs and ``resize_mask`` is False."""
    mask_hw, image_hw = (int(mask_hw[0]), int(mask_hw[1])), (int(image_hw[0]), int(image_hw[1]))
    if mask_hw == image_hw:
        return False
    if not resize_mask and not same_aspect(mask_hw, image_hw):
        transposed = " (the mask looks transposed: W x H instead of H x W)" if mask_hw == image_hw[::-1] else ""
        raise InputError(
            f"{what} is {mask_hw[0]}x{mask_hw[1]} (H x W) but its images are {image_hw[0]}x{image_hw[1]}: another "
            f"aspect ratio{transposed}. Pass a mask of the images' size (mask.T for a transposed one), or "
            "resize_mask=True to resize it anyway (area majority)"
        )
    return True


def _overlap(n_in: int, n_out: int, device: Any) -> torch.Tensor:
    """``(n_out, n_in)`` overlap lengths of output pixel ``j`` and input pixel ``i``, in units of
    ``1 / n_out`` input pixels (integers, exact in float64)."""
    j = torch.arange(n_out, dtype=torch.float64, device=device)[:, None]
    i = torch.arange(n_in, dtype=torch.float64, device=device)[None, :]
    lo = torch.maximum(j * n_in, i * n_out)
    hi = torch.minimum((j + 1) * n_in, (i + 1) * n_out)
    return (hi - lo).clamp_(min=0)


def resize_mask(mask: torch.Tensor, size: tuple[int, int]) -> torch.Tensor:
    """A float {0, 1} ``H x W`` mask resized to ``size = (h, w)`` by area majority (see the
    module docstring): float32 {0, 1}, on the mask's device."""
    h_in, w_in = int(mask.shape[-2]), int(mask.shape[-1])
    h, w = int(size[0]), int(size[1])
    if (h_in, w_in) == (h, w):
        return mask.to(torch.float32)
    m = mask.to(torch.float64)
    covered = _overlap(h_in, h, m.device) @ m @ _overlap(w_in, w, m.device).T  # area of 1s, exact integers
    return (2 * covered > h_in * w_in).to(torch.float32)
