"""An exact, batched re-implementation of PIL's 8-bit LANCZOS resize to a square.

imagehash's pHash resizes with ``PIL.Image.resize(..., LANCZOS)``; to give the same bits for
many images at once (and on a GPU) we reproduce PIL's fixed-point arithmetic exactly:

* per output pixel, PIL computes LANCZOS (a=3) weights in double precision, normalises them
  to sum 1 and rounds them to integers with 22 fractional bits;
* each pass sums ``pixel * weight`` in integers, adds 2**21 and keeps the top bits clipped to
  0..255 (so the intermediate image is rounded to uint8 between the passes);
* the horizontal pass runs first, except that Pillow 13 runs the vertical pass first when
  ``max(h - out, 0) > 2 * max(w - out, 0)`` (it removes more than twice as many rows as
  columns; an upsampled side removes none).

Each pass is a matrix product with the integer weight matrix, computed exactly:

* on the CPU, pixels go in as int8 (``x - 128``) and the weights as three int8 digits, in one
  int8 x int8 -> int32 matrix product (``torch._int_mm``), recombined in int64: exact, and
  several times faster than float32;
* on GPUs, for passes longer than 65536 pixels, and on torch builds without ``_int_mm``, in
  float64, where every partial sum is an integer below 2**53, so any summation order is exact.

Which pass order the installed Pillow uses is checked once against Pillow itself on probe
images; if Pillow behaves in a way we do not reproduce, we fall back to calling Pillow.
"""

from __future__ import annotations

import functools
import math
import threading
from typing import Any

import numpy as np
import torch

_PRECISION_BITS = 22
_HALF = float(1 << (_PRECISION_BITS - 1))
_SCALE = float(1 << _PRECISION_BITS)


def _sinc(x: float) -> float:
    if x == 0.0:
        return 1.0
    x = x * math.pi
    return math.sin(x) / x


def _lanczos(x: float) -> float:
    if -3.0 <= x < 3.0:
        return _sinc(x) * _sinc(x / 3.0)
    return 0.0


@functools.lru_cache(maxsize=512)
def weight_matrix(in_size: int, out_size: int) -> np.ndarray:
    """PIL's integer LANCZOS weights as a dense ``out_size x in_size`` float64 matrix."""
    scale = float(in_size) / out_size
    filterscale = max(scale, 1.0)
    support = 3.0 * filterscale
    inv = 1.0 / filterscale
    m = np.zeros((out_size, in_size), dtype=np.float64)
    for xx in range(out_size):
        center = (xx + 0.5) * scale
        xmin = max(int(center - support + 0.5), 0)
        xmax = min(int(center + support + 0.5), in_size) - xmin
        ws = [_lanczos((x + xmin - center + 0.5) * inv) for x in range(xmax)]
        total = 0.0
        for w in ws:
            total += w
        for x, w in enumerate(ws):
            if total != 0.0:
                w = w / total
            m[xx, xmin + x] = int(-0.5 + w * _SCALE) if w < 0 else int(0.5 + w * _SCALE)
    m.setflags(write=False)
    return m


@functools.lru_cache(maxsize=512)
def _weight_tensor(in_size: int, out_size: int, device: str) -> torch.Tensor:
    return torch.from_numpy(weight_matrix(in_size, out_size).copy()).to(device)


def _clip8(acc: torch.Tensor) -> torch.Tensor:
    """PIL's clip8: (acc + 2**21) >> 22 clipped to 0..255 (float64 acc holding exact integers)."""
    return torch.floor((acc + _HALF) / _SCALE).clamp_(0, 255)


_BLOCK_ELEMS = 1 << 22  # float64 row blocks of the exact fallback path
INT8_MAX_LEN = 1 << 16  # int32 accumulation stays exact for passes over at most this many pixels


