"""Metric classes of the multimodal domain (image/text encoders); their functional twins are in ``transcreval.functional.multimodal``."""
