"""Build any registered metric cheaply, for family-wide tests over the whole registry.

``build(name)`` returns an instance of the registered metric ``name``: core metrics with their
defaults (COMETScore and IMTBenchScore on the tiny offline COMET model: they need the comet
environment, see :mod:`tests._helpers.comet_env`), judge metrics with a scripted
:class:`~transcreval.judge.FunctionJudge`, and the metrics with model files on random-init
weights (no download): LPIPS trunks as in their docs pages, FID / DINOv2 / CLIP from
:mod:`tests._helpers.model_weights`. A test asserts that ``BUILDERS`` covers the registry, so a
new metric must add a line here (and then inherits every family-wide test that uses it).
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

import transcreval as T
from tests._helpers import model_weights as mw
from transcreval.core.metric import Metric


@functools.cache
def squeeze_trunk() -> dict[str, str]:
    """A random-init torchvision squeezenet trunk file (the LPIPS docs pages' recipe)."""
    import torchvision

    torch.manual_seed(0)
    path = Path(tempfile.mkdtemp(prefix="transcreval-every-metric-")) / "squeezenet-random.pth"
    torch.save(torchvision.models.squeezenet1_1().state_dict(), path)
    return {"torchvision-squeezenet1_1": str(path)}


@functools.cache
def tiny_comet() -> str:
    """The tiny offline COMET checkpoint (:mod:`tests._helpers.comet_model`; needs comet)."""
    from tests._helpers.comet_model import build_tiny_comet

    return str(build_tiny_comet(Path(tempfile.mkdtemp(prefix="transcreval-every-metric-")) / "comet"))


def _comet() -> Metric:
    return T.COMETScore("test/tiny-comet", checkpoint=tiny_comet())


def _judge() -> Any:
    from tests.judge.cases import answer
    from transcreval.judge import FunctionJudge

    return FunctionJudge(answer)


def _judge_metric(name: str) -> Callable[[], Metric]:
    def make() -> Metric:
        from tests.judge.cases import CASES

        return CASES[name][0](_judge())

    return make


BUILDERS: dict[str, Callable[[], Metric]] = {
    "PHashDistance": T.PHashDistance,
    "LPIPS": lambda: T.LPIPS(net="squeeze", weights=squeeze_trunk()),
    "MaskedLPIPS": lambda: T.MaskedLPIPS(net="squeeze", weights=squeeze_trunk()),
    "BackgroundPreservation": lambda: T.BackgroundPreservation(net="squeeze", weights=squeeze_trunk()),
    "FID": lambda: T.FID(weights=mw.inception_file()),
    "DINOv2Distance": lambda: T.DINOv2Distance(weights=mw.dinov2_file("timm")),
    "CLIPSimilarity": lambda: mw.clip_metric("transcreval.CLIPSimilarity", tiny="clip"),
    "VisualSimilarity": lambda: mw.clip_metric("transcreval.VisualSimilarity", tiny="clip"),
    "CulturalRelevanceDelta": lambda: mw.clip_metric("transcreval.CulturalRelevanceDelta", tiny="clip"),
    "SemanticEquivalence": lambda: mw.clip_metric(
        "transcreval.SemanticEquivalence", tiny="clip", template="a picture of {category}"
    ),
    "TitleChrF": T.TitleChrF,
    "PlanChrF": T.PlanChrF,
    "WordRecall": T.WordRecall,
    "OCRRobustnessGap": T.OCRRobustnessGap,
    "FontSizeStability": T.FontSizeStability,
    "KOptionScore": lambda: T.KOptionScore(k=4),
    "PointScore": T.PointScore,
    "StyleScore": T.StyleScore,
    "FontRichness": lambda: T.FontRichness(vocabulary=["bold", "serif"]),
    "TextLocalizationIoU": lambda: T.TextLocalizationIoU(top_n=3),
    "BoxRecallRate": T.BoxRecallRate,
    "CenterBias": T.CenterBias,
    "AreaRatio": T.AreaRatio,
    "PatchIoU": T.PatchIoU,
    "MatchAccuracy": T.MatchAccuracy,
    "OCRMaskIoU": T.OCRMaskIoU,
    "OverallRatingSimilarity": T.OverallRatingSimilarity,
    "SpearmanRho": T.SpearmanRho,
    "QuadraticWeightedKappa": T.QuadraticWeightedKappa,
    "SeparabilityAUC": T.SeparabilityAUC,
    "SegmentKendallTau": T.SegmentKendallTau,
    "OCRAccuracy": T.OCRAccuracy,
    "COMETScore": _comet,  # needs comet (tests._helpers.comet_env.NEEDS_COMET)
    **{
        name: _judge_metric(name)
        for name in (
            "TitleExtraction",
            "QuizHitRate",
            "JudgeScore",
            "WinRate",
            "MarketPreferenceRate",
            "VLMTranscreationScore",
            "CSIOverlap",
            "HarmonizationScore",
            "AlignmentScore",
            "JudgedPointScore",
            "JudgedStyleScore",
            "JudgedFontRichness",
            "IMTBenchScore",  # needs comet
        )
    },
}


def build(name: str) -> Metric:
    """An instance of the registered metric ``name`` (see the module docstring)."""
    return BUILDERS[name]()
