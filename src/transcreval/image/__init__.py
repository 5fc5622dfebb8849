"""Metric classes of the image domain; their functional twins are in ``transcreval.functional.image``."""
