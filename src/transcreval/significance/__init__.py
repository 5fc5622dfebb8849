"""Significance for every metric: clustered paired bootstrap and approximate randomisation.

* :func:`paired_bootstrap`, :func:`paired_randomization`: system ``b`` against a baseline ``a``
  scored on the same items, resampling (or swapping) whole clusters of items that share a
  source; the statistic is the mean of per-item values or any set-level ``f(rows)`` (FID, a
  win rate, corpus chrF). ``compat="sacrebleu"`` gives sacrebleu's numbers.
* :func:`bootstrap_interval`: one system's value with its interval.
* :func:`compare_systems`, :func:`summarize`: the same over a protocol's per-item records.

The same names are exported from :mod:`transcreval.stats`. See ``docs/significance.md``.
"""

from __future__ import annotations

from transcreval.significance.compare import CellSummary, Comparison, Comparisons, compare_systems, summarize
from transcreval.significance.paired import (
    DEFAULT_SEED,
    Interval,
    PairedResult,
    bootstrap_interval,
    paired_bootstrap,
    paired_randomization,
)

__all__ = [
    "DEFAULT_SEED",
    "CellSummary",
    "Comparison",
    "Comparisons",
    "Interval",
    "PairedResult",
    "bootstrap_interval",
    "compare_systems",
    "paired_bootstrap",
    "paired_randomization",
    "summarize",
]
