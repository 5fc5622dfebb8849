"""PosterIQ's judge-driven metrics: JudgedPointScore, JudgedStyleScore, JudgedFontRichness."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import torch

from transcreval.core.result import MetricResult
from transcreval.core.states import Sum
from transcreval.functional.choice.style_score import POSTERIQ_STYLES
from transcreval.functional.judge.posteriq import (
    JudgedFontRichnessOptions,
    JudgedPointScoreOptions,
    JudgedStyleScoreOptions,
    Mode,
    judged_font_richness_from_stats,
    judged_font_richness_stats,
    judged_point_score_from_stats,
    judged_point_score_stats,
    judged_style_score_from_stats,
    judged_style_score_stats,
)
from transcreval.judge.judge_metric import JudgeMetric


class JudgedPointScore(JudgeMetric):
    """PosterIQ point score (Eq. 10) with a judge checking every key point, in [0, 1].

    ``update(preds, target)``: ``preds`` poster images (generation tasks) or model descriptions
    of posters (strings, understanding tasks); ``target`` the key points of each poster. One
    call per key point. ``mode="posteriq-code"`` reports the mean covered fraction instead
    (``extras["per_point"]`` either way). Equals :class:`~transcreval.PointScore` fed with the
    same verdicts.
    """

    options_class = JudgedPointScoreOptions
    options: JudgedPointScoreOptions
    side_totals = ("covered_fraction",)
    input_roles: ClassVar[Mapping[str, str]] = {"preds": "image_or_text", "target": "text"}

    def __init__(self, *, judge: Any, mode: Mode = "paper", **kwargs: Any) -> None:
        super().__init__(judge=judge, mode=mode, **kwargs)

    def _stats(self, preds: Sequence[Any], target: Sequence[Sequence[str]]) -> dict[str, Any]:
        """``preds``: posters or descriptions; ``target``: key points per poster."""
        return judged_point_score_stats(preds, target, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return judged_point_score_from_stats(stats, self.options)


class JudgedStyleScore(JudgeMetric):
    """PosterIQ style score (Eq. 13): accuracy of the judge's style label (one of ``labels``,
    default PosterIQ's 17 styles) against the target style, in [0, 1].
    ``update(preds, target)``: poster images, target styles."""

    options_class = JudgedStyleScoreOptions
    options: JudgedStyleScoreOptions
    input_roles: ClassVar[Mapping[str, str]] = {"preds": "image", "target": "text"}

    def __init__(self, *, judge: Any, labels: Sequence[str] = POSTERIQ_STYLES, **kwargs: Any) -> None:
        super().__init__(judge=judge, labels=labels, **kwargs)

    def _stats(self, preds: Sequence[Any], target: Sequence[str]) -> dict[str, Any]:
        """``preds``: poster images; ``target``: their intended styles."""
        return judged_style_score_stats(preds, target, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return judged_style_score_from_stats(stats, self.options)


class JudgedFontRichness(JudgeMetric):
    """PosterIQ font richness (Eq. 14-15): mean over ``vocabulary`` of the fraction of posters
    the judge describes with each attribute, in [0, 1]. ``update(preds)``: poster images.
    ``extras["coverage"]`` maps each attribute to its coverage."""

    options_class = JudgedFontRichnessOptions
    options: JudgedFontRichnessOptions
    side_counters = ("out_of_vocabulary",)
    input_roles: ClassVar[Mapping[str, str]] = {"preds": "image"}

    def __init__(self, *, judge: Any, vocabulary: Sequence[str], **kwargs: Any) -> None:
        super().__init__(judge=judge, vocabulary=vocabulary, **kwargs)
        self.add_state("attribute_counts", Sum(torch.int64, (len(self.options.vocabulary),)))

    def _stats(self, preds: Sequence[Any]) -> dict[str, Any]:
        """``preds``: poster images."""
        return judged_font_richness_stats(preds, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return judged_font_richness_from_stats(stats, self.options)
