"""Agreement and meta-evaluation statistic classes."""

from transcreval.stats.agreement import (
    OverallRatingSimilarity,
    QuadraticWeightedKappa,
    SegmentKendallTau,
    SeparabilityAUC,
    SpearmanRho,
)

__all__ = ["OverallRatingSimilarity", "QuadraticWeightedKappa", "SegmentKendallTau", "SeparabilityAUC", "SpearmanRho"]
