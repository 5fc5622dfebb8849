"""Pairs of images (preds, target) as float batches, grouped by size and put back in pair order.

Generic pieces shared by the pair metrics (LPIPS, masked LPIPS, background preservation):

* :func:`as_image_batch`: any image input :mod:`transcreval.io` accepts, as one float [0, 1]
  ``N x 3 x H x W`` tensor (a list of ``3 x H x W`` tensors when sizes differ), shared with the
  other metrics of a collection within one update;
* :func:`stack_group`: the pairs of one size stacked into one tensor;
* :func:`per_pair` / :func:`pair_maps`: per-group values or maps scattered back into pair order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from transcreval.errors import InputError
from transcreval.features import shared_input

if TYPE_CHECKING:
    import torch


def _fast_batch(raw: Any, input_range: Any) -> torch.Tensor | None:
    """A float N x 3 x H x W tensor whose values are already valid, converted as
    :func:`transcreval.io.to_rgb_float` would (same arithmetic), with one min/max pass instead of
    a per-image loop; None for anything else (io then converts it, or names the problem)."""
    import math

    import torch

    if not (isinstance(raw, torch.Tensor) and raw.ndim == 4 and raw.shape[1] == 3 and raw.shape[0] > 0):
        return None
    if not raw.is_floating_point() or raw.shape[-1] in (3, 4) or raw.shape[-2] in (1, 2, 3, 4):
        return None  # integer data, or a shape io reads as channels-last: leave it to io
    x = raw.to(torch.float64 if raw.dtype == torch.float64 else torch.float32)
    if input_range is not None:
        lo, hi = float(input_range[0]), float(input_range[1])
        x = (x - lo) / (hi - lo)
    mn, mx = (float(v) for v in torch.aminmax(x.detach()))
    if not (math.isfinite(mn) and math.isfinite(mx) and mn >= 0.0 and mx <= 1.0):
        return None
    return x.to(torch.float32)


def as_image_batch(images: Any, input_range: Any, what: str) -> torch.Tensor | list[torch.Tensor]:
    """Images in any form :mod:`transcreval.io` accepts, as one float [0, 1] N x 3 x H x W tensor
    (or a list of 3 x H x W tensors when sizes differ), shared with the other metrics of a
    collection within one update. A single 3-D array whose layout is ambiguous (``C x H x W``
    or ``N x H x W``?) and an empty 4-D batch are refused by :func:`transcreval.io.split_batch`."""
    from transcreval.io import to_rgb_float

    def convert(raw: Any) -> torch.Tensor | list[torch.Tensor]:
        fast = _fast_batch(raw, input_range)
        if fast is not None:
            return fast
        try:
            return to_rgb_float(raw, input_range=input_range)
        except InputError as e:  # same class (EmptyInputError stays one), the argument named
            raise type(e)(f"{what}: {e}") from None

    key = ("rgb-float", None if input_range is None else tuple(float(v) for v in input_range))
    return shared_input(images, key, convert)  # type: ignore[no-any-return,unused-ignore]


def stack_group(items: torch.Tensor | Sequence[torch.Tensor], idx: list[int], _raw: Any) -> torch.Tensor:
    import torch

    return torch.stack([items[i] for i in idx])


def per_pair(values: list[tuple[list[int], torch.Tensor]], n: int) -> torch.Tensor:
    """Scatter per-group values back into pair order."""
    import torch

    out = torch.empty(n, dtype=values[0][1].dtype, device=values[0][1].device)
    for idx, v in values:
        out[torch.tensor(idx, device=out.device)] = v
    return out


def pair_maps(groups: list[tuple[list[int], torch.Tensor]], n: int) -> torch.Tensor | list[torch.Tensor]:
    """Per-group maps (each N_g x 1 x H x W) in pair order: one N x 1 x H x W tensor when every
    pair has the same size, else a list with one 1 x H x W map per pair."""
    if len(groups) == 1:
        return groups[0][1]
    out: list[Any] = [None] * n
    for idx, maps in groups:
        for j, i in enumerate(idx):
            out[i] = maps[j]
    return out
