"""Metric classes of the layout domain; their functional twins are in ``transcreval.functional.layout``."""
