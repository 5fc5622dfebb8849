"""The options every feature metric takes, checked once, when the metric is built.

One convention for LPIPS, MaskedLPIPS, BackgroundPreservation, FID, DINOv2Distance and the
open_clip metrics (CLIPSimilarity, VisualSimilarity, CulturalRelevanceDelta,
SemanticEquivalence), and for their functional twins, under the same names:

* ``input_range``: the value range of float inputs, a (low, high) pair of finite numbers with
  low < high (a tuple or a list); stored as a tuple of floats, so it can key per-batch sharing;
* ``batch_size``: a positive integer (the network's batch size) or None (each update at once);
* ``feature_cache``: a :class:`~transcreval.features.FeatureCache`, a path (a FeatureCache is
  opened there), or None; the file is opened when the metric is built, so a path that cannot be
  used fails then, with the reason.

A bad value is an :class:`~transcreval.errors.InputError` naming the option.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from transcreval.core.common import check_positive_int
from transcreval.core.options import MetricOptions, option
from transcreval.errors import InputError
from transcreval.io.values import check_input_range  # the one input_range rule, re-exported here

if TYPE_CHECKING:
    from transcreval.features.cache import FeatureCache

__all__ = [
    "FeatureMetricOptions",
    "FeatureOptions",
    "check_batch_size",
    "check_input_range",
    "feature_options",
    "open_feature_cache",
]


def check_batch_size(value: Any) -> int | None:
    """``batch_size``: a positive integer or None."""
    return check_positive_int("batch_size", value, optional=True)


def open_feature_cache(value: Any) -> FeatureCache | None:
    """``feature_cache``: a FeatureCache (checked: its file opens), a path (opened as one) or None."""
    from transcreval.features.cache import FeatureCache

    if value is None:
        return None
    if isinstance(value, (str, os.PathLike)):
        value = FeatureCache(value)
    if not isinstance(value, FeatureCache):
        raise InputError(f"feature_cache must be a FeatureCache, a path to one, or None, got {type(value).__name__}")
    return value.check()


@dataclass(frozen=True)
class FeatureOptions:
    """Checked options of a feature metric (see the module docstring)."""

    input_range: tuple[float, float] | None = None
    batch_size: int | None = None
    feature_cache: FeatureCache | None = None

    def run_options(self) -> dict[str, Any]:
        """What :func:`transcreval.features.images.extract` and the encoders take."""
        return {"input_range": self.input_range, "batch_size": self.batch_size, "cache": self.feature_cache}


def feature_options(input_range: Any = None, batch_size: Any = None, feature_cache: Any = None) -> FeatureOptions:
    """Check the three options (InputError naming a bad one; FeatureCacheError for a cache file
    that cannot be used) and return them normalised."""
    return FeatureOptions(
        check_input_range(input_range), check_batch_size(batch_size), open_feature_cache(feature_cache)
    )


# ---- the same three options as a MetricOptions base, for the
# options object of each feature metric (FID, DINOv2Distance, the LPIPS family)
@dataclass(frozen=True)
class FeatureMetricOptions(MetricOptions):
    """Base of a feature metric's options object: ``input_range``, ``batch_size`` and
    ``feature_cache``, checked and normalised by :func:`feature_options` (left out of the
    signature: they do not change the values)."""

    input_range: Any = option(None, signature=None)
    batch_size: int | None = option(None, signature=None)
    feature_cache: Any = option(None, signature=None)

    def check(self) -> None:
        checked = feature_options(self.input_range, self.batch_size, self.feature_cache)
        for name in ("input_range", "batch_size", "feature_cache"):
            self.set_checked(name, getattr(checked, name))

    def run_options(self) -> dict[str, Any]:
        """What :func:`transcreval.features.images.extract` and the encoders take."""
        return FeatureOptions(self.input_range, self.batch_size, self.feature_cache).run_options()
