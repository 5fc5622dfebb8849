"""Separability of deep vs surface edits by a distance (MPTc-Bench App. B.2).

MPTc-Bench checks that a distance (LPIPS, DINOv2 cosine distance, pHash) separates "deep"
(re-designed) from "surface" (text-edited) poster pairs: the ROC AUC of the distance with deep
as the positive class, and its stability over a sweep of the pHash thresholds that define the
two classes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from transcreval.core.common import as_list, float_vector, paired_vectors
from transcreval.core.result import MetricResult
from transcreval.errors import EmptyInputError, InputError, UndefinedValueError
from transcreval.functional.stats.resampling import BootstrapOptions, host_vector, rankdata

__all__ = [
    "is_deep",
    "roc_auc",
    "separability_auc",
    "separability_auc_from_stats",
    "separability_auc_stats",
    "threshold_sweep",
]

_POSITIVE = ("deep", "1", "true", "pos", "positive")
_NEGATIVE = ("surface", "0", "false", "neg", "negative")


def is_deep(v: Any) -> bool:
    """A label as positive (deep: 1/True/"deep") or negative (surface: 0/False/"surface")."""
    if isinstance(v, str):
        if v.lower() in _POSITIVE:
            return True
        if v.lower() in _NEGATIVE:
            return False
    elif isinstance(v, (bool, int, float, np.integer, np.floating, np.bool_)) and v in (0, 1):
        return bool(v)
    raise InputError(f"label {v!r}: use 1/True/'deep' for positives and 0/False/'surface' for negatives")


def roc_auc(scores: np.ndarray, positive: np.ndarray) -> float | None:
    """AUC = Mann-Whitney U of the positives / (n_pos * n_neg), ties counting one half; None
    when a class is missing."""
    n1 = int(positive.sum())
    n0 = positive.size - n1
    if n1 == 0 or n0 == 0:
        return None
    r = rankdata(scores)
    return (float(r[positive].sum()) - n1 * (n1 + 1) / 2) / (n1 * n0)


def separability_auc_stats(preds: Sequence[float] | np.ndarray, target: Sequence[Any] | np.ndarray) -> dict[str, Any]:
    """Distances (float64) and deep/surface labels (int64: 1 = deep)."""
    d = float_vector(preds, "preds")
    labs = as_list(target, "target")
    if len(labs) != d.size:
        raise InputError(f"mismatched lengths: {d.size} distances (preds), {len(labs)} labels (target)")
    if not np.isfinite(d).all():
        raise InputError("preds (distances) contain NaN or infinite values")
    return {"preds": d, "target": np.array([is_deep(v) for v in labs], dtype=np.int64)}


def separability_auc_from_stats(stats: dict[str, Any], options: BootstrapOptions) -> MetricResult:
    """The AUC of the distances (raw statistics or the class's accumulated states)."""
    d = host_vector(stats["preds"])
    pos = host_vector(stats["target"], np.int64).astype(bool)

    def stat(idx: np.ndarray) -> float | None:
        return roc_auc(d[idx], pos[idx])

    if d.size == 0:
        raise EmptyInputError("separability AUC has no pairs")
    value = stat(np.arange(d.size))
    if value is None:
        raise UndefinedValueError(
            f"separability AUC needs both deep (positive) and surface (negative) pairs, got "
            f"{int(pos.sum())} deep and {int((~pos).sum())} surface"
        )
    ci, dropped = options.interval(stat, d.size)
    n_deep, n_surface = int(pos.sum()), int((~pos).sum())
    return options.result("SeparabilityAUC", value, int(d.size), ci, dropped, n_deep=n_deep, n_surface=n_surface)


def separability_auc(
    preds: Sequence[float] | np.ndarray,
    target: Sequence[Any] | np.ndarray,
    *,
    bootstrap: int = 0,
    seed: int = 0,
    confidence: float = 0.95,
) -> MetricResult:
    """ROC AUC of a distance (``preds``) for telling deep (positive: 1/True/"deep") from surface
    (0/False/"surface") pairs (``target``) (MPTc App. B.2), in [0, 1], higher is better; ties
    count one half. Equals the Mann-Whitney U of the deep distances / ``n_deep * n_surface``.
    Returns what :class:`~transcreval.SeparabilityAUC` computes."""
    opts = BootstrapOptions(bootstrap=bootstrap, seed=seed, confidence=confidence)
    return separability_auc_from_stats(separability_auc_stats(preds, target), opts)


def threshold_sweep(
    distances: Sequence[float] | np.ndarray,
    phash_distances: Sequence[float] | np.ndarray,
    surface_max: Sequence[float] = (10, 12, 14),
    deep_min: Sequence[float] = (28, 30, 32),
    *,
    bootstrap: int = 0,
    seed: int = 0,
    confidence: float = 0.95,
) -> list[dict[str, Any]]:
    """MPTc App. B.2's sensitivity check: for every (t_s, t_d), pairs with pHash <= t_s are
    surface, >= t_d deep, the rest discarded, and ``separability_auc(distances)`` is computed.
    Returns one row per setting: ``t_s, t_d, auc, n_surface, n_deep, ci``. A setting that
    leaves no deep or no surface pair has no AUC: its row has ``auc`` NaN, ``ci`` None and
    ``undefined`` (the reason), and the other settings are still computed."""
    d, p = paired_vectors(distances, phash_distances, ("distances", "phash_distances"))
    rows = []
    for ts in surface_max:
        for td in deep_min:
            if ts >= td:
                raise InputError(f"surface threshold {ts} must be below deep threshold {td}")
            keep = (p <= ts) | (p >= td)
            n_deep = int((p[keep] >= td).sum())
            row: dict[str, Any] = {"t_s": ts, "t_d": td, "n_surface": int(keep.sum()) - n_deep, "n_deep": n_deep}
            try:
                res = separability_auc(
                    d[keep], (p[keep] >= td).astype(int), bootstrap=bootstrap, seed=seed, confidence=confidence
                )
            except (EmptyInputError, UndefinedValueError) as exc:  # one side empty at this setting
                row.update(auc=float("nan"), ci=None, undefined=str(exc))
            else:
                row.update(auc=res.value, ci=res.extras.get("ci"))
            rows.append(row)
    return rows
