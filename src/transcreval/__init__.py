"""transcreval: evaluation metrics for image transcreation.

Public names load lazily (PEP 562): ``import transcreval`` imports no torch, PIL, scipy or
model packages; ``from transcreval import TitleChrF`` imports only what that metric needs.
Every metric class is listed by :func:`list_metrics` (``transcreval list`` on the command line);
its functional twin is in :mod:`transcreval.functional`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from transcreval._version import __version__
from transcreval.registry import list_metrics as _list_metrics

_LAZY: dict[str, str] = {
    "Metric": "transcreval.metric",
    "MetricCollection": "transcreval.collection",
    "MetricResult": "transcreval.result",
    "Signature": "transcreval.result",
    "MetricInfo": "transcreval.registry",
    "get_metric": "transcreval.registry",
    "list_metrics": "transcreval.registry",
    "InputError": "transcreval.errors",
    "ImageDecodeError": "transcreval.errors",
    "EmptyInputError": "transcreval.errors",
    "UndefinedValueError": "transcreval.errors",
    "MissingDependencyError": "transcreval.errors",
    "WeightsNotFoundError": "transcreval.errors",
    "evaluate": "transcreval.runs.api",
    "Run": "transcreval.runs.api",
    **{m.name: m.module for m in _list_metrics()},
}
_SUBMODULES = (
    "collection",
    "common",
    "distributed",
    "errors",
    "functional",
    "integrations",
    "io",
    "metric",
    "ocr",
    "parsing",
    "protocols",
    "registry",
    "report",
    "result",
    "runs",
    "significance",
    "states",
    "stats",
)

__all__ = [
    "FID",
    "LPIPS",
    "AlignmentScore",
    "AreaRatio",
    "BackgroundPreservation",
    "BoxRecallRate",
    "CLIPSimilarity",
    "COMETScore",
    "CSIOverlap",
    "CenterBias",
    "CulturalRelevanceDelta",
    "DINOv2Distance",
    "EmptyInputError",
    "FontRichness",
    "FontSizeStability",
    "HarmonizationScore",
    "IMTBenchScore",
    "ImageDecodeError",
    "InputError",
    "JudgeScore",
    "JudgedFontRichness",
    "JudgedPointScore",
    "JudgedStyleScore",
    "KOptionScore",
    "MarketPreferenceRate",
    "MaskedLPIPS",
    "MatchAccuracy",
    "Metric",
    "MetricCollection",
    "MetricInfo",
    "MetricResult",
    "MissingDependencyError",
    "OCRAccuracy",
    "OCRMaskIoU",
    "OCRRobustnessGap",
    "OverallRatingSimilarity",
    "PHashDistance",
    "PatchIoU",
    "PlanChrF",
    "PointScore",
    "QuadraticWeightedKappa",
    "QuizHitRate",
    "Run",
    "SegmentKendallTau",
    "SemanticEquivalence",
    "SeparabilityAUC",
    "Signature",
    "SpearmanRho",
    "StyleScore",
    "TextLocalizationIoU",
    "TitleChrF",
    "TitleExtraction",
    "UndefinedValueError",
    "VLMTranscreationScore",
    "VisualSimilarity",
    "WeightsNotFoundError",
    "WinRate",
    "WordRecall",
    "__version__",
    "evaluate",
    "get_metric",
    "list_metrics",
]

if TYPE_CHECKING:
    from transcreval.choice.font_richness import FontRichness
    from transcreval.choice.k_option import KOptionScore
    from transcreval.choice.point_score import PointScore
    from transcreval.choice.style_score import StyleScore
    from transcreval.collection import MetricCollection
    from transcreval.errors import (
        EmptyInputError,
        ImageDecodeError,
        InputError,
        MissingDependencyError,
        UndefinedValueError,
        WeightsNotFoundError,
    )
    from transcreval.image.dinov2_distance import DINOv2Distance
    from transcreval.image.fid import FID
    from transcreval.image.lpips import LPIPS
    from transcreval.image.masked_lpips import BackgroundPreservation, MaskedLPIPS
    from transcreval.image.phash import PHashDistance
    from transcreval.judge.csi_overlap import CSIOverlap
    from transcreval.judge.imtbench import AlignmentScore, HarmonizationScore
    from transcreval.judge.imtbench_score import IMTBenchScore
    from transcreval.judge.judge_score import JudgeScore
    from transcreval.judge.posteriq import JudgedFontRichness, JudgedPointScore, JudgedStyleScore
    from transcreval.judge.quiz_hit_rate import QuizHitRate
    from transcreval.judge.title_extraction import TitleExtraction
    from transcreval.judge.transcreation_score import VLMTranscreationScore
    from transcreval.judge.win_rate import MarketPreferenceRate, WinRate
    from transcreval.layout.boxes import AreaRatio, BoxRecallRate, CenterBias, TextLocalizationIoU
    from transcreval.layout.patches import MatchAccuracy, PatchIoU
    from transcreval.metric import Metric
    from transcreval.multimodal.embedding_similarity import (
        CLIPSimilarity,
        CulturalRelevanceDelta,
        SemanticEquivalence,
        VisualSimilarity,
    )
    from transcreval.ocr.mask_iou import OCRMaskIoU
    from transcreval.registry import MetricInfo, get_metric, list_metrics
    from transcreval.result import MetricResult, Signature
    from transcreval.runs.api import Run, evaluate
    from transcreval.stats.kappa import QuadraticWeightedKappa
    from transcreval.stats.kendall import SegmentKendallTau
    from transcreval.stats.rating_similarity import OverallRatingSimilarity
    from transcreval.stats.separability import SeparabilityAUC
    from transcreval.stats.spearman import SpearmanRho
    from transcreval.text.chrf import PlanChrF, TitleChrF
    from transcreval.text.comet import COMETScore
    from transcreval.text.ocr_accuracy import OCRAccuracy
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
    return sorted({*__all__, *_SUBMODULES})
