"""Agreement and meta-evaluation statistics (spec §7; MPTc-Bench App. B.2, B.4; Khanuja §5).

Implemented with numpy and checked against scipy/scikit-learn in the tests. Each function
returns a :class:`StatResult` (a float, with ``n``, an optional bootstrap confidence interval
and details); undefined statistics (constant input, one class only) raise
:class:`~transcreval.errors.InputError` instead of returning NaN.

Bootstrap intervals (``bootstrap=B``) resample the items (segments for Kendall's tau) with
replacement ``B`` times from ``numpy.random.default_rng(seed)`` and report the percentile
interval at ``confidence``; resamples where the statistic is undefined are dropped and counted.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from transcreval.errors import EmptyInputError, InputError

__all__ = [
    "StatResult",
    "kendall_tau_b",
    "quadratic_weighted_kappa",
    "segment_kendall_tau",
    "separability_auc",
    "spearman_rho",
    "threshold_sweep",
]


@dataclass(frozen=True)
class StatResult:
    """A statistic with its sample size, optional bootstrap interval and details."""

    value: float
    n: int
    ci: tuple[float, float] | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def __float__(self) -> float:
        return self.value


def _vec(x: Any, what: str) -> np.ndarray:
    if isinstance(x, (str, bytes)):
        raise InputError(f"{what} must be a sequence of numbers, got a string")
    try:
        a = np.asarray(x, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as e:
        raise InputError(f"{what} must hold numbers ({e})") from e
    return a


def _pair(x: Any, y: Any, names: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
    a, b = _vec(x, names[0]), _vec(y, names[1])
    if a.shape != b.shape:
        raise InputError(f"mismatched lengths: {names[0]} has {a.size} values, {names[1]} {b.size}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise InputError(f"{names[0]}/{names[1]} contain NaN or infinite values: drop unparsable items first")
    return a, b


def rankdata(x: np.ndarray) -> np.ndarray:
    """Average ranks (1-based), ties sharing their mean rank."""
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    ranks = np.empty(len(x), dtype=np.float64)
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])
    ends = np.r_[starts[1:], len(x)]
    for s0, e0 in zip(starts, ends):
        ranks[order[s0:e0]] = (s0 + e0 + 1) / 2.0
    return ranks


def _pearson(a: np.ndarray, b: np.ndarray) -> float | None:
    ca, cb = a - a.mean(), b - b.mean()
    den = math.sqrt(float(ca @ ca) * float(cb @ cb))
    return float(ca @ cb) / den if den > 0 else None


def _bootstrap(
    stat: Callable[[np.ndarray], float | None], n: int, bootstrap: int, seed: int, confidence: float
) -> tuple[tuple[float, float] | None, int]:
    if bootstrap <= 0:
        return None, 0
    if not 0 < confidence < 1:
        raise InputError(f"confidence must lie in (0, 1), got {confidence}")
    rng = np.random.default_rng(seed)
    vals, dropped = [], 0
    for _ in range(bootstrap):
        v = stat(rng.integers(0, n, n))
        if v is None or not math.isfinite(v):
            dropped += 1
        else:
            vals.append(v)
    if not vals:
        return None, dropped
    lo, hi = np.quantile(vals, [(1 - confidence) / 2, (1 + confidence) / 2])
    return (float(lo), float(hi)), dropped


def spearman_rho(
    x: Sequence[float], y: Sequence[float], *, bootstrap: int = 0, seed: int = 0, confidence: float = 0.95
) -> StatResult:
    """Spearman's rho (Pearson correlation of average ranks), in [-1, 1]; agrees with
    ``scipy.stats.spearmanr``. MPTc App. B.4 uses it for release year vs title chrF."""
    a, b = _pair(x, y, ("x", "y"))
    if a.size < 2:
        raise InputError("spearman_rho needs at least 2 pairs")

    def stat(idx: np.ndarray) -> float | None:
        return _pearson(rankdata(a[idx]), rankdata(b[idx]))

    value = stat(np.arange(a.size))
    if value is None:
        raise InputError("spearman_rho is undefined for constant input")
    ci, dropped = _bootstrap(stat, a.size, bootstrap, seed, confidence)
    return StatResult(value, int(a.size), ci, {"bootstrap_dropped": dropped} if bootstrap else {})


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's tau-b (scipy's default); None when either side is constant."""
    a, b = _pair(x, y, ("x", "y"))
    if a.size < 2:
        return None
    sx = np.sign(a[:, None] - a[None, :])
    sy = np.sign(b[:, None] - b[None, :])
    iu = np.triu_indices(a.size, 1)
    sx, sy = sx[iu], sy[iu]
    den = math.sqrt(float(np.abs(sx).sum()) * float(np.abs(sy).sum()))
    return float((sx * sy).sum()) / den if den > 0 else None


