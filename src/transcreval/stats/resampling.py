"""The base of the agreement-statistic classes: bootstrap options and per-item Cat states."""

from __future__ import annotations

from typing import Any, ClassVar

import torch

from transcreval.core.metric import Metric
from transcreval.core.states import Cat
from transcreval.functional.stats.resampling import PACKAGES, BootstrapOptions


class BootstrappedMetric(Metric):
    """A statistic over whole data sets, with an optional seeded bootstrap interval.

    The options live in ``self.options`` (a :class:`~transcreval.functional.stats.resampling.BootstrapOptions`,
    or a subclass of it for a statistic with more options), the object its functional twin builds.
    The pairs are kept whole: ``preds`` (float64) and ``target`` (``target_dtype``) Cat states.

    Args:
        bootstrap: resamples for the percentile interval (0: none), in ``extras["ci"]``.
        seed: the resampling seed.
        confidence: the interval's coverage.
    """

    higher_is_better: bool | None = True
    value_range: ClassVar[tuple[float, float] | None] = (-1.0, 1.0)
    version_packages = PACKAGES
    target_dtype: ClassVar[torch.dtype] = torch.float64
    options: BootstrapOptions

    def __init__(self, *, bootstrap: int = 0, seed: int = 0, confidence: float = 0.95, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.options = BootstrapOptions(bootstrap=bootstrap, seed=seed, confidence=confidence)
        self.add_state("preds", Cat(torch.float64))
        self.add_state("target", Cat(self.target_dtype))
