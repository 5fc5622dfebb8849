"""Paired significance tests and bootstrap intervals, clustered by source item.

``paired_bootstrap(a, b, groups)`` and ``paired_randomization(a, b, groups)`` compare system
``b`` with a baseline ``a`` scored on the same items; ``bootstrap_interval(values, groups)``
gives one system's interval. The statistic is the per-item mean by default, or any set-level
``f(rows) -> float`` recomputed on each resample (FID over feature rows, a win rate, corpus
chrF from per-item n-gram counts). The delta is ``statistic(b) - statistic(a)``.

Two conventions (``compat``), over the same draws (see :mod:`transcreval.significance.resample`):

``"transcreval"`` (default)
    bootstrap p-value ``(1 + #{|d*_k - d| >= |d|}) / (B + 1)`` (the resampled deltas centred on
    the observed delta ``d``), randomisation p-value ``(1 + #{|d~_k| >= |d|}) / (B + 1)``;
    percentile intervals at ``confidence`` (``numpy.quantile``).
``"sacrebleu"``
    sacrebleu 2.x's ``--paired-bs`` / ``--paired-ar``: bootstrap p-value
    ``(1 + #{|d*_k| - mean|d*| > |d|}) / (B + 1)``, randomisation p-value
    ``(1 + #{|d~_k| > |d|}) / (B + 1)``, and the interval ``[s_(B//40), s_(B - B//40 - 1)]`` of the
    sorted resampled scores (95% only). With ``groups=None`` and the same seed and number of
    resamples, the numbers are sacrebleu's.

Resamples on which the statistic is undefined (NaN) are left out and counted (``n_dropped``);
the p-value's ``B`` is then the number of valid resamples.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, NamedTuple

import numpy as np

from transcreval.errors import EmptyInputError, InputError, UndefinedValueError
from transcreval.significance.resample import (
    Statistic,
    as_rows,
    bootstrap_values,
    check_options,
    check_resamples,
    clusters_of,
    draw_bootstrap,
    draw_swaps,
    evaluate,
    pair_up,
    randomization_values,
    statistic_name,
)

__all__ = [
    "DEFAULT_SEED",
    "Compat",
    "Interval",
    "PairedResult",
    "bootstrap_interval",
    "jsonable",
    "paired_bootstrap",
    "paired_randomization",
]

Compat = Literal["transcreval", "sacrebleu"]
#: the default seed (sacrebleu's ``SACREBLEU_SEED`` default)
DEFAULT_SEED = 12345
_RTOL = 1e-9  # |d*| equal to |d| up to rounding counts as "at least as extreme"


def jsonable(x: Any) -> Any:
    """A result field as JSON: a non-finite float as None, a tuple as a list."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, tuple):
        return [jsonable(v) for v in x]
    return x


