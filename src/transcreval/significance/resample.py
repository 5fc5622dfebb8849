"""The resampling machinery behind the significance tests: pairing, clusters, draws, statistics.

Items are resampled by *cluster* (``groups``: the source item an output was made from), never
one by one when several items share a source. Clusters are numbered in order of first
appearance, so with one item per cluster (``groups=None``) cluster ``i`` is item ``i`` and the
draws below are exactly sacrebleu's:

* bootstrap: ``rng.choice(G, size=(B, G), replace=True)`` cluster indices per resample;
* approximate randomisation: ``rng.integers(2, size=(B, G), dtype=bool)``; where True the
  pseudo-system ``a`` keeps ``a``'s item (and ``b`` keeps ``b``'s), where False they swap.

A statistic is ``"mean"`` (the item-weighted mean, computed from per-cluster sums) or a callable
``f(rows) -> float`` over the selected items' rows (a set-level statistic such as FID over
feature rows, a win rate, or a corpus score from per-item sufficient statistics). A statistic
that returns NaN on a resample leaves that resample out, and the tests count it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from transcreval.errors import EmptyInputError, InputError

__all__ = [
    "CHUNK",
    "Clusters",
    "Statistic",
    "as_rows",
    "bootstrap_values",
    "check_options",
    "check_resamples",
    "clusters_of",
    "draw_bootstrap",
    "draw_swaps",
    "evaluate",
    "min_resamples",
    "pair_up",
    "randomization_values",
    "statistic_name",
]

#: a statistic: ``"mean"`` or ``f(rows) -> float`` over the selected items' rows
Statistic = str | Callable[[np.ndarray], float]
#: resamples evaluated at once on the fast path (bounds memory at CHUNK x clusters numbers)
CHUNK = 256


def as_rows(values: Any, what: str) -> np.ndarray:
    """Per-item values (a list, numpy array, tensor or ``MetricResult``) as a float64 array ``(n, ...)``."""
    if hasattr(values, "per_item") and hasattr(values, "signature"):  # a MetricResult
        if values.per_item is None:
            raise InputError(f"{what}: this result has no per_item values; pass a metric result with per_item")
        values = values.per_item
    if hasattr(values, "detach") and hasattr(values, "cpu"):
        values = values.detach().cpu().numpy()
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise InputError(f"{what}: per-item values must be numbers (NaN where missing), got {e}") from e
    if arr.ndim == 0:
        raise InputError(f"{what}: expected one value (or row) per item, got a single number")
    if np.isinf(arr).any():
        raise InputError(f"{what}: infinite per-item values; use NaN for a missing value, never inf")
    return arr


@dataclass(frozen=True)
class Clusters:
    """Items numbered by cluster: ``index[i]`` is item ``i``'s cluster (0..count-1, first-appearance order)."""

    index: np.ndarray
    count: int

    @property
    def singletons(self) -> bool:
        """One item per cluster, in item order (the draws are then sacrebleu's)."""
        return self.count == len(self.index)

    def members(self) -> list[np.ndarray]:
        order = np.argsort(self.index, kind="stable")
        bounds = np.cumsum(np.bincount(self.index, minlength=self.count))[:-1]
        return np.split(order, bounds)

    def sums(self, values: np.ndarray) -> np.ndarray:
        return np.bincount(self.index, weights=values, minlength=self.count)

    def sizes(self) -> np.ndarray:
        return np.bincount(self.index, minlength=self.count).astype(np.float64)


def clusters_of(groups: Sequence[Hashable] | None, n: int, what: str = "groups") -> Clusters:
    """Number the clusters of ``n`` items; ``None`` makes every item its own cluster."""
    if groups is None:
        return Clusters(np.arange(n), n)
    if isinstance(groups, (str, bytes)):
        raise InputError(f"{what} must be one label per item, got a bare string")
    labels = list(groups)
    if len(labels) != n:
        raise InputError(f"{what} has {len(labels)} labels for {n} items: give one source-item label per item")
    codes: dict[Hashable, int] = {}
    index = np.empty(n, dtype=np.int64)
    for i, g in enumerate(labels):
        if g is None or (isinstance(g, float) and math.isnan(g)):
            raise InputError(f"{what}[{i}] is missing: every item needs its source-item label")
        try:
            index[i] = codes.setdefault(g, len(codes))
        except TypeError as e:
            raise InputError(f"{what}[{i}] = {g!r} cannot be a cluster label (it must be hashable)") from e
    return Clusters(index, len(codes))


def _missing(rows: np.ndarray) -> np.ndarray:
    return np.isnan(rows.reshape(len(rows), -1)).any(axis=1)


def pair_up(
    per_item_a: Any, per_item_b: Any, groups: Sequence[Hashable] | None
) -> tuple[np.ndarray, np.ndarray, Clusters, int]:
    """The pairs where both sides have a value, their clusters, and how many pairs were dropped.

    A pair is missing when any number in either side's row is NaN; missing pairs are dropped
    and counted, and a cluster left with no pair disappears.
    """
    a, b = as_rows(per_item_a, "per_item_a"), as_rows(per_item_b, "per_item_b")
    if a.shape != b.shape:
        raise InputError(
            f"per_item_a has shape {a.shape} and per_item_b {b.shape}: the two systems must be scored "
            "on the same items, in the same order (align them by item id first)"
        )
    clusters = clusters_of(groups, len(a))
    keep = ~(_missing(a) | _missing(b))
    n_missing = int((~keep).sum())
    if not keep.any():
        raise EmptyInputError(f"no item has a value on both sides ({len(a)} items, all {n_missing} pairs missing)")
    return a[keep], b[keep], clusters_of(clusters.index[keep].tolist(), int(keep.sum())), n_missing


