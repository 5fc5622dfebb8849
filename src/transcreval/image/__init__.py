"""Image metric classes."""

from transcreval.image.phash import PHashDistance

__all__ = ["PHashDistance"]
