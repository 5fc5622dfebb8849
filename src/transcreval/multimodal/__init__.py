"""Metric classes of the multimodal domain (image/text encoders).

Their functional twins are in ``transcreval.functional.multimodal``.
"""
