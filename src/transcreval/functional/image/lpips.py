"""LPIPS and masked LPIPS: the pure pieces and the functional twins.

LPIPS (Zhang et al., CVPR 2018; lpips v0.1): for each trunk layer l, unit-normalise the
activations of both images along channels, square their difference, weight the channels with
the learned non-negative linear layer w_l, and average over space; sum over layers::

    d(x, y) = sum_l mean_{h,w} sum_c w_{l,c} (x̂_{l,c,h,w} - ŷ_{l,c,h,w})^2

Range [0, inf) (about 0..1 in practice), lower is more similar.

Masked LPIPS (IMTBench §4, S_bg; spec §4): the same per-layer maps s_l (N x 1 x h_l x w_l),
averaged only where the mask M (1 = pixels that count) is on:

* ``mode="area"`` (default): M is area-pooled to each layer's resolution (m_l) and
  ``d_M = sum_l sum(m_l s_l) / sum(m_l)``. With M all ones this *is* LPIPS (tested to 1e-6).
* ``mode="upsample"``: lpips' ``spatial=True`` map (each s_l bilinearly upsampled to the image
  size and summed) times M, averaged over M: the recipe the lpips maintainer suggests
  (PerceptualSimilarity issue 111). Its all-ones value is close to, not equal to, LPIPS.

Receptive fields extend past the mask edge, so text pixels still influence background features
near it; shrink the mask (erode it) to reduce that leakage.

Numerics: unit-normalisation puts its eps *inside* the square root (``x / sqrt(sum x^2 + eps)``,
eps = 1e-20), so gradients are finite where lpips' ``x / (sqrt(sum x^2) + 1e-10)`` gives NaN, and
values agree with lpips to float rounding (features with norm below 1e-9 are the only difference).
The head runs in float32 (float64 when the trunk does).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from transcreval.errors import InputError

if TYPE_CHECKING:
    import torch

NORM_EPS = 1e-20
MaskMode = Literal["area", "upsample"]
# smallest height/width each trunk accepts (below it a pooling window no longer fits)
MIN_SIZE = {"alex": 31, "vgg": 16, "squeeze": 17}


def normalize_channels(x: torch.Tensor, eps: float = NORM_EPS) -> torch.Tensor:
    """Unit-normalise along channels with eps inside the square root (finite gradients)."""
    import torch

    return x / torch.sqrt((x * x).sum(dim=1, keepdim=True) + eps)


def layer_distances(
    feats_a: Sequence[torch.Tensor], feats_b: Sequence[torch.Tensor], lins: Sequence[torch.Tensor]
) -> list[torch.Tensor]:
    """Per-layer distance maps ``s_l`` (N x 1 x h_l x w_l) from two images' trunk activations and
    the linear layers' weights (each 1 x C_l x 1 x 1)."""
    import torch
    import torch.nn.functional as F

    if not (len(feats_a) == len(feats_b) == len(lins)):
        raise InputError(f"{len(feats_a)} and {len(feats_b)} feature layers for {len(lins)} linear layers")
    out = []
    for a, b, w in zip(feats_a, feats_b, lins):
        head = torch.float64 if a.dtype == torch.float64 else torch.float32
        diff = (normalize_channels(a.to(head)) - normalize_channels(b.to(head))) ** 2
        out.append(F.conv2d(diff, w.to(device=diff.device, dtype=head)))
    return out


def lpips_from_layers(layers: Sequence[torch.Tensor]) -> torch.Tensor:
    """LPIPS per pair (N): the sum over layers of each map's spatial mean."""
    total = layers[0].mean(dim=(2, 3))
    for s in layers[1:]:
        total = total + s.mean(dim=(2, 3))
    return total.flatten()


def spatial_map(layers: Sequence[torch.Tensor], size: tuple[int, int]) -> torch.Tensor:
    """lpips' ``spatial=True`` map (N x 1 x H x W): each layer map bilinearly upsampled to
    ``size`` (align_corners=False) and summed. Its mean approximates LPIPS."""
    import torch.nn.functional as F

    total = F.interpolate(layers[0], size=size, mode="bilinear", align_corners=False)
    for s in layers[1:]:
        total = total + F.interpolate(s, size=size, mode="bilinear", align_corners=False)
    return total


