"""Edit-intensity bands of pHash distances (MPTc-Bench §3.2, App. B.2).

MPTc-Bench calls a pair "surface" (text-level edit) when the pHash distance of its posters is at
most 12 and "deep" (re-design) when it is at least 30; pairs in between are "intermediate" and
left out. Also importable from :mod:`transcreval.functional.image.phash`.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import torch

from transcreval.errors import InputError

__all__ = ["Band", "edit_intensity_counts", "edit_intensity_split"]

Band = Literal["surface", "intermediate", "deep"]


def _check_bands(surface_max: float, deep_min: float) -> None:
    for name, v in (("surface_max", surface_max), ("deep_min", deep_min)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise InputError(f"{name} must be a finite number, got {v!r}")
    if surface_max >= deep_min:
        raise InputError(f"surface_max ({surface_max}) must be below deep_min ({deep_min})")


def _distances(distances: Any) -> torch.Tensor:
    try:
        d = torch.as_tensor(distances).reshape(-1)
    except (TypeError, ValueError, RuntimeError) as e:
        raise InputError(f"distances must be numbers, one per pair ({e})") from None
    if d.dtype == torch.bool or d.is_complex():
        raise InputError(f"distances must be numbers, got {d.dtype}")
    if d.is_floating_point() and not bool(torch.isfinite(d).all()):
        raise InputError("distances contain NaN or infinite values")
    if d.numel() and bool((d < 0).any()):
        raise InputError(f"distances must be >= 0 (pHash distances are 0..64), got {d[d < 0][:3].tolist()}")
    return d


def edit_intensity_counts(
    distances: Any, surface_max: float = 12, deep_min: float = 30, inclusive: bool = True
) -> tuple[torch.Tensor, torch.Tensor]:
    """Boolean masks (surface, deep) of pHash distances; see :func:`edit_intensity_split`."""
    _check_bands(surface_max, deep_min)
    d = _distances(distances)
    if inclusive:
        return d <= surface_max, d >= deep_min
    return d < surface_max, d > deep_min


def edit_intensity_split(
    distances: Any, surface_max: float = 12, deep_min: float = 30, inclusive: bool = True
) -> list[Band]:
    """Label each pHash distance "surface", "deep" or "intermediate" (MPTc-Bench §3.2).

    With ``inclusive=True`` (default, as MPTc App. B.2 writes it): surface if ``d <= surface_max``,
    deep if ``d >= deep_min``. With ``inclusive=False`` (as §3.2 writes it): ``d < surface_max``
    and ``d > deep_min``. "intermediate" pairs are the ones the benchmark discards. Negative or
    non-finite distances are an error.
    """
    surf, deep = edit_intensity_counts(distances, surface_max, deep_min, inclusive)
    return ["surface" if s else "deep" if dp else "intermediate" for s, dp in zip(surf.tolist(), deep.tolist())]
