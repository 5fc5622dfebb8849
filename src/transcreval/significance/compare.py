"""Every system against a baseline, metric by metric, over a protocol's per-item records.

:func:`compare_systems` pairs each system's records with the baseline's by ``item_id`` (never
by position), clusters them by the records' ``group`` (the source item), and runs a paired
bootstrap or approximate randomisation test per metric. :func:`summarize` gives every
system x metric (optionally x a ``meta`` key such as ``"split"``) its value, bootstrap interval,
``n`` and ``n_missing``. Both return JSON-serialisable objects (``to_dict()``); the runner's
``compare`` writes them to ``comparisons.json`` and the report draws them.

A record with a status other than ``"ok"`` (NaN value) and an item that one side lacks are
both missing: the pair is dropped and counted, never silently left out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from transcreval.errors import InputError, UndefinedValueError
from transcreval.protocols.records import ItemRecord, ProtocolResult
from transcreval.significance.paired import (
    DEFAULT_SEED,
    Compat,
    bootstrap_interval,
    jsonable,
    paired_bootstrap,
    paired_randomization,
)
from transcreval.significance.resample import Statistic, check_options

__all__ = ["CellSummary", "Comparison", "Comparisons", "compare_systems", "min_clusters", "summarize"]

Test = Literal["bootstrap", "randomization"]


@dataclass(frozen=True)
class Comparison:
    """One system against the baseline on one metric (``delta = value - baseline_value``).

    ``note`` says why the numbers are NaN where no test could run (no paired item, an
    undefined statistic), or why the comparison cannot be significant: ``too_few_clusters``
    marks pairs from fewer source items than the test needs to reach ``p < alpha`` at all
    (:func:`min_clusters`); such a row is never ``significant``.
    """

    metric: str
    system: str
    baseline: str
    value: float
    baseline_value: float
    delta: float
    ci: tuple[float, float] | None
    value_ci: tuple[float, float] | None
    baseline_ci: tuple[float, float] | None
    p_value: float
    n: int
    n_missing: int
    n_groups: int
    significant: bool
    note: str = ""
    too_few_clusters: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {k: jsonable(v) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class Comparisons:
    """The comparisons of one run against one baseline, with the settings that produced them."""

    protocol: str
    baseline: str
    test: str
    n_resamples: int
    seed: int
    confidence: float
    alpha: float
    compat: str
    rows: tuple[Comparison, ...]

    def get(self, system: str, metric: str) -> Comparison:
        for r in self.rows:
            if r.system == system and r.metric == metric:
                return r
        raise KeyError(f"no comparison of system {system!r} on metric {metric!r} against {self.baseline!r}")

    @property
    def metrics(self) -> list[str]:
        return list(dict.fromkeys(r.metric for r in self.rows))

    @property
    def systems(self) -> list[str]:
        return list(dict.fromkeys(r.system for r in self.rows))

    def to_dict(self) -> dict[str, Any]:
        settings = {
            "test": self.test,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "confidence": self.confidence,
            "alpha": self.alpha,
            "compat": self.compat,
        }
        return {
            "protocol": self.protocol,
            "baseline": self.baseline,
            "settings": settings,
            "comparisons": [r.to_dict() for r in self.rows],
        }


@dataclass(frozen=True)
class CellSummary:
    """One system x metric (x group) cell: value, bootstrap interval, n, n_missing."""

    system: str
    metric: str
    group: str | None
    value: float
    ci: tuple[float, float] | None
    n: int
    n_missing: int

    def to_dict(self) -> dict[str, Any]:
        return {k: jsonable(v) for k, v in asdict(self).items()}


def _group_of(record: ItemRecord) -> str:
    return record.group if record.group is not None else record.item_id


def _by_id(result: ProtocolResult, system: str, metric: str) -> dict[str, ItemRecord]:
    out: dict[str, ItemRecord] = {}
    for r in result.select(system=system, metric=metric):
        if r.item_id in out:
            raise InputError(
                f"item {r.item_id!r} has two records for system {system!r}, metric {metric!r}: "
                "a protocol result holds one record per item x system x metric"
            )
        out[r.item_id] = r
    return out


def _values(records: Sequence[ItemRecord | None], row_key: str | None) -> Any:
    """Per-item values, or with ``row_key`` the per-item vectors in ``meta[row_key]`` (NaN rows where missing)."""
    if row_key is None:
        return [r.value if r is not None else math.nan for r in records]
    width = None
    for r in records:
        if r is not None and r.ok:
            if row_key not in r.meta:
                raise InputError(
                    f"record {r.item_id}/{r.system}/{r.metric} has no meta[{row_key!r}], which rows_from names"
                )
            width = len(r.meta[row_key])
            break
    if width is None:
        return [math.nan] * len(records)
    nan_row = [math.nan] * width
    return [list(r.meta[row_key]) if r is not None and r.ok else nan_row for r in records]


def _aligned(
    result: ProtocolResult, baseline: str, system: str, metric: str, row_key: str | None
) -> tuple[Any, Any, list[str]]:
    """Both systems' values on the union of their item ids (NaN where missing), and the groups."""
    base, other = _by_id(result, baseline, metric), _by_id(result, system, metric)
    ids = list(dict.fromkeys([*base, *other]))
    groups: list[str] = []
    for i in ids:
        ra, rb = base.get(i), other.get(i)
        ga = None if ra is None else _group_of(ra)
        gb = None if rb is None else _group_of(rb)
        if ga is not None and gb is not None and ga != gb:
            raise InputError(
                f"item {i!r} is in group {ga!r} for {baseline!r} but {gb!r} for {system!r} on {metric!r}: "
                "an item's group (its source item) must be the same for every system"
            )
        groups.append(ga if ga is not None else gb if gb is not None else i)
    a = _values([base.get(i) for i in ids], row_key)
    b = _values([other.get(i) for i in ids], row_key)
    return a, b, groups


