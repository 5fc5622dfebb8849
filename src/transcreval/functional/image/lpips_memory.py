"""LPIPS' memory guard: refuse images whose trunk activations would not fit, before running.

LPIPS keeps every trunk layer's activations of both images at full spatial resolution, so its
peak memory grows with the pixels: measured on CPU in float32 (peak resident memory of one
``lpips`` call, per pixel of one image run through the trunk), about 110-130 bytes for alex,
400-530 for squeeze and 1,300-1,600 for vgg (more at large sizes). :data:`BYTES_PER_PIXEL`
rounds these up. One pair runs 2 images per side on the CPU (a single image is run as a batch
of two, see :mod:`transcreval.features.extractor`), so one pair of ``H x W`` images needs about
``2 * BYTES_PER_PIXEL[net] * H * W`` bytes plus the decoded inputs; an 8000 x 8000 pair with
alex, which was measured at ~23 GB, is estimated at 19.5 GB.

``max_pixels="auto"`` (the default) refuses images larger than :func:`default_max_pixels`: the
size whose estimate is :data:`DEFAULT_BUDGET_BYTES` (8 GiB) in the trunk's dtype, e.g. about
28 megapixels (5,300 x 5,300) for alex, 7.5 for squeeze and 2.4 for vgg in float32. An integer
sets the limit; ``None`` turns the guard off. Memory also grows with the pairs run at once:
``batch_size`` bounds them.
"""

from __future__ import annotations

from typing import Any

from transcreval.errors import InputError

__all__ = [
    "BYTES_PER_PIXEL",
    "DEFAULT_BUDGET_BYTES",
    "check_max_pixels",
    "check_pair_memory",
    "default_max_pixels",
    "pair_bytes",
]

#: peak bytes per pixel of one image in the trunk (CPU, float32), rounded up from measurements
BYTES_PER_PIXEL = {"alex": 140, "squeeze": 560, "vgg": 1800}
#: bytes per pixel of a pair's decoded inputs (two float32 RGB images)
_INPUT_BYTES = 24
DEFAULT_BUDGET_BYTES = 8 * 2**30


def pair_bytes(net: str, h: int, w: int, itemsize: int = 4) -> int:
    """Estimated peak bytes of one pair of ``h x w`` images (trunk dtype of ``itemsize`` bytes)."""
    return int(h * w * (2 * BYTES_PER_PIXEL[net] * itemsize / 4 + _INPUT_BYTES))


def default_max_pixels(net: str, itemsize: int = 4) -> int:
    """The image size (pixels) whose :func:`pair_bytes` estimate is :data:`DEFAULT_BUDGET_BYTES`."""
    return int(DEFAULT_BUDGET_BYTES // pair_bytes(net, 1, 1, itemsize))


def check_max_pixels(max_pixels: Any) -> int | str | None:
    """``max_pixels``: "auto", None, or a positive integer (InputError naming the option)."""
    if max_pixels is None or max_pixels == "auto":
        return max_pixels
    if isinstance(max_pixels, bool) or not isinstance(max_pixels, int) or max_pixels < 1:
        raise InputError(f"max_pixels must be a positive integer, 'auto' or None (no limit), got {max_pixels!r}")
    return max_pixels


def check_pair_memory(net: str, h: int, w: int, max_pixels: Any, itemsize: int = 4, pair: int | None = None) -> None:
    """An InputError, with the estimated memory and how to downscale, when ``h x w`` images
    exceed ``max_pixels`` ("auto": :func:`default_max_pixels`; None: no limit)."""
    if max_pixels is None:
        return
    limit = default_max_pixels(net, itemsize) if max_pixels == "auto" else int(max_pixels)
    if h * w <= limit:
        return
    where = "" if pair is None else f"pair {pair}: "
    need = pair_bytes(net, h, w, itemsize)
    amount = f"{need / 1e9:.1f} GB" if need >= 1e9 else f"{need / 1e6:.0f} MB"
    raise InputError(
        f"{where}images of {h}x{w} = {h * w:,} pixels exceed max_pixels={limit:,} for LPIPS-{net}: one pair needs "
        f"about {amount} of memory at this size (estimated peak). Downscale both images of each pair the "
        "same way first, e.g. PIL's im.reduce(2) or torch.nn.functional.interpolate(x, scale_factor=0.5, "
        "mode='area'), to at most this many pixels; or pass max_pixels=<larger int> (None: no limit) if the "
        "machine has the memory"
    )
