"""PHashDistance (MPTc-Bench §3.2, App. B.2)."""

from __future__ import annotations

from typing import Any

import torch

from transcreval.common import check_bool
from transcreval.errors import EmptyInputError, InputError
from transcreval.functional.image.phash import check_phash_options, edit_intensity_counts, phash_distance
from transcreval.io import DEFAULT_MAX_PIXELS, Channels, Range
from transcreval.metric import Metric
from transcreval.result import MetricResult
from transcreval.states import Cat, Sum


class PHashDistance(Metric):
    """Mean Hamming distance between the pHashes of image pairs (MPTc-Bench §3.2), 0..64, lower
    means more alike.

    ``update(preds, target)`` takes paired images (or precomputed int64 hashes), e.g. the
    system outputs and the source posters. The result's ``per_item`` holds every pair's
    distance, and ``extras`` counts the pairs in MPTc-Bench's bands: "surface"
    (``d <= surface_max``), "deep" (``d >= deep_min``) and "intermediate" (strict inequalities
    with ``inclusive=False``). Hashes equal ``imagehash.phash`` bit for bit; the signature
    records the Pillow and scipy versions (their resize and DCT define the bits).

    Args:
        hash_size, highfreq_factor, input_range, channels, exif_transpose, num_threads,
            max_pixels, fast_decode: passed to :func:`transcreval.functional.phash`
            (``fast_decode=True``: JPEG draft-mode decoding, faster and not bit-identical with
            imagehash; ``num_threads``: worker threads, default the thread budget of
            :mod:`transcreval.threads`).
        surface_max, deep_min, inclusive: the band thresholds (12, 30, inclusive).
        **kwargs: :class:`~transcreval.metric.Metric` options.
    """

    version_packages: tuple[str, ...] = ("pillow", "scipy")

    def __init__(
        self,
        *,
        hash_size: int = 8,
        highfreq_factor: int = 4,
        surface_max: float = 12,
        deep_min: float = 30,
        inclusive: bool = True,
        input_range: Range = None,
        channels: Channels = None,
        exif_transpose: bool = False,
        num_threads: int | None = None,
        max_pixels: int = DEFAULT_MAX_PIXELS,
        fast_decode: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.hash_options: dict[str, Any] = {
            "hash_size": hash_size,
            "highfreq_factor": highfreq_factor,
            "input_range": input_range,
            "channels": channels,
            "exif_transpose": exif_transpose,
            "num_threads": num_threads,
            "max_pixels": max_pixels,
            "fast_decode": fast_decode,
        }
        check_phash_options(**self.hash_options)
        if hash_size > 8:
            raise InputError("PHashDistance supports hash_size <= 8 (hashes are stored as int64)")
        check_bool("inclusive", inclusive)
        edit_intensity_counts([], surface_max, deep_min, inclusive)  # validates the thresholds
        self.surface_max, self.deep_min, self.inclusive = surface_max, deep_min, inclusive
        self.add_state("distance_sum", Sum(torch.int64))
        self.add_state("count", Sum(torch.int64))
        self.add_state("surface", Sum(torch.int64))
        self.add_state("deep", Sum(torch.int64))
        self.add_state("distances", Cat(torch.int64))

    def _stats(self, preds: Any, target: Any) -> dict[str, Any]:
        """``preds``/``target``: paired images (paths, PIL, arrays, tensors) or int64 hashes."""
        d = phash_distance(preds, target, **self.hash_options)
        surface, deep = edit_intensity_counts(d, self.surface_max, self.deep_min, self.inclusive)
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
            raise EmptyInputError(f"{self.name} has no pairs: call update(preds, target) first")
        surface, deep = int(stats["surface"]), int(stats["deep"])
        return MetricResult(
            value=int(stats["distance_sum"]) / n,
            n=n,
            signature=self.signature,
            per_item=stats["distances"],
            extras={"surface": surface, "deep": deep, "intermediate": n - surface - deep},
        )

    def _signature_options(self) -> dict[str, Any]:
        draft = {"decode": "draft"} if self.hash_options["fast_decode"] else {}
        return {
            "hs": self.hash_options["hash_size"],
            "hf": self.hash_options["highfreq_factor"],
            **draft,
            "surface": f"{'<=' if self.inclusive else '<'}{self.surface_max:g}",
            "deep": f"{'>=' if self.inclusive else '>'}{self.deep_min:g}",
        }