def statistic_name(statistic: Statistic) -> str:
    if isinstance(statistic, str):
        return statistic
    return getattr(statistic, "__name__", type(statistic).__name__)


def check_options(statistic: Statistic, n_resamples: Any, seed: Any, confidence: Any, what: str) -> None:
    """Validate the options every test shares (raises InputError naming the option)."""
    if isinstance(statistic, str):
        if statistic != "mean":
            raise InputError(f"statistic must be 'mean' or a callable f(rows) -> float, got {statistic!r}")
    elif not callable(statistic):
        raise InputError(f"statistic must be 'mean' or a callable f(rows) -> float, got {statistic!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise InputError(f"{what} must be a positive integer, got {n_resamples!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError(f"seed must be a non-negative integer (the tests are always seeded), got {seed!r}")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise InputError(f"confidence must lie in (0, 1), got {confidence!r}")
    check_resamples(n_resamples, confidence, what)


def min_resamples(confidence: float) -> int:
    """The fewest resamples a test or interval at ``confidence`` accepts: ``2 / (1 - confidence)``
    (40 at 95%), so that at least one resample lies beyond each end of the interval. With fewer,
    an end is the most extreme resample (one resample gives an "interval" that is a single draw,
    which need not contain the estimate), and a p-value cannot go below ``1 / (B + 1)``."""
    return max(1, math.ceil(round(2.0 / (1.0 - confidence), 9)))


def check_resamples(n: int, confidence: float, what: str) -> None:
    """InputError when ``n`` resamples are fewer than :func:`min_resamples` of ``confidence``."""
    need = min_resamples(confidence)
    if n < need:
        raise InputError(
            f"{what}={n} is too few: {confidence:.0%} intervals need at least {need} resamples (2 / (1 - "
            f"confidence)), so that some resample lies beyond each end; 1000 or more is usual"
        )


def evaluate(statistic: Statistic, rows: np.ndarray) -> float:
    """The statistic on the given rows (NaN where it is undefined)."""
    if len(rows) == 0:
        return math.nan
    if isinstance(statistic, str):
        return float(rows.mean()) if rows.ndim == 1 else math.nan
    value = statistic(rows)
    try:
        out = float(value)
    except (TypeError, ValueError) as e:
        raise InputError(f"statistic {statistic_name(statistic)} returned {value!r}, not a number") from e
    return out if math.isfinite(out) else math.nan


def draw_bootstrap(rng: np.random.Generator, n_clusters: int, n_resamples: int) -> np.ndarray:
    """Cluster indices of each bootstrap resample, ``(n_resamples, n_clusters)`` (sacrebleu's draw)."""
    return rng.choice(n_clusters, size=(n_resamples, n_clusters), replace=True)


def draw_swaps(rng: np.random.Generator, n_clusters: int, n_resamples: int) -> np.ndarray:
    """Which clusters keep their own side in each randomisation trial, bool ``(n_resamples, n_clusters)``."""
    return rng.integers(2, size=(n_resamples, n_clusters), dtype=bool)


def _chunks(n: int) -> Iterator[slice]:
    for start in range(0, n, CHUNK):
        yield slice(start, min(n, start + CHUNK))


def _check_mean_rows(statistic: Statistic, *arrays: np.ndarray) -> None:
    if isinstance(statistic, str) and any(x.ndim != 1 for x in arrays):
        raise InputError("statistic 'mean' needs one number per item; for rows give a callable statistic")


def bootstrap_values(statistic: Statistic, rows: Sequence[np.ndarray], clusters: Clusters, draws: np.ndarray) -> list:
    """The statistic of each array in ``rows`` on every bootstrap resample (one float array each)."""
    _check_mean_rows(statistic, *rows)
    out = [np.empty(len(draws)) for _ in rows]
    if isinstance(statistic, str):
        sizes = clusters.sizes()
        sums = [clusters.sums(r) for r in rows]
        for sl in _chunks(len(draws)):
            count = sizes[draws[sl]].sum(axis=1)
            for o, s in zip(out, sums):
                o[sl] = s[draws[sl]].sum(axis=1) / count
        return out
    members = None if clusters.singletons else clusters.members()
    for k, draw in enumerate(draws):
        items = draw if members is None else np.concatenate([members[g] for g in draw])
        for o, r in zip(out, rows):
            o[k] = evaluate(statistic, r[items])
    return out


def randomization_values(
    statistic: Statistic, a: np.ndarray, b: np.ndarray, clusters: Clusters, keep: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The statistic of both pseudo-systems in every randomisation trial."""
    _check_mean_rows(statistic, a, b)
    out_a, out_b = np.empty(len(keep)), np.empty(len(keep))
    if isinstance(statistic, str):
        sa, sb, n = clusters.sums(a), clusters.sums(b), float(len(a))
        for sl in _chunks(len(keep)):
            k = keep[sl]
            out_a[sl] = (k @ sa + (~k) @ sb) / n
            out_b[sl] = ((~k) @ sa + k @ sb) / n
        return out_a, out_b
    shape = (-1,) + (1,) * (a.ndim - 1)
    for t, kc in enumerate(keep):
        ki = kc[clusters.index].reshape(shape)
        out_a[t] = evaluate(statistic, np.where(ki, a, b))
        out_b[t] = evaluate(statistic, np.where(ki, b, a))
    return out_a, out_b
