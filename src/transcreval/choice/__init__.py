"""Multiple-choice and judge-verdict metric classes."""

from transcreval.choice.judged import FontRichness, PointScore, StyleScore
from transcreval.choice.k_option import KOptionScore

__all__ = ["FontRichness", "KOptionScore", "PointScore", "StyleScore"]
