"""Counters of an extractor instance, and the content digest of each image (feature cache keys).

Both are part of :mod:`transcreval.features.extractor`'s interface and exported there and from
:mod:`transcreval.features`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

__all__ = ["ExtractorStats", "image_digests"]


@dataclass
class ExtractorStats:
    """Counters of one extractor instance (read them in benchmarks and tests)."""

    calls: int = 0  # __call__ invocations
    forward_passes: int = 0  # network forward calls (one per batch chunk)
    images_computed: int = 0  # images that went through the network
    cache_hits: int = 0  # images served by a FeatureCache
    scope_hits: int = 0  # calls served by a feature_scope

    def reset(self) -> None:
        self.calls = self.forward_passes = self.images_computed = self.cache_hits = self.scope_hits = 0


def image_digests(images: torch.Tensor) -> list[str]:
    """sha256 of each image's exact content (float32 CPU bytes, shape included)."""
    import torch

    flat = images.detach().to("cpu", torch.float32).contiguous()
    out = []
    for img in flat:
        h = hashlib.sha256(f"{tuple(img.shape)}|float32|".encode())
        h.update(memoryview(img.numpy()).cast("B"))
        out.append(h.hexdigest())
    return out