def min_clusters(alpha: float) -> int:
    """The fewest source items (clusters) with which a paired test can call a difference
    significant at ``alpha``: with ``G`` clusters an exact randomisation test cannot give a
    p-value below ``2^(1-G)`` (swapping every cluster gives the same ``|delta|`` as swapping
    none), so ``2^(1-G) < alpha`` is needed (6 at ``alpha = 0.05``, 8 at 0.01). The bootstrap
    has no such floor but is over-confident there: the same bound applies to both tests."""
    g = 2
    while 2.0 ** (1 - g) >= alpha:
        g += 1
    return g


def _few_note(n_groups: int, need: int, alpha: float) -> str:
    items = "source item" if n_groups == 1 else "source items"
    return (
        f"only {n_groups} {items} (clusters): with G clusters no test can reach p below 2^(1-G), so "
        f"p < {alpha:g} needs at least {need}; never marked significant"
    )


def _pair_counts(a: Sequence[Any], b: Sequence[Any], groups: Sequence[str]) -> tuple[int, int, int]:
    """Pairs with both values, pairs missing one, and the clusters of the complete pairs."""
    both = [g for x, y, g in zip(a, b, groups) if not (_is_missing(x) or _is_missing(y))]
    return len(both), len(groups) - len(both), len(set(both))


def _no_test(
    metric: str, system: str, baseline: str, counts: tuple[int, int, int], note: str, need: int, alpha: float
) -> Comparison:
    nan = math.nan
    n, n_missing, n_groups = counts
    few = 0 < n_groups < need
    if few and n_groups < 2:  # the test refused one cluster: say so in the same words as other tiny samples
        note = _few_note(n_groups, need, alpha)
    return Comparison(
        metric, system, baseline, nan, nan, nan, None, None, None, nan, n, n_missing, n_groups, False, note, few
    )


def _is_missing(x: Any) -> bool:
    return any(math.isnan(v) for v in x) if isinstance(x, list) else math.isnan(x)


def _statistic(statistics: Mapping[str, Statistic] | None, metric: str) -> Statistic:
    return (statistics or {}).get(metric, "mean")


