"""PosterIQ's judge-driven metrics: JudgedPointScore, JudgedStyleScore, JudgedFontRichness."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import torch

from transcreval.engines.judge.catalog import POSTERIQ_FONT, POSTERIQ_POINT_IMAGE, POSTERIQ_STYLE
from transcreval.errors import InputError
from transcreval.functional.choice.style_score import POSTERIQ_STYLES
from transcreval.functional.judge.posteriq import (
    POINT_FIELDS,
    Mode,
    judged_font_richness_from_stats,
    judged_font_richness_stats,
    judged_point_score_from_stats,
    judged_point_score_stats,
    judged_style_score_from_stats,
    judged_style_score_stats,
)
from transcreval.judge.judge_metric import JudgeMetric
from transcreval.result import MetricResult
from transcreval.state_checks import list_digest
from transcreval.states import Sum


class JudgedPointScore(JudgeMetric):
    """PosterIQ point score (Eq. 10) with a judge checking every key point, in [0, 1].

    ``update(preds, target)``: ``preds`` poster images (generation tasks) or model descriptions
    of posters (strings, understanding tasks); ``target`` the key points of each poster. One
    call per key point. ``mode="posteriq-code"`` reports the mean covered fraction instead
    (``extras["per_point"]`` either way). Equals :class:`~transcreval.PointScore` fed with the
    same verdicts.
    """

    default_template = POSTERIQ_POINT_IMAGE
    template_fields = POINT_FIELDS
    input_roles: ClassVar[Mapping[str, str]] = {"preds": "image_or_text", "target": "text"}

    def __init__(self, *, judge: Any, mode: Mode = "paper", **kwargs: Any) -> None:
        if mode not in ("paper", "posteriq-code"):
            raise InputError(f"mode must be 'paper' or 'posteriq-code', got {mode!r}")
        super().__init__(judge=judge, **kwargs)
        self.mode = mode
        self.add_state("covered_fraction", Sum(torch.float64))

    def _stats(self, preds: Sequence[Any], target: Sequence[Sequence[str]]) -> dict[str, Any]:
        """``preds``: posters or descriptions; ``target``: key points per poster."""
        return judged_point_score_stats(
            preds,
            target,
            **self._engine(),
        )

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return judged_point_score_from_stats(stats, self.signature, self.mode)

    def _metric_options(self) -> dict[str, Any]:
        return {"mode": self.mode}


class JudgedStyleScore(JudgeMetric):
    """PosterIQ style score (Eq. 13): accuracy of the judge's style label (one of ``labels``,
    default PosterIQ's 17 styles) against the target style, in [0, 1].
    ``update(preds, target)``: poster images, target styles."""

    default_template = POSTERIQ_STYLE
    input_roles: ClassVar[Mapping[str, str]] = {"preds": "image", "target": "text"}

    def __init__(self, *, judge: Any, labels: Sequence[str] = POSTERIQ_STYLES, **kwargs: Any) -> None:
        if labels is None or isinstance(labels, str) or len(list(labels)) < 2:
            raise InputError("labels must list the style names the judge chooses from (default: PosterIQ's 17)")
        super().__init__(judge=judge, **kwargs)
        self.labels = list(labels)

    def _stats(self, preds: Sequence[Any], target: Sequence[str]) -> dict[str, Any]:
        """``preds``: poster images; ``target``: their intended styles."""
        return judged_style_score_stats(
            preds,
            target,
            labels=self.labels,
            **self._engine(),
        )

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return judged_style_score_from_stats(stats, self.signature)

    def _metric_options(self) -> dict[str, Any]:
        labels = "posteriq17" if tuple(self.labels) == tuple(POSTERIQ_STYLES) else list_digest(self.labels)
        return {"labels": labels}


class JudgedFontRichness(JudgeMetric):
    """PosterIQ font richness (Eq. 14-15): mean over ``vocabulary`` of the fraction of posters
    the judge describes with each attribute, in [0, 1]. ``update(preds)``: poster images.
    ``extras["coverage"]`` maps each attribute to its coverage."""

    default_template = POSTERIQ_FONT
    input_roles: ClassVar[Mapping[str, str]] = {"preds": "image"}

    def __init__(self, *, judge: Any, vocabulary: Sequence[str], **kwargs: Any) -> None:
        if vocabulary is None or isinstance(vocabulary, str) or not list(vocabulary):
            raise InputError("vocabulary must list the font attributes (PosterIQ: 37)")
        super().__init__(judge=judge, **kwargs)
        self.vocabulary = list(vocabulary)
        self.add_state("attribute_counts", Sum(torch.int64, (len(self.vocabulary),)))
        self.add_state("out_of_vocabulary", Sum(torch.int64))

    def _stats(self, preds: Sequence[Any]) -> dict[str, Any]:
        """``preds``: poster images."""
        return judged_font_richness_stats(
            preds,
            vocabulary=self.vocabulary,
            **self._engine(),
        )

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return judged_font_richness_from_stats(stats, self.signature, self.vocabulary)

    def _metric_options(self) -> dict[str, Any]:
        return {"attrs": list_digest(self.vocabulary)}