def masked_from_layers(layers: Sequence[torch.Tensor], mask: torch.Tensor, mode: MaskMode = "area") -> torch.Tensor:
    """Masked LPIPS per pair (N) from the layer maps and a float {0,1} mask N x 1 x H x W."""
    import torch.nn.functional as F

    m = mask.to(layers[0].dtype)
    if mode == "area":
        total = None
        for s in layers:
            ml = F.interpolate(m, size=s.shape[-2:], mode="area")
            term = (ml * s).sum(dim=(2, 3)) / ml.sum(dim=(2, 3))
            total = term if total is None else total + term
        assert total is not None
        return total.flatten()
    if mode == "upsample":
        full = spatial_map(layers, (int(m.shape[-2]), int(m.shape[-1])))
        return ((full * m).sum(dim=(2, 3)) / m.sum(dim=(2, 3))).flatten()
    raise InputError(f"mode must be 'area' or 'upsample', got {mode!r}")


# --------------------------------------------------------------------------- input checks
def check_pair_sizes(a: torch.Tensor, b: torch.Tensor, net: str) -> None:
    if a.shape != b.shape:
        raise InputError(
            f"preds and target must have the same shape, got {tuple(a.shape)} and {tuple(b.shape)}; "
            "resize one to the other first"
        )
    h, w = int(a.shape[-2]), int(a.shape[-1])
    low = MIN_SIZE[net]
    if h < low or w < low:
        raise InputError(f"LPIPS-{net} needs images of at least {low}x{low} pixels, got {h}x{w}; upscale them first")


def coerce_mask(mask: Any, n: int, size: tuple[int, int]) -> torch.Tensor:
    """A mask as float {0,1} N x 1 x H x W on the images' size.

    Accepted: bool or {0,1} arrays/tensors, HxW (one mask for every pair), NxHxW or Nx1xHxW.
    A mask of another size is resized with nearest-neighbour sampling (``F.interpolate``
    ``mode="nearest"``) and a warning, never broadcast silently. Values other than 0/1, NaN, a
    wrong number of masks, or an all-zero mask for any pair are InputErrors.
    """
    import numpy as np
    import torch
    import torch.nn.functional as F

    if isinstance(mask, np.ndarray):
        mask = torch.from_numpy(np.ascontiguousarray(mask))
    if not isinstance(mask, torch.Tensor):
        raise InputError(f"mask must be a bool or {{0,1}} array or tensor, got {type(mask).__name__}")
    m = mask.detach()
    if m.dtype == torch.bool:
        m = m.to(torch.float32)
    elif m.is_floating_point() or m.dtype in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64):
        m = m.to(torch.float32)
        bad = ~((m == 0) | (m == 1))
        if bool(bad.any()):
            vals = torch.unique(m[bad])[:5].tolist()
            raise InputError(
                f"mask values must be 0 or 1 (1 = pixels that count), found {vals}; threshold it (mask > 0.5) first"
            )
    else:
        raise InputError(f"mask dtype {m.dtype} is not bool, integer or float")
    if m.ndim == 2:
        m = m.expand(n, 1, *m.shape)
    elif m.ndim == 3:
        m = m.unsqueeze(1)
    elif m.ndim != 4 or m.shape[1] != 1:
        raise InputError(f"mask must be HxW, NxHxW or Nx1xHxW, got shape {tuple(mask.shape)}")
    if m.shape[0] != n:
        raise InputError(f"{m.shape[0]} masks for {n} image pairs; pass one per pair or a single HxW mask")
    if tuple(m.shape[-2:]) != tuple(size):
        warnings.warn(
            f"mask size {tuple(m.shape[-2:])} differs from the image size {tuple(size)}: "
            "resized with nearest-neighbour sampling",
            stacklevel=3,
        )
        m = F.interpolate(m, size=size, mode="nearest")
    counts = m.sum(dim=(1, 2, 3))
    empty = (counts == 0).nonzero().flatten().tolist()
    if empty:
        raise InputError(
            f"the mask of pair(s) {empty} is all zero: no pixel counts, so masked LPIPS is undefined "
            "(1 = pixels that count; pass the background, not the text region)"
        )
    return m
