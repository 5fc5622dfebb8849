"""VLMTranscreationScore: VLM scores of intent, creativity and cultural relevance (Khanuja et al. 2025)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from transcreval.core.options import option_property
from transcreval.core.result import MetricResult
from transcreval.engines.judge.roles import Texts
from transcreval.functional.judge.transcreation_score import (
    DIRECTION,
    FIELDS,
    Aspect,
    VLMTranscreationScoreOptions,
    transcreation_score_from_stats,
    transcreation_score_stats,
)
from transcreval.judge.judge_metric import JudgeMetric


class VLMTranscreationScore(JudgeMetric):
    """Mean 1-5 VLM score of transcreated images (``preds``) against their sources (``target``).

    ``aspect``: "intent" (same semantic category as the source, needs ``category``),
    "creativity" (amount of visual change; neither direction is better, needs ``category``) or
    "cultural" (relevance to ``country``; also reports ``extras["source_mean"]`` and
    ``extras["delta"]``). ``update(preds, target, category=None, country=None)``.
    """

    options_class = VLMTranscreationScoreOptions
    options: VLMTranscreationScoreOptions
    side_totals = ("source_total",)
    input_roles: ClassVar[Mapping[str, str]] = {"preds": "image", "target": "image", **dict.fromkeys(FIELDS, "text")}

    def __init__(self, *, judge: Any, aspect: Aspect = "cultural", **kwargs: Any) -> None:
        super().__init__(judge=judge, aspect=aspect, **kwargs)
        # the class's direction is None (the registry's); an instance has its aspect's
        self.higher_is_better = DIRECTION[self.aspect]

    aspect = option_property("aspect", "The aspect scored.")

    def _stats(self, preds: Any, target: Any, category: Texts = None, country: Texts = None) -> dict[str, Any]:
        """``preds``: transcreated images; ``target``: source images; category/country per item."""
        return transcreation_score_stats(preds, target, category=category, country=country, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return transcreation_score_from_stats(stats, self.options)
