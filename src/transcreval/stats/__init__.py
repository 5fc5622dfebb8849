"""Metric classes of the stats domain; their functional twins are in ``transcreval.functional.stats``."""
