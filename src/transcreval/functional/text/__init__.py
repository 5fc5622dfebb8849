"""Functional twins of the text metrics (the mirror of ``transcreval.text``)."""
