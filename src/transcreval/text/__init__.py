"""Metric classes of the text domain; their functional twins are in ``transcreval.functional.text``."""