@dataclass(frozen=True)
class Interval:
    """One system's statistic with its bootstrap interval.

    Attributes:
        value: the statistic on all items with a value.
        ci: the (low, high) interval, or None when every resample was undefined.
        mean: the mean of the resampled statistics (sacrebleu's "mean").
        n: items used; n_missing: items dropped for a missing (NaN) value; n_groups: clusters.
        n_dropped: resamples on which the statistic was undefined.
    """

    value: float
    ci: tuple[float, float] | None
    mean: float
    n: int
    n_missing: int
    n_groups: int
    n_resamples: int
    n_dropped: int
    seed: int
    confidence: float
    statistic: str
    compat: str

    def to_dict(self) -> dict[str, Any]:
        return {k: jsonable(v) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class PairedResult:
    """A paired comparison of system ``b`` with the baseline ``a``.

    Attributes:
        test: ``"bootstrap"`` or ``"randomization"``.
        value_a, value_b: each side's statistic on the paired items; delta: ``value_b - value_a``.
        p_value: two-sided p-value of "no difference".
        ci: interval of the delta; ci_a, ci_b: each side's interval; mean_a, mean_b: means of
            the resampled statistics (None / NaN for a randomisation test with ``ci_resamples=0``).
        n: pairs used; n_missing: pairs dropped (either side NaN); n_groups: clusters.
        n_resamples: bootstrap resamples or randomisation trials; ci_resamples: bootstrap
            resamples behind the intervals; n_dropped: resamples or trials left out (undefined).
    """

    test: str
    statistic: str
    value_a: float
    value_b: float
    delta: float
    p_value: float
    ci: tuple[float, float] | None
    ci_a: tuple[float, float] | None
    ci_b: tuple[float, float] | None
    mean_a: float
    mean_b: float
    n: int
    n_missing: int
    n_groups: int
    n_resamples: int
    ci_resamples: int
    n_dropped: int
    seed: int
    confidence: float
    compat: str

    def to_dict(self) -> dict[str, Any]:
        return {k: jsonable(v) for k, v in asdict(self).items()}


def _check_compat(compat: Any, confidence: float) -> None:
    if compat not in ("transcreval", "sacrebleu"):
        raise InputError(f"compat must be 'transcreval' or 'sacrebleu', got {compat!r}")
    if compat == "sacrebleu" and confidence != 0.95:
        raise InputError(f"compat='sacrebleu' gives 95% intervals only (sacrebleu's rule), got confidence={confidence}")


def _interval(samples: np.ndarray, confidence: float, compat: str) -> tuple[float, float] | None:
    s = np.sort(samples[np.isfinite(samples)])
    if s.size == 0:
        return None
    if compat == "sacrebleu":
        lo = s.size // 40
        return float(s[lo]), float(s[s.size - lo - 1])
    lo_q, hi_q = np.quantile(s, [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(lo_q), float(hi_q)


def _mean(samples: np.ndarray) -> float:
    s = samples[np.isfinite(samples)]
    return float(s.mean()) if s.size else math.nan


def _intervals(sa: np.ndarray, sb: np.ndarray, confidence: float, compat: str) -> dict[str, Any]:
    """The delta's and each side's interval and resample mean, over the resamples where both
    sides are defined (the ``ci``, ``ci_a``, ``ci_b``, ``mean_a``, ``mean_b`` of a PairedResult)."""
    ok = np.isfinite(sa) & np.isfinite(sb)
    sa, sb = sa[ok], sb[ok]
    return {
        "ci": _interval(sb - sa, confidence, compat),
        "ci_a": _interval(sa, confidence, compat),
        "ci_b": _interval(sb, confidence, compat),
        "mean_a": _mean(sa),
        "mean_b": _mean(sb),
    }


def _at_least(x: np.ndarray, ref: float) -> np.ndarray:
    return x >= ref - _RTOL * abs(ref)


def _observed(statistic: Statistic, a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    va, vb = evaluate(statistic, a), evaluate(statistic, b)
    if math.isnan(va) or math.isnan(vb):
        side = "a" if math.isnan(va) else "b"
        raise UndefinedValueError(f"statistic {statistic_name(statistic)} is undefined on side {side}'s items")
    return va, vb


class _Paired(NamedTuple):
    """A paired test's items, each side's observed statistic and the settings its result records."""

    a: np.ndarray
    b: np.ndarray
    clusters: Any
    n_missing: int
    va: float
    vb: float
    statistic: Statistic
    seed: int
    confidence: float
    compat: str


def _prepare(
    per_item_a: Any, per_item_b: Any, groups: Any, statistic: Statistic, seed: int, confidence: float, compat: str
) -> _Paired:
    _check_compat(compat, confidence)
    a, b, clusters, n_missing = pair_up(per_item_a, per_item_b, groups)
    if isinstance(statistic, str) and a.ndim != 1:
        raise InputError("statistic 'mean' needs one number per item; for rows give a callable statistic")
    if clusters.count < 2:
        raise UndefinedValueError(
            f"a paired test needs items from at least 2 source items (clusters); these {len(a)} paired items "
            "come from 1, so any difference would look certain"
        )
    va, vb = _observed(statistic, a, b)
    return _Paired(a, b, clusters, n_missing, va, vb, statistic, seed, confidence, compat)


def _both_defined(xa: np.ndarray, xb: np.ndarray, statistic: Statistic, where: str) -> np.ndarray:
    """The mask of the resamples (trials) on which both sides' statistic is defined; none is an error."""
    valid = np.isfinite(xa) & np.isfinite(xb)
    if not valid.any():
        raise UndefinedValueError(f"statistic {statistic_name(statistic)} is undefined on every {where}")
    return valid


def _result(
    p: _Paired, test: str, count: int, valid: np.ndarray, intervals: dict[str, Any], n_resamples: int, ci_resamples: int
) -> PairedResult:
    """The result of a paired test in which ``count`` of the ``valid`` resamples (trials) were
    at least as extreme as the observed delta."""
    n_valid = int(valid.sum())
    return PairedResult(
        test=test,
        statistic=statistic_name(p.statistic),
        value_a=p.va,
        value_b=p.vb,
        delta=p.vb - p.va,
        p_value=(count + 1) / (n_valid + 1),
        **intervals,
        n=len(p.a),
        n_missing=p.n_missing,
        n_groups=p.clusters.count,
        n_resamples=n_resamples,
        ci_resamples=ci_resamples,
        n_dropped=n_resamples - n_valid,
        seed=p.seed,
        confidence=p.confidence,
        compat=p.compat,
    )


def paired_bootstrap(
    per_item_a: Any,
    per_item_b: Any,
    groups: Sequence[Hashable] | None = None,
    *,
    statistic: Statistic = "mean",
    n_resamples: int = 1000,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
    compat: Compat = "transcreval",
) -> PairedResult:
    """Paired bootstrap test of system ``b`` against the baseline ``a``, resampling clusters.

    Args:
        per_item_a, per_item_b: the baseline's and the system's per-item values on the same
            items in the same order (numbers, or rows for a set-level statistic); NaN = missing.
            Pairs with either side missing are dropped and counted in ``n_missing``.
        groups: the cluster (source item) of each item; None: every item is its own cluster.
        statistic: ``"mean"`` or ``f(rows) -> float`` recomputed on every resample.
        n_resamples: bootstrap resamples ``B``; seed: the generator's seed.
        confidence: coverage of the intervals; compat: ``"transcreval"`` or ``"sacrebleu"``.

    Returns:
        a :class:`PairedResult` (``test="bootstrap"``).
    """
    check_options(statistic, n_resamples, seed, confidence, "n_resamples")
    p = _prepare(per_item_a, per_item_b, groups, statistic, seed, confidence, compat)
    draws = draw_bootstrap(np.random.default_rng(seed), p.clusters.count, n_resamples)
    sa, sb = bootstrap_values(statistic, [p.a, p.b], p.clusters, draws)
    valid = _both_defined(sa, sb, statistic, "bootstrap resample")
    deltas = sb[valid] - sa[valid]
    d = p.vb - p.va
    if compat == "sacrebleu":
        spread = np.abs(deltas)
        count = int(np.sum(spread - spread.mean() > abs(d)))
    else:
        count = int(np.sum(_at_least(np.abs(deltas - d), abs(d))))
    intervals = _intervals(sa, sb, confidence, compat)
    return _result(p, "bootstrap", count, valid, intervals, n_resamples, n_resamples)


def paired_randomization(
    per_item_a: Any,
    per_item_b: Any,
    groups: Sequence[Hashable] | None = None,
    *,
    statistic: Statistic = "mean",
    n_resamples: int = 10000,
    ci_resamples: int = 1000,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
    compat: Compat = "transcreval",
) -> PairedResult:
    """Paired approximate randomisation test of ``b`` against ``a``, swapping whole clusters.

    In each of ``n_resamples`` trials every cluster's outputs are swapped between the two
    systems with probability 1/2 and the statistic recomputed on both pseudo-systems; the
    p-value counts trials whose absolute difference is at least the observed one. With
    ``ci_resamples > 0``, intervals come from that many bootstrap resamples drawn from the same
    generator after the trials (sacrebleu's ``--paired-ar-confidence-n``); 0 gives none.
    Arguments otherwise as :func:`paired_bootstrap`.
    """
    check_options(statistic, n_resamples, seed, confidence, "n_resamples")
    if isinstance(ci_resamples, bool) or not isinstance(ci_resamples, int) or ci_resamples < 0:
        raise InputError(f"ci_resamples must be a non-negative integer (0: no intervals), got {ci_resamples!r}")
    if ci_resamples:
        check_resamples(ci_resamples, confidence, "ci_resamples")
    p = _prepare(per_item_a, per_item_b, groups, statistic, seed, confidence, compat)
    rng = np.random.default_rng(seed)
    keep = draw_swaps(rng, p.clusters.count, n_resamples)
    ta, tb = randomization_values(statistic, p.a, p.b, p.clusters, keep)
    valid = _both_defined(ta, tb, statistic, "randomisation trial")
    spread, d = np.abs(tb[valid] - ta[valid]), p.vb - p.va
    count = int(np.sum(spread > abs(d))) if compat == "sacrebleu" else int(np.sum(_at_least(spread, abs(d))))
    intervals: dict[str, Any] = {"ci": None, "ci_a": None, "ci_b": None, "mean_a": math.nan, "mean_b": math.nan}
    if ci_resamples:
        draws = draw_bootstrap(rng, p.clusters.count, ci_resamples)
        sa, sb = bootstrap_values(statistic, [p.a, p.b], p.clusters, draws)
        intervals = _intervals(sa, sb, confidence, compat)
    return _result(p, "randomization", count, valid, intervals, n_resamples, ci_resamples)


def bootstrap_interval(
    values: Any,
    groups: Sequence[Hashable] | None = None,
    *,
    statistic: Statistic = "mean",
    n_resamples: int = 1000,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
    compat: Compat = "transcreval",
) -> Interval:
    """One system's statistic with a bootstrap interval, resampling clusters.

    Items with a missing (NaN) value are dropped and counted (``n_missing``). With the same
    seed, resamples and items, the interval equals the ``ci_a`` of :func:`paired_bootstrap`.
    Items from a single cluster give the value with no interval (``ci`` None).
    """
    check_options(statistic, n_resamples, seed, confidence, "n_resamples")
    _check_compat(compat, confidence)
    rows = as_rows(values, "values")
    clusters = clusters_of(groups, len(rows))
    keep = ~np.isnan(rows.reshape(len(rows), -1)).any(axis=1)
    if not keep.any():
        raise EmptyInputError(f"no item has a value ({len(rows)} items, all missing)")
    rows, n_missing = rows[keep], int((~keep).sum())
    clusters = clusters_of(clusters.index[keep].tolist(), len(rows))
    if isinstance(statistic, str) and rows.ndim != 1:
        raise InputError("statistic 'mean' needs one number per item; for rows give a callable statistic")
    value = evaluate(statistic, rows)
    if math.isnan(value):
        raise UndefinedValueError(f"statistic {statistic_name(statistic)} is undefined on these items")
    if clusters.count < 2:  # one cluster: every resample is the data itself, no interval
        ok = np.zeros(0)
    else:
        draws = draw_bootstrap(np.random.default_rng(seed), clusters.count, n_resamples)
        (samples,) = bootstrap_values(statistic, [rows], clusters, draws)
        ok = samples[np.isfinite(samples)]
    return Interval(
        value=value,
        ci=_interval(ok, confidence, compat),
        mean=_mean(ok) if ok.size else value,
        n=len(rows),
        n_missing=n_missing,
        n_groups=clusters.count,
        n_resamples=n_resamples,
        n_dropped=n_resamples - ok.size if clusters.count > 1 else 0,
        seed=seed,
        confidence=confidence,
        statistic=statistic_name(statistic),
        compat=compat,
    )
