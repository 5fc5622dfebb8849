"""Spearman's rank correlation (MPTc-Bench App. B.4: release year vs title chrF)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from transcreval.core.common import paired_vectors
from transcreval.core.result import MetricResult
from transcreval.errors import EmptyInputError, UndefinedValueError
from transcreval.functional.stats.resampling import BootstrapOptions, bootstrap_options, host_vector, rankdata

__all__ = ["bootstrap_options", "pearson", "spearman_rho", "spearman_rho_from_stats", "spearman_rho_stats"]


def pearson(a: np.ndarray, b: np.ndarray) -> float | None:
    """Pearson's r (None when either side is constant)."""
    ca, cb = a - a.mean(), b - b.mean()
    den = math.sqrt(float(ca @ ca) * float(cb @ cb))
    return float(ca @ cb) / den if den > 0 else None


def spearman_rho_stats(preds: Sequence[float], target: Sequence[float]) -> dict[str, Any]:
    """The pairs, as two float64 vectors (a Cat state each)."""
    a, b = paired_vectors(preds, target, ("preds", "target"))
    return {"preds": a, "target": b}


def spearman_rho_from_stats(stats: dict[str, Any], options: BootstrapOptions) -> MetricResult:
    """Rho of the pairs (raw statistics or the class's accumulated states)."""
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
    ci, dropped = options.interval(stat, a.size)
    return options.result("SpearmanRho", value, int(a.size), ci, dropped)


def spearman_rho(
    preds: Sequence[float], target: Sequence[float], *, bootstrap: int = 0, seed: int = 0, confidence: float = 0.95
) -> MetricResult:
    """Spearman's rho (Pearson correlation of average ranks), in [-1, 1]; agrees with
    ``scipy.stats.spearmanr``. Returns what :class:`~transcreval.SpearmanRho` computes
    (``float()`` of it is rho; ``extras["ci"]`` the bootstrap interval when ``bootstrap > 0``)."""
    opts = BootstrapOptions(bootstrap=bootstrap, seed=seed, confidence=confidence)
    return spearman_rho_from_stats(spearman_rho_stats(preds, target), opts)