def segment_kendall_tau(
    metric: Sequence[float | None],
    human: Sequence[float],
    segment_ids: Sequence[Hashable],
    group_ids: Sequence[Hashable] | None = None,
    *,
    bootstrap: int = 0,
    seed: int = 0,
    confidence: float = 0.95,
) -> StatResult:
    """Segment-level Kendall tau-b between a metric and human ratings (Khanuja et al. §5).

    Rows are (segment, system) scores. Per segment (image), tau-b across its systems; segments
    are skipped when a metric value is missing (None/NaN: unparsable output), when the metric
    gives all systems the same score, when the humans do (tau undefined) or when a segment has
    fewer than two systems. Taus are averaged per group (e.g. country), then over groups
    (without ``group_ids``: over all segments). ``details`` holds ``per_group``, ``used`` and
    ``skipped`` counts by reason. Bootstrap resamples segments.
    """
    m = [None if v is None else float(v) for v in metric]
    h = _vec(human, "human")
    segs = list(segment_ids)
    groups = list(group_ids) if group_ids is not None else [None] * len(segs)
    if not (len(m) == h.size == len(segs) == len(groups)):
        raise InputError(
            f"mismatched lengths: metric {len(m)}, human {h.size}, segment_ids {len(segs)}, group_ids {len(groups)}"
        )
    if not np.isfinite(h).all():
        raise InputError("human ratings contain NaN or infinite values")
    rows: dict[Hashable, list[int]] = {}
    seg_group: dict[Hashable, Hashable] = {}
    for i, (s, g) in enumerate(zip(segs, groups)):
        rows.setdefault(s, []).append(i)
        if seg_group.setdefault(s, g) != g:
            raise InputError(f"segment {s!r} appears in two groups ({seg_group[s]!r} and {g!r})")
    skipped = {"unparsable": 0, "tied_metric": 0, "tied_human": 0, "too_few_systems": 0}
    taus: list[tuple[Hashable, float]] = []
    for s, idx in rows.items():
        ms = [m[i] for i in idx]
        if len(idx) < 2:
            skipped["too_few_systems"] += 1
        elif any(v is None or not math.isfinite(v) for v in ms):
            skipped["unparsable"] += 1
        elif len(set(ms)) == 1:
            skipped["tied_metric"] += 1
        else:
            tau = kendall_tau_b(ms, h[idx])  # type: ignore[arg-type]
            if tau is None:
                skipped["tied_human"] += 1
            else:
                taus.append((seg_group[s], tau))
    if not taus:
        raise EmptyInputError(f"segment_kendall_tau: every segment was skipped ({skipped})")
    group_of = np.array([hash(g) for g, _ in taus])
    tau_v = np.array([t for _, t in taus])

    def stat(idx: np.ndarray) -> float | None:
        gs, ts = group_of[idx], tau_v[idx]
        means = [ts[gs == g].mean() for g in np.unique(gs)]
        return float(np.mean(means))

    by_group: dict[Hashable, list[float]] = {}
    for g, t in taus:
        by_group.setdefault(g, []).append(t)
    per_group = {g: float(np.mean(v)) for g, v in by_group.items()}
    value = float(np.mean(list(per_group.values())))
    ci, dropped = _bootstrap(stat, len(taus), bootstrap, seed, confidence)
    details = {"per_group": per_group, "used": len(taus), "skipped": skipped}
    if bootstrap:
        details["bootstrap_dropped"] = dropped
    return StatResult(value, len(taus), ci, details)


