"""The stats domain: agreement-statistic metric classes, and the significance tests.

The metric classes (``SegmentKendallTau``, ``SpearmanRho``, ...) live in the modules of this
package; their functional twins are in ``transcreval.functional.stats``. ``judge_agreement``
(a judge's verdicts or scores against human ratings of the same items: accuracy, Cohen's kappa,
QWK with bootstrap intervals, overall and per label) is exported here. The significance
tests (``paired_bootstrap``, ``paired_randomization``, ``bootstrap_interval``,
``compare_systems``, ``summarize``) live in :mod:`transcreval.significance` and are exported
here too, loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from transcreval.utils.lazy import lazy_exports

if TYPE_CHECKING:
    from transcreval.functional.stats.agreement import Agreement as Agreement
    from transcreval.functional.stats.agreement import Estimate as Estimate
    from transcreval.functional.stats.agreement import judge_agreement as judge_agreement
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

__all__, __getattr__, __dir__ = lazy_exports(globals())
