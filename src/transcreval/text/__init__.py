"""Text-fidelity metric classes."""

from transcreval.text.chrf import PlanChrF, TitleChrF
from transcreval.text.word_recall import WordRecall

__all__ = ["PlanChrF", "TitleChrF", "WordRecall"]
