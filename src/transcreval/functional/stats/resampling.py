"""Pieces shared by the agreement statistics: average ranks, seeded bootstrap intervals, results.

Bootstrap intervals (``bootstrap=B``) resample the items (segments for Kendall's tau) with
replacement ``B`` times from ``numpy.random.default_rng(seed)`` and report the percentile
interval at ``confidence``; resamples where the statistic is undefined are dropped and counted
(``extras["bootstrap_dropped"]``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from transcreval.core.common import check_positive_int
from transcreval.core.options import MetricOptions, option
from transcreval.core.result import MetricResult, Signature
from transcreval.errors import InputError

__all__ = [
    "BootstrapOptions",
    "bootstrap_ci",
    "bootstrap_options",
    "check_bootstrap",
    "host_vector",
    "rankdata",
    "stat_result",
]

#: distributions whose versions change the numbers (none: numpy's generator is fixed by the seed)
PACKAGES: tuple[str, ...] = ()


def host_vector(x: Any, dtype: Any = np.float64) -> np.ndarray:
    """A state (a tensor on any device, an array or a list) as a 1-D numpy array on the host."""
    if hasattr(x, "detach") and hasattr(x, "cpu"):
        x = x.detach().cpu().numpy()
    return np.asarray(x, dtype=dtype).reshape(-1)


def rankdata(x: np.ndarray) -> np.ndarray:
    """Average ranks (1-based), ties sharing their mean rank (``scipy.stats.rankdata``)."""
    x = np.asarray(x)
    n = x.size
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]]) if n else np.zeros(0, dtype=np.int64)
    ends = np.r_[starts[1:], n]
    ranks = np.empty(n, dtype=np.float64)
    ranks[order] = np.repeat((starts + ends + 1) / 2.0, ends - starts)
    return ranks


def check_bootstrap(bootstrap: Any, seed: Any, confidence: Any) -> None:
    """Validate the bootstrap options (raises InputError naming the option)."""
    check_positive_int("bootstrap (0 = no interval)", bootstrap, minimum=0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InputError(f"seed must be an integer, got {seed!r}")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise InputError(f"confidence must lie in (0, 1), got {confidence!r}")


def bootstrap_options(bootstrap: int, seed: int, confidence: float) -> dict[str, Any]:
    """The signature entries of a bootstrapped statistic (nothing when not bootstrapping)."""
    return {"boot": bootstrap, "seed": seed, "conf": confidence} if bootstrap else {}


@dataclass(frozen=True)
class BootstrapOptions(MetricOptions):
    """The options of every agreement statistic (:class:`~transcreval.SpearmanRho`, ...):
    ``bootstrap`` resamples for a percentile interval (0: none), its ``seed`` and ``confidence``.
    The signature names them only when bootstrapping."""

    bootstrap: int = option(0, signature=lambda o: bootstrap_options(o.bootstrap, o.seed, o.confidence))
    seed: int = option(0, signature=None)  # printed with bootstrap
    confidence: float = option(0.95, signature=None)  # printed with bootstrap

    def check(self) -> None:
        check_bootstrap(self.bootstrap, self.seed, self.confidence)

    def interval(self, stat: Callable[[np.ndarray], float | None], n: int) -> tuple[tuple[float, float] | None, int]:
        """:func:`bootstrap_ci` of ``stat`` over ``n`` items with these options."""
        return bootstrap_ci(stat, n, self.bootstrap, self.seed, self.confidence)

    def result(self, name: str, value: float, n: int, ci: Any, dropped: int, **details: Any) -> MetricResult:
        """:func:`stat_result` signed as metric ``name`` under these options."""
        return stat_result(self.signature(name, PACKAGES), value, n, ci, self.bootstrap, dropped, **details)


def bootstrap_ci(
    stat: Callable[[np.ndarray], float | None], n: int, bootstrap: int, seed: int, confidence: float
) -> tuple[tuple[float, float] | None, int]:
    """Percentile interval of ``stat(resampled indices)`` over ``bootstrap`` resamples, and how
    many resamples were dropped (statistic undefined)."""
    check_bootstrap(bootstrap, seed, confidence)
    if bootstrap == 0:
        return None, 0
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


def stat_result(
    signature: Signature | str,
    value: float,
    n: int,
    ci: tuple[float, float] | None,
    bootstrap: int,
    dropped: int,
    **details: Any,
) -> MetricResult:
    """A statistic as a :class:`MetricResult`: ``extras`` holds ``details``, ``ci`` (when
    bootstrapping) and ``bootstrap_dropped``."""
    extras: dict[str, Any] = dict(details)
    if bootstrap:
        extras["ci"] = ci
        extras["bootstrap_dropped"] = dropped
    sig = signature if isinstance(signature, Signature) else Signature.make(signature)
    return MetricResult(value, n, sig, extras=extras)
