"""WordRecall (PosterIQ Eq. 2), OCRRobustnessGap and FontSizeStability (PosterIQ Table 1)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from transcreval.core.aggregate_metric import AggregateMetric
from transcreval.core.common import Mode, OnUnreadable
from transcreval.core.metric import Metric
from transcreval.core.result import MetricResult
from transcreval.core.states import Cat, Sum
from transcreval.functional.text.word_recall import (
    PACKAGES,
    FontSizeStabilityOptions,
    WordRecallOptions,
    font_size_stability_from_stats,
    font_size_stability_stats,
    ocr_robustness_gap_from_stats,
    ocr_robustness_gap_stats,
    word_recall_from_stats,
    word_recall_stats,
)


class _Options:
    """The one options object of the word-recall family (``self.options``), in the signature."""

    options: WordRecallOptions
    version_packages: tuple[str, ...] = PACKAGES


class WordRecall(_Options, AggregateMetric):
    """Word-level OCR recall over ``unit``-character units (PosterIQ Eq. 2), mean over items,
    in [0, 1], higher is better.

    See :func:`transcreval.functional.word_recall` for the rule and both modes. ``per_item``
    holds each item's WR; ``extras["n_unparsable"]`` the items with no answer (None), scored 0
    (``on_unreadable="zero"``, the default) or left out (``"drop"``).
    """

    def __init__(
        self, *, unit: int = 5, mode: Mode = "paper", on_unreadable: OnUnreadable = "zero", **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.options = WordRecallOptions(unit, mode, on_unreadable)

    def _stats(self, preds: Sequence[str | None], target: Sequence[str]) -> dict[str, Any]:
        """``preds``: the model's transcriptions (None = no answer); ``target``: the ground-truth texts."""
        return word_recall_stats(preds, target, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return word_recall_from_stats(stats, self.options)


class OCRRobustnessGap(_Options, Metric):
    """Delta = mean WR on simple items - mean WR on hard items (PosterIQ Table 1), in [-1, 1],
    lower is better (more robust). ``extras`` holds ``simple_wr``, ``hard_wr``, ``n_unparsable``.
    """

    def __init__(
        self, *, unit: int = 5, mode: Mode = "paper", on_unreadable: OnUnreadable = "zero", **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.options = WordRecallOptions(unit, mode, on_unreadable)
        self.add_state("wr_sum", Sum(torch.float64, (2,)))
        self.add_state("count", Sum(torch.int64, (2,)))
        self.add_state("unparsable", Sum(torch.int64))

    def _stats(self, preds: Sequence[str | None], target: Sequence[str], split: Sequence[str]) -> dict[str, Any]:
        """``split[i]``: "simple" or "hard"."""
        return ocr_robustness_gap_stats(preds, target, split, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return ocr_robustness_gap_from_stats(stats, self.options)


class FontSizeStability(_Options, Metric):
    """Standard deviation of the per-font-size mean WR (PosterIQ Table 1 "Std"), in [0, 1],
    lower is better. ``extras["mean_wr"]`` is the mean of the per-size means and
    ``extras["per_size"]`` the means; ``ddof=1`` (sample std) as PosterIQ's code.
    """

    options: FontSizeStabilityOptions

    def __init__(
        self,
        *,
        unit: int = 5,
        mode: Mode = "paper",
        ddof: int = 1,
        on_unreadable: OnUnreadable = "zero",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.options = FontSizeStabilityOptions(unit, mode, on_unreadable, ddof)
        self.add_state("wr", Cat(torch.float64))
        self.add_state("size", Cat(torch.float64))
        self.add_state("unparsable", Sum(torch.int64))

    def _stats(self, preds: Sequence[str | None], target: Sequence[str], font_sizes: Sequence[float]) -> dict[str, Any]:
        """``font_sizes[i]``: the font size item ``i`` was rendered at."""
        return font_size_stability_stats(preds, target, font_sizes, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return font_size_stability_from_stats(stats, self.options)
