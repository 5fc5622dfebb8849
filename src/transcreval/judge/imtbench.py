"""HarmonizationScore (S_vis) and AlignmentScore (S_align): IMTBench's judge scores (§4, Eq. 4-5)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from transcreval.core.result import MetricResult
from transcreval.functional.judge.imtbench import (
    AlignmentScoreOptions,
    Combine,
    HarmonizationScoreOptions,
    alignment_score_stats,
    harmonization_score_stats,
    imtbench_from_stats,
)
from transcreval.judge.judge_metric import JudgeMetric


class HarmonizationScore(JudgeMetric):
    """S_vis (IMTBench Eq. 4): mean judged naturalness of the translated images / 10, in [0, 1].

    ``update(preds, target=None, translations=None)``: ``preds`` the translated images;
    ``target`` the reference images I_tgt the judge sees beside them (Eq. 4's
    ``g(I^_tgt, I_tgt)``; required with ``reference=True``, the default); ``translations`` only
    for templates that show the text (``"imtbench.joint-ref"``; ``"imtbench.joint"`` with
    ``reference=False``). ``reference=False`` scores the translated image alone (template
    ``imtbench.harmonization``: the behaviour before the reference role). ``combine``:
    "naturalness" (Eq. 4), "min" (min with the artifact score, as GEdit-Bench) or "mean".
    """

    options_class = HarmonizationScoreOptions
    options: HarmonizationScoreOptions
    input_roles: ClassVar[Mapping[str, str]] = {"preds": "image", "target": "image", "translations": "text"}

    def __init__(self, *, judge: Any, combine: Combine = "naturalness", reference: bool = True, **kwargs: Any) -> None:
        super().__init__(judge=judge, combine=combine, reference=reference, **kwargs)

    def _stats(self, preds: Any, target: Any = None, translations: Sequence[str] | None = None) -> dict[str, Any]:
        """``preds``: translated images; ``target``: reference images (with ``reference=True``);
        ``translations``: the system's texts (joint templates only)."""
        return harmonization_score_stats(preds, target, translations, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return imtbench_from_stats(stats, self.options)


class AlignmentScore(JudgeMetric):
    """S_align (IMTBench Eq. 5): mean judged agreement (0-10) / 10 between the text rendered in
    each translated image (``preds``) and the system's translation text (``translations``).

    ``update(preds, translations)``. Value in [0, 1], higher is better.
    """

    options_class = AlignmentScoreOptions
    options: AlignmentScoreOptions
    input_roles: ClassVar[Mapping[str, str]] = {"preds": "image", "translations": "text"}

    def _stats(self, preds: Any, translations: Sequence[str]) -> dict[str, Any]:
        """``preds``: translated images; ``translations``: the system's translation texts."""
        return alignment_score_stats(preds, translations, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return imtbench_from_stats(stats, self.options)
