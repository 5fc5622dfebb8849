"""pHash distance and edit-intensity bands (MPTc-Bench §3.2, App. B.2): options, pieces, twin.

The pHash of an image is ``imagehash.phash`` bit for bit (:mod:`transcreval.functional.image.hashing`).
On 8-bit images (8-bit files, PIL images of 8-bit modes, uint8 arrays) the grayscale is PIL's
own ``convert("L")``, so the bits are imagehash's. 16-bit and float images (16-bit PNG, float
TIFF, uint16/float arrays) are read by :mod:`transcreval.io`'s rule and quantised as
``round(x * 255)``, so they hash like their 8-bit copy; imagehash's ``convert("L")`` clips
16-bit values at 255 (a 16-bit PNG becomes nearly white), so there it differs, by design.

The distance of two hashes is their Hamming distance, an integer 0..64; lower means more
similar images. MPTc-Bench calls a pair "surface" (text-level edit) when the distance is at most
12 and "deep" (re-design) when it is at least 30. :func:`phash_distance` is the metric's twin
(the mean distance and the band counts, as :class:`~transcreval.PHashDistance` computes them);
:func:`phash_distances` gives each pair's distance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from transcreval.core.common import check_bool
from transcreval.core.options import option, takes_options
from transcreval.core.result import MetricResult
from transcreval.errors import EmptyInputError, InputError
from transcreval.functional.image.edit_intensity import edit_intensity_counts, edit_intensity_split
from transcreval.functional.image.hashing import HashOptions, hamming_distance, phash, phash_bits, phash_hex

__all__ = [
    "PACKAGES",
    "HashOptions",
    "PHashOptions",
    "edit_intensity_counts",
    "edit_intensity_split",
    "hamming_distance",
    "phash",
    "phash_bits",
    "phash_distance",
    "phash_distance_from_stats",
    "phash_distance_stats",
    "phash_distances",
    "phash_hex",
]

#: distributions whose versions change the bits (PIL's resize, scipy's DCT)
PACKAGES = ("pillow", "scipy")


@dataclass(frozen=True)
class PHashOptions(HashOptions):
    """The options of :class:`~transcreval.PHashDistance` and :func:`phash_distance`: the hash
    options (:class:`~transcreval.functional.image.hashing.HashOptions`, ``hash_size`` at most
    8: hashes are int64) and the band thresholds ``surface_max``/``deep_min``/``inclusive``."""

    surface_max: float = option(12, signature=lambda o: {"surface": f"{'<=' if o.inclusive else '<'}{o.surface_max:g}"})
    deep_min: float = option(30, signature=lambda o: {"deep": f"{'>=' if o.inclusive else '>'}{o.deep_min:g}"})
    inclusive: bool = option(True, signature=None)  # printed in the two bands above

    def check(self) -> None:
        super().check()
        if self.hash_size > 8:
            raise InputError(f"hash_size must be at most 8 (hashes are stored as int64), got {self.hash_size}")
        check_bool("inclusive", self.inclusive)
        edit_intensity_counts([], self.surface_max, self.deep_min, self.inclusive)  # validates the thresholds


def _as_hashes(x: Any, what: str, kw: dict[str, Any]) -> torch.Tensor:
    """Precomputed int64 hashes as they are, or the pHashes of images."""
    if isinstance(x, torch.Tensor):
        if x.device.type == "meta":
            raise InputError(f"{what} is a meta tensor (no data): pass images or int64 hashes with values")
        if x.ndim == 1:
            if x.dtype != torch.int64:
                raise InputError(
                    f"{what}: a 1-D tensor is read as precomputed hashes, which are int64 (from phash()); got "
                    f"{x.dtype}. Images are 2-D (HW), 3-D (CHW/HWC) or 4-D (NCHW) tensors"
                )
            return x
    if isinstance(x, np.ndarray):
        if x.dtype == object:
            raise InputError(f"{what}: an object array cannot be read; pass a list of images or an int64 hash array")
        if x.ndim == 1:
            if x.dtype not in (np.int64, np.uint64):
                raise InputError(
                    f"{what}: a 1-D array is read as precomputed hashes, which are int64/uint64 (from phash()); "
                    f"got {x.dtype}. Images are 2-D (HW), 3-D (HWC/CHW) or 4-D (NHWC) arrays"
                )
            return torch.from_numpy(x.view(np.int64).copy())
    if isinstance(x, Sequence) and not isinstance(x, (str, bytes)) and len(x) > 0:
        if all(isinstance(v, int) and not isinstance(v, bool) for v in x):
            if any(v < -(1 << 63) or v >= (1 << 64) for v in x):
                raise InputError(f"{what}: hashes must fit in 64 bits")
            return torch.tensor([v - (1 << 64) if v >= (1 << 63) else v for v in x], dtype=torch.int64)
        if any(isinstance(v, (float, bool)) for v in x):
            raise InputError(f"{what}: a list of numbers is read as hashes, which are integers; got {x[:3]!r}...")
    return phash(x, **kw)


def _distances(preds: Any, target: Any, options: PHashOptions) -> torch.Tensor:
    kw = options.hash_options()
    ha, hb = _as_hashes(preds, "preds", kw), _as_hashes(target, "target", kw)
    if ha.numel() == 0:
        raise EmptyInputError("empty batch: pass at least one image pair")
    if ha.shape != hb.shape:
        raise InputError(f"mismatched batch lengths: {ha.numel()} images/hashes in preds, {hb.numel()} in target")
    return hamming_distance(ha, hb)


@takes_options(PHashOptions)
def phash_distances(preds: Any, target: Any, **options: Any) -> torch.Tensor:
    """Hamming distance between the pHashes of paired images, int64 ``(N,)`` in 0..64, lower
    means more alike (MPTc-Bench §3.2).

    ``preds`` (e.g. the system outputs) and ``target`` (e.g. the source posters) are each
    images (any form :func:`phash` takes) or precomputed hashes (an int64 tensor/array or a
    list of ints). Equals ``imagehash.phash(x) - imagehash.phash(y)``. ``options``: those of
    :func:`phash_distance` (the hash options of
    :func:`~transcreval.functional.image.hashing.phash_bits`; the band thresholds are accepted
    and unused here).
    """
    return _distances(preds, target, PHashOptions.take(options, "phash_distances"))


def phash_distance_stats(preds: Any, target: Any, options: PHashOptions) -> dict[str, Any]:
    """A batch's statistics: the distance sum and count, the band counts, every distance."""
    d = _distances(preds, target, options)
    surface, deep = edit_intensity_counts(d, options.surface_max, options.deep_min, options.inclusive)
    return {"distance_sum": d.sum(), "count": d.numel(), "surface": surface.sum(), "deep": deep.sum(), "distances": d}


