"""transcreval: evaluation metrics for image transcreation.

Public names load lazily (PEP 562): ``import transcreval`` imports no torch, PIL, scipy or
model packages; ``from transcreval import TitleChrF`` imports only what that metric needs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from transcreval._version import __version__

_LAZY = {
    "Metric": "transcreval.metric",
    "MetricCollection": "transcreval.collection",
    "MetricResult": "transcreval.result",
    "Signature": "transcreval.result",
    "PHashDistance": "transcreval.image.phash",
    "TitleChrF": "transcreval.text.chrf",
    "PlanChrF": "transcreval.text.chrf",
    "KOptionScore": "transcreval.choice.k_option",
    "PointScore": "transcreval.choice.judged",
    "StyleScore": "transcreval.choice.judged",
    "FontRichness": "transcreval.choice.judged",
    "WordRecall": "transcreval.text.word_recall",
    "OCRRobustnessGap": "transcreval.text.word_recall",
    "FontSizeStability": "transcreval.text.word_recall",
    "TextLocalizationIoU": "transcreval.layout.boxes",
    "BoxRecallRate": "transcreval.layout.boxes",
    "CenterBias": "transcreval.layout.boxes",
    "AreaRatio": "transcreval.layout.boxes",
    "PatchIoU": "transcreval.layout.patches",
    "MatchAccuracy": "transcreval.layout.patches",
    "OverallRatingSimilarity": "transcreval.stats.agreement",
    "SpearmanRho": "transcreval.stats.agreement",
    "QuadraticWeightedKappa": "transcreval.stats.agreement",
    "SeparabilityAUC": "transcreval.stats.agreement",
    "SegmentKendallTau": "transcreval.stats.agreement",
    "InputError": "transcreval.errors",
    "ImageDecodeError": "transcreval.errors",
    "EmptyInputError": "transcreval.errors",
    "MissingDependencyError": "transcreval.errors",
}
_SUBMODULES = {
    "functional",
    "io",
    "errors",
    "states",
    "distributed",
    "metric",
    "result",
    "collection",
    "parsing",
    "protocols",
}

__all__ = [
    "AreaRatio",
    "BoxRecallRate",
    "CenterBias",
    "EmptyInputError",
    "FontRichness",
    "FontSizeStability",
    "ImageDecodeError",
    "InputError",
    "KOptionScore",
    "MatchAccuracy",
    "Metric",
    "MetricCollection",
    "MetricResult",
    "MissingDependencyError",
    "OCRRobustnessGap",
    "OverallRatingSimilarity",
    "PHashDistance",
    "PatchIoU",
    "PlanChrF",
    "PointScore",
    "QuadraticWeightedKappa",
    "SegmentKendallTau",
    "SeparabilityAUC",
    "Signature",
    "SpearmanRho",
    "StyleScore",
    "TextLocalizationIoU",
    "TitleChrF",
    "WordRecall",
    "__version__",
]

if TYPE_CHECKING:
    from transcreval.choice.judged import FontRichness, PointScore, StyleScore
    from transcreval.choice.k_option import KOptionScore
    from transcreval.collection import MetricCollection
    from transcreval.errors import EmptyInputError, ImageDecodeError, InputError, MissingDependencyError
    from transcreval.image.phash import PHashDistance
    from transcreval.layout.boxes import AreaRatio, BoxRecallRate, CenterBias, TextLocalizationIoU
    from transcreval.layout.patches import MatchAccuracy, PatchIoU
    from transcreval.metric import Metric
    from transcreval.result import MetricResult, Signature
    from transcreval.stats.agreement import (
        OverallRatingSimilarity,
        QuadraticWeightedKappa,
        SegmentKendallTau,
        SeparabilityAUC,
        SpearmanRho,
    )
    from transcreval.text.chrf import PlanChrF, TitleChrF
    from transcreval.text.word_recall import FontSizeStability, OCRRobustnessGap, WordRecall


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"transcreval.{name}")
    raise AttributeError(f"module 'transcreval' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY, *_SUBMODULES])
