"""Cohen's kappa with quadratic weights (MPTc-Bench App. B: judge vs human agreement)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from transcreval.core.common import as_list, check_choice, paired_vectors
from transcreval.core.options import option
from transcreval.core.result import MetricResult
from transcreval.core.state_checks import list_digest
from transcreval.errors import EmptyInputError, InputError, UndefinedValueError
from transcreval.functional.stats.resampling import BootstrapOptions, host_vector

Unknown = Literal["raise", "drop"]
#: the disagreement weights of :func:`kappa_of_codes`: None (plain Cohen's kappa) or "quadratic"
Weights = Literal["quadratic"] | None

__all__ = [
    "KappaOptions",
    "Weights",
    "check_kappa_labels",
    "kappa_of_codes",
    "quadratic_weighted_kappa",
    "quadratic_weighted_kappa_from_stats",
    "quadratic_weighted_kappa_stats",
]


def check_kappa_labels(labels: Sequence[float] | None, unknown: Any) -> list[float] | None:
    """``labels`` as a sorted-as-given list of distinct numbers; ``unknown`` checked."""
    check_choice("unknown", unknown, ("raise", "drop"))
    if labels is None:
        return None
    labs = [float(v) for v in paired_vectors(labels, labels, ("labels", "labels"))[0]]
    if not labs or len(set(labs)) != len(labs):
        raise InputError("labels must be a non-empty list of distinct numbers (the ordinal scale)")
    return labs


@dataclass(frozen=True)
class KappaOptions(BootstrapOptions):
    """The options of :class:`~transcreval.QuadraticWeightedKappa` and
    :func:`quadratic_weighted_kappa`: :class:`~transcreval.functional.stats.resampling.BootstrapOptions`,
    the ordinal scale ``labels`` (None: the ratings seen; kept as a tuple of floats) and
    ``unknown`` ("raise" or "drop" for ratings outside it)."""

    labels: Sequence[float] | None = option(
        None, signature=lambda o: {} if o.labels is None else {"labels": list_digest(o.labels)}, signature_order=-1
    )
    unknown: Unknown = option(
        "raise", signature=lambda o: {} if o.unknown == "raise" else {"unknown": o.unknown}, signature_order=-1
    )

    def check(self) -> None:
        super().check()
        labs = check_kappa_labels(self.labels, self.unknown)
        self.set_checked("labels", None if labs is None else tuple(labs))


def kappa_of_codes(a: np.ndarray, b: np.ndarray, k: int, weights: Weights = None) -> float | None:
    """Cohen's kappa of two raters' labels given as positions ``0..k-1`` on a scale of ``k``
    labels: ``1 - sum(W * O) / sum(W * E)`` with O the observed confusion matrix, E the outer
    product of its marginals / N and W the disagreement weights: ``1 - I`` (``weights=None``,
    plain kappa) or ``(i - j)^2 / (k - 1)^2`` (``"quadratic"``). None where it is undefined (fewer
    than 2 labels, no pairs, or no disagreement expected by chance). The one kappa of the project:
    :func:`quadratic_weighted_kappa` and :func:`~transcreval.stats.judge_agreement` compute
    through it."""
    if k < 2 or a.size == 0:
        return None
    o = np.zeros((k, k))
    np.add.at(o, (a, b), 1.0)
    e = np.outer(o.sum(1), o.sum(0)) / o.sum()
    pos = np.arange(k)
    if weights == "quadratic":
        w = (pos[:, None] - pos[None, :]) ** 2 / (k - 1) ** 2
    else:
        w = (pos[:, None] != pos[None, :]).astype(np.float64)
    den = float((w * e).sum())
    return 1.0 - float((w * o).sum()) / den if den > 0 else None


def quadratic_weighted_kappa_stats(
    preds: Sequence[float], target: Sequence[float], *, options: KappaOptions
) -> dict[str, Any]:
    """The two raters' numeric ratings as float64 vectors; with ``labels`` and
    ``unknown="raise"``, a rating outside them is an error here, before anything is accumulated."""
    a, b = paired_vectors(as_list(preds, "preds"), as_list(target, "target"), ("preds", "target"))
    if options.labels is not None and options.unknown == "raise":
        _check_known(a, b, list(options.labels))
    return {"preds": a, "target": b}


def _check_known(x: np.ndarray, y: np.ndarray, labs: list[float]) -> None:
    bad = sorted({float(v) for v in np.r_[x[~np.isin(x, labs)], y[~np.isin(y, labs)]]})
    if bad:
        raise InputError(
            f"ratings {bad[:5]} are not among the labels {labs}; pass unknown='drop' to leave those pairs out "
            "(scikit-learn's behaviour)"
        )


def quadratic_weighted_kappa_from_stats(stats: dict[str, Any], options: KappaOptions) -> MetricResult:
    """Kappa of the ratings (raw statistics or the class's accumulated states)."""
    x, y = host_vector(stats["preds"]), host_vector(stats["target"])
    labs = None if options.labels is None else list(options.labels)
    dropped_unknown = 0
    if labs is not None:
        known = np.isin(x, labs) & np.isin(y, labs)
        if not known.all():
            if options.unknown == "raise":
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
        return kappa_of_codes(xi[idx], yi[idx], k, "quadratic")

    value = stat(np.arange(x.size))
    if value is None:
        raise UndefinedValueError("quadratic weighted kappa is undefined: both raters use a single, identical label")
    ci, dropped = options.interval(stat, x.size)
    details = {"dropped_unknown": dropped_unknown} if options.unknown == "drop" else {}
    return options.result("QuadraticWeightedKappa", value, int(x.size), ci, dropped, **details)


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
    higher is better: what :class:`~transcreval.QuadraticWeightedKappa` computes.

    ``kappa = 1 - sum(W * O) / sum(W * E)`` with ``W_ij = (i - j)^2 / (K - 1)^2`` over the label
    positions (``labels`` or the sorted union of the ratings), O the observed confusion matrix
    and E the outer product of the marginals / N: scikit-learn's
    ``cohen_kappa_score(weights="quadratic")``. Ratings outside ``labels`` raise by default;
    ``unknown="drop"`` leaves those pairs out, as scikit-learn does (counted in
    ``extras["dropped_unknown"]``). Undefined (both raters give one and the same label
    throughout): :class:`~transcreval.errors.UndefinedValueError`.
    """
    opts = KappaOptions(labels=labels, unknown=unknown, bootstrap=bootstrap, seed=seed, confidence=confidence)
    return quadratic_weighted_kappa_from_stats(quadratic_weighted_kappa_stats(preds, target, options=opts), opts)
