"""Layout metric classes (PosterIQ Supp. B)."""

from transcreval.layout.boxes import AreaRatio, BoxRecallRate, CenterBias, TextLocalizationIoU
from transcreval.layout.patches import MatchAccuracy, PatchIoU

__all__ = ["AreaRatio", "BoxRecallRate", "CenterBias", "MatchAccuracy", "PatchIoU", "TextLocalizationIoU"]
