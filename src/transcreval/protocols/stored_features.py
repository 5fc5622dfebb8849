"""Per-item feature vectors in a unit's payload, and set-level distances computed from them.

A set-level metric (FID) cannot be averaged from per-item values, so a unit stores each item's
features in its payload (:func:`pack`: float32 little-endian, base64; 2048 Inception features
take about 11 kB of text) and the protocol's tables compute the distance at aggregate time
(:func:`frechet_from_rows`, in manifest order), from any subset of items, with no model call:
``rescore`` recomputes FID exactly, a torchrun run gives the one-process numbers exactly, and a
significance test can resample the rows.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

import numpy as np

from transcreval.errors import InputError

__all__ = ["frechet_from_rows", "pack", "unpack"]


def pack(vector: Any) -> str:
    """One feature vector (numpy or torch, any float dtype) as base64 of float32 little-endian."""
    if hasattr(vector, "detach"):
        vector = vector.detach().cpu().numpy()
    arr = np.asarray(vector, dtype="<f4").reshape(-1)
    return base64.b64encode(arr.tobytes()).decode("ascii")


def unpack(text: str) -> np.ndarray:
    """The vector :func:`pack` stored (float32)."""
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, AttributeError) as e:
        raise InputError(f"a stored feature vector is damaged ({e}); rerun its unit") from None
    return np.frombuffer(raw, dtype="<f4").copy()


def frechet_from_rows(fake: Sequence[np.ndarray] | np.ndarray, real: Sequence[np.ndarray] | np.ndarray) -> float:
    """The Frechet distance of the Gaussian fits of two sets of feature rows (FID when the rows
    are Inception pool features): float64 moments, the same eigensolver as
    :func:`transcreval.functional.fid`. Each set needs at least 2 rows (an UndefinedValueError
    otherwise)."""
    import torch

    from transcreval.functional.image.frechet import frechet_distance, gaussian_from_moments, moments

    a = torch.as_tensor(np.asarray(fake, dtype=np.float32))
    b = torch.as_tensor(np.asarray(real, dtype=np.float32))
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[1]:
        raise InputError(f"feature rows must be N x d with one d, got {tuple(a.shape)} and {tuple(b.shape)}")
    ma, mb = moments(a), moments(b)
    mu1, s1 = gaussian_from_moments(ma["n"], ma["sum"], ma["outer"], "the generated set")
    mu2, s2 = gaussian_from_moments(mb["n"], mb["sum"], mb["outer"], "the real set")
    return float(frechet_distance(mu1, s1, mu2, s2))