@functools.lru_cache(maxsize=512)
def _int8_digits(in_size: int, out_size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Weights as three balanced base-256 int8 digits, side by side: ``(in, 3 * out)``.

    ``w = d0 + 256 d1 + 65536 d2`` with every digit in [-128, 127] (|w| < 2**23). Also returns
    ``128 * sum(w)`` per output, the correction for feeding pixels as ``x - 128`` (int8).
    """
    w = weight_matrix(in_size, out_size).astype(np.int64)
    digits = []
    rest = w
    for _ in range(3):
        d = ((rest + 128) % 256) - 128
        digits.append(d)
        rest = (rest - d) // 256
    if np.any(rest != 0):
        raise AssertionError("LANCZOS weight outside the int8 digit range")
    mat = np.concatenate(digits, axis=0).T.astype(np.int8)  # (in, 3*out)
    return torch.from_numpy(np.ascontiguousarray(mat)), torch.from_numpy(128 * w.sum(1))


def _int8_available() -> bool:
    try:
        probe = torch.ones((17, 8), dtype=torch.int8)
        return bool(torch._int_mm(probe, probe.T.contiguous()).dtype == torch.int32)
    except (AttributeError, RuntimeError, NotImplementedError):
        return False


_INT8 = _int8_available()
_ROUND = 1 << (_PRECISION_BITS - 1)


@functools.lru_cache(maxsize=512)
def _int32_bias(in_size: int, out_size: int) -> torch.Tensor | None:
    """``128 * sum(w) + 2**21`` per output as int32 when the digit products can be recombined in
    int32 without overflow (passes up to ~2,000 pixels), else None (recombine in int64).

    With ``p_k`` the int32 product of digit ``k`` and ``R = 256 p1 + p0 + bias``, the rounded
    result ``(65536 p2 + R) >> 22`` equals ``(p2 >> 6) + ((((p2 & 63) << 16) + R) >> 22)``;
    every term is bounded here by ``128 * sum |digit|`` per output, so the check is exact.
    """
    digits, shift = _int8_digits(in_size, out_size)
    a = digits.to(torch.int64).abs().sum(0).view(3, out_size)  # sum |digit| per output and digit
    bias = shift + _ROUND
    bound = 256 * 128 * a[1] + 128 * a[0] + bias.abs() + (63 << 16)
    if int(bound.max()) >= 1 << 31:
        return None
    return bias.to(torch.int32)


#: a pass that shrinks by at least this factor multiplies each half of the outputs by only the
#: input columns its weights reach (LANCZOS' support is 6 output pixels wide): on 512 -> 32 that
#: is 296 of the 512 columns per half, 0.72x the time of the dense product
BAND_FACTOR = 8
#: ... and has at least this many rows: below it the second product and recombination cost more
#: in per-call overhead than the skipped columns save (the vertical pass of one 900x600 image,
#: 32 rows: 0.10 ms banded, 0.05 ms dense)
BAND_MIN_ROWS = 512


@functools.lru_cache(maxsize=512)
def _int8_bands(in_size: int, out_size: int) -> tuple[tuple[int, int, int, int, torch.Tensor], ...]:
    """``(lo, hi, o0, o1, digits)`` per band of outputs ``o0:o1``: the input columns ``lo:hi``
    where their weights are not all zero, and those rows of the digit matrix, ``(hi - lo, 3 * k)``
    (the same three-digit layout as :func:`_int8_digits`). One band, the whole matrix, unless the
    pass shrinks by :data:`BAND_FACTOR` or more."""
    digits, _ = _int8_digits(in_size, out_size)
    if in_size < BAND_FACTOR * out_size or out_size < 2:
        return ((0, in_size, 0, out_size, digits),)
    d3 = digits.view(in_size, 3, out_size)
    bands = []
    for o0, o1 in ((0, out_size // 2), (out_size // 2, out_size)):
        block = d3[:, :, o0:o1]
        used = (block != 0).reshape(in_size, -1).any(1).nonzero().flatten()
        lo, hi = int(used.min()), int(used.max()) + 1
        bands.append((lo, hi, o0, o1, block[lo:hi].reshape(hi - lo, 3 * (o1 - o0)).contiguous()))
    return tuple(bands)


def _pass_int8(rows: torch.Tensor, in_size: int, out_size: int) -> torch.Tensor:
    """Exact pass over CPU rows of pixels already flipped to int8 (``x ^ 0x80``, i.e. ``x - 128``):
    ``(r, in) -> (r, out)`` uint8.

    The weights go in as three int8 digits, in int8 x int8 -> int32 products (exact: every
    partial sum is below 2**31), one per band of outputs (:func:`_int8_bands`: the zero weights
    outside a band's reach are skipped, which changes no sum; one band under
    :data:`BAND_MIN_ROWS` rows); the digit products are recombined
    in int32 where that cannot overflow (int64 otherwise), then PIL's rounding and clipping are
    applied.
    """
    digits, shift = _int8_digits(in_size, out_size)
    bias = _int32_bias(in_size, out_size)
    bands = _int8_bands(in_size, out_size)
    if len(bands) == 1 or rows.shape[0] < BAND_MIN_ROWS:
        return _recombine(torch._int_mm(rows, digits), shift, bias)
    out = torch.empty((rows.shape[0], out_size), dtype=torch.uint8)
    for lo, hi, o0, o1, band in bands:
        out[:, o0:o1] = _recombine(
            torch._int_mm(rows[:, lo:hi], band), shift[o0:o1], None if bias is None else bias[o0:o1]
        )
    return out


def _recombine(p: torch.Tensor, shift: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
    """``(r, 3 * k)`` int32 digit products -> ``(r, k)`` uint8, PIL's rounding and clipping."""
    out_size = p.shape[1] // 3
    if bias is None:
        acc = (p.view(-1, 3, out_size).long() * _DIGIT_WEIGHTS).sum(1) + shift
        return ((acc + _ROUND) >> _PRECISION_BITS).clamp_(0, 255).to(torch.uint8)
    p0, p1, p2 = p[:, :out_size], p[:, out_size : 2 * out_size], p[:, 2 * out_size :]
    # (((p2 & 63) << 16) + 256 p1 + p0 + bias) >> 22, plus p2 >> 6: in fused adds (alpha), one
    # buffer, half the time of separate products and shifts (the same int32 values)
    t = torch.add(p0, p1, alpha=256)
    t += bias
    t.add_(torch.bitwise_and(p2, 63), alpha=1 << 16)
    t.bitwise_right_shift_(_PRECISION_BITS)
    t += p2.bitwise_right_shift(6)
    return t.clamp_(0, 255).to(torch.uint8)


_DIGIT_WEIGHTS = torch.tensor([1, 256, 65536], dtype=torch.int64).view(1, 3, 1)


def _use_int8(x: torch.Tensor, length: int) -> bool:
    return _INT8 and x.device.type == "cpu" and length <= INT8_MAX_LEN


def _flipped(x: torch.Tensor, transpose: bool = False) -> torch.Tensor:
    """``x ^ 0x80`` as a C-contiguous int8 tensor (of ``x``'s last two dimensions swapped when
    ``transpose``): the int8 pass's input, in one pass over the pixels."""
    src = x.transpose(-1, -2) if transpose else x
    out = torch.empty(src.shape, dtype=torch.uint8)
    torch.bitwise_xor(src, 0x80, out=out)
    return out.view(torch.int8)


def _horizontal(x: torch.Tensor, out: int, flipped: torch.Tensor | None = None) -> torch.Tensor:
    """(n, h, w) uint8 -> (n, h, out) uint8, PIL's horizontal pass (exact). ``flipped``: the
    int8 copy of ``x`` already made by the caller (see :func:`_flipped`)."""
    n, h, w = x.shape
    if _use_int8(x, w):
        rows = flipped if flipped is not None else _flipped(x)
        return _pass_int8(rows.reshape(n * h, w), w, out).reshape(n, h, out)
    m = _weight_tensor(w, out, str(x.device)).T
    rows_per_block = max(1, _BLOCK_ELEMS // w)  # bounded float64 copies for huge images
    parts = [_clip8(x[:, r : r + rows_per_block].to(torch.float64) @ m) for r in range(0, h, rows_per_block)]
    return torch.cat(parts, 1).to(torch.uint8)


def _vertical(x: torch.Tensor, out: int) -> torch.Tensor:
    """(n, h, w) uint8 -> (n, out, w) uint8, PIL's vertical pass (exact)."""
    n, h, w = x.shape
    if _use_int8(x, h):
        cols = _flipped(x, transpose=True).reshape(n * w, h)
        return _pass_int8(cols, h, out).reshape(n, w, out).transpose(1, 2).contiguous()
    m = _weight_tensor(h, out, str(x.device))
    rows = max(1, _BLOCK_ELEMS // w)  # exact partial sums, bounded float64 copies
    acc = torch.zeros((n, out, w), dtype=torch.float64, device=x.device)
    for r in range(0, h, rows):
        acc += m[:, r : r + rows] @ x[:, r : r + rows].to(torch.float64)
    return _clip8(acc).to(torch.uint8)


def _vertical_first_pillow13(h: int, w: int, out: int) -> bool:
    # Pillow 13 runs the vertical pass first when it removes more than twice as many rows as
    # the horizontal pass removes columns; a side that is upsampled removes nothing (0), not a
    # negative amount (reading it as negative sent images under 32 px down the wrong order).
    return (max(h, out) - out) > 2 * (max(w, out) - out)


_ORDER_RULES = {
    "horizontal-first": lambda h, w, out: False,
    "pillow13": _vertical_first_pillow13,
}
_rule_lock = threading.Lock()
_rule: list[str] = []


def _pil_resize(gray: np.ndarray, out: int) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.fromarray(gray).resize((out, out), Image.Resampling.LANCZOS))


def _exact(gray: torch.Tensor, out: int, vfirst: bool) -> torch.Tensor:
    x = gray[None] if gray.ndim == 2 else gray
    h, w = x.shape[1], x.shape[2]
    if vfirst:
        if h != out:
            x = _vertical(x, out)
        if w != out:
            x = _horizontal(x, out)
    else:
        if w != out:
            x = _horizontal(x, out)
        if h != out:
            x = _vertical(x, out)
    return x


def pass_order_rule() -> str:
    """Which pass order the installed Pillow uses ('horizontal-first', 'pillow13' or 'pil')."""
    with _rule_lock:
        if not _rule:
            rng = np.random.default_rng(12345)
            probes = [
                *((70, 40), (49, 40), (48, 40), (140, 60), (300, 100), (40, 70), (97, 64), (96, 64), (33, 90)),
                *((2, 2), (7, 3), (17, 9), (40, 10), (33, 2), (3, 33), (31, 31), (1, 64)),  # upsampled sides
            ]
            found = "pil"
            for name, rule in _ORDER_RULES.items():
                ok = True
                for h, w in probes:
                    img = rng.integers(0, 256, (h, w), dtype=np.uint8)
                    ours = _exact(torch.from_numpy(img)[None], 32, rule(h, w, 32))[0].numpy()
                    if not np.array_equal(ours, _pil_resize(img, 32)):
                        ok = False
                        break
                if ok:
                    found = name
                    break
            _rule.append(found)
        return _rule[0]


def resize_square(grays: Any, out: int) -> Any:
    """Resize grayscale images of one size to ``(n, out, out)`` uint8, like PIL.

    ``grays`` is a stack ``(n, h, w)``: a uint8 numpy array (CPU) or a torch tensor on any
    device (the result has the same array type); or a list of equally sized 2-D uint8 numpy
    arrays (a numpy result; the images are read once, straight into the first pass's input).
    """
    if isinstance(grays, list):
        return _resize_list(grays, out)
    is_t = isinstance(grays, torch.Tensor)
    x = grays if is_t else torch.from_numpy(np.ascontiguousarray(grays))
    if x.dtype != torch.uint8:
        raise TypeError(f"resize_square expects uint8 pixels, got {x.dtype}")
    _, h, w = x.shape
    rule = pass_order_rule()
    if rule == "pil":
        res = torch.from_numpy(np.stack([_pil_resize(g, out) for g in x.cpu().numpy()])).to(x.device)
    else:
        res = _exact(x, out, _ORDER_RULES[rule](h, w, out))
    return res if is_t else res.numpy()


def _resize_list(grays: list[np.ndarray], out: int) -> np.ndarray:
    """:func:`resize_square` of a list of equally sized 2-D uint8 arrays. When the first pass is
    the int8 horizontal one, each image is flipped to int8 straight into that pass's input (no
    separate stacked copy)."""
    if not grays or any(not isinstance(g, np.ndarray) or g.dtype != np.uint8 or g.ndim != 2 for g in grays):
        raise TypeError("resize_square takes a list of 2-D uint8 numpy arrays")
    h, w = grays[0].shape
    if any(g.shape != (h, w) for g in grays):
        raise ValueError("resize_square: the images of a list must have one size")
    rule = pass_order_rule()
    first_horizontal = rule != "pil" and not _ORDER_RULES[rule](h, w, out) and w != out
    if not (first_horizontal and _INT8 and w <= INT8_MAX_LEN):
        return np.asarray(resize_square(np.stack(grays), out))
    n = len(grays)
    flipped = np.empty((n, h, w), dtype=np.uint8)
    for i, g in enumerate(grays):
        np.bitwise_xor(g, 0x80, out=flipped[i])
    x = _pass_int8(torch.from_numpy(flipped).view(torch.int8).reshape(n * h, w), w, out).reshape(n, h, out)
    if h != out:
        x = _vertical(x, out)
    return np.asarray(x.numpy())
