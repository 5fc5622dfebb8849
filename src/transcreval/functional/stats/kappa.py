"""Cohen's kappa with quadratic weights (MPTc-Bench App. B: judge vs human agreement)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from transcreval.common import as_list, check_choice, paired_vectors
from transcreval.errors import EmptyInputError, InputError, UndefinedValueError
from transcreval.functional.stats.resampling import bootstrap_ci, host_vector, stat_result
from transcreval.functional.stats.spearman import bootstrap_options
from transcreval.result import MetricResult, Signature

Unknown = Literal["raise", "drop"]

__all__ = ["check_kappa_labels", "quadratic_weighted_kappa", "quadratic_weighted_kappa_from_stats"]


def check_kappa_labels(labels: Sequence[float] | None, unknown: Any) -> list[float] | None:
    """``labels`` as a sorted-as-given list of distinct numbers; ``unknown`` checked."""
    check_choice("unknown", unknown, ("raise", "drop"))
    if labels is None:
        return None
    labs = [float(v) for v in paired_vectors(labels, labels, ("labels", "labels"))[0]]
    if not labs or len(set(labs)) != len(labs):
        raise InputError("labels must be a non-empty list of distinct numbers (the ordinal scale)")
    return labs


def quadratic_weighted_kappa_stats(
    preds: Sequence[float],
    target: Sequence[float],
    *,
    labels: Sequence[float] | None = None,
    unknown: Unknown = "raise",
) -> dict[str, Any]:
    """The two raters' numeric ratings as float64 vectors; with ``labels`` and
    ``unknown="raise"``, a rating outside them is an error here, before anything is accumulated."""
    a, b = paired_vectors(as_list(preds, "preds"), as_list(target, "target"), ("preds", "target"))
    labs = check_kappa_labels(labels, unknown)
    if labs is not None and unknown == "raise":
        _check_known(a, b, labs)
    return {"preds": a, "target": b}


def _check_known(x: np.ndarray, y: np.ndarray, labs: list[float]) -> None:
    bad = sorted({float(v) for v in np.r_[x[~np.isin(x, labs)], y[~np.isin(y, labs)]]})
    if bad:
        raise InputError(
            f"ratings {bad[:5]} are not among the labels {labs}; pass unknown='drop' to leave those pairs out "
            "(scikit-learn's behaviour)"
        )


def quadratic_weighted_kappa_from_stats(
    stats: dict[str, Any],
    signature: Signature,
    *,
    labels: Sequence[float] | None = None,
    unknown: Unknown = "raise",
    bootstrap: int = 0,
    seed: int = 0,
    confidence: float = 0.95,
) -> MetricResult:
    x, y = host_vector(stats["preds"]), host_vector(stats["target"])
    labs = check_kappa_labels(labels, unknown)
    dropped_unknown = 0
    if labs is not None:
        known = np.isin(x, labs) & np.isin(y, labs)
        if not known.all():
            if unknown == "raise":
                _check_known(x, y, labs)
            dropped_unknown = int((~known).sum())
            x, y = x[known], y[known]
    else:
        labs = sorted(set(x.tolist()) | set(y.tolist()))
    if x.size == 0:
        raise EmptyInputError("quadratic weighted kappa needs at least one pair of ratings")
    pos = {v: i for i, v in enumerate(labs)}
    xi = np.array([pos[v] for v in x.tolist()])
    yi = np.array([pos[v] for v in y.tolist()])
    k = len(labs)

    def stat(idx: np.ndarray) -> float | None:
        if k < 2:
            return None
        o = np.zeros((k, k))
        np.add.at(o, (xi[idx], yi[idx]), 1.0)
        e = np.outer(o.sum(1), o.sum(0)) / o.sum()
        w = (np.arange(k)[:, None] - np.arange(k)[None, :]) ** 2 / (k - 1) ** 2
        den = float((w * e).sum())
        return 1.0 - float((w * o).sum()) / den if den > 0 else None

    value = stat(np.arange(x.size))
    if value is None:
        raise UndefinedValueError("quadratic weighted kappa is undefined: both raters use a single, identical label")
    ci, dropped = bootstrap_ci(stat, x.size, bootstrap, seed, confidence)
    details = {"dropped_unknown": dropped_unknown} if unknown == "drop" else {}
    return stat_result(signature, value, int(x.size), ci, bootstrap, dropped, **details)


def quadratic_weighted_kappa(
    preds: Sequence[float],
    target: Sequence[float],
    *,
    labels: Sequence[float] | None = None,
    unknown: Unknown = "raise",
    bootstrap: int = 0,
    seed: int = 0,
    confidence: float = 0.95,
) -> MetricResult:
    """Cohen's kappa with quadratic weights between two raters' ordinal ratings, in [-1, 1],
    higher is better.

    ``kappa = 1 - sum(W * O) / sum(W * E)`` with ``W_ij = (i - j)^2 / (K - 1)^2`` over the label
    positions (``labels`` or the sorted union of the ratings), O the observed confusion matrix
    and E the outer product of the marginals / N: scikit-learn's
    ``cohen_kappa_score(weights="quadratic")``. Ratings outside ``labels`` raise by default;
    ``unknown="drop"`` leaves those pairs out, as scikit-learn does (counted in
    ``extras["dropped_unknown"]``). Undefined (both raters give one and the same label
    throughout): :class:`~transcreval.errors.UndefinedValueError`.
    """
    opts = {**({"labels": len(labels)} if labels is not None else {}), **bootstrap_options(bootstrap, seed, confidence)}
    return quadratic_weighted_kappa_from_stats(
        quadratic_weighted_kappa_stats(preds, target, labels=labels, unknown=unknown),
        Signature.make("quadratic_weighted_kappa", opts),
        labels=labels,
        unknown=unknown,
        bootstrap=bootstrap,
        seed=seed,
        confidence=confidence,
    )
