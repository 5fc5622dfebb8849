"""Perceptual hashes (pHash) of images, bit for bit ``imagehash.phash``, computed in batches.

pHash of an image: convert to 8-bit grayscale (:func:`transcreval.io.to_gray_uint8`), resize
to 32x32 with PIL's LANCZOS filter, take the 2-D DCT-II, keep the top-left 8x8 block and set
bit ``i`` when coefficient ``i`` (row-major) exceeds the block's median. The 64 bits, first bit
most significant, form the hash. Grayscale and resize run batched (on the GPU for CUDA
tensors), the DCT uses ``scipy.fftpack`` exactly as imagehash does. The distance of two hashes
is their Hamming distance (:func:`hamming_distance`). The metric is
:mod:`transcreval.functional.image.phash`.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np
import torch

from transcreval.core.common import check_bool, check_positive_int
from transcreval.core.options import MetricOptions, option
from transcreval.errors import InputError
from transcreval.functional.image.pil_resample import resize_square
from transcreval.io import DEFAULT_MAX_PIXELS, Channels, Range, split_batch, to_gray_uint8
from transcreval.io.values import check_input_range
from transcreval.utils.threads import check_num_threads, map_threads, torch_threads, worker_count

_CHUNK_PIXELS = 1_600_000  # pixels per worker chunk: ~4 posters of 512x768 (cache friendly)
#: what a file counts for in a chunk: 4 files a chunk (a resize call's fixed cost shared by 4:
#: 0.52 ms an image for 4 600x900 files, 0.90 ms for one)
_FILE_PIXELS = _CHUNK_PIXELS // 4
#: ``fast_decode`` asks the JPEG decoder for at least this many times the resize target a side
DRAFT_FACTOR = 4
DCT_BLOCK = 4096  # images per DCT block in phash_bits

__all__ = ["DRAFT_FACTOR", "HashOptions", "hamming_distance", "phash", "phash_bits", "phash_hex"]


@dataclasses.dataclass(frozen=True)
class HashOptions(MetricOptions):
    """The options of :func:`phash_bits` (and :func:`phash`, :func:`phash_hex`), checked once
    when built (InputError naming the option); :class:`~transcreval.functional.image.phash.PHashOptions`
    adds the band thresholds of the metric. The ``signature`` metadata is how
    :class:`~transcreval.PHashDistance`'s signature prints them (``hs``, ``hf``, and
    ``decode=draft`` with ``fast_decode``; the reading options are not printed)."""

    hash_size: int = option(8, signature="hs")
    highfreq_factor: int = option(4, signature="hf")
    input_range: Range = option(None, signature=None)
    channels: Channels = option(None, signature=None)
    exif_transpose: bool = option(False, signature=None)
    num_threads: int | None = option(None, signature=None)
    max_pixels: int = option(DEFAULT_MAX_PIXELS, signature=None)
    fast_decode: bool = option(False, signature=lambda o: {"decode": "draft"} if o.fast_decode else {})

    def check(self) -> None:
        check_positive_int("hash_size", self.hash_size, minimum=2)
        check_positive_int("highfreq_factor", self.highfreq_factor)
        check_input_range(self.input_range)
        if self.channels not in (None, "first", "last"):
            raise InputError(f"channels must be None, 'first' or 'last', got {self.channels!r}")
        check_bool("exif_transpose", self.exif_transpose)
        check_num_threads(self.num_threads)
        check_positive_int("max_pixels", self.max_pixels)
        check_bool("fast_decode", self.fast_decode)

    def hash_options(self) -> dict[str, Any]:
        """The hash fields alone, by name (what :func:`phash` takes)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(HashOptions)}


