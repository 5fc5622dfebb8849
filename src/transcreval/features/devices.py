"""Device and dtype arguments of the feature extractors, normalised once."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from transcreval.errors import InputError

if TYPE_CHECKING:
    import torch

__all__ = ["as_device", "as_dtype"]


def as_device(device: Any) -> torch.device:
    """``device`` as a torch device (default CPU; ``"cuda"`` names the current CUDA device)."""
    import torch

    d = torch.device(device if device is not None else "cpu")
    if d.type == "cuda" and d.index is None:
        d = torch.device("cuda", torch.cuda.current_device())
    return d


def as_dtype(dtype: Any) -> torch.dtype:
    """``dtype`` (a torch dtype or its name) as a floating-point torch dtype (default float32)."""
    import torch

    if dtype is None:
        return torch.float32
    if isinstance(dtype, torch.dtype):
        return dtype
    value = getattr(torch, str(dtype).replace("torch.", ""), None)
    if not isinstance(value, torch.dtype) or not value.is_floating_point:
        raise InputError(f"dtype {dtype!r} is not a torch floating-point dtype (float32, float16, bfloat16, float64)")
    return value
