"""CSIOverlap: the share of culture-specific items replaced validly (Khanuja et al. 2025, §5.1)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from transcreval.core.result import MetricResult
from transcreval.engines.judge.roles import Texts
from transcreval.engines.judge.templates import PromptTemplate
from transcreval.functional.judge.csi_overlap import (
    CSIOverlapOptions,
    Matching,
    csi_overlap_from_stats,
    csi_overlap_stats,
)
from transcreval.judge.judge_metric import JudgeMetric


class CSIOverlap(JudgeMetric):
    """Mean per-image share of the source's culture-specific items (CSIs) that the output
    replaced with a valid replacement, in [0, 1], higher is better.

    ``update(preds, target, country=..., category=...)``: ``preds`` the transcreated images,
    ``target`` the sources. Three judge steps (objects, CSIs with replacements, matching); see
    :mod:`transcreval.functional.judge.csi_overlap`. ``matching="exact"`` replaces the third
    step by exact comparison of normalised names. ``templates={"objects"|"replacements"|"match":
    template}`` replaces a step's prompt. ``extras``: ``n_no_csi`` (sources without a CSI, not
    scored), ``csis``, ``replaced``, ``micro`` (replaced / csis), ``n_valid``, ``n_failed``,
    ``failures``.
    """

    options_class = CSIOverlapOptions
    options: CSIOverlapOptions
    side_counters = ("no_csi", "csis", "replaced")
    input_roles: ClassVar[Mapping[str, str]] = {
        "preds": "image",
        "target": "image",
        "country": "text",
        "category": "text",
    }

    def __init__(
        self,
        *,
        judge: Any,
        matching: Matching = "judge",
        templates: Mapping[str, PromptTemplate | str] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(judge=judge, matching=matching, templates=templates, **kwargs)

    def _stats(self, preds: Any, target: Any, country: Texts = None, category: Texts = None) -> dict[str, Any]:
        """``preds``: transcreated images; ``target``: source images; country and category per item."""
        return csi_overlap_stats(preds, target, country=country, category=category, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return csi_overlap_from_stats(stats, self.options)