def _resize_chunk(items: list[Any], size: int, kw: dict[str, Any]) -> np.ndarray:
    """Grayscale + exact resize of a few images -> ``(n, size, size)`` uint8 numpy.

    Runs torch on one intra-op thread (parallelism comes from the workers that take chunks).
    """
    with torch_threads(1):
        grays = to_gray_uint8(items, **kw)
        out = np.empty((len(grays), size, size), dtype=np.uint8)
        groups: dict[tuple[Any, ...], list[int]] = {}
        for i, g in enumerate(grays):
            kind = str(g.device) if isinstance(g, torch.Tensor) else "numpy"
            groups.setdefault((tuple(g.shape), kind), []).append(i)
        for (_, kind), idx in groups.items():
            if kind == "numpy":
                out[idx] = resize_square([grays[i] for i in idx], size)
            else:
                out[idx] = resize_square(torch.stack([grays[i] for i in idx]), size).cpu().numpy()
        return out


def _small_images(items: list[Any], size: int, kw: dict[str, Any], num_threads: int | None) -> np.ndarray:
    """Grayscale + exact resize of every image -> ``(n, size, size)`` uint8 numpy.

    Images are cut into chunks of about ``_CHUNK_PIXELS`` pixels (small enough to stay in
    cache; a file counts as ``_FILE_PIXELS``, its size unknown before decoding) of at most
    ``ceil(n / workers)`` items, so that a few items still spread over the workers; each worker
    thread takes chunks end to end: decode, grayscale (PIL releases the GIL), and the batched
    exact resize (torch releases it too). Workers: ``num_threads``, or
    the thread budget of :mod:`transcreval.utils.threads` (1 inside a DataLoader worker); every torch
    op runs on one intra-op thread, whatever the path, and torch's setting is restored after.
    """
    most = -(-len(items) // worker_count(num_threads, len(items)))  # few items still spread over the workers
    chunks: list[list[Any]] = [[]]
    budget = 0
    for it in items:
        px = _pixels(it)
        if chunks[-1] and (budget + px > _CHUNK_PIXELS or len(chunks[-1]) == most):
            chunks.append([])
            budget = 0
        chunks[-1].append(it)
        budget += px
    parts = map_threads(lambda c: _resize_chunk(c, size, kw), chunks, num_threads)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _pixels(item: Any) -> int:
    """Pixel count of an item where it is known without decoding (files: ``_FILE_PIXELS``)."""
    if isinstance(item, (np.ndarray, torch.Tensor)):
        return int(np.prod(item.shape)) // max(1, min(item.shape)) if item.ndim == 3 else int(np.prod(item.shape))
    size = getattr(item, "size", None)
    if isinstance(size, tuple) and len(size) == 2:
        return int(size[0]) * int(size[1])
    return _FILE_PIXELS


def phash_bits(images: Any, **options: Any) -> torch.Tensor:
    """The pHash bits of each image: a bool tensor ``(N, hash_size * hash_size)``, row-major.

    ``options`` are the fields of :class:`HashOptions` (an unknown one is a TypeError naming
    the accepted ones), checked before any image is read:

    Args:
        images: paths, bytes, PIL images, arrays or tensors (see :mod:`transcreval.io`).
            8-bit PIL images are converted to grayscale by PIL itself, uint8 arrays with PIL's
            formula; 16-bit and float images are scaled by :mod:`transcreval.io`'s rule and
            quantised as ``round(x * 255)`` first.
        hash_size: side of the kept DCT block (hashes have ``hash_size**2`` bits).
        highfreq_factor: the image is resized to ``hash_size * highfreq_factor`` pixels square.
        input_range: value range of float data, e.g. ``(-1, 1)`` (uint8/uint16 have a fixed meaning).
        channels: ``"first"``/``"last"`` when an array's channel dimension is ambiguous.
        exif_transpose: apply EXIF orientation to decoded files (imagehash does not).
        num_threads: worker threads for decoding/grayscale/resize (default: the thread budget
            of :mod:`transcreval.utils.threads`, at most 4: torch's intra-op count capped by the CPUs
            this process may use; 1 inside a DataLoader worker). torch runs on one intra-op
            thread inside pHash whatever this is, and its setting is restored afterwards.
        max_pixels: refuse image files larger than this many pixels (decompression bombs).
        fast_decode: decode JPEG files (paths, bytes) with PIL's draft mode: grayscale, scaled
            down by 2, 4 or 8 in the decoder to at least ``4 * hash_size * highfreq_factor``
            pixels a side. Several times faster on large photos, **not** bit-identical with
            imagehash (see docs/metrics/PHashDistance.md for the measured agreement); other
            formats and decoded images are hashed exactly as without it.
    """
    opts = HashOptions.take(options, "phash_bits")
    import scipy.fftpack

    items = split_batch(images, channels=opts.channels)
    size = opts.hash_size * opts.highfreq_factor
    kw = {
        "input_range": opts.input_range,
        "channels": opts.channels,
        "exif_transpose": opts.exif_transpose,
        "max_pixels": opts.max_pixels,
        "draft": DRAFT_FACTOR * size if opts.fast_decode else None,
    }
    small = _small_images(items, size, kw, opts.num_threads)
    bits = np.empty((len(small), opts.hash_size * opts.hash_size), dtype=bool)
    # the float64 DCT takes 16x the small images' bytes: blocks of DCT_BLOCK images bound it
    # (each image's DCT is computed on its own rows, so the bits do not depend on the block)
    for start in range(0, len(small), DCT_BLOCK):
        block = small[start : start + DCT_BLOCK]
        dct = scipy.fftpack.dct(scipy.fftpack.dct(block, axis=1), axis=2)
        low = dct[:, : opts.hash_size, : opts.hash_size].reshape(len(block), -1)
        bits[start : start + len(block)] = low > np.median(low, axis=1)[:, None]
    return torch.from_numpy(bits)


@functools.lru_cache(maxsize=64)
def _bit_weights(n_bits: int) -> torch.Tensor:
    # the first bit is the most significant; for 64-bit hashes it is the int64 sign bit
    return torch.tensor(
        [-(1 << 63) if n_bits - 1 - i == 63 else 1 << (n_bits - 1 - i) for i in range(n_bits)], dtype=torch.int64
    )


def _pack(bits: torch.Tensor) -> torch.Tensor:
    n_bits = bits.shape[1]
    if n_bits > 64:
        raise InputError(f"a {n_bits}-bit hash does not fit an int64: use phash_hex or phash_bits for hash_size > 8")
    with torch_threads(1):
        return (bits.to(torch.int64) * _bit_weights(n_bits)).sum(1)


def phash(images: Any, **options: Any) -> torch.Tensor:
    """64-bit perceptual hashes, identical to ``imagehash.phash``, as an int64 tensor ``(N,)``.

    The first hash bit is the most significant (the int64 sign bit for 64-bit hashes), so
    ``format(h & (2**64 - 1), '016x') == str(imagehash.phash(img))``. ``options``: those of
    :func:`phash_bits` (``hash_size`` at most 8 here).

    Raises:
        InputError: empty batch, bad shape/dtype/range, undecodable file.
    """
    return _pack(phash_bits(images, **options))


def phash_hex(images: Any, **kwargs: Any) -> list[str]:
    """pHashes as hex strings, equal to ``str(imagehash.phash(img, hash_size=...))``."""
    bits = phash_bits(images, **kwargs).numpy()
    out = []
    for row in bits:
        width = -(-len(row) // 4)
        out.append(format(int("".join("1" if b else "0" for b in row), 2), f"0{width}x"))
    return out


def _popcount64(x: torch.Tensor) -> torch.Tensor:
    """Bits set in each int64 (SWAR; arithmetic shifts are masked so the sign bit is safe)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x = x + (x >> 8)
    x = x + (x >> 16)
    x = x + (x >> 32)
    return x & 0x7F


def hamming_distance(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Hamming distance of int64 hashes, element-wise, as int64 (works on any device)."""
    if a.shape != b.shape:
        raise InputError(f"hash tensors differ in shape: {tuple(a.shape)} vs {tuple(b.shape)}")
    with torch_threads(1):
        return _popcount64(torch.bitwise_xor(a.to(torch.int64), b.to(torch.int64)))
