"""PHashDistance (MPTc-Bench §3.2, App. B.2)."""

from __future__ import annotations

from typing import Any, ClassVar

import torch

from transcreval.errors import EmptyInputError, InputError
from transcreval.functional.phash import phash_distance
from transcreval.metric import Metric
from transcreval.result import MetricResult
from transcreval.states import Cat, Sum


class PHashDistance(Metric):
    """Mean Hamming distance between the pHashes of image pairs (0..64, lower = more alike).

    ``update(a, b)`` takes paired images (or precomputed int64 hashes), e.g. source posters
    and system outputs. The result's ``per_item`` holds every pair's distance, and ``extras``
    counts the pairs in MPTc-Bench's bands: "surface" (``d <= surface_max``), "deep"
    (``d >= deep_min``) and "intermediate" (strict inequalities with ``inclusive=False``).
    Hashes equal ``imagehash.phash`` bit for bit.

    Args:
        hash_size, highfreq_factor, input_range, channels, exif_transpose, num_threads:
            passed to :func:`transcreval.functional.phash`.
        surface_max, deep_min, inclusive: the band thresholds (12, 30, inclusive).
        **kwargs: :class:`~transcreval.metric.Metric` options.
    """

    higher_is_better: ClassVar[bool] = False
    value_range: ClassVar[tuple[float, float]] = (0.0, 64.0)

    def __init__(
        self,
        *,
        hash_size: int = 8,
        highfreq_factor: int = 4,
        surface_max: float = 12,
        deep_min: float = 30,
        inclusive: bool = True,
        input_range: tuple[float, float] | None = None,
        channels: str | None = None,
        exif_transpose: bool = False,
        num_threads: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if hash_size > 8:
            raise InputError("PHashDistance supports hash_size <= 8 (hashes are stored as int64)")
        if surface_max >= deep_min:
            raise InputError(f"surface_max ({surface_max}) must be below deep_min ({deep_min})")
        self.hash_options = {
            "hash_size": hash_size,
            "highfreq_factor": highfreq_factor,
            "input_range": input_range,
            "channels": channels,
            "exif_transpose": exif_transpose,
            "num_threads": num_threads,
        }
        self.surface_max, self.deep_min, self.inclusive = surface_max, deep_min, inclusive
        self.add_state("distance_sum", Sum(torch.int64))
        self.add_state("count", Sum(torch.int64))
        self.add_state("surface", Sum(torch.int64))
        self.add_state("deep", Sum(torch.int64))
        self.add_state("distances", Cat(torch.int64))

    def _stats(self, a: Any, b: Any) -> dict[str, Any]:
        d = phash_distance(a, b, **self.hash_options)
        if self.inclusive:
            surface, deep = d <= self.surface_max, d >= self.deep_min
        else:
            surface, deep = d < self.surface_max, d > self.deep_min
        return {
            "distance_sum": d.sum(),
            "count": d.numel(),
            "surface": surface.sum(),
            "deep": deep.sum(),
            "distances": d,
        }

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        n = int(stats["count"])
        if n == 0:
            raise EmptyInputError(f"{self.name} has no pairs: call update(a, b) first")
        surface, deep = int(stats["surface"]), int(stats["deep"])
        return MetricResult(
            value=int(stats["distance_sum"]) / n,
            n=n,
            signature=self.signature,
            per_item=stats["distances"],
            extras={"surface": surface, "deep": deep, "intermediate": n - surface - deep},
        )

    def _signature_options(self) -> dict[str, Any]:
        return {
            "hs": self.hash_options["hash_size"],
            "hf": self.hash_options["highfreq_factor"],
            "surface": f"{'<=' if self.inclusive else '<'}{self.surface_max:g}",
            "deep": f"{'>=' if self.inclusive else '>'}{self.deep_min:g}",
        }