def phash_distance_from_stats(stats: Mapping[str, Any], options: PHashOptions) -> MetricResult:
    """The mean distance of accumulated statistics; ``extras`` counts the pairs of each band."""
    n = int(stats["count"])
    if n == 0:
        raise EmptyInputError("PHashDistance has no pairs: call update(preds, target) first")
    surface, deep = int(stats["surface"]), int(stats["deep"])
    return MetricResult(
        value=int(stats["distance_sum"]) / n,
        n=n,
        signature=options.signature("PHashDistance", PACKAGES),
        per_item=torch.as_tensor(stats["distances"]),
        extras={"surface": surface, "deep": deep, "intermediate": n - surface - deep},
    )


@takes_options(PHashOptions)
def phash_distance(preds: Any, target: Any, **options: Any) -> MetricResult:
    """Mean pHash distance of paired images (MPTc-Bench §3.2), 0..64, lower means more alike:
    what :class:`~transcreval.PHashDistance` computes on the same pairs (``per_item``: each
    pair's distance, as :func:`phash_distances`; ``extras``: the pairs in the "surface"
    (``d <= surface_max``), "deep" (``d >= deep_min``) and "intermediate" bands, strict
    inequalities with ``inclusive=False``). Options are checked before any image is read;
    the hash options are :func:`~transcreval.functional.image.hashing.phash_bits`'s."""
    opts = PHashOptions.take(options, "phash_distance")
    return phash_distance_from_stats(phash_distance_stats(preds, target, opts), opts)