def quadratic_weighted_kappa(
    a: Sequence[Any],
    b: Sequence[Any],
    *,
    labels: Sequence[Any] | None = None,
    bootstrap: int = 0,
    seed: int = 0,
    confidence: float = 0.95,
) -> StatResult:
    """Cohen's kappa with quadratic weights between two raters' ordinal labels, in [-1, 1].

    ``kappa = 1 - sum(W * O) / sum(W * E)`` with ``W_ij = (i - j)^2 / (K - 1)^2`` over the label
    positions (``labels`` or the sorted union), O the observed confusion matrix and E the
    outer product of the marginals / N; scikit-learn's ``cohen_kappa_score(weights="quadratic")``.
    Undefined (both raters give one and the same label throughout): InputError.
    """
    x, y = list(a), list(b)
    if len(x) != len(y):
        raise InputError(f"mismatched lengths: {len(x)} vs {len(y)} ratings")
    if not x:
        raise EmptyInputError("quadratic_weighted_kappa needs at least one pair of ratings")
    labs = list(labels) if labels is not None else sorted(set(x) | set(y))
    pos = {v: i for i, v in enumerate(labs)}
    missing = [v for v in set(x) | set(y) if v not in pos]
    if missing:
        raise InputError(f"ratings {missing[:5]} are not among the labels")
    xi = np.array([pos[v] for v in x])
    yi = np.array([pos[v] for v in y])
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

    value = stat(np.arange(len(x)))
    if value is None:
        raise InputError("quadratic_weighted_kappa is undefined: both raters use a single, identical label")
    ci, dropped = _bootstrap(stat, len(x), bootstrap, seed, confidence)
    return StatResult(value, len(x), ci, {"bootstrap_dropped": dropped} if bootstrap else {})


def _auc(scores: np.ndarray, positive: np.ndarray) -> float | None:
    n1 = int(positive.sum())
    n0 = positive.size - n1
    if n1 == 0 or n0 == 0:
        return None
    r = rankdata(scores)
    return (float(r[positive].sum()) - n1 * (n1 + 1) / 2) / (n1 * n0)


def separability_auc(
    distances: Sequence[float], labels: Sequence[Any], *, bootstrap: int = 0, seed: int = 0, confidence: float = 0.95
) -> StatResult:
    """ROC AUC of a distance for telling deep (positive: label 1/True/"deep") from surface
    (0/False/"surface") pairs (MPTc App. B.2), in [0, 1]; ties count one half. Equals the
    Mann-Whitney U of the deep distances divided by ``n_deep * n_surface``."""
    d = _vec(distances, "distances")
    labs = list(labels)
    if len(labs) != d.size:
        raise InputError(f"mismatched lengths: {d.size} distances, {len(labs)} labels")
    if not np.isfinite(d).all():
        raise InputError("distances contain NaN or infinite values")
    pos = np.array([_positive(v) for v in labs], dtype=bool)

    def stat(idx: np.ndarray) -> float | None:
        return _auc(d[idx], pos[idx])

    value = stat(np.arange(d.size))
    if value is None:
        raise InputError("separability_auc needs both deep (positive) and surface (negative) pairs")
    ci, dropped = _bootstrap(stat, d.size, bootstrap, seed, confidence)
    details = {"n_deep": int(pos.sum()), "n_surface": int((~pos).sum())}
    if bootstrap:
        details["bootstrap_dropped"] = dropped
    return StatResult(value, int(d.size), ci, details)


def _positive(v: Any) -> bool:
    if isinstance(v, str):
        if v.lower() in ("deep", "1", "true", "pos", "positive"):
            return True
        if v.lower() in ("surface", "0", "false", "neg", "negative"):
            return False
        raise InputError(f"label {v!r}: use 1/True/'deep' for positives and 0/False/'surface' for negatives")
    if v in (0, 1):
        return bool(v)
    raise InputError(f"label {v!r}: use 1/True/'deep' for positives and 0/False/'surface' for negatives")


def threshold_sweep(
    distances: Sequence[float],
    phash_distances: Sequence[float],
    surface_max: Sequence[float] = (10, 12, 14),
    deep_min: Sequence[float] = (28, 30, 32),
    *,
    bootstrap: int = 0,
    seed: int = 0,
    confidence: float = 0.95,
) -> list[dict[str, Any]]:
    """MPTc App. B.2's sensitivity check: for every (t_s, t_d), pairs with pHash <= t_s are
    surface, >= t_d deep, the rest discarded, and ``separability_auc(distances)`` is computed.
    Returns one row per setting: ``t_s, t_d, auc, n_surface, n_deep`` (and ``ci``)."""
    d, p = _pair(distances, phash_distances, ("distances", "phash_distances"))
    rows = []
    for ts in surface_max:
        for td in deep_min:
            if ts >= td:
                raise InputError(f"surface threshold {ts} must be below deep threshold {td}")
            keep = (p <= ts) | (p >= td)
            labels = (p[keep] >= td).astype(int).tolist()
            res = separability_auc(d[keep].tolist(), labels, bootstrap=bootstrap, seed=seed, confidence=confidence)
            rows.append(
                {
                    "t_s": ts,
                    "t_d": td,
                    "auc": res.value,
                    "n_surface": res.details["n_surface"],
                    "n_deep": res.details["n_deep"],
                    "ci": res.ci,
                }
            )
    return rows
