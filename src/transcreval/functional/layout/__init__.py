"""Functional twins of the layout metrics (the mirror of ``transcreval.layout``)."""
