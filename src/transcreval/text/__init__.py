"""Text-fidelity metric classes."""

from transcreval.text.chrf import PlanChrF, TitleChrF

__all__ = ["PlanChrF", "TitleChrF"]
