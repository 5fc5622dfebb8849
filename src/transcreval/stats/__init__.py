"""The stats domain: agreement-statistic metric classes, and the significance tests.

The metric classes (``SegmentKendallTau``, ``SpearmanRho``, ...) live in the modules of this
package; their functional twins are in ``transcreval.functional.stats``. The significance
tests (``paired_bootstrap``, ``paired_randomization``, ``bootstrap_interval``,
``compare_systems``, ``summarize``) live in :mod:`transcreval.significance` and are exported
here too, loaded on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = [
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

if TYPE_CHECKING:
    from transcreval.significance import (
        CellSummary,
        Comparison,
        Comparisons,
        Interval,
        PairedResult,
        bootstrap_interval,
        compare_systems,
        paired_bootstrap,
        paired_randomization,
        summarize,
    )


def __getattr__(name: str) -> Any:
    if name in __all__:
        value = getattr(importlib.import_module("transcreval.significance"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'transcreval.stats' has no attribute {name!r}")
