"""Text-fidelity metric classes."""

from transcreval.text.chrf import PlanChrF, TitleChrF
from transcreval.text.word_recall import FontSizeStability, OCRRobustnessGap, WordRecall

__all__ = ["FontSizeStability", "OCRRobustnessGap", "PlanChrF", "TitleChrF", "WordRecall"]
