"""Multiple-choice metric classes."""

from transcreval.choice.k_option import KOptionScore

__all__ = ["KOptionScore"]
