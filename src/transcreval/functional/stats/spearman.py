"""Spearman's rank correlation (MPTc-Bench App. B.4: release year vs title chrF)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from transcreval.common import paired_vectors
from transcreval.errors import EmptyInputError, UndefinedValueError
from transcreval.functional.stats.resampling import bootstrap_ci, host_vector, rankdata, stat_result
from transcreval.result import MetricResult, Signature

__all__ = ["bootstrap_options", "pearson", "spearman_rho", "spearman_rho_from_stats", "spearman_rho_stats"]


def pearson(a: np.ndarray, b: np.ndarray) -> float | None:
    """Pearson's r (None when either side is constant)."""
    ca, cb = a - a.mean(), b - b.mean()
    den = math.sqrt(float(ca @ ca) * float(cb @ cb))
    return float(ca @ cb) / den if den > 0 else None


def bootstrap_options(bootstrap: int, seed: int, confidence: float) -> dict[str, Any]:
    """The signature entries of a bootstrapped statistic (nothing when not bootstrapping)."""
    return {"boot": bootstrap, "seed": seed, "conf": confidence} if bootstrap else {}


def spearman_rho_stats(preds: Sequence[float], target: Sequence[float]) -> dict[str, Any]:
    """The pairs, as two float64 vectors (a Cat state each)."""
    a, b = paired_vectors(preds, target, ("preds", "target"))
    return {"preds": a, "target": b}


def spearman_rho_from_stats(
    stats: dict[str, Any], signature: Signature, *, bootstrap: int = 0, seed: int = 0, confidence: float = 0.95
) -> MetricResult:
    a, b = host_vector(stats["preds"]), host_vector(stats["target"])
    if a.size == 0:
        raise EmptyInputError("Spearman's rho has no pairs")
    if a.size < 2:
        raise UndefinedValueError(f"Spearman's rho needs at least 2 pairs, got {a.size}")

    def stat(idx: np.ndarray) -> float | None:
        return pearson(rankdata(a[idx]), rankdata(b[idx]))

    value = stat(np.arange(a.size))
    if value is None:
        raise UndefinedValueError("Spearman's rho is undefined for constant input (one side has a single value)")
    ci, dropped = bootstrap_ci(stat, a.size, bootstrap, seed, confidence)
    return stat_result(signature, value, int(a.size), ci, bootstrap, dropped)


def spearman_rho(
    preds: Sequence[float], target: Sequence[float], *, bootstrap: int = 0, seed: int = 0, confidence: float = 0.95
) -> MetricResult:
    """Spearman's rho (Pearson correlation of average ranks), in [-1, 1]; agrees with
    ``scipy.stats.spearmanr``. Returns a :class:`MetricResult` (``float()`` of it is rho;
    ``extras["ci"]`` the bootstrap interval when ``bootstrap > 0``)."""
    sig = Signature.make("spearman_rho", bootstrap_options(bootstrap, seed, confidence))
    return spearman_rho_from_stats(
        spearman_rho_stats(preds, target), sig, bootstrap=bootstrap, seed=seed, confidence=confidence
    )
