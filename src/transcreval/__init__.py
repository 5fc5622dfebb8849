"""transcreval: evaluation metrics for image transcreation.

Public names load lazily (PEP 562): ``import transcreval`` imports no torch, PIL, scipy or
model packages; ``from transcreval import TitleChrF`` imports only what that metric needs.
Every metric class is listed by :func:`list_metrics` (``transcreval list`` on the command line);
its functional twin is in :mod:`transcreval.functional`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from transcreval._version import __version__ as __version__
from transcreval.utils.lazy import lazy_exports

_SUBMODULES = (
    "cli",
    "core",
    "errors",
    "functional",
    "integrations",
    "io",
    "ocr",
    "protocols",
    "report",
    "runs",
    "significance",
    "stats",
    "utils",
)
if TYPE_CHECKING:
    from transcreval.choice.font_richness import FontRichness as FontRichness
    from transcreval.choice.k_option import KOptionScore as KOptionScore
    from transcreval.choice.point_score import PointScore as PointScore
    from transcreval.choice.style_score import StyleScore as StyleScore
    from transcreval.core.collection import MetricCollection as MetricCollection
    from transcreval.core.metric import Metric as Metric
    from transcreval.core.registry import MetricInfo as MetricInfo
    from transcreval.core.registry import get_metric as get_metric
    from transcreval.core.registry import list_metrics as list_metrics
    from transcreval.core.result import MetricResult as MetricResult
    from transcreval.core.result import Signature as Signature
    from transcreval.errors import EmptyInputError as EmptyInputError
    from transcreval.errors import ImageDecodeError as ImageDecodeError
    from transcreval.errors import InputError as InputError
    from transcreval.errors import MissingDependencyError as MissingDependencyError
    from transcreval.errors import UndefinedValueError as UndefinedValueError
    from transcreval.errors import WeightsNotFoundError as WeightsNotFoundError
    from transcreval.image.dinov2_distance import DINOv2Distance as DINOv2Distance
    from transcreval.image.fid import FID as FID
    from transcreval.image.lpips import LPIPS as LPIPS
    from transcreval.image.masked_lpips import BackgroundPreservation as BackgroundPreservation
    from transcreval.image.masked_lpips import MaskedLPIPS as MaskedLPIPS
    from transcreval.image.phash import PHashDistance as PHashDistance
    from transcreval.judge.csi_overlap import CSIOverlap as CSIOverlap
    from transcreval.judge.imtbench import AlignmentScore as AlignmentScore
    from transcreval.judge.imtbench import HarmonizationScore as HarmonizationScore
    from transcreval.judge.imtbench_score import IMTBenchScore as IMTBenchScore
    from transcreval.judge.judge_score import JudgeScore as JudgeScore
    from transcreval.judge.posteriq import JudgedFontRichness as JudgedFontRichness
    from transcreval.judge.posteriq import JudgedPointScore as JudgedPointScore
    from transcreval.judge.posteriq import JudgedStyleScore as JudgedStyleScore
    from transcreval.judge.quiz_hit_rate import QuizHitRate as QuizHitRate
    from transcreval.judge.title_extraction import TitleExtraction as TitleExtraction
    from transcreval.judge.transcreation_score import VLMTranscreationScore as VLMTranscreationScore
    from transcreval.judge.win_rate import MarketPreferenceRate as MarketPreferenceRate
    from transcreval.judge.win_rate import WinRate as WinRate
    from transcreval.layout.boxes import AreaRatio as AreaRatio
    from transcreval.layout.boxes import BoxRecallRate as BoxRecallRate
    from transcreval.layout.boxes import CenterBias as CenterBias
    from transcreval.layout.boxes import TextLocalizationIoU as TextLocalizationIoU
    from transcreval.layout.patches import MatchAccuracy as MatchAccuracy
    from transcreval.layout.patches import PatchIoU as PatchIoU
    from transcreval.multimodal.embedding_similarity import CLIPSimilarity as CLIPSimilarity
    from transcreval.multimodal.embedding_similarity import CulturalRelevanceDelta as CulturalRelevanceDelta
    from transcreval.multimodal.embedding_similarity import SemanticEquivalence as SemanticEquivalence
    from transcreval.multimodal.embedding_similarity import VisualSimilarity as VisualSimilarity
    from transcreval.ocr.mask_iou import OCRMaskIoU as OCRMaskIoU
    from transcreval.runs.api import Run as Run
    from transcreval.runs.api import evaluate as evaluate
    from transcreval.stats.kappa import QuadraticWeightedKappa as QuadraticWeightedKappa
    from transcreval.stats.kendall import SegmentKendallTau as SegmentKendallTau
    from transcreval.stats.rating_similarity import OverallRatingSimilarity as OverallRatingSimilarity
    from transcreval.stats.separability import SeparabilityAUC as SeparabilityAUC
    from transcreval.stats.spearman import SpearmanRho as SpearmanRho
    from transcreval.text.chrf import PlanChrF as PlanChrF
    from transcreval.text.chrf import TitleChrF as TitleChrF
    from transcreval.text.comet import COMETScore as COMETScore
    from transcreval.text.ocr_accuracy import OCRAccuracy as OCRAccuracy
    from transcreval.text.word_recall import FontSizeStability as FontSizeStability
    from transcreval.text.word_recall import OCRRobustnessGap as OCRRobustnessGap
    from transcreval.text.word_recall import WordRecall as WordRecall

__all__, __getattr__, __dir__ = lazy_exports(globals(), submodules=_SUBMODULES, also=["__version__"])