def compare_systems(
    result: ProtocolResult,
    baseline: str,
    *,
    systems: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    test: Test = "bootstrap",
    n_resamples: int | None = None,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
    alpha: float = 0.05,
    compat: Compat = "transcreval",
    statistics: Mapping[str, Statistic] | None = None,
    rows_from: Mapping[str, str] | None = None,
) -> Comparisons:
    """Compare every system with ``baseline`` on every metric of ``result``.

    Args:
        result: a protocol's output (its per-item records are used, not its tables).
        baseline: the baseline system's name.
        systems, metrics: restrict (and order) the comparisons; default: all, in record order. A
            system (or the baseline) with no record of a metric at all is never scored on it
            (MPTc's ``GT`` row has no ``title_chrf``): that pair has no row, rather than one
            counting every item missing. Failed items are records, so they still count.
        test: ``"bootstrap"`` (default; 1000 resamples) or ``"randomization"`` (10000 trials,
            intervals from 1000 bootstrap resamples).
        n_resamples: resamples / trials (default as above); seed, confidence: as in
            :func:`~transcreval.significance.paired_bootstrap`.
        alpha: ``significant`` is ``p_value < alpha``.
        statistics: per metric, a set-level statistic ``f(values) -> float`` over the per-item
            values (a win rate without ties, say) instead of the mean.
        rows_from: per metric, a ``meta`` key holding a per-item vector (sufficient statistics,
            such as chrF's n-gram counts) that the metric's statistic receives as rows instead
            of the values: corpus chrF compared this way gives sacrebleu's paired tests.
    """
    if test not in ("bootstrap", "randomization"):
        raise InputError(f"test must be 'bootstrap' or 'randomization', got {test!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise InputError(f"alpha must lie in (0, 1), got {alpha!r}")
    all_systems = list(dict.fromkeys(r.system for r in result.records))
    if baseline not in all_systems:
        raise InputError(f"baseline {baseline!r} has no records; the systems are {all_systems}")
    for s in systems or ():
        if s not in all_systems:
            raise InputError(f"system {s!r} has no records; the systems are {all_systems}")
    chosen = [s for s in (systems if systems is not None else all_systems) if s != baseline]
    metric_list = list(metrics) if metrics is not None else list(dict.fromkeys(r.metric for r in result.records))
    n_res = n_resamples if n_resamples is not None else (1000 if test == "bootstrap" else 10000)
    check_options("mean", n_res, seed, confidence, "n_resamples")  # refused once, before any metric
    run: Callable[..., Any] = paired_bootstrap if test == "bootstrap" else paired_randomization
    need = min_clusters(alpha)
    scored = {(r.metric, r.system) for r in result.records}
    rows = []
    for metric in metric_list:
        if (metric, baseline) not in scored:  # the baseline is never scored on it: nothing to pair with
            continue
        for system in chosen:
            if (metric, system) not in scored:  # never scored on it (MPTc's GT row has no title_chrf): no row
                continue
            a, b, groups = _aligned(result, baseline, system, metric, (rows_from or {}).get(metric))
            opts = {"statistic": _statistic(statistics, metric), "n_resamples": n_res, "seed": seed}
            try:
                res = run(a, b, groups, confidence=confidence, compat=compat, **opts)
            except UndefinedValueError as e:  # EmptyInputError included: no pair, one cluster, undefined statistic
                rows.append(_no_test(metric, system, baseline, _pair_counts(a, b, groups), str(e), need, alpha))
                continue
            few = res.n_groups < need
            rows.append(
                Comparison(
                    metric=metric,
                    system=system,
                    baseline=baseline,
                    value=res.value_b,
                    baseline_value=res.value_a,
                    delta=res.delta,
                    ci=res.ci,
                    value_ci=res.ci_b,
                    baseline_ci=res.ci_a,
                    p_value=res.p_value,
                    n=res.n,
                    n_missing=res.n_missing,
                    n_groups=res.n_groups,
                    significant=res.p_value < alpha and not few,
                    note=_few_note(res.n_groups, need, alpha) if few else "",
                    too_few_clusters=few,
                )
            )
    return Comparisons(result.protocol, baseline, test, n_res, seed, confidence, alpha, compat, tuple(rows))


def _group_key(record: ItemRecord, by: str | None) -> str | None:
    if by is None:
        return None
    return str(record.meta.get(by, "(none)"))


def summarize(
    result: ProtocolResult,
    *,
    by: str | None = None,
    n_resamples: int = 1000,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
    statistics: Mapping[str, Statistic] | None = None,
) -> list[CellSummary]:
    """Every system x metric (x value of ``meta[by]``) with its value and bootstrap interval.

    Records whose ``meta`` lacks ``by`` fall in the group ``"(none)"``. A cell whose items are
    all missing has value NaN, no interval and ``n == 0``.
    """
    cells: dict[tuple[str, str, str | None], list[ItemRecord]] = {}
    for r in result.records:
        cells.setdefault((r.system, r.metric, _group_key(r, by)), []).append(r)
    out = []
    for (system, metric, group), recs in cells.items():
        values = [r.value for r in recs]
        groups = [_group_of(r) for r in recs]
        n_missing = sum(1 for v in values if math.isnan(v))
        try:
            iv = bootstrap_interval(
                values,
                groups,
                statistic=_statistic(statistics, metric),
                n_resamples=n_resamples,
                seed=seed,
                confidence=confidence,
            )
        except UndefinedValueError:
            out.append(CellSummary(system, metric, group, math.nan, None, len(values) - n_missing, n_missing))
            continue
        out.append(CellSummary(system, metric, group, iv.value, iv.ci, iv.n, iv.n_missing))
    return out
