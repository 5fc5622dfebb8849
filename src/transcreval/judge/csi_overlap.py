"""CSIOverlap: the share of culture-specific items replaced validly (Khanuja et al. 2025, §5.1)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import torch

from transcreval.engines.judge.roles import Texts
from transcreval.engines.judge.templates import PromptTemplate, resolve_template
from transcreval.errors import InputError
from transcreval.functional.judge.csi_overlap import STEPS, Matching, csi_overlap_from_stats, csi_overlap_stats
from transcreval.judge.judge_metric import JudgeMetric
from transcreval.result import MetricResult
from transcreval.states import Sum


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
        if matching not in ("judge", "exact"):
            raise InputError(f"matching must be 'judge' or 'exact', got {matching!r}")
        unknown = set(templates or {}) - set(STEPS)
        if unknown:
            raise InputError(f"templates may replace the steps {sorted(STEPS)}, not {sorted(unknown)}")
        if "template" in kwargs:
            raise InputError(
                "CSIOverlap has three prompts: pass templates={'objects': ..., 'replacements': ..., 'match': ...}"
            )
        super().__init__(judge=judge, **kwargs)
        self.matching = matching
        self.templates = dict(templates or {})
        for step, tpl in self.templates.items():
            resolve_template(tpl, STEPS[step], what="CSIOverlap")
        for name in ("no_csi", "csis", "replaced"):
            self.add_state(name, Sum(torch.int64))

    def _template_ref(self) -> str:
        steps = ("objects", "replacements", "match") if self.matching == "judge" else ("objects", "replacements")
        return "+".join(resolve_template(self.templates.get(s), STEPS[s]).ref for s in steps)

    def _stats(self, preds: Any, target: Any, country: Texts = None, category: Texts = None) -> dict[str, Any]:
        """``preds``: transcreated images; ``target``: source images; country and category per item."""
        engine: dict[str, Any] = {k: v for k, v in self._engine().items() if k != "template"}  # a template per step
        steps: dict[str, Any] = {"matching": self.matching, "templates": self.templates}
        return csi_overlap_stats(preds, target, country=country, category=category, **steps, **engine)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return csi_overlap_from_stats(stats, self.signature)

    def _metric_options(self) -> dict[str, Any]:
        return {"match": self.matching}
