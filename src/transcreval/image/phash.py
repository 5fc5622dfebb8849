"""PHashDistance (MPTc-Bench §3.2, App. B.2)."""

from __future__ import annotations

from typing import Any

import torch

from transcreval.core.metric import Metric
from transcreval.core.options import takes_options
from transcreval.core.result import MetricResult
from transcreval.core.states import Cat, Sum
from transcreval.functional.image.phash import (
    PACKAGES,
    PHashOptions,
    phash_distance_from_stats,
    phash_distance_stats,
)


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
        hash_size, highfreq_factor, input_range, channels, exif_transpose, num_threads, max_pixels, fast_decode:
            the hash options (:class:`~transcreval.functional.image.phash.PHashOptions`,
            :func:`transcreval.functional.phash`)
            (``fast_decode=True``: JPEG draft-mode decoding, faster and not bit-identical with
            imagehash; ``num_threads``: worker threads, default the thread budget of
            :mod:`transcreval.utils.threads`).
        surface_max, deep_min, inclusive: the band thresholds (12, 30, inclusive).
        **kwargs: :class:`~transcreval.core.metric.Metric` options.
    """

    version_packages: tuple[str, ...] = PACKAGES

    @takes_options(PHashOptions)
    def __init__(self, **kwargs: Any) -> None:
        options, rest = PHashOptions.split(kwargs)
        super().__init__(**rest)
        self.options = PHashOptions(**options)
        self.add_state("distance_sum", Sum(torch.int64))
        self.add_state("count", Sum(torch.int64))
        self.add_state("surface", Sum(torch.int64))
        self.add_state("deep", Sum(torch.int64))
        self.add_state("distances", Cat(torch.int64))

    def _stats(self, preds: Any, target: Any) -> dict[str, Any]:
        """``preds``/``target``: paired images (paths, PIL, arrays, tensors) or int64 hashes."""
        return phash_distance_stats(preds, target, self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return phash_distance_from_stats(stats, self.options)
