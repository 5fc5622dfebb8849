"""Functional twins of the multimodal metrics (the mirror of ``transcreval.multimodal``)."""
