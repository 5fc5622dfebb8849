"""The base of the agreement-statistic classes: bootstrap options and per-item Cat states."""

from __future__ import annotations

from typing import Any, ClassVar

from transcreval.functional.stats.resampling import check_bootstrap
from transcreval.functional.stats.spearman import bootstrap_options
from transcreval.metric import Metric


class BootstrappedMetric(Metric):
    """A statistic over whole data sets, with an optional seeded bootstrap interval.

    Args:
        bootstrap: resamples for the percentile interval (0: none), in ``extras["ci"]``.
        seed: the resampling seed.
        confidence: the interval's coverage.
    """

    higher_is_better: bool | None = True
    value_range: ClassVar[tuple[float, float] | None] = (-1.0, 1.0)

    def __init__(self, *, bootstrap: int = 0, seed: int = 0, confidence: float = 0.95, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        check_bootstrap(bootstrap, seed, confidence)
        self.bootstrap, self.seed, self.confidence = bootstrap, seed, confidence

    def _boot(self) -> dict[str, Any]:
        return {"bootstrap": self.bootstrap, "seed": self.seed, "confidence": self.confidence}

    def _signature_options(self) -> dict[str, Any]:
        return bootstrap_options(self.bootstrap, self.seed, self.confidence)
