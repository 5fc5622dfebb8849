"""The stats domain: agreement-statistic metric classes, and the significance tests.

The metric classes (``SegmentKendallTau``, ``SpearmanRho``, ...) live in the modules of this
package; their functional twins are in ``transcreval.functional.stats``. The significance
tests (``paired_bootstrap``, ``paired_randomization``, ``bootstrap_interval``,
``compare_systems``, ``summarize``) live in :mod:`transcreval.significance` and are exported
here too, loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from transcreval.lazy import lazy_exports

_EXPORTS = {
    "CellSummary": "transcreval.significance.compare",
    "Comparison": "transcreval.significance.compare",
    "Comparisons": "transcreval.significance.compare",
    "compare_systems": "transcreval.significance.compare",
    "summarize": "transcreval.significance.compare",
    "Interval": "transcreval.significance.paired",
    "PairedResult": "transcreval.significance.paired",
    "bootstrap_interval": "transcreval.significance.paired",
    "paired_bootstrap": "transcreval.significance.paired",
    "paired_randomization": "transcreval.significance.paired",
}
__all__, __getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

# the same names for type checkers (tests/package/test_lazy_exports.py keeps this block equal to _EXPORTS)
if TYPE_CHECKING:
    from transcreval.significance.compare import CellSummary as CellSummary
    from transcreval.significance.compare import Comparison as Comparison
    from transcreval.significance.compare import Comparisons as Comparisons
    from transcreval.significance.compare import compare_systems as compare_systems
    from transcreval.significance.compare import summarize as summarize
    from transcreval.significance.paired import Interval as Interval
    from transcreval.significance.paired import PairedResult as PairedResult
    from transcreval.significance.paired import bootstrap_interval as bootstrap_interval
    from transcreval.significance.paired import paired_bootstrap as paired_bootstrap
    from transcreval.significance.paired import paired_randomization as paired_randomization
