"""Masks for pairs of images: validated, one per pair, fitted to the images' size.

Generic pieces shared by the masked pair metrics (masked LPIPS, background preservation):

* :func:`pair_masks`: a mask argument (bool or {0,1}; ``HxW`` for every pair, ``NxHxW``,
  ``Nx1xHxW``, or a list with one ``HxW`` mask per pair; a trailing channel of 1 dropped, a
  colour mask refused) as one float ``H x W`` mask per pair;
* :func:`fit_masks`: those masks at the images' size (:mod:`transcreval.io.masks` resizing
  rules), as ``N x 1 x H x W``; an all-zero mask is an InputError.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from transcreval.errors import InputError
from transcreval.utils.warn import warn_user

if TYPE_CHECKING:
    import torch


def _one_mask(mask: Any, what: str, single: bool = False) -> torch.Tensor:
    """A validated float {0,1} tensor of the mask's own shape."""
    import numpy as np
    import torch

    if isinstance(mask, np.ndarray):
        mask = torch.from_numpy(np.ascontiguousarray(mask))
    if not isinstance(mask, torch.Tensor):
        raise InputError(f"{what} must be a bool or {{0,1}} array or tensor, got {type(mask).__name__}")
    m = mask.detach()
    _check_single_channel(m, what, single)
    if m.dtype == torch.bool:
        return m.to(torch.float32)
    if m.is_complex() or not (
        m.is_floating_point() or m.dtype in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)
    ):
        raise InputError(f"{what} dtype {m.dtype} is not bool, integer or float")
    m = m.to(torch.float32)
    bad = ~((m == 0) | (m == 1))
    if bool(bad.any()):
        vals = torch.unique(m[bad])[:5].tolist()
        raise InputError(
            f"{what} values must be 0 or 1 (1 = pixels that count), found {vals}; threshold it (mask > 0.5) first"
        )
    return m


def _check_single_channel(m: torch.Tensor, what: str, single: bool) -> None:
    """A colour mask (``H x W x 3``, ``N x H x W x 3``, ``N x 3 x H x W``; ``3 x H x W`` for one
    mask of a list, 2 or 4 channels alike) is refused with how to make one channel (masks are
    at least as wide as LPIPS' 16 pixels, so a last dimension of 2-4 is channels, never a width)."""
    shape = tuple(m.shape)
    channels_last = m.ndim in (3, 4) and shape[-1] in (2, 3, 4) and shape[-2] > 4
    channels_first = m.ndim == 4 - int(single) and shape[-3] in (2, 3, 4)
    if channels_last or channels_first:
        c = shape[-1] if channels_last else shape[-3]
        raise InputError(
            f"{what} of shape {shape} has {c} channels (a colour image?): masks are HxW, NxHxW or Nx1xHxW, "
            "one value per pixel (1 = pixels that count). Take one channel or threshold the gray image, e.g. "
            "np.asarray(Image.open(path).convert('L')) > 127, or mask[..., 0] > 0"
        )


def _drop_channel(m: torch.Tensor) -> torch.Tensor:
    """``... x H x W x 1`` (a channels-last single-channel mask) -> ``... x H x W``."""
    if m.ndim in (3, 4) and m.shape[-1] == 1 and m.shape[-2] > 1:
        return m[..., 0]
    return m


def pair_masks(mask: Any, n: int) -> list[torch.Tensor]:
    """One float {0,1} ``H x W`` mask per pair (not yet fitted to the images' size)."""
    if isinstance(mask, (list, tuple)):
        if len(mask) != n:
            raise InputError(f"{len(mask)} masks for {n} image pairs; pass one per pair or a single HxW mask")
        out = [_drop_channel(_one_mask(m, f"mask {i}", single=True)) for i, m in enumerate(mask)]
        for i, m in enumerate(out):
            if m.ndim == 3 and m.shape[0] == 1:
                out[i] = m[0]
            elif m.ndim != 2:
                raise InputError(f"mask {i} must be HxW, got shape {tuple(m.shape)}")
        return out
    m = _drop_channel(_one_mask(mask, "mask"))
    shape = tuple(m.shape)
    if m.ndim == 2:
        return [m] * n
    if m.ndim == 4 and m.shape[1] == 1:
        m = m[:, 0]
    elif m.ndim != 3:
        raise InputError(f"mask must be HxW, NxHxW or Nx1xHxW, got shape {shape}")
    if m.shape[0] != n:
        raise InputError(
            f"a mask of shape {shape} holds {m.shape[0]} masks, for {n} image pairs; pass one per pair "
            "(N x H x W) or a single H x W mask"
        )
    return list(m)


def fit_masks(
    masks: list[torch.Tensor], indices: list[int], size: tuple[int, int], device: Any, resize_mask: bool = False
) -> torch.Tensor:
    """The masks of ``indices`` as ``N x 1 x H x W`` at the images' ``size``: other sizes are
    resized by area majority (:mod:`transcreval.io.masks`; with a warning unless ``resize_mask``),
    another aspect ratio is an InputError unless ``resize_mask``; an all-zero mask is an InputError."""
    import torch

    from transcreval.io import masks as mask_rules

    out = []
    resized = []
    for i in indices:
        m = masks[i].to(device)
        mask_hw, image_hw = (int(m.shape[0]), int(m.shape[1])), (int(size[0]), int(size[1]))
        if mask_rules.check_mask_size(mask_hw, image_hw, resize_mask, f"mask {i}"):
            resized.append(i)
            m = mask_rules.resize_mask(m, image_hw)
        out.append(m[None, None])
    if resized and not resize_mask:  # one warning per call, the same text for the same shapes (shown once by default)
        first = resized[0]
        warn_user(
            f"{len(resized)} of {len(indices)} masks differ in size from their images (e.g. mask {first}: "
            f"{tuple(masks[first].shape)}, images {tuple(size)}); resized by area majority "
            "(pass resize_mask=True to say that is intended)"
        )
    for i, m in zip(indices, out):
        if not bool(m.any()):
            raise InputError(
                f"the mask of pair {i} is all zero{' after resizing' if tuple(masks[i].shape) != tuple(size) else ''}: "
                "no pixel counts, so masked LPIPS is undefined (1 = pixels that count: pass the background, "
                "not the text region)"
            )
    return torch.cat(out)
