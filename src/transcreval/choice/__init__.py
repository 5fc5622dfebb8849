"""Metric classes of the choice domain; their functional twins are in ``transcreval.functional.choice``."""
