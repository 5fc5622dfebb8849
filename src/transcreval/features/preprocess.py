"""Named preprocessing pipelines: torch ops on the input's device, batched.

Every extractor names its pipeline; the name goes into result signatures and feature-cache keys,
so two pipelines that differ in any way must have different names (bump the version suffix when
one changes). A pipeline takes float ``N x 3 x H x W`` RGB in [0, 1] (what
:func:`transcreval.io.to_rgb_float` returns) and returns the network's input.

Register your own::

    register_preprocess(Preprocess("my-norm-v1", lambda x: (x - 0.5) / 0.5, "[0,1] -> [-1,1]"))
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from transcreval.utils.named_table import NamedTable

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True)
class Preprocess:
    """A named pipeline ``fn(x) -> x'`` (x: float NCHW RGB in [0, 1], on any device)."""

    name: str
    fn: Callable[[torch.Tensor], torch.Tensor]
    description: str = ""


_PIPELINES = NamedTable("preprocessing", Preprocess)


def register_preprocess(pipeline: Preprocess, *, overwrite: bool = False) -> Preprocess:
    """Add a named pipeline (``overwrite=True`` to replace one of the same name)."""
    return _PIPELINES.add(pipeline, overwrite=overwrite, caller="register_preprocess")


def get_preprocess(name: str) -> Preprocess:
    """The pipeline called ``name``; a ``KeyError`` lists the known ones."""
    return _PIPELINES.get(name)


def preprocess_names() -> Iterator[str]:
    return iter(_PIPELINES.names())


# LPIPS v0.1's fixed input scaling (lpips.ScalingLayer): [0,1] -> [-1,1], then per channel
# (x - shift) / scale. Written as the same two steps, in the same order, so the network sees
# bit-identical inputs.
LPIPS_SHIFT = (-0.030, -0.088, -0.188)
LPIPS_SCALE = (0.458, 0.448, 0.450)


def _lpips_v01(x: torch.Tensor) -> torch.Tensor:
    import torch

    shift = torch.tensor(LPIPS_SHIFT, dtype=torch.float32, device=x.device).view(1, 3, 1, 1).to(x.dtype)
    scale = torch.tensor(LPIPS_SCALE, dtype=torch.float32, device=x.device).view(1, 3, 1, 1).to(x.dtype)
    return ((2 * x - 1) - shift) / scale


def _lpips_v00(x: torch.Tensor) -> torch.Tensor:
    return 2 * x - 1


def _identity(x: torch.Tensor) -> torch.Tensor:
    return x


register_preprocess(Preprocess("identity", _identity, "no change: the network takes [0, 1] RGB"))
register_preprocess(
    Preprocess("lpips-v0.1", _lpips_v01, "LPIPS v0.1: 2x-1, then (x - shift) / scale per channel (lpips.ScalingLayer)")
)
# lpips v0.0 (its "original release had a bug, where input was not scaled"): [-1, 1] as it is
register_preprocess(Preprocess("lpips-v0.0", _lpips_v00, "LPIPS v0.0: 2x-1, no per-channel scaling"))
